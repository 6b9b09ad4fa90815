/**
 * Notifications of ad-hoc snapshots through `cdc run` (a child process) on a private MariaDB, compared with the
 * Debezium oracle (embedded engine, sink channel) given the same signals through the same signalling table:
 * a blocking snapshot (Debezium reports it as an on-demand `Initial Snapshot`), an incremental snapshot of two
 * tables (`data_collections` lists the tables still to be read), one paused and resumed by pause-/resume-snapshot
 * signals, and one with a table stopped by stop-snapshot. Then `snapshot.chunked`: its chunked tables are reported
 * as an `Incremental Snapshot` (what a Debezium user gets from schema-only plus an incremental snapshot).
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, test } from 'node:test';
import type { Notification } from '../../src/notifications/notification.js';
import { useMariaDb } from '../harness/fixtures.js';
import type { MariaDbServer } from '../harness/mariadb.js';
import { pollUntil } from '../harness/wait.js';
import { readSinkFile, spawnCapture } from './support/child-capture.js';
import { buildOracle, startOracle } from './support/debezium-oracle.js';

const db = useMariaDb({ serverId: 73 });
const TOPIC = 'cdc.notifications';

before(() => buildOracle());

type Shape = { aggregate_type: string; type: string; additional_data: Record<string, string> };

/** Type and additional_data (connector_name aside: the prefixes differ), comma lists kept in their order. */
const shape = (n: Notification): Shape => {
  const { connector_name: _c, ...data } = n.additional_data;
  return { aggregate_type: n.aggregate_type, type: n.type, additional_data: data };
};

async function setUp(s: MariaDbServer, label: string): Promise<string> {
  const name = await s.createDatabase(label);
  await s.query(`
    CREATE TABLE ${name}.a (id INT PRIMARY KEY, v VARCHAR(8));
    CREATE TABLE ${name}.b (id INT PRIMARY KEY);
    CREATE TABLE ${name}.sig (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
    INSERT INTO ${name}.a VALUES (1,'x'),(2,'y'),(3,'z');
    INSERT INTO ${name}.b VALUES (7);`);
  return name;
}

const signalRow = (id: string, type: string, data: object) => [id, type, JSON.stringify(data)];

/**
 * The scenario, driven by `seen()` (notifications so far): a blocking snapshot of `a`; an incremental one of
 * a and b; one of a paused and resumed; one of a and b with b stopped. The pause (stop) is in the same INSERT as
 * its execute-snapshot, so it is acted on before the small tables are done on both sides (here before the first
 * chunk, in Debezium after it: either is between chunks).
 */
async function drive(s: MariaDbServer, name: string, seen: () => Notification[]) {
  const count = (agg: string, type: string) => seen().filter((n) => n.aggregate_type === agg && n.type === type).length;
  const until = async (what: string, cond: () => boolean) =>
    assert.ok(await pollUntil(cond, 90_000, 50), `${what}: ${JSON.stringify(seen().map(shape))}`);
  const send = async (...rows: string[][]) => {
    await s.query(`INSERT INTO ${name}.sig VALUES ${rows.map(() => '(?,?,?)').join(',')}`, rows.flat());
  };
  const a = `${name}.a`;
  const b = `${name}.b`;
  const initialDone = count('Initial Snapshot', 'COMPLETED');
  await send(signalRow('blk-1', 'execute-snapshot', { 'data-collections': [a], type: 'blocking' }));
  await until('blocking snapshot', () => count('Initial Snapshot', 'COMPLETED') === initialDone + 1);
  await send(signalRow('inc-1', 'execute-snapshot', { 'data-collections': [a, b], type: 'incremental' }));
  await until('incremental snapshot', () => count('Incremental Snapshot', 'COMPLETED') === 1);
  await send(
    signalRow('inc-2', 'execute-snapshot', { 'data-collections': [a], type: 'incremental' }),
    signalRow('p-1', 'pause-snapshot', { type: 'incremental' }),
  );
  await until('paused', () => count('Incremental Snapshot', 'PAUSED') === 1);
  await send(signalRow('r-1', 'resume-snapshot', { type: 'incremental' }));
  await until('resumed', () => count('Incremental Snapshot', 'COMPLETED') === 2);
  await send(
    signalRow('inc-3', 'execute-snapshot', { 'data-collections': [a, b], type: 'incremental' }),
    signalRow('s-1', 'stop-snapshot', { type: 'incremental', 'data-collections': [b] }),
  );
  await until('stopped', () => count('Incremental Snapshot', 'COMPLETED') === 3);
}

