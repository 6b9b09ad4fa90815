/**
 * XA transactions in the binlog. `XA PREPARE` ends a group of its own (MySQL: QUERY `XA START` ... QUERY
 * `XA END`, XA_PREPARE_LOG_EVENT; MariaDB 10.5+: a GTID flagged FL_PREPARED_XA instead of `XA START`); the
 * outcome comes later, in another group: QUERY `XA COMMIT xid` or `XA ROLLBACK xid`. Until then the rows are not
 * committed, so their records wait here, keyed by xid, and are emitted at XA COMMIT or dropped at XA ROLLBACK.
 * While a prepared transaction waits, no offset may pass its start (a restart re-reads its rows from there), so
 * offsets are held at the oldest one's start: a restart then repeats the transactions in between (at least once).
 * A one-phase XA COMMIT (XA_PREPARE_LOG_EVENT with one_phase) is an ordinary commit.
 */
import type { QueueItem } from '../../../model/queue-item.js';
import type { SourceOffset } from '../../../model/source-offset.js';

interface Prepared {
  items: QueueItem[];
  /** GTID of the prepared group: joins the executed set only once the outcome is known. */
  gtid: string;
  /** Where a restart must start to read the prepared rows again. */
  start: SourceOffset;
}

/** `X'6b6579',X'',1` / `'key','',1` / `'key'` → one canonical key (hex gtrid:bqual:formatId). */
export function xidKey(gtrid: Buffer, bqual: Buffer, formatId: number): string {
  return `${gtrid.toString('hex')}:${bqual.toString('hex')}:${formatId}`;
}

/** Parses the xid of `XA COMMIT|ROLLBACK <xid> [ONE PHASE]` as the server logs it; null when unreadable. */
export function parseXaOutcome(sql: string): { commit: boolean; onePhase: boolean; key: string } | null {
  const m = /^\s*XA\s+(COMMIT|ROLLBACK)\s+(.+?)(\s+ONE\s+PHASE)?\s*;?\s*$/is.exec(sql);
  if (!m) return null;
  const parts: Buffer[] = [];
  let formatId = 1;
  const lit = /\s*(?:[Xx]'([0-9a-fA-F]*)'|'((?:[^'\\]|''|\\.)*)'|(\d+))\s*(,|$)/y;
  let at = 0;
  const text = m[2];
  while (at < text.length) {
    lit.lastIndex = at;
    const p = lit.exec(text);
    if (!p) return null;
    if (p[1] !== undefined) parts.push(Buffer.from(p[1], 'hex'));
    else if (p[2] !== undefined) parts.push(Buffer.from(p[2].replace(/''/g, "'").replace(/\\(.)/g, '$1'), 'utf8'));
    else formatId = Number(p[3]);
    at = lit.lastIndex;
    if (p[4] === '') break;
  }
  if (parts.length === 0) return null;
  return {
    commit: m[1].toUpperCase() === 'COMMIT',
    onePhase: m[3] !== undefined,
    key: xidKey(parts[0], parts[1] ?? Buffer.alloc(0), formatId),
  };
}

export class XaTransactions {
  /** Inside the rows part of an XA transaction (between XA START and XA PREPARE). */
  open = false;
  private items: QueueItem[] = [];
  private readonly prepared = new Map<string, Prepared>();

  /** Rows of the open XA transaction are kept here instead of being emitted. */
  buffer(item: QueueItem): void {
    if (item.record) this.items.push({ record: item.record, offset: null });
  }

  /** XA PREPARE (not one-phase): the open transaction waits for its outcome. */
  prepare(key: string, gtid: string, start: SourceOffset): void {
    this.prepared.set(key, { items: this.items, gtid, start });
    this.items = [];
    this.open = false;
  }

  /** One-phase commit, or the end of the open transaction: its records, to emit now. */
  takeOpen(): QueueItem[] {
    const items = this.items;
    this.items = [];
    this.open = false;
    return items;
  }

  /** XA COMMIT / XA ROLLBACK of a prepared transaction; undefined when it was prepared before this stream began. */
  resolve(key: string): Prepared | undefined {
    const p = this.prepared.get(key);
    this.prepared.delete(key);
    return p;
  }

  /** The offset no checkpoint may pass while prepared transactions wait (the oldest one's start). */
  get hold(): SourceOffset | null {
    for (const p of this.prepared.values()) return p.start;
    return null;
  }

  /** Forget everything (the stream restarts from an offset, which re-reads what was pending). */
  reset(): void {
    this.open = false;
    this.items = [];
    this.prepared.clear();
  }
}
