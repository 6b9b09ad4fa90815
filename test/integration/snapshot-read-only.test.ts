/**
 * Read-only chunked and ad-hoc snapshots (read.only=true, GTID watermarks) through `cdc run`, against a MariaDB
 * replica with read_only=ON and a capture user granted only SELECT + REPLICATION SLAVE + REPLICATION CLIENT
 * (BINLOG MONITOR): writes go to the primary (its own replication domain, so the replica's GTID positions are the
 * primary's), the replica applies them, and the capture reads the replica's binlog and chunks. A writer changes
 * the tables during both snapshots; the events must rebuild exactly the table (no lost update, no stale read
 * emitted after a newer change).
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import type { Connection } from 'mysql2/promise';
import { useMariaDb } from '../harness/fixtures.js';
import type { Credentials, MariaDbServer } from '../harness/mariadb.js';
import { waitFor } from '../harness/wait.js';
import type { SinkLine } from './support/capture.js';
import { readSinkLines, writePropertiesFile } from './support/capture.js';

const primary = useMariaDb({ serverId: 31, options: { 'gtid-domain-id': 1 } });
const replica = useMariaDb({
  serverId: 32,
  options: { 'log-slave-updates': true, 'innodb-buffer-pool-size': '128M' },
});

async function variable(s: MariaDbServer, name: string): Promise<string> {
  const rows = await s.query<Array<{ v: string }>>(`SELECT @@global.${name} AS v`);
  return String(rows[0].v);
}

/** Replica caught up: it has applied everything the primary has logged in domain 1. */
async function synced(): Promise<boolean> {
  const want = (await variable(primary(), 'gtid_binlog_pos')).split(',').find((g) => g.startsWith('1-'));
  return !want || (await variable(replica(), 'gtid_slave_pos')).split(',').includes(want);
}

type State = Map<number, string>;

function rebuild(lines: SinkLine[], table: string): { state: State; reads: number } {
  const state: State = new Map();
  let reads = 0;
  for (const l of lines) {
    if (!l.value || !l.topic.endsWith(`.${table}`) || !('op' in l.value)) continue;
    const v = l.value as { op: string; before: { id: number } | null; after: { id: number; v: string } | null };
    if (v.op === 'd') state.delete(Number(v.before!.id));
    else {
      if (v.op === 'u' && v.before && v.before.id !== v.after!.id) state.delete(Number(v.before.id));
      state.set(Number(v.after!.id), String(v.after!.v));
      if (v.op === 'r') reads++;
    }
  }
  return { state, reads };
}

async function tableState(s: MariaDbServer, db: string, table: string): Promise<State> {
  const rows = await s.query<Array<{ id: number; v: string }>>(`SELECT id, v FROM \`${db}\`.\`${table}\``);
  return new Map(rows.map((r) => [Number(r.id), String(r.v)]));
}

function assertSameState(actual: State, expected: State, what: string): void {
  const problems: string[] = [];
  for (const [k, v] of expected) if (actual.get(k) !== v) problems.push(`id=${k}: events ${actual.get(k)}, db ${v}`);
  for (const k of actual.keys()) if (!expected.has(k)) problems.push(`id=${k}: in events, not in db`);
  assert.deepEqual(problems.slice(0, 10), [], `${what}: ${problems.length} rows differ`);
}

async function fill(s: MariaDbServer, table: string, rows: number): Promise<void> {
  await s.query(`INSERT INTO ${table} (id, v) VALUES (1, 'v1')`);
  for (let n = 1; n < rows; n = Math.min(rows, n * 2))
    await s.query(
      `INSERT INTO ${table} (id, v) SELECT id + ${n}, CONCAT('v', id + ${n}) FROM ${table} WHERE id <= ${rows - n}`,
    );
}

