/**
 * The chunked (watermark, lock-free, resumable) snapshot end to end on MariaDB, through `cdc run` pipelines with
 * the file sink: consistency under a concurrent writer (state rebuilt from the events equals the table), writer
 * latency, kill -9 mid-table and resume at the next chunk, ad-hoc snapshots by signal, and when_needed after a
 * binlog purge.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Connection } from 'mysql2/promise';
import { startCapture } from '../../src/cli/commands/run.js';
import { main } from '../../src/cli/main.js';
import { createLogger, type Logger, silentLogger } from '../../src/common/logger.js';
import { useMariaDb } from '../harness/fixtures.js';
import type { MariaDbServer } from '../harness/mariadb.js';
import { type CaptureEnv, captureEnv, type SinkLine } from './support/capture.js';

const mariadb = useMariaDb({ options: { 'innodb-buffer-pool-size': '256M' } });

type State = Map<number, string>;

/** Applies the table's change events in order by key: r/c/u set the after image, d removes. */
function rebuild(lines: SinkLine[], table: string, col = 'v'): { state: State; reads: number[] } {
  const state: State = new Map();
  const reads: number[] = [];
  for (const l of lines) {
    if (!l.value || !l.topic.endsWith(`.${table}`) || !('op' in l.value)) continue;
    const v = l.value as { op: string; before: Record<string, unknown> | null; after: Record<string, unknown> | null };
    if (v.op === 'd') state.delete(Number(v.before!.id));
    else {
      if (v.op === 'u' && v.before && v.before.id !== v.after!.id) state.delete(Number(v.before.id));
      state.set(Number(v.after!.id), String(v.after![col]));
      if (v.op === 'r') reads.push(Number(v.after!.id));
    }
  }
  return { state, reads };
}

async function dbState(server: MariaDbServer, db: string, table: string, col = 'v'): Promise<State> {
  const rows = await server.query<Array<{ id: number; v: unknown }>>(
    `SELECT id, \`${col}\` AS v FROM \`${db}\`.\`${table}\``,
  );
  return new Map(rows.map((r) => [Number(r.id), String(r.v)]));
}

function assertSameState(actual: State, expected: State): void {
  const problems: string[] = [];
  for (const [k, v] of expected) if (actual.get(k) !== v) problems.push(`id=${k}: events ${actual.get(k)}, db ${v}`);
  for (const k of actual.keys()) if (!expected.has(k)) problems.push(`id=${k}: in events, not in db`);
  assert.equal(actual.size, expected.size, `rows: events ${actual.size}, db ${expected.size}; ${problems.slice(0, 5)}`);
  assert.deepEqual(problems.slice(0, 10), []);
}

/** Loads `rows` narrow rows quickly: INSERT ... SELECT doubling, then trim. */
async function fill(server: MariaDbServer, db: string, table: string, rows: number): Promise<void> {
  await server.query(`INSERT INTO \`${db}\`.\`${table}\` (id, v) VALUES (1, 'v1')`);
  let n = 1;
  while (n < rows) {
    await server.query(
      `INSERT INTO \`${db}\`.\`${table}\` (id, v) SELECT id + ${n}, CONCAT('v', id + ${n}) FROM \`${db}\`.\`${table}\` WHERE id <= ${rows - n}`,
    );
    n = Math.min(rows, n * 2);
  }
}

/** Random inserts/updates/deletes on `table` until stopped; records the slowest statement. */
class Writer {
  commits = 0;
  maxLatencyMs = 0;
  private stopped = false;
  private done: Promise<void> | undefined;
  private seed = 4242;
  constructor(
    private readonly conn: Connection,
    private readonly table: string,
    private nextId: number,
  ) {}
  private rand(n: number): number {
    this.seed = (this.seed * 1103515245 + 12345) % 2147483648;
    return this.seed % n;
  }
  private async exec(sql: string, params: unknown[]): Promise<void> {
    const t0 = performance.now();
    await this.conn.query(sql, params);
    this.maxLatencyMs = Math.max(this.maxLatencyMs, performance.now() - t0);
  }
  start(): void {
    this.done = (async () => {
      while (!this.stopped) {
        const id = 1 + this.rand(this.nextId - 1);
        switch (this.rand(4)) {
          case 0:
            await this.exec(`INSERT INTO ${this.table} (id, v) VALUES (?, 'new')`, [this.nextId++]);
            break;
          case 1:
            await this.exec(`DELETE FROM ${this.table} WHERE id = ?`, [id]);
            break;
          default:
            await this.exec(`UPDATE ${this.table} SET v = CONCAT('u', ?, '-', id) WHERE id IN (?, ?)`, [
              this.commits,
              id,
              id + 1,
            ]);
        }
        this.commits++;
      }
    })();
  }
  async stop(): Promise<void> {
    this.stopped = true;
    await this.done;
  }
}

