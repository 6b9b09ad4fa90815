/**
 * The Vitess source end to end through `cdc run`, against the VTGate stand-in (a grpc-js server speaking the real
 * Vitess protos): copy phase, streaming with Debezium Vitess envelopes, DDL, resume from the stored VGTID after
 * kill -9 with nothing lost, and a reshard JOURNAL that moves the stream to the new shards.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startCapture } from '../../src/cli/commands/run.js';
import { silentLogger } from '../../src/common/logger.js';
import { parseConfig } from '../../src/config/index.js';
import { type Cell, type StandinTable, VtgateStandin } from '../harness/vtgate-standin.js';
import { pollUntil } from '../harness/wait.js';
import type { SinkLine } from './support/capture.js';
import { readSinkFile, spawnCapture } from './support/child-capture.js';

const KS = 'commerce';
const NOT_NULL = 1;
const PRI = 2;

const CUSTOMER: StandinTable = {
  name: 'customer',
  fields: [
    { name: 'id', type: 'INT64', flags: NOT_NULL | PRI, column_type: 'bigint' },
    { name: 'email', type: 'VARCHAR', flags: 0, column_type: 'varchar(64)' },
    { name: 'balance', type: 'DECIMAL', flags: 0, column_type: 'decimal(10,2)' },
    { name: 'tier', type: 'ENUM', flags: 0, column_type: "enum('free','pro')" },
    { name: 'created', type: 'DATETIME', flags: NOT_NULL, column_type: 'datetime(6)', decimals: 6 },
    { name: 'small', type: 'INT8', flags: 0, column_type: 'tinyint' },
  ],
};

const row = (id: number, email = `c${id}@x.io`): Cell[] => [
  String(id),
  email,
  `${id}.50`,
  'pro',
  '2024-05-06 07:08:09.123456',
  '7',
];

function vitessProps(dir: string, port: number, extra: Record<string, string> = {}): Record<string, string> {
  return {
    name: 'vitess-it',
    'connector.class': 'io.debezium.connector.vitess.VitessConnector',
    'topic.prefix': 'vt',
    'database.hostname': '127.0.0.1',
    'database.port': String(port),
    'database.user': 'cdc',
    'database.password': 'secret',
    'vitess.keyspace': KS,
    'sink.type': 'file',
    'sink.file.path': join(dir, 'events.ndjson'),
    'offset.storage.file.filename': join(dir, 'offsets.json'),
    'offset.flush.interval.ms': '50',
    ...extra,
  };
}

const dataLines = (lines: SinkLine[]) => lines.filter((l) => l.topic === `vt.${KS}.customer`);
const idOf = (l: SinkLine) => Number((l.key as { id: number }).id);

describe('Vitess source through cdc run (VTGate stand-in)', () => {
  let vtgate: VtgateStandin;
  before(async () => {
    vtgate = new VtgateStandin({
      keyspace: KS,
      shards: ['-80', '80-'],
      tables: [CUSTOMER],
      credentials: { user: 'cdc', password: 'secret' },
    });
    await vtgate.start();
  });
  after(() => vtgate.stop());

  it('copies the keyspace (copy phase), then streams changes and DDL with Debezium Vitess envelopes', async () => {
    for (let i = 1; i <= 5; i++) vtgate.commit(i % 2 ? '-80' : '80-', [{ table: 'customer', after: row(i) }]);
    const dir = mkdtempSync(join(tmpdir(), 'cdc-vt-'));
    const config = parseConfig(vitessProps(dir, vtgate.port, { 'include.schema.changes': 'true' }));
    const out = join(dir, 'events.ndjson');
    const handle = startCapture(config, silentLogger);
    try {
      assert.ok(await pollUntil(() => dataLines(readSinkFile(out).lines).length >= 5, 10_000), 'copy rows');
      vtgate.commit('-80', [{ table: 'customer', before: row(1), after: row(1, 'new@x.io') }]);
      vtgate.commit('80-', [{ table: 'customer', before: row(2) }]);
      vtgate.ddl('ALTER TABLE customer ADD COLUMN note varchar(10)');
      assert.ok(await pollUntil(() => readSinkFile(out).lines.filter((l) => l.topic === 'vt').length >= 2, 10_000));
    } finally {
      handle.stop();
      await handle.done;
    }
    // The source's metric objects: the copy phase is the snapshot; the stream counts the two transactions.
    const { phase, snapshot, streaming, schemaHistory } = handle.source.metrics;
    assert.equal(phase, 'stopped');
    assert.deepEqual(
      [snapshot.SnapshotCompleted, snapshot.SnapshotRunning, snapshot.SnapshotAborted],
      [true, false, false],
    );
    assert.deepEqual(snapshot.RowsScanned, { [`${KS}.customer`]: 5 });
    assert.ok(snapshot.SnapshotDurationInSeconds > 0);
    assert.ok(streaming.NumberOfCommittedTransactions >= 2, `${streaming.NumberOfCommittedTransactions}`);
    assert.equal(streaming.BinlogFilename, 'vitess');
    assert.match(String(streaming.GtidSet), /"shard":"-80"/, 'the VGTID');
    assert.equal(schemaHistory, null, 'VStream keeps no schema history');
    const lines = readSinkFile(out).lines;
    const data = dataLines(lines);
    const copied = data.slice(0, 5);
    assert.deepEqual(
      copied.map((l) => (l.value as { op: string }).op),
      ['c', 'c', 'c', 'c', 'c'],
      'copy rows are creates, as Debezium Vitess emits them',
    );
    assert.deepEqual(copied.map(idOf).sort(), [1, 2, 3, 4, 5]);
    const first = copied.find((l) => idOf(l) === 1) as SinkLine;
    const v = first.value as Record<string, unknown>;
    assert.deepEqual(Object.keys(v), ['before', 'after', 'source', 'transaction', 'op', 'ts_ms', 'ts_us', 'ts_ns']);
    assert.deepEqual(v.after, {
      id: 1,
      email: 'c1@x.io',
      balance: '1.50',
      tier: 'pro',
      created: Date.UTC(2024, 4, 6, 7, 8, 9) * 1000 + 123456,
      small: 7,
    });
    const src = v.source as Record<string, unknown>;
    assert.deepEqual(Object.keys(src), [
      'version',
      'connector',
      'name',
      'ts_ms',
      'snapshot',
      'db',
      'sequence',
      'ts_us',
      'ts_ns',
      'keyspace',
      'table',
      'shard',
      'vgtid',
    ]);
    assert.equal(src.connector, 'vitess');
    assert.equal(src.db, '');
    assert.equal(src.keyspace, KS);
    assert.equal(src.table, 'customer');
    assert.equal(src.shard, '-80');
    const vg = JSON.parse(src.vgtid as string) as Array<Record<string, unknown>>;
    assert.deepEqual(Object.keys(vg[0]), ['keyspace', 'shard', 'gtid', 'table_p_ks']);
    assert.deepEqual(first.key, { id: 1 });

    const streamed = data.slice(5);
    const ops = streamed.map((l) => (l.value === null ? 'tombstone' : (l.value as { op: string }).op));
    assert.deepEqual(ops, ['u', 'd', 'tombstone']);
    const upd = streamed[0].value as { before: { email: string }; after: { email: string }; source: { shard: string } };
    assert.equal(upd.before.email, 'c1@x.io');
    assert.equal(upd.after.email, 'new@x.io');
    assert.equal(upd.source.shard, '-80');
    assert.equal((streamed[1].value as { source: { shard: string } }).source.shard, '80-');
    // Stable event ids: copied rows by their key, streamed changes by shard position, row event, row and part.
    const eventIds = data.map((l) => String(l.headers?.['__cdc.id']));
    assert.equal(new Set(eventIds).size, data.length, `ids are distinct: ${eventIds.join(' ')}`);
    assert.match(eventIds[0], /\/copy\/customer\/\{"id":\d+\}\/0$/);
    assert.match(eventIds[5], new RegExp(`^${KS}/-80@.+/0/0/0$`));
    assert.ok(eventIds[7].endsWith('/1'), 'the tombstone has its own id');

    const ddl = lines.filter((l) => l.topic === 'vt');
    assert.equal(ddl.length, 2, 'one schema change per shard');
    assert.deepEqual(ddl[0].key, { databaseName: KS });
    assert.equal((ddl[0].value as { ddl: string }).ddl, 'ALTER TABLE customer ADD COLUMN note varchar(10)');
    assert.equal((ddl[0].value as { source: { table: string } }).source.table, 'customer');

    const stored = JSON.parse(readFileSync(join(dir, 'offsets.json'), 'utf8')) as {
      offset: { file: string; vgtid: string };
    };
    assert.equal(stored.offset.file, 'vitess');
    const positions = JSON.parse(stored.offset.vgtid) as Array<{ shard: string; gtid: string; table_p_ks: unknown[] }>;
    assert.deepEqual(positions.map((p) => [p.shard, p.gtid, p.table_p_ks.length]).sort(), [
      ['-80', vtgate.gtid('-80'), 0],
      ['80-', vtgate.gtid('80-'), 0],
    ]);
    // The copy phase was requested for all shards of the keyspace.
    assert.deepEqual(
      vtgate.requests[0].vgtid.map((s) => [s.keyspace, s.shard, s.gtid]),
      [[KS, '', '']],
    );
    // MASTER and PRIMARY are one enum value (1); proto-loader names it PRIMARY.
    assert.equal(vtgate.requests[0].tabletType, 'PRIMARY');
  });

  it('emits copy-phase rows as reads with vitess.copy.phase.read.events=true, then streams creates', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cdc-vt-'));
    const config = parseConfig(
      vitessProps(dir, vtgate.port, {
        'vitess.shard': '80-',
        'vitess.copy.phase.read.events': 'true',
        name: 'vt-read',
      }),
    );
    const out = join(dir, 'events.ndjson');
    const handle = startCapture(config, silentLogger);
    try {
      const copyCount = 1; // shard 80- holds row 4 (row 2 was deleted by the first test)
      assert.ok(await pollUntil(() => dataLines(readSinkFile(out).lines).length >= copyCount, 10_000));
      vtgate.commit('80-', [{ table: 'customer', after: row(40) }]);
      assert.ok(await pollUntil(() => dataLines(readSinkFile(out).lines).some((l) => idOf(l) === 40), 10_000));
    } finally {
      handle.stop();
      await handle.done;
    }
    const data = dataLines(readSinkFile(out).lines);
    const reads = data.filter((l) => (l.value as { op: string }).op === 'r');
    assert.deepEqual(reads.map(idOf), [4]);
    assert.equal((reads[0].value as { source: { snapshot: string } }).source.snapshot, 'true');
    const created = data.find((l) => idOf(l) === 40) as SinkLine;
    assert.equal((created.value as { op: string; source: { snapshot: string } }).op, 'c');
    assert.equal((created.value as { source: { snapshot: string } }).source.snapshot, 'false');
  });

  it('resumes from its stored VGTID after kill -9 with nothing lost', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cdc-vt-'));
    const props = vitessProps(dir, vtgate.port, { name: 'vt-kill', 'snapshot.mode': 'never' });
    const out = join(dir, 'events.ndjson');
    const base = 1000;
    const run = spawnCapture(dir, props, {}, 60_000);
    let next = base;
    const write = (n: number) => {
      for (let i = 0; i < n; i++, next++)
        vtgate.commit(next % 2 ? '-80' : '80-', [{ table: 'customer', after: row(next) }]);
    };
    // Streaming starts from "current": wait until the stream is open before writing.
    const requestsBefore = vtgate.requests.length;
    assert.ok(await pollUntil(() => vtgate.requests.length > requestsBefore, 15_000), run.stderr());
    write(100);
    assert.ok(await pollUntil(() => dataLines(readSinkFile(out).lines).length >= 40, 15_000), run.stderr());
    run.child.kill('SIGKILL');
    await run.exited;
    write(100);
    const stored = JSON.parse(readFileSync(join(dir, 'offsets.json'), 'utf8')) as { offset: { vgtid: string } };
    const again = spawnCapture(dir, props, {}, 500);
    const code = await again.exited;
    assert.equal(code, 0, again.stderr());
    const resumeRequest = vtgate.requests[vtgate.requests.length - 1];
    assert.deepEqual(
      resumeRequest.vgtid.map((s) => ({ keyspace: s.keyspace, shard: s.shard, gtid: s.gtid })),
      (JSON.parse(stored.offset.vgtid) as Array<{ keyspace: string; shard: string; gtid: string }>).map((s) => ({
        keyspace: s.keyspace,
        shard: s.shard,
        gtid: s.gtid,
      })),
      'the restart asks VTGate for the stored VGTID',
    );
    const ids = new Set(dataLines(readSinkFile(out).lines).map(idOf));
    const missing: number[] = [];
    for (let i = base; i < next; i++) if (!ids.has(i)) missing.push(i);
    assert.deepEqual(missing, [], 'every committed row reached the sink');
  });

  it('reconnects after a VTGate outage and continues from its position without loss', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cdc-vt-'));
    const config = parseConfig(
      vitessProps(dir, vtgate.port, {
        name: 'vt-outage',
        'snapshot.mode': 'never',
        'errors.retry.delay.initial.ms': '50',
      }),
    );
    const out = join(dir, 'events.ndjson');
    const handle = startCapture(config, silentLogger);
    const requestsBefore = vtgate.requests.length;
    try {
      assert.ok(await pollUntil(() => vtgate.requests.length > requestsBefore, 10_000));
      vtgate.commit('80-', [{ table: 'customer', after: row(3000) }]);
      assert.ok(await pollUntil(() => dataLines(readSinkFile(out).lines).some((l) => idOf(l) === 3000), 10_000));
      await vtgate.restart();
      vtgate.commit('80-', [{ table: 'customer', after: row(3001) }]);
      vtgate.commit('-80', [{ table: 'customer', after: row(3002) }]);
      assert.ok(
        await pollUntil(() => {
          const ids = new Set(dataLines(readSinkFile(out).lines).map(idOf));
          return ids.has(3001) && ids.has(3002);
        }, 15_000),
      );
    } finally {
      handle.stop();
      await handle.done;
    }
    assert.ok(vtgate.requests.length >= requestsBefore + 2, 'a second VStream was opened');
    const resumed = vtgate.requests[vtgate.requests.length - 1].vgtid.find((s) => s.shard === '80-');
    assert.match(resumed?.gtid ?? '', /:1-\d+$/, 'the reconnect asked for a concrete position, not current');
  });

  it('follows a reshard JOURNAL (vitess.stop_on_reshard=true) onto the new shards', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cdc-vt-'));
    const config = parseConfig(
      vitessProps(dir, vtgate.port, { name: 'vt-reshard', 'snapshot.mode': 'never', 'vitess.stop_on_reshard': 'true' }),
    );
    const out = join(dir, 'events.ndjson');
    const handle = startCapture(config, silentLogger);
    const requestsBefore = vtgate.requests.length;
    try {
      assert.ok(await pollUntil(() => vtgate.requests.length > requestsBefore, 10_000));
      vtgate.commit('-80', [{ table: 'customer', after: row(5000) }]);
      assert.ok(await pollUntil(() => dataLines(readSinkFile(out).lines).some((l) => idOf(l) === 5000), 10_000));
      vtgate.reshard(['-80'], ['-40', '40-80'], (_t, r) => (Number(r[0]) % 2 ? '-40' : '40-80'));
      vtgate.commit('-40', [{ table: 'customer', after: row(5001) }]);
      vtgate.commit('40-80', [{ table: 'customer', after: row(5002) }]);
      vtgate.commit('80-', [{ table: 'customer', after: row(5003) }]);
      assert.ok(
        await pollUntil(() => {
          const ids = new Set(dataLines(readSinkFile(out).lines).map(idOf));
          return ids.has(5001) && ids.has(5002) && ids.has(5003);
        }, 10_000),
      );
    } finally {
      handle.stop();
      await handle.done;
    }
    const shards = (id: number) =>
      dataLines(readSinkFile(out).lines)
        .filter((l) => idOf(l) === id)
        .map((l) => (l.value as { source: { shard: string } }).source.shard);
    assert.deepEqual(shards(5001), ['-40']);
    assert.deepEqual(shards(5002), ['40-80']);
    const last = vtgate.requests[vtgate.requests.length - 1];
    assert.deepEqual(
      last.vgtid.map((s) => s.shard).sort(),
      ['-40', '40-80', '80-'],
      'the stream was reopened on the new shards',
    );
    const stored = JSON.parse(readFileSync(join(dir, 'offsets.json'), 'utf8')) as { offset: { vgtid: string } };
    assert.deepEqual((JSON.parse(stored.offset.vgtid) as Array<{ shard: string }>).map((s) => s.shard).sort(), [
      '-40',
      '40-80',
      '80-',
    ]);
  });
});