/** Random single-row and two-row changes on the primary until stopped. */
class Writer {
  commits = 0;
  private stopped = false;
  private done: Promise<void> | undefined;
  private seed = 97;
  constructor(
    private readonly conn: Connection,
    private readonly tables: Array<{ name: string; next: number }>,
  ) {}
  private rand(n: number): number {
    this.seed = (this.seed * 1103515245 + 12345) % 2147483648;
    return this.seed % n;
  }
  start(): void {
    this.done = (async () => {
      while (!this.stopped) {
        const t = this.tables[this.rand(this.tables.length)];
        const id = 1 + this.rand(t.next - 1);
        const op = this.rand(5);
        if (op === 0) await this.conn.query(`INSERT INTO ${t.name} (id, v) VALUES (?, 'new')`, [t.next++]);
        else if (op === 1) await this.conn.query(`DELETE FROM ${t.name} WHERE id = ?`, [id]);
        else
          await this.conn.query(`UPDATE ${t.name} SET v = CONCAT('u', ?, '-', id) WHERE id IN (?, ?)`, [
            this.commits,
            id,
            id + 1,
          ]);
        this.commits++;
      }
    })();
  }
  async stop(): Promise<void> {
    this.stopped = true;
    await this.done;
  }
}

interface Cdc {
  child: ChildProcess;
  logs: () => Array<{ msg: string; [k: string]: unknown }>;
  stderr: () => string;
  exit: Promise<number | null>;
}

function runCdc(config: string): Cdc {
  const child = spawn(process.execPath, ['bin/cdc.js', 'run', '--config', config, '--until-idle', '1500'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const exit = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const logs = () =>
    err
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg: string });
  return { child, logs, stderr: () => err, exit };
}