/** The ad-hoc part: the blocking snapshot's Initial Snapshot notifications and the incremental ones, by id. */
function adHoc(ns: Notification[]) {
  const lastInitial = ns.map((n) => n.aggregate_type).lastIndexOf('Initial Snapshot');
  const firstStarted = ns.findLastIndex(
    (n, i) => i <= lastInitial && n.aggregate_type === 'Initial Snapshot' && n.type === 'STARTED',
  );
  const byId = (id: string) => ns.filter((n) => n.aggregate_type === 'Incremental Snapshot' && n.id === id);
  const noProgress = (group: Notification[]) => group.filter((n) => n.type !== 'IN_PROGRESS').map(shape);
  return {
    blocking: ns.slice(firstStarted, lastInitial + 1).map(shape),
    incremental: byId('inc-1').map(shape),
    paused: noProgress(byId('inc-2')),
    stopped: noProgress(byId('inc-3')),
    raw: { 'inc-2': byId('inc-2'), 'inc-3': byId('inc-3') },
  };
}

test('blocking, incremental, paused/resumed and stopped snapshots notify as the Debezium oracle does', {
  timeout: 300_000,
}, async () => {
  const s = db();
  // Debezium first, on its own database (same tables, same signals).
  const theirsDb = await setUp(s, 'adhoc_oracle');
  const oracle = startOracle(s, {
    props: {
      'database.include.list': theirsDb,
      'notification.enabled.channels': 'sink',
      'notification.sink.topic.name': TOPIC,
      'signal.data.collection': `${theirsDb}.sig`,
      'incremental.snapshot.chunk.size': '2',
    },
    timeoutMs: 240_000,
  });
  await oracle.ready();
  const theirsSoFar = () =>
    oracle
      .linesSoFar()
      .filter((l) => l.topic === TOPIC)
      .map((l) => l.value as unknown as Notification);
  assert.ok(await pollUntil(() => theirsSoFar().some((n) => n.type === 'COMPLETED'), 90_000, 50), 'initial snapshot');
  await drive(s, theirsDb, theirsSoFar);
  oracle.stop();
  const theirs = adHoc((await oracle.done).lines.filter((l) => l.topic === TOPIC).map((l) => l.value as never));

  const name = await setUp(s, 'adhoc');
  const dir = mkdtempSync(join(tmpdir(), 'cdc-adhoc-notes-'));
  const out = join(dir, 'events.ndjson');
  const cdc = spawnCapture(
    dir,
    {
      name: `adhoc-${name}`,
      'topic.prefix': 'it',
      'database.hostname': s.host,
      'database.port': String(s.port),
      'database.user': s.admin.user,
      'database.password': s.admin.password,
      'database.server.id': '7131',
      'database.include.list': name,
      'database.ssl.mode': 'disabled',
      'signal.data.collection': `${name}.sig`,
      'snapshot.chunk.size': '2',
      'notification.enabled.channels': 'sink',
      'notification.sink.topic.name': TOPIC,
      'sink.type': 'file',
      'sink.file.path': out,
      'offset.storage.file.filename': join(dir, 'offsets.json'),
      'schema.history.internal.file.filename': join(dir, 'history.jsonl'),
      'offset.flush.interval.ms': '100',
    },
    {},
    5000,
  );
  const oursSoFar = () =>
    readSinkFile(out)
      .lines.filter((l) => l.topic === TOPIC)
      .map((l) => l.value as unknown as Notification);
  assert.ok(
    await pollUntil(() => oursSoFar().some((n) => n.type === 'COMPLETED') || cdc.child.exitCode !== null, 60_000, 50),
    cdc.stderr(),
  );
  await drive(s, name, oursSoFar);
  assert.equal(await cdc.exited, 0, cdc.stderr().slice(-3000));
  const ours = adHoc(oursSoFar());

  const rename = (xs: Shape[]) => JSON.parse(JSON.stringify(xs).replaceAll(theirsDb, name)) as Shape[];
  assert.ok(theirs.blocking.length >= 4 && theirs.incremental.length >= 6, JSON.stringify(theirs));
  assert.deepEqual(ours.blocking, rename(theirs.blocking), 'blocking snapshot');
  assert.deepEqual(ours.incremental, rename(theirs.incremental), 'incremental snapshot of two tables');
  assert.deepEqual(ours.paused, rename(theirs.paused), 'paused and resumed');
  assert.deepEqual(ours.stopped, rename(theirs.stopped), 'one table stopped');
  // The chunks themselves (where a pause or stop lands differs: before the first chunk here, after it there).
  const progress = (ns: Notification[]) =>
    ns
      .filter((n) => n.type === 'IN_PROGRESS')
      .map((n) => [
        n.additional_data.data_collections,
        n.additional_data.maximum_key,
        n.additional_data.last_processed_key,
      ]);
  const a = `${name}.a`;
  assert.deepEqual(progress(ours.raw['inc-2']), [
    [a, '3', '2'],
    [a, '3', '3'],
  ]);
  assert.deepEqual(progress(ours.raw['inc-3']), [
    [a, '3', '2'],
    [a, '3', '3'],
  ]);
  for (const id of ['inc-2', 'inc-3'] as const)
    assert.deepEqual(
      progress(ours.raw[id]).at(-1),
      progress(theirs.raw[id])
        .at(-1)
        ?.map((v) => v?.replaceAll(theirsDb, name)),
    );
});