async function waitFor(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function memoryLogger(): Logger & { lines: Array<{ msg: string; level: string; [k: string]: unknown }> } {
  const lines: Array<{ msg: string; level: string; [k: string]: unknown }> = [];
  const stream = {
    write(s: string) {
      for (const l of s.split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      return true;
    },
  } as unknown as NodeJS.WritableStream;
  const logger = createLogger({ level: 'debug', format: 'json', stream });
  return Object.assign(logger, { lines });
}

describe('chunked snapshot', () => {
  it('with a concurrent writer: events rebuild the exact table; the writer is never blocked', async () => {
    const server = mariadb();
    const db = await server.createDatabase('chunk');
    await server.query(`CREATE TABLE \`${db}\`.t (id INT PRIMARY KEY, v VARCHAR(40) NOT NULL)`);
    await server.query(`CREATE TABLE \`${db}\`.k2 (a INT, b VARCHAR(8), v INT, PRIMARY KEY (a, b))`);
    await server.query(`CREATE TABLE \`${db}\`.nopk (id INT, v VARCHAR(10))`);
    await fill(server, db, 't', 20_000);
    await server.query(
      `INSERT INTO \`${db}\`.k2 SELECT id % 50, CONCAT('b', id DIV 50), id FROM \`${db}\`.t WHERE id <= 2500`,
    );
    await server.query(`INSERT INTO \`${db}\`.nopk VALUES (1,'x'),(2,'y')`);
    const env = captureEnv(server, db, {
      'snapshot.chunked': 'true',
      'snapshot.chunk.size': '700',
      'snapshot.max.threads': '2',
    });
    const logger = memoryLogger();
    const conn = await server.connect();
    const writer = new Writer(conn, `\`${db}\`.t`, 20_001);
    writer.start();
    await waitFor('writer', () => writer.commits > 20);
    const handle = startCapture(env.config, logger, { untilIdleMs: 500 });
    const source = handle.source;
    await waitFor('chunks to be read', () => source.stats.RowsScanned > 3000);
    assert.equal(source.stats.SnapshotRunning, true);
    assert.equal(source.stats.TotalTableCount, 3, 'nopk (consistent) + t + k2 (chunked)');
    await waitFor('the chunked snapshot to finish', () => source.stats.SnapshotCompleted, 40_000);
    await writer.stop();
    await conn.end();
    await handle.done;

    const lines = env.lines();
    const { state, reads } = rebuild(lines, 't');
    assertSameState(state, await dbState(server, db, 't'));
    assert.ok(reads.length > 15_000, `r events: ${reads.length}`);
    assert.ok(writer.commits > 100, `writer commits during the snapshot: ${writer.commits}`);
    assert.ok(writer.maxLatencyMs < 500, `writer max latency ${writer.maxLatencyMs.toFixed(1)} ms`);
    const k2 = lines.filter((l) => l.topic.endsWith('.k2') && (l.value as { op?: string })?.op === 'r');
    assert.equal(k2.length, 2500);
    const nopk = lines.filter((l) => l.topic.endsWith('.nopk') && (l.value as { op?: string })?.op === 'r');
    assert.equal(nopk.length, 2);
    assert.ok(logger.lines.some((l) => l.level === 'warn' && /without a primary key/.test(l.msg)));
    const chunks = logger.lines.filter((l) => l.msg === 'chunk emitted');
    const dropped = chunks.reduce((n, l) => n + Number(l.dropped), 0);
    assert.ok(chunks.length >= 30, `chunks: ${chunks.length}`);
    const st = source.stats;
    assert.equal(st.SnapshotRunning, false);
    assert.equal(st.RemainingTableCount, 0);
    assert.ok(st.SnapshotTableProgress[`${db}.t`].rowsScanned >= 20_000);
    assert.ok(st.SnapshotDurationInSeconds > 0);
    console.log(
      `chunked+writer: ${reads.length} r, ${chunks.length} chunks, ${dropped} rows reconciled away, writer ${writer.commits} commits, max ${writer.maxLatencyMs.toFixed(1)} ms`,
    );
  });
});

export { type CaptureEnv, type ChildProcess, join, main, readFileSync, silentLogger, spawn, writeFileSync };