describe('read-only snapshots (read.only=true) on a MariaDB replica', () => {
  let ro: Credentials;
  before(async () => {
    const a = primary();
    const b = replica();
    await b.query(
      `CHANGE MASTER TO MASTER_HOST='${a.host}', MASTER_PORT=${a.port}, MASTER_USER='${a.admin.user}', ` +
        `MASTER_PASSWORD='${a.admin.password}', MASTER_USE_GTID=slave_pos`,
    );
    await b.query('START SLAVE');
    ro = await b.createUser('cdc_ro', ['SELECT', 'REPLICATION SLAVE', 'REPLICATION CLIENT']);
    await b.query('SET GLOBAL read_only = ON');
  });

  it('chunked initial snapshot and an ad-hoc snapshot by signal, with concurrent writes: events equal the table', {
    timeout: 180_000,
  }, async () => {
    const a = primary();
    const b = replica();
    const db = await a.createDatabase('ro');
    await a.query(`
      CREATE TABLE \`${db}\`.t (id INT PRIMARY KEY, v VARCHAR(40) NOT NULL);
      CREATE TABLE \`${db}\`.t2 (id INT PRIMARY KEY, v VARCHAR(40) NOT NULL);
      CREATE TABLE \`${db}\`.cdc_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);`);
    await fill(a, `\`${db}\`.t`, 20_000);
    await fill(a, `\`${db}\`.t2`, 6000);
    await waitFor('the replica to apply the tables', synced);

    // The capture user can write nothing on the replica.
    const roConn = await b.connect({ user: ro.user, password: ro.password });
    await assert.rejects(roConn.query(`INSERT INTO \`${db}\`.t VALUES (-1, 'x')`), /denied|read-only|read_only/i);
    await roConn.end();

    const dir = mkdtempSync(join(tmpdir(), 'cdc-ro-'));
    const out = join(dir, 'events.ndjson');
    const props: Record<string, string> = {
      name: `ro-${db}`,
      'topic.prefix': 'ro',
      'database.hostname': b.host,
      'database.port': String(b.port),
      'database.user': ro.user,
      'database.password': ro.password,
      'database.server.id': String(9100 + Math.floor(Math.random() * 500)),
      'database.include.list': db,
      'database.ssl.mode': 'disabled',
      'read.only': 'true',
      'snapshot.chunked': 'true',
      'snapshot.chunk.size': '500',
      'snapshot.locking.mode': 'none',
      'snapshot.include.collection.list': `${db}\\.t`,
      'signal.data.collection': `${db}.cdc_signal`,
      'sink.type': 'file',
      'sink.file.path': out,
      'offset.storage.file.filename': join(dir, 'offsets.json'),
      'schema.history.internal.file.filename': join(dir, 'history.jsonl'),
      'offset.flush.interval.ms': '100',
      'log.format': 'json',
      'log.level': 'debug',
    };
    const config = join(dir, 'cdc.properties');
    writePropertiesFile(config, props);

    const conn = await a.connect();
    const writer = new Writer(conn, [
      { name: `\`${db}\`.t`, next: 20_001 },
      { name: `\`${db}\`.t2`, next: 6001 },
    ]);
    writer.start();
    const cdc = runCdc(config);
    let writerStopped = false;
    try {
      const completed = () => cdc.logs().filter((l) => l.msg === 'chunked snapshot completed').length;
      await waitFor('the initial chunked snapshot', () => completed() >= 1 || cdc.child.exitCode !== null, 90_000);
      assert.equal(cdc.child.exitCode, null, cdc.stderr().slice(-3000));
      const initialCommits = writer.commits;
      // The signal is written on the primary by another user; the capture sees it replicated in the binlog.
      await a.query(`INSERT INTO \`${db}\`.cdc_signal VALUES ('adhoc-1', 'execute-snapshot', ?)`, [
        JSON.stringify({ 'data-collections': [`${db}.t2`], type: 'incremental' }),
      ]);
      await waitFor('the ad-hoc snapshot', () => completed() >= 2 || cdc.child.exitCode !== null, 90_000);
      assert.equal(cdc.child.exitCode, null, cdc.stderr().slice(-3000));
      await writer.stop();
      writerStopped = true;
      await waitFor('the replica to catch up', synced);
      assert.equal(await cdc.exit, 0, cdc.stderr().slice(-3000));
      assert.ok(initialCommits > 50 && writer.commits > initialCommits, `writer commits ${writer.commits}`);
    } finally {
      if (!writerStopped) await writer.stop();
      await conn.end();
      if (cdc.child.exitCode === null) cdc.child.kill('SIGKILL');
    }

    const lines = readSinkLines(out);
    const logs = cdc.logs();
    const strategy = logs.find((l) => l.msg === 'chunk watermarks') as { strategy?: string } | undefined;
    assert.equal(strategy?.strategy, 'gtid');
    const chunks = logs.filter((l) => l.msg === 'chunk emitted') as Array<{ hw?: string; dropped?: number }>;
    assert.ok(chunks.length >= 50, `chunks: ${chunks.length}`);
    assert.ok(
      chunks.every((c) => /^(\d+-\d+-\d+,?)+$/.test(c.hw ?? '')),
      `high watermarks are GTID positions: ${chunks[0]?.hw}`,
    );
    for (const [table, rows] of [
      ['t', 20_000],
      ['t2', 6000],
    ] as const) {
      const { state, reads } = rebuild(lines, table);
      assertSameState(state, await tableState(a, db, table), `${table} vs the primary`);
      assertSameState(state, await tableState(b, db, table), `${table} vs the replica`);
      assert.ok(reads > rows * 0.8, `${table}: ${reads} r events`);
    }
    const r = lines.find((l) => l.topic.endsWith('.t2') && (l.value as { op?: string })?.op === 'r');
    assert.ok(r, 'r events for t2');
    assert.equal((r.value as { source: { snapshot: string } }).source.snapshot, 'incremental');
    const dropped = chunks.reduce((n, c) => n + Number(c.dropped ?? 0), 0);
    console.log(
      `read-only on a replica: ${chunks.length} chunks, ${dropped} rows reconciled away, writer ${writer.commits} commits`,
    );
  });
});
