/**
 * The chunked (watermark, lock-free, resumable) snapshot end to end on MariaDB, through `cdc run` pipelines with
 * the file sink: consistency under a concurrent writer (state rebuilt from the events equals the table), writer
 * latency, kill -9 mid-table and resume at the next chunk, chunks of wide rows bounded by their bytes, ad-hoc
 * snapshots by signal, and when_needed after a binlog purge.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { describe, it } from 'node:test';
import type { Connection } from 'mysql2/promise';
import { startCapture } from '../../src/cli/commands/run.js';
import { main } from '../../src/cli/main.js';
import { createLogger, type Logger, silentLogger } from '../../src/common/logger.js';
import { loadConfigWithSecrets } from '../../src/config/index.js';
import type { MySqlSource } from '../../src/source/mysql/mysql-source.js';
import { useMariaDb } from '../harness/fixtures.js';
import type { MariaDbServer } from '../harness/mariadb.js';
import { waitFor } from '../harness/wait.js';
import { captureEnv, readSinkLines, type SinkLine, writePropertiesFile } from './support/capture.js';

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
      // The no-PK table is read by the consistent snapshot: without a lock too, so nothing here may block.
      'snapshot.locking.mode': 'none',
    });
    const logger = memoryLogger();
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const conn = await server.connect();
    const writer = new Writer(conn, `\`${db}\`.t`, 20_001);
    writer.start();
    await waitFor('writer', () => writer.commits > 20);
    const handle = startCapture(env.config, logger, { untilIdleMs: 500 });
    const source = handle.source as MySqlSource;
    await waitFor('chunks to be read', () => source.metrics.snapshot.totalRowsScanned > 3000);
    assert.equal(source.metrics.snapshot.SnapshotRunning, true);
    assert.equal(source.metrics.snapshot.TotalTableCount, 3, 'nopk (consistent) + t + k2 (chunked)');
    await waitFor('the chunked snapshot to finish', () => source.metrics.snapshot.SnapshotCompleted, 40_000);
    await writer.stop();
    loop.disable();
    await conn.end();
    await handle.done;
    // The writer runs in this process: its latency includes this process's own event-loop stalls (the capture's
    // CPU work), which are not blocking by the database. Bound: the worst loop stall plus a margin.
    const loopMaxMs = loop.max / 1e6;

    const lines = env.lines();
    const { state, reads } = rebuild(lines, 't');
    assertSameState(state, await dbState(server, db, 't'));
    assert.ok(reads.length > 15_000, `r events: ${reads.length}`);
    assert.ok(writer.commits > 100, `writer commits during the snapshot: ${writer.commits}`);
    assert.ok(
      writer.maxLatencyMs < loopMaxMs + 250,
      `writer max latency ${writer.maxLatencyMs.toFixed(1)} ms, event-loop max stall ${loopMaxMs.toFixed(1)} ms`,
    );
    const k2 = lines.filter((l) => l.topic.endsWith('.k2') && (l.value as { op?: string })?.op === 'r');
    assert.equal(k2.length, 2500);
    const nopk = lines.filter((l) => l.topic.endsWith('.nopk') && (l.value as { op?: string })?.op === 'r');
    assert.equal(nopk.length, 2);
    assert.ok(logger.lines.some((l) => l.level === 'warn' && /without a primary key/.test(l.msg)));
    const chunks = logger.lines.filter((l) => l.msg === 'chunk emitted');
    const dropped = chunks.reduce((n, l) => n + Number(l.dropped), 0);
    assert.ok(chunks.length >= 30, `chunks: ${chunks.length}`);
    const st = source.metrics.snapshot;
    assert.equal(st.SnapshotRunning, false);
    assert.equal(st.RemainingTableCount, 0);
    assert.ok((st.RowsScanned[`${db}.t`] ?? 0) >= 20_000);
    assert.ok(st.SnapshotDurationInSeconds > 0);
    console.log(
      `chunked+writer: ${reads.length} r, ${chunks.length} chunks, ${dropped} rows reconciled away, writer ${writer.commits} commits, max ${writer.maxLatencyMs.toFixed(1)} ms (loop stall ${loopMaxMs.toFixed(1)} ms)`,
    );
  });
});

/** A .properties file for `cdc` against the harness server (file sink/offsets/history in `dir`). */
function writeConfig(server: MariaDbServer, db: string, dir: string, extra: Record<string, string>): string {
  const props: Record<string, string> = {
    name: `it-${db}`,
    'topic.prefix': 'it',
    'database.hostname': server.host,
    'database.port': String(server.port),
    'database.user': server.admin.user,
    'database.password': server.admin.password,
    'database.server.id': String(8000 + Math.floor(Math.random() * 1000)),
    'database.include.list': db,
    'database.ssl.mode': 'disabled',
    'sink.type': 'file',
    'sink.file.path': join(dir, 'events.ndjson'),
    'offset.storage.file.filename': join(dir, 'offsets.json'),
    'schema.history.internal.file.filename': join(dir, 'history.jsonl'),
    'offset.flush.interval.ms': '100',
    'log.format': 'json',
    ...extra,
  };
  const file = join(dir, 'cdc.properties');
  writePropertiesFile(file, props);
  return file;
}

