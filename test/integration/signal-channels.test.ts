/**
 * Signals from outside the database, through `cdc run` and `cdc snapshot` on the private MariaDB and kinesalite:
 * a blocking ad-hoc snapshot requested through the file channel (streaming pauses: the snapshot's `r` events are
 * contiguous, with Debezium's first/last markers, though a writer keeps changing the tables) and an incremental
 * one through a Kinesis stream channel, whose read position rides in the offsets so a restart does not act on
 * the signal again. The events rebuild the tables exactly.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Connection } from 'mysql2/promise';
import { createStream, kinesisClient } from '../harness/aws.js';
import { useKinesalite, useMariaDb } from '../harness/fixtures.js';
import type { MariaDbServer } from '../harness/mariadb.js';
import { waitFor } from '../harness/wait.js';
import type { SinkLine } from './support/capture.js';
import { readSinkLines, writePropertiesFile } from './support/capture.js';

const mariadb = useMariaDb();
const kinesis = useKinesalite();

type Value = {
  op: string;
  before: { id: number } | null;
  after: { id: number; v: string } | null;
  source: { snapshot?: string };
};

function values(lines: SinkLine[]): Array<{ topic: string; v: Value }> {
  return lines
    .filter((l) => l.value && 'op' in l.value)
    .map((l) => ({ topic: l.topic, v: l.value as unknown as Value }));
}

function rebuild(lines: SinkLine[], table: string): Map<number, string> {
  const state = new Map<number, string>();
  for (const { topic, v } of values(lines)) {
    if (!topic.endsWith(`.${table}`)) continue;
    if (v.op === 'd') state.delete(Number(v.before!.id));
    else state.set(Number(v.after!.id), String(v.after!.v));
  }
  return state;
}

async function tableState(s: MariaDbServer, db: string, table: string): Promise<Map<number, string>> {
  const rows = await s.query<Array<{ id: number; v: string }>>(`SELECT id, v FROM \`${db}\`.\`${table}\``);
  return new Map(rows.map((r) => [Number(r.id), String(r.v)]));
}

function cdc(
  args: string[],
  env: NodeJS.ProcessEnv,
): { child: ChildProcess; out: () => string; exit: Promise<number | null> } {
  const child = spawn(process.execPath, ['bin/cdc.js', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
  let text = '';
  child.stdout?.on('data', (d: Buffer) => {
    text += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    text += d.toString();
  });
  return { child, out: () => text, exit: new Promise((r) => child.on('exit', (code) => r(code))) };
}

function logs(text: string): Array<{ msg: string; [k: string]: unknown }> {
  return text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { msg: string });
}

class Writer {
  commits = 0;
  private stopped = false;
  private done: Promise<void> | undefined;
  constructor(
    private readonly conn: Connection,
    private readonly tables: string[],
  ) {}
  start(): void {
    this.done = (async () => {
      let next = 100_000;
      while (!this.stopped) {
        const t = this.tables[this.commits % this.tables.length];
        const id = 1 + ((this.commits * 7919) % 3000);
        if (this.commits % 5 === 0) await this.conn.query(`INSERT INTO ${t} VALUES (?, 'new')`, [next++]);
        else if (this.commits % 5 === 1) await this.conn.query(`DELETE FROM ${t} WHERE id = ?`, [id]);
        else await this.conn.query(`UPDATE ${t} SET v = CONCAT('u', ?) WHERE id = ?`, [this.commits, id]);
        this.commits++;
      }
    })();
  }
  async stop(): Promise<void> {
    this.stopped = true;
    await this.done;
  }
}

describe('signal channels', () => {
  it('blocking snapshot by file signal, incremental by Kinesis signal; a restart does not repeat it', {
    timeout: 180_000,
  }, async () => {
    const server = mariadb();
    const k = kinesis();
    const db = await server.createDatabase('sig');
    await server.query(`
      CREATE TABLE \`${db}\`.t1 (id INT PRIMARY KEY, v VARCHAR(40) NOT NULL);
      CREATE TABLE \`${db}\`.t2 (id INT PRIMARY KEY, v VARCHAR(40) NOT NULL);
      CREATE TABLE \`${db}\`.nopk (id INT, v VARCHAR(40) NOT NULL);`);
    for (const t of ['t1', 't2'])
      await server.query(`INSERT INTO \`${db}\`.${t} SELECT seq, CONCAT('v', seq) FROM \`${db}\`.seq_1_to_4000`);
    await server.query(`INSERT INTO \`${db}\`.nopk VALUES (1, 'a'), (2, 'b')`);
    const stream = `signals-${db}`;
    await createStream(kinesisClient(k.endpoint), stream, 2);

    const dir = mkdtempSync(join(tmpdir(), 'cdc-sig-'));
    const out = join(dir, 'events.ndjson');
    const signalFile = join(dir, 'signals.jsonl');
    const props: Record<string, string> = {
      name: `sig-${db}`,
      'topic.prefix': 'sig',
      'database.hostname': server.host,
      'database.port': String(server.port),
      'database.user': server.admin.user,
      'database.password': server.admin.password,
      'database.server.id': String(9700 + Math.floor(Math.random() * 200)),
      'database.include.list': db,
      'database.ssl.mode': 'disabled',
      'snapshot.mode': 'no_data',
      'snapshot.chunk.size': '500',
      'signal.enabled.channels': 'file,kinesis',
      'signal.file': signalFile,
      'signal.poll.interval.ms': '100',
      'signal.kinesis.stream.name': stream,
      'signal.kinesis.endpoint': k.endpoint,
      'signal.kinesis.region': k.region,
      'sink.type': 'file',
      'sink.file.path': out,
      'offset.storage.file.filename': join(dir, 'offsets.json'),
      'schema.history.internal.file.filename': join(dir, 'history.jsonl'),
      'offset.flush.interval.ms': '100',
      'log.format': 'json',
    };
    const config = join(dir, 'cdc.properties');
    writePropertiesFile(config, props);
    const env = {
      ...process.env,
      AWS_ACCESS_KEY_ID: k.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: k.credentials.secretAccessKey,
    };

    const conn = await server.connect();
    const writer = new Writer(conn, [`\`${db}\`.t1`, `\`${db}\`.t2`]);
    const run = cdc(['run', '--config', config, '--until-idle', '1500'], env);
    let stopped = false;
    try {
      await waitFor('streaming', () => logs(run.out()).some((l) => l.msg === 'streaming from the binlog'));
      writer.start();
      await waitFor('writer', () => writer.commits > 50);
      const blocking = cdc(
        ['snapshot', '--config', config, '--channel', 'file', '--type', 'blocking', '--tables', `${db}.t1,${db}.nopk`],
        env,
      );
      assert.equal(await blocking.exit, 0, blocking.out());
      assert.match(blocking.out(), /snapshot requested: id=.* type=blocking/);
      await waitFor('the blocking snapshot', () =>
        logs(run.out()).some((l) => /^blocking snapshot (completed|failed)/.test(l.msg)),
      );
      const incremental = cdc(['snapshot', '--config', config, '--channel', 'kinesis', '--tables', `${db}.t2`], env);
      assert.equal(await incremental.exit, 0, incremental.out());
      await waitFor('the incremental snapshot', () =>
        logs(run.out()).some((l) => l.msg === 'chunked snapshot completed'),
      );
      await writer.stop();
      stopped = true;
      assert.equal(await run.exit, 0, run.out().slice(-3000));
    } finally {
      if (!stopped) await writer.stop();
      await conn.end();
      if (run.child.exitCode === null) run.child.kill('SIGKILL');
    }
    const runLogs = logs(run.out());
    assert.ok(
      runLogs.some((l) => l.msg === 'blocking snapshot completed; streaming resumes'),
      'blocking completed',
    );
    const received = runLogs.filter((l) => l.msg === 'execute-snapshot signal received');
    assert.deepEqual(
      received.map((l) => [l.channel, l.kind]),
      [
        ['file', 'blocking'],
        ['kinesis', 'incremental'],
      ],
    );

    const lines = readSinkLines(out);
    const all = values(lines);
    // Blocking: the r events of t1 and nopk form one run with nothing streamed in between, markers as Debezium's.
    const blockingIdx = all
      .map((e, i) => ({ e, i }))
      .filter(({ e }) => e.v.op === 'r' && e.v.source.snapshot !== 'incremental')
      .map(({ i }) => i);
    const t1Reads = blockingIdx.filter((i) => all[i].topic.endsWith('.t1')).length;
    assert.ok(t1Reads > 3000, `blocking r events for t1: ${t1Reads}`);
    assert.equal(blockingIdx.filter((i) => all[i].topic.endsWith('.nopk')).length, 2, 'a table without a key too');
    assert.equal(
      blockingIdx.at(-1)! - blockingIdx[0] + 1,
      blockingIdx.length,
      'no streamed change inside the blocking snapshot',
    );
    const markers = blockingIdx.map((i) => all[i].v.source.snapshot);
    assert.equal(markers[0], 'first');
    assert.equal(markers.at(-1), 'last');
    assert.ok(
      markers.includes('last_in_data_collection') && markers.includes('first_in_data_collection'),
      'per-table markers',
    );
    assert.ok(blockingIdx[0] > 0 && blockingIdx.at(-1)! < all.length - 1, 'streamed changes before and after it');
    assert.ok(
      all.slice(blockingIdx.at(-1)! + 1).some((e) => e.v.op !== 'r'),
      'streaming resumed after the blocking snapshot',
    );
    const incrementalReads = all.filter((e) => e.topic.endsWith('.t2') && e.v.source.snapshot === 'incremental').length;
    assert.ok(incrementalReads > 3000, `incremental r events for t2: ${incrementalReads}`);
    for (const t of ['t1', 't2'])
      assert.deepEqual(rebuild(lines, t), await tableState(server, db, t), `${t} equals the table`);

    // The Kinesis read position is in the committed offset; a restart does not act on the signal again.
    const offsets = readFileSync(join(dir, 'offsets.json'), 'utf8');
    assert.match(offsets, /signal_offsets/);
    assert.match(offsets, /"kinesis"/);
    const again = cdc(['run', '--config', config, '--until-idle', '800'], env);
    assert.equal(await again.exit, 0, again.out().slice(-2000));
    assert.equal(logs(again.out()).filter((l) => l.msg === 'execute-snapshot signal received').length, 0);
    console.log(
      `blocking snapshot: ${blockingIdx.length} contiguous r events while the writer made ${writer.commits} commits; incremental via Kinesis: ${incrementalReads} r`,
    );
  });

  it('rejects a file channel without signal.file and an unknown channel, naming the properties', async () => {
    const { parseConfig } = await import('../../src/config/index.js');
    const base = { name: 'x', 'topic.prefix': 'x', 'database.hostname': 'h', 'database.user': 'u' };
    assert.throws(() => parseConfig({ ...base, 'signal.enabled.channels': 'file' }), /signal\.file/);
    assert.throws(
      () => parseConfig({ ...base, 'signal.enabled.channels': 'kinesis' }),
      /signal\.kinesis\.stream\.name/,
    );
    assert.throws(() => parseConfig({ ...base, 'signal.enabled.channels': 'source,jmx' }), /signal\.enabled\.channels/);
  });
});
