/**
 * Streaming behaviours on the real pipeline (harness MariaDB → capture → file sink): primary-key changes,
 * filters and masks, transaction metadata, heartbeats.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { startCapture } from '../../src/cli/commands/run.js';
import { silentLogger } from '../../src/common/logger.js';
import { useMariaDb } from '../harness/fixtures.js';
import { captureEnv, changes, type SinkLine } from './support/capture.js';

const db = useMariaDb();

test('primary-key change: delete with __debezium.newkey, tombstone, create with __debezium.oldkey', async () => {
  const server = db();
  const name = await server.createDatabase('pk');
  await server.query(`CREATE TABLE ${name}.t (id INT PRIMARY KEY, v VARCHAR(10))`);
  await server.query(`INSERT INTO ${name}.t VALUES (1, 'a')`);
  const env = captureEnv(server, name);
  const first = (await env.runUntilIdle()).length;
  await server.query(`UPDATE ${name}.t SET id = 2, v = 'b' WHERE id = 1`);
  const out = (await env.runUntilIdle()).slice(first).filter((l) => l.topic === `it.${name}.t`);
  assert.equal(out.length, 3);
  const [del, tomb, create] = out;
  assert.deepEqual(del.key, { id: 1 });
  assert.equal(del.value?.op, 'd');
  assert.deepEqual(del.value?.before, { id: 1, v: 'a' });
  assert.deepEqual(del.headers?.['__debezium.newkey'], { id: 2 });
  assert.deepEqual(tomb.key, { id: 1 });
  assert.equal(tomb.value, null);
  assert.deepEqual(create.key, { id: 2 });
  assert.equal(create.value?.op, 'c');
  assert.deepEqual(create.value?.after, { id: 2, v: 'b' });
  assert.deepEqual(create.headers?.['__debezium.oldkey'], { id: 1 });
});

test('filters and masks: database/table/column lists, mask, hash, truncate, skipped ops, key columns, query', async () => {
  const server = db();
  const name = await server.createDatabase('flt');
  const other = await server.createDatabase('flt_other');
  await server.query(
    `CREATE TABLE ${name}.keep (id INT PRIMARY KEY, code VARCHAR(10), secret VARCHAR(20), card VARCHAR(20), bio VARCHAR(40), dropme INT);
     CREATE TABLE ${name}.skip_me (id INT PRIMARY KEY);
     CREATE TABLE ${other}.keep (id INT PRIMARY KEY);
     INSERT INTO ${name}.keep VALUES (1, 'k1', 'hunter2', '4111111111111111', 'a very long biography', 7);`,
  );
  const env = captureEnv(server, name, {
    'database.include.list': `${name},${other}`,
    'table.exclude.list': `${name}\\.skip_me,${other}\\..*`,
    'column.exclude.list': `${name}.keep.dropme`,
    'column.mask.with.5.chars': `${name}.keep.secret`,
    'column.mask.hash.SHA-256.with.salt.x': `${name}.keep.card`,
    'column.truncate.to.6.chars': `${name}.keep.bio`,
    'skipped.operations': 'd',
    'message.key.columns': `${name}.keep:code`,
    'include.query': 'true',
  });
  const snap = changes(await env.runUntilIdle(), 'keep');
  const first = env.lines().length;
  await server.query(
    `INSERT INTO ${name}.keep VALUES (2, 'k2', 'pw', '4111111111111111', 'short', 8);
     INSERT INTO ${name}.skip_me VALUES (1);
     INSERT INTO ${other}.keep VALUES (1);
     UPDATE ${name}.keep SET bio = 'another long one' WHERE id = 1;
     DELETE FROM ${name}.keep WHERE id = 2;`,
  );
  const out = (await env.runUntilIdle()).slice(first);
  const topics = new Set(out.filter((l) => l.value && 'op' in l.value).map((l) => l.topic));
  assert.deepEqual([...topics], [`it.${name}.keep`], 'excluded tables and databases produce nothing');
  const ev = changes(out, 'keep');
  assert.deepEqual(
    ev.map((v) => v.op),
    ['c', 'u'],
    'deletes skipped',
  );
  const hash = (snap[0].after as { card: string }).card;
  assert.match(hash, /^[0-9a-f]+$/);
  assert.notEqual(hash, '4111111111111111');
  assert.deepEqual(ev[0].after, { id: 2, code: 'k2', secret: '*****', card: hash, bio: 'short' });
  assert.deepEqual(snap[0].after, { id: 1, code: 'k1', secret: '*****', card: hash, bio: 'a very' });
  assert.deepEqual(ev[1].after, { id: 1, code: 'k1', secret: '*****', card: hash, bio: 'anothe' });
  const keys = out.filter((l) => l.topic === `it.${name}.keep`).map((l) => l.key);
  assert.deepEqual(keys, [{ code: 'k2' }, { code: 'k1' }], 'message.key.columns replaces the primary key');
  const q = ev.map((v) => (v.source as { query: string | null }).query);
  assert.match(String(q[0]), new RegExp(`^INSERT INTO ${name}\\.keep VALUES \\(2`));
  assert.match(String(q[1]), /^UPDATE .* SET bio = 'another long one'/);
});

test('transaction metadata: BEGIN/END with event_count and data_collections, transaction block per event', async () => {
  const server = db();
  const name = await server.createDatabase('tx');
  await server.query(`CREATE TABLE ${name}.a (id INT PRIMARY KEY); CREATE TABLE ${name}.b (id INT PRIMARY KEY)`);
  const env = captureEnv(server, name, { 'provide.transaction.metadata': 'true' });
  const first = (await env.runUntilIdle()).length;
  await server.query(
    `START TRANSACTION; INSERT INTO ${name}.a VALUES (1),(2); INSERT INTO ${name}.b VALUES (1); UPDATE ${name}.a SET id = 3 WHERE id = 2; COMMIT;
     INSERT INTO ${name}.b VALUES (2);`,
  );
  const out = (await env.runUntilIdle()).slice(first);
  const txTopic = out.filter((l) => l.topic === 'it.transaction').map((l) => l.value as Record<string, unknown>);
  assert.deepEqual(
    txTopic.map((v) => v.status),
    ['BEGIN', 'END', 'BEGIN', 'END'],
  );
  const [b1, e1, b2, e2] = txTopic;
  assert.equal(b1.id, e1.id);
  assert.notEqual(b1.id, b2.id);
  assert.equal(b2.id, e2.id);
  // The PK update is delete + create (the tombstone is not an event): 2 + 1 + 2 = 5.
  assert.equal(e1.event_count, 5);
  assert.deepEqual(e1.data_collections, [
    { data_collection: `${name}.a`, event_count: 4 },
    { data_collection: `${name}.b`, event_count: 1 },
  ]);
  assert.equal(e2.event_count, 1);
  const data = out.filter((l) => l.value && 'op' in l.value).map((l) => l.value as Record<string, unknown>);
  const blocks = data.map((v) => v.transaction as { id: string; total_order: number; data_collection_order: number });
  assert.deepEqual(
    blocks.map((b) => [b.id === b1.id ? 1 : 2, b.total_order, b.data_collection_order]),
    [
      [1, 1, 1],
      [1, 2, 2],
      [1, 3, 1],
      [1, 4, 3],
      [1, 5, 4],
      [2, 1, 1],
    ],
  );
  const dataLines = out.filter((l) => l.topic !== 'it.transaction');
  const firstData = out.indexOf(dataLines[0]);
  const beginAt = out.findIndex((l) => l.value === b1);
  assert.ok(beginAt < firstData, 'BEGIN precedes the events');
});

test('heartbeats: records on __debezium-heartbeat.<prefix>; offset advances past non-captured changes', async () => {
  const server = db();
  const name = await server.createDatabase('hb');
  await server.query(
    `CREATE TABLE ${name}.captured (id INT PRIMARY KEY); CREATE TABLE ${name}.ignored (id INT PRIMARY KEY)`,
  );
  const env = captureEnv(server, name, {
    'table.include.list': `${name}\\.captured`,
    'heartbeat.interval.ms': '200',
  });
  await env.runUntilIdle();
  const offsetsFile = join(env.dir, 'offsets.json');
  const readOffset = () => JSON.stringify(JSON.parse(readFileSync(offsetsFile, 'utf8')));
  const before = readOffset();
  const handle = startCapture(env.config, silentLogger, {});
  try {
    for (let i = 0; i < 20; i++) await server.query(`INSERT INTO ${name}.ignored VALUES (${i})`);
    const [pos] = await server.query<Array<{ Position: number; File: string }>>('SHOW MASTER STATUS');
    const deadline = Date.now() + 10_000;
    let heartbeats: SinkLine[] = [];
    let offset = before;
    while (Date.now() < deadline) {
      heartbeats = env.lines().filter((l) => l.topic === '__debezium-heartbeat.it');
      offset = readOffset();
      if (heartbeats.length >= 2 && offset.includes(`"pos":${pos.Position}`)) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(heartbeats.length >= 2, `heartbeats seen: ${heartbeats.length}`);
    assert.deepEqual(heartbeats[0].key, { serverName: 'it' });
    assert.equal(typeof (heartbeats[0].value as { ts_ms: number }).ts_ms, 'number');
    assert.notEqual(offset, before);
    assert.ok(offset.includes(`"pos":${pos.Position}`), `offset ${offset} reached ${pos.File}:${pos.Position}`);
    assert.equal(changes(env.lines(), 'captured').length, 0);
  } finally {
    handle.stop();
    await handle.done;
  }
});

test('heartbeat.action.query runs on every heartbeat, so an idle source still writes binlog events', async () => {
  const server = db();
  const name = await server.createDatabase('hbq');
  await server.query(`CREATE TABLE ${name}.heartbeat (id INT PRIMARY KEY, beats INT NOT NULL)`);
  const env = captureEnv(server, name, {
    'heartbeat.interval.ms': '150',
    'heartbeat.action.query': `INSERT INTO ${name}.heartbeat VALUES (1, 1) ON DUPLICATE KEY UPDATE beats = beats + 1`,
  });
  const handle = startCapture(env.config, silentLogger, {});
  try {
    const deadline = Date.now() + 15_000;
    let beats = 0;
    while (Date.now() < deadline && (beats < 3 || changes(env.lines(), 'heartbeat').length < 3)) {
      const [row] = await server.query<Array<{ beats: number }>>(`SELECT beats FROM ${name}.heartbeat WHERE id = 1`);
      beats = row?.beats ?? 0;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(beats >= 3, `the action query ran ${beats} times`);
    assert.ok(changes(env.lines(), 'heartbeat').length >= 3, 'its writes are captured like any change');
  } finally {
    handle.stop();
    await handle.done;
  }
});