function runCdc(config: string): { child: ChildProcess; stderr: () => string; exit: Promise<number | null> } {
  const child = spawn(process.execPath, ['bin/cdc.js', 'run', '--config', config, '--until-idle', '1000'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const exit = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, stderr: () => err, exit };
}

describe('chunked snapshot: kill -9 and resume', () => {
  it('resumes at the next chunk of a 200,000-row table and converges to the exact table', async () => {
    const server = mariadb();
    const db = await server.createDatabase('kill');
    await server.query(`CREATE TABLE \`${db}\`.big (id INT PRIMARY KEY, v VARCHAR(12) NOT NULL)`);
    await fill(server, db, 'big', 200_000);
    const env = captureEnv(server, db); // for its temp dir
    const out = join(env.dir, 'events.ndjson');
    const config = writeConfig(server, db, env.dir, { 'snapshot.chunked': 'true', 'snapshot.chunk.size': '10000' });

    const first = runCdc(config);
    // Kill once a chunk's progress is committed: the sink runs ahead of the offset commits (at-least-once), and on
    // a loaded machine many chunks can be in the sink before the first commit lands.
    const committedChunks = () => {
      try {
        const o = JSON.parse(readFileSync(join(env.dir, 'offsets.json'), 'utf8')) as {
          offset?: { snapshot_chunks?: Record<string, { after: unknown[] | null }> };
        };
        return o.offset?.snapshot_chunks?.[`${db}.big`]?.after != null;
      } catch {
        return false; // not written yet
      }
    };
    await waitFor(
      'a committed chunk and some snapshot rows from the first run',
      () => committedChunks() && readSinkLines(out).length >= 20_000,
      40_000,
    );
    first.child.kill('SIGKILL');
    assert.equal(await first.exit, null, 'killed, not exited');
    const firstCount = readSinkLines(out).length;
    const committed = JSON.parse(readFileSync(join(env.dir, 'offsets.json'), 'utf8'));
    const chunks = JSON.stringify(committed);
    assert.match(chunks, /snapshot_chunks/, `committed offset carries progress: ${chunks.slice(0, 300)}`);

    // Changes while the capture is down, to early (already snapshotted) and late rows.
    await server.query(`UPDATE \`${db}\`.big SET v = 'changed' WHERE id IN (5, 150000)`);
    await server.query(`DELETE FROM \`${db}\`.big WHERE id IN (7, 160000)`);
    await server.query(`INSERT INTO \`${db}\`.big VALUES (200001, 'new')`);

    const second = runCdc(config);
    assert.equal(await second.exit, 0, second.stderr().slice(-2000));
    const logs = second
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg: string; tables?: Record<string, { after: Array<{ i: string }> }> });
    const resumed = logs.find((l) => l.msg === 'resuming chunked snapshot');
    assert.ok(resumed, 'the restart logs that it resumes');
    const resumeAfter = Number(resumed.tables?.[`${db}.big`].after[0].i);
    assert.ok(resumeAfter >= 10_000, `resumed after id ${resumeAfter}`);

    const all = readSinkLines(out);
    const secondReads = rebuild(all.slice(firstCount), 'big').reads;
    assert.ok(secondReads.length > 0);
    // No spread: the restart may read well over 100k rows, more arguments than the stack takes.
    const minRead = secondReads.reduce((a, b) => Math.min(a, b), Number.POSITIVE_INFINITY);
    assert.ok(minRead > resumeAfter, `the restart re-read nothing before the resume point (min id ${minRead})`);
    assert.ok(secondReads.length <= 200_001 - resumeAfter, `restart read ${secondReads.length} rows`);
    const { state } = rebuild(all, 'big');
    assertSameState(state, await dbState(server, db, 'big'));
    console.log(
      `kill -9 after ${firstCount} lines; resumed after id ${resumeAfter}; restart read ${secondReads.length} rows`,
    );
  });
});

