/** Renders change events for people: one line per event, colour on a TTY, and a running summary. */
import type { TailedRecord } from './stream-tail.js';

interface Envelope {
  op?: string;
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
  source?: { db?: string; table?: string; snapshot?: string; ts_ms?: number; file?: string; pos?: number };
  ddl?: string;
  databaseName?: string;
  ts_ms?: number;
}

const OPS: Record<string, string> = { r: 'READ  ', c: 'CREATE', u: 'UPDATE', d: 'DELETE' };

export class LiveView {
  readonly counts = { r: 0, c: 0, u: 0, d: 0, ddl: 0, tombstone: 0, other: 0 };
  private lags: number[] = [];
  constructor(
    private readonly out: NodeJS.WritableStream,
    private readonly color: boolean,
  ) {}

  private paint(code: number, s: string): string {
    return this.color ? `\u001b[${code}m${s}\u001b[0m` : s;
  }

  note(message: string): void {
    this.out.write(`${this.paint(36, '──')} ${message}\n`);
  }

  record(r: TailedRecord): void {
    if (r.data.length === 0) {
      this.counts.tombstone++;
      this.out.write(`  ${this.paint(90, 'TOMBSTONE')} key=${r.partitionKey}\n`);
      return;
    }
    let v: Envelope;
    try {
      v = JSON.parse(r.data.toString('utf8')) as Envelope;
    } catch {
      this.counts.other++;
      return;
    }
    if (v.ddl !== undefined) {
      this.counts.ddl++;
      this.out.write(`  ${this.paint(35, 'SCHEMA')} ${v.databaseName}: ${v.ddl.replace(/\s+/g, ' ').slice(0, 100)}\n`);
      return;
    }
    const op = v.op ?? '?';
    if (op in this.counts) this.counts[op as 'r']++;
    else this.counts.other++;
    const lag = v.source?.ts_ms ? Math.max(0, r.arrivedAt - v.source.ts_ms) : null;
    if (lag !== null && op !== 'r') this.lags.push(lag);
    const table = `${v.source?.db}.${v.source?.table}`;
    const colour = op === 'r' ? 32 : op === 'c' ? 32 : op === 'u' ? 33 : 31;
    const row = op === 'd' ? v.before : v.after;
    const detail =
      op === 'u' && v.before && v.after
        ? Object.keys(v.after)
            .filter((k) => JSON.stringify(v.before?.[k]) !== JSON.stringify(v.after?.[k]))
            .map((k) => `${k}: ${JSON.stringify(v.before?.[k])} → ${JSON.stringify(v.after?.[k])}`)
            .join(', ')
        : JSON.stringify(row);
    const lagText = op === 'r' || lag === null ? '' : this.paint(90, `  lag ${lag} ms`);
    this.out.write(`  ${this.paint(colour, OPS[op] ?? op)} ${table} key=${r.partitionKey} ${detail}${lagText}\n`);
  }

  summary(): string {
    const c = this.counts;
    const lag = this.lags.length ? `, lag median ${median(this.lags)} ms, max ${Math.max(...this.lags)} ms` : '';
    return `snapshot reads ${c.r}, creates ${c.c}, updates ${c.u}, deletes ${c.d}, tombstones ${c.tombstone}, schema changes ${c.ddl}${lag}`;
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