test('snapshot.chunked: the consistent part is the Initial Snapshot, the chunked tables an Incremental Snapshot', {
  timeout: 120_000,
}, async () => {
  const s = db();
  const name = await setUp(s, 'chunked_notes');
  await s.query(`CREATE TABLE ${name}.k (v INT); INSERT INTO ${name}.k VALUES (1), (2);`);
  const dir = mkdtempSync(join(tmpdir(), 'cdc-chunked-notes-'));
  const out = join(dir, 'events.ndjson');
  const cdc = spawnCapture(
    dir,
    {
      name: `chunked-${name}`,
      'topic.prefix': 'it',
      'database.hostname': s.host,
      'database.port': String(s.port),
      'database.user': s.admin.user,
      'database.password': s.admin.password,
      'database.server.id': '7132',
      'table.include.list': `${name}.a,${name}.b,${name}.k`,
      'database.ssl.mode': 'disabled',
      'snapshot.chunked': 'true',
      'snapshot.chunk.size': '2',
      'notification.enabled.channels': 'sink',
      'notification.sink.topic.name': TOPIC,
      'sink.type': 'file',
      'sink.file.path': out,
      'offset.storage.file.filename': join(dir, 'offsets.json'),
      'schema.history.internal.file.filename': join(dir, 'history.jsonl'),
      'offset.flush.interval.ms': '100',
    },
    {},
    1000,
  );
  assert.equal(await cdc.exited, 0, cdc.stderr().slice(-3000));
  const ns = readSinkFile(out)
    .lines.filter((l) => l.topic === TOPIC)
    .map((l) => l.value as unknown as Notification);
  const [a, b, k] = ['a', 'b', 'k'].map((t) => `${name}.${t}`);
  const initial = ns.filter((n) => n.aggregate_type === 'Initial Snapshot').map(shape);
  assert.deepEqual(
    initial.map((n) => [
      n.type,
      n.additional_data.current_collection_in_progress ?? n.additional_data.scanned_collection,
    ]),
    [
      ['STARTED', undefined],
      ['IN_PROGRESS', k],
      ['TABLE_SCAN_COMPLETED', k],
      ['COMPLETED', undefined],
    ],
    'only the keyless table is read in the consistent snapshot',
  );
  const incremental = ns.filter((n) => n.aggregate_type === 'Incremental Snapshot');
  assert.equal(new Set(incremental.map((n) => n.id)).size, 1, 'one snapshot, one correlation id');
  assert.match(incremental[0]!.id, /^[0-9a-f-]{36}$/);
  assert.deepEqual(
    incremental.map(shape),
    [
      { type: 'STARTED', additional_data: { data_collections: `${a},${b}` } },
      {
        type: 'IN_PROGRESS',
        additional_data: {
          data_collections: `${a},${b}`,
          current_collection_in_progress: a,
          maximum_key: '3',
          last_processed_key: '2',
        },
      },
      {
        type: 'IN_PROGRESS',
        additional_data: {
          data_collections: `${a},${b}`,
          current_collection_in_progress: a,
          maximum_key: '3',
          last_processed_key: '3',
        },
      },
      {
        type: 'TABLE_SCAN_COMPLETED',
        additional_data: {
          data_collections: `${a},${b}`,
          scanned_collection: a,
          total_rows_scanned: '3',
          status: 'SUCCEEDED',
        },
      },
      {
        type: 'IN_PROGRESS',
        additional_data: {
          data_collections: b,
          current_collection_in_progress: b,
          maximum_key: '7',
          last_processed_key: '7',
        },
      },
      {
        type: 'TABLE_SCAN_COMPLETED',
        additional_data: { data_collections: b, scanned_collection: b, total_rows_scanned: '1', status: 'SUCCEEDED' },
      },
      { type: 'COMPLETED', additional_data: {} },
    ].map((n) => ({ aggregate_type: 'Incremental Snapshot', ...n })),
  );
  // The incremental snapshot's COMPLETED comes after every chunked row (the data is complete then).
  const lines = readSinkFile(out).lines;
  const completedAt = lines.findIndex(
    (l) =>
      l.topic === TOPIC &&
      (l.value as { aggregate_type?: string; type?: string }).aggregate_type === 'Incremental Snapshot' &&
      (l.value as { type?: string }).type === 'COMPLETED',
  );
  const lastRow = lines.findLastIndex((l) => l.topic !== TOPIC && (l.value as { op?: string } | null)?.op === 'r');
  assert.ok(lastRow >= 0 && completedAt > lastRow, `COMPLETED at ${completedAt}, last snapshot row at ${lastRow}`);
});