describe('chunked snapshot of wide rows', () => {
  it('a chunk ends at 16 MiB of row bytes: 36 rows of 1 MB in three or more chunks, each row read once', async () => {
    const server = mariadb();
    const db = await server.createDatabase('wide');
    await server.query(`CREATE TABLE \`${db}\`.w (id INT PRIMARY KEY, v MEDIUMTEXT NOT NULL)`);
    for (let i = 1; i <= 36; i += 6) {
      const ids = [0, 1, 2, 3, 4, 5].map((k) => `(${i + k}, CONCAT('${i + k}:', REPEAT('x', 1000000)))`);
      await server.query(`INSERT INTO \`${db}\`.w VALUES ${ids.join(', ')}`);
    }
    const env = captureEnv(server, db);
    const config = writeConfig(server, db, env.dir, { 'snapshot.chunked': 'true', 'snapshot.chunk.size': '1000' });
    const run = runCdc(config);
    assert.equal(await run.exit, 0, run.stderr().slice(-2000));
    const done = run
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg: string; table?: string; rows?: number; chunks?: number })
      .find((l) => l.msg === 'table snapshotted' && l.table === `${db}.w`);
    assert.ok(done, 'the table was snapshotted');
    assert.equal(done.rows, 36);
    assert.ok((done.chunks ?? 0) >= 3, `${done.chunks} chunks (at most 17 rows of 1 MB fit in 16 MiB)`);
    const { state, reads } = rebuild(readSinkLines(join(env.dir, 'events.ndjson')), 'w');
    assert.deepEqual(
      [...reads].sort((a, b) => a - b),
      Array.from({ length: 36 }, (_, i) => i + 1),
      'every row read exactly once',
    );
    assert.ok([...state].every(([id, v]) => v.startsWith(`${id}:`) && v.length === `${id}:`.length + 1_000_000));
  });
});

describe('ad-hoc snapshots and when_needed', () => {
  it('cdc snapshot --tables signals the running capture, which snapshots those tables while streaming', async () => {
    const server = mariadb();
    const db = await server.createDatabase('adhoc');
    await server.query(`
      CREATE TABLE \`${db}\`.t1 (id INT PRIMARY KEY, v VARCHAR(12) NOT NULL);
      CREATE TABLE \`${db}\`.t2 (id INT PRIMARY KEY, v VARCHAR(12) NOT NULL);
      CREATE TABLE \`${db}\`.cdc_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);`);
    await fill(server, db, 't1', 5000);
    await fill(server, db, 't2', 300);
    const env = captureEnv(server, db);
    const config = writeConfig(server, db, env.dir, {
      'snapshot.mode': 'no_data',
      'snapshot.chunk.size': '400',
      'signal.data.collection': `${db}.cdc_signal`,
    });
    const cfg = await loadConfigWithSecrets({ file: config, env: {} });
    const handle = startCapture(cfg, silentLogger);
    const out = join(env.dir, 'events.ndjson');
    try {
      await waitFor('streaming', () => handle.source.metrics.phase === 'streaming');
      await server.query(`UPDATE \`${db}\`.t1 SET v = 'before' WHERE id = 1`);
      let stdout = '';
      const io = {
        stdout: {
          write: (s: string) => {
            stdout += s;
            return true;
          },
        } as unknown as NodeJS.WritableStream,
        stderr: process.stderr,
        env: {},
      };
      assert.equal(await main(['snapshot', '--config', config, '--tables', `${db}.t1`], io), 0);
      assert.match(stdout, /snapshot requested: id=/);
      await server.query(`UPDATE \`${db}\`.t1 SET v = 'during' WHERE id IN (2, 4999)`);
      await server.query(`DELETE FROM \`${db}\`.t1 WHERE id = 3`);
      await waitFor('the ad-hoc snapshot', () => rebuild(readSinkLines(out), 't1').reads.length >= 4995, 20_000);
      await waitFor('it to complete', () => !handle.source.metrics.snapshot.SnapshotRunning);
      await server.query(`INSERT INTO \`${db}\`.t1 VALUES (9000, 'after')`);
      await waitFor('the insert after the snapshot', () =>
        readSinkLines(out).some((l) => (l.value as { after?: { id?: number } })?.after?.id === 9000),
      );
    } finally {
      handle.stop();
      await handle.done;
    }
    const lines = readSinkLines(out);
    const { state, reads } = rebuild(lines, 't1');
    assertSameState(state, await dbState(server, db, 't1'));
    assert.ok(reads.length >= 4995 && reads.length <= 5000, `r events ${reads.length}`);
    assert.equal(rebuild(lines, 't2').reads.length, 0, 't2 was not requested');
    const r = lines.find((l) => (l.value as { op?: string })?.op === 'r')!.value as { source: { snapshot: string } };
    assert.equal(r.source.snapshot, 'incremental');
    assert.equal(await main(['snapshot', '--config', config, '--tables', 'nodot'], { ...process, env: {} }), 2);
  });

  it('after PURGE BINARY LOGS past the offset: when_needed snapshots again, initial fails naming the fix', async () => {
    const server = mariadb();
    const db = await server.createDatabase('purge');
    await server.query(`CREATE TABLE \`${db}\`.t (id INT PRIMARY KEY, v VARCHAR(12) NOT NULL)`);
    await fill(server, db, 't', 100);
    const env = captureEnv(server, db);
    const first = await env.runUntilIdle();
    assert.equal(rebuild(first, 't').reads.length, 100);

    await server.query(`UPDATE \`${db}\`.t SET v = 'lost' WHERE id = 1`);
    await server.query('FLUSH BINARY LOGS');
    const [{ Log_name: newest }] = (await server.query<Array<{ Log_name: string }>>('SHOW BINARY LOGS')).slice(-1);
    // A dump thread the server has not yet noticed is gone keeps its binlog file from being purged.
    await waitFor('the old binlogs to be purged', async () => {
      const dumps = await server.query<Array<{ Id: number }>>(
        "SELECT ID AS Id FROM information_schema.PROCESSLIST WHERE COMMAND LIKE 'Binlog Dump%'",
      );
      for (const d of dumps) await server.query(`KILL ${d.Id}`).catch(() => {});
      await server.query(`PURGE BINARY LOGS TO '${newest}'`);
      return (await server.query<unknown[]>('SHOW BINARY LOGS')).length === 1;
    });
    await server.query(`DELETE FROM \`${db}\`.t WHERE id = 2`);

    // Same stores as the first run, snapshot.mode=initial.
    const logger = silentLogger;
    const failing = startCapture({ ...env.config, snapshot: { ...env.config.snapshot, mode: 'initial' } }, logger, {
      untilIdleMs: 300,
    });
    await assert.rejects(failing.done, (err: Error) => {
      assert.match(err.message, /snapshot\.mode=when_needed/);
      assert.match(err.message, /purged/);
      return true;
    });

    const again = startCapture({ ...env.config, snapshot: { ...env.config.snapshot, mode: 'when_needed' } }, logger, {
      untilIdleMs: 300,
    });
    await again.done;
    const lines = env.lines().slice(first.length);
    const { state, reads } = rebuild(lines, 't');
    assert.equal(reads.length, 99, 'a new snapshot of the table as it is now');
    assertSameState(state, await dbState(server, db, 't'));
  });

  it('a paused chunked snapshot stays paused across a restart (the pause is in the offset) until resume-snapshot', async () => {
    const server = mariadb();
    const db = await server.createDatabase('pausekept');
    await server.query(`
      CREATE TABLE \`${db}\`.t (id INT PRIMARY KEY, v VARCHAR(12) NOT NULL);
      CREATE TABLE \`${db}\`.cdc_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);`);
    await fill(server, db, 't', 300);
    const env = captureEnv(server, db, {
      'snapshot.mode': 'no_data',
      'snapshot.chunk.size': '50',
      'signal.data.collection': `${db}.cdc_signal`,
    });
    const offsets = join(env.dir, 'offsets.json');
    const signal = (id: string, type: string, data: object) => [id, type, JSON.stringify(data)];
    const reads = () => rebuild(env.lines(), 't').reads.length;

    const first = startCapture(env.config, silentLogger);
    try {
      await waitFor('streaming', () => first.source.metrics.phase === 'streaming');
      // The pause is in the same INSERT as the request: it takes effect before the first chunk.
      const rows = [
        signal('inc-1', 'execute-snapshot', { 'data-collections': [`${db}.t`], type: 'incremental' }),
        signal('p-1', 'pause-snapshot', { type: 'incremental' }),
      ];
      await server.query(`INSERT INTO \`${db}\`.cdc_signal VALUES (?,?,?),(?,?,?)`, rows.flat());
      await waitFor('the pause', () => first.source.metrics.snapshot.SnapshotPaused);
      await waitFor('an offset with the paused snapshot', () => {
        try {
          return readFileSync(offsets, 'utf8').includes('snapshot_chunks');
        } catch {
          return false;
        }
      });
    } finally {
      first.stop();
      await first.done;
    }
    const readBeforeRestart = reads();
    assert.ok(readBeforeRestart < 300, `the snapshot finished before the pause (${readBeforeRestart} rows)`);

    const second = startCapture(env.config, silentLogger);
    try {
      await waitFor('streaming after the restart', () => second.source.metrics.phase === 'streaming');
      // A change streamed after the restart: the resumed snapshot had the chance to read chunks by then.
      await server.query(`INSERT INTO \`${db}\`.t VALUES (100000, 'after')`);
      await waitFor('the insert after the restart', () =>
        env.lines().some((l) => (l.value as { after?: { id?: number } })?.after?.id === 100000),
      );
      assert.equal(second.source.metrics.snapshot.SnapshotPaused, true, 'still paused after the restart');
      assert.equal(reads(), readBeforeRestart, 'no chunk read while paused');
      await server.query(
        `INSERT INTO \`${db}\`.cdc_signal VALUES (?,?,?)`,
        signal('r-1', 'resume-snapshot', { type: 'incremental' }),
      );
      await waitFor('the resumed snapshot', () => !second.source.metrics.snapshot.SnapshotRunning && reads() >= 300);
    } finally {
      second.stop();
      await second.done;
    }
    assert.doesNotMatch(readFileSync(offsets, 'utf8'), /snapshot_chunks/, 'the finished snapshot left the offset');
    assertSameState(rebuild(env.lines(), 't').state, await dbState(server, db, 't'));
  });
});
