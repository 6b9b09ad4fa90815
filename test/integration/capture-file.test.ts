import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SinkError } from '../../src/common/errors.js';
import type { Sink } from '../../src/sinks/sink.js';
import { useMariaDb } from '../harness/fixtures.js';
import { captureEnv, changes } from './support/capture.js';

const db = useMariaDb();

test('snapshot then streaming to the file sink: r, c, u, d with tombstones, schema of their time after ALTER', async () => {
  const server = db();
  const name = await server.createDatabase('cap');
  await server.query(`CREATE TABLE ${name}.items (id INT PRIMARY KEY, label VARCHAR(40), price DECIMAL(10,2))`);
  await server.query(`INSERT INTO ${name}.items VALUES (1,'one',1.50),(2,'two',2.25)`);
  const env = captureEnv(server, name);

  const first = await env.runUntilIdle();
  const snap = changes(first, 'items');
  assert.deepEqual(
    snap.map((v) => [v.op, (v.after as { id: number }).id]),
    [
      ['r', 1],
      ['r', 2],
    ],
  );
  assert.equal((snap[0].source as { snapshot: string }).snapshot, 'first');
  assert.equal((snap[1].source as { snapshot: string }).snapshot, 'last');

  await server.query(`INSERT INTO ${name}.items VALUES (3,'three',3.00)`);
  await server.query(`UPDATE ${name}.items SET label='uno' WHERE id=1`);
  await server.query(`DELETE FROM ${name}.items WHERE id=2`);
  await server.query(`ALTER TABLE ${name}.items ADD COLUMN note VARCHAR(10) NULL AFTER label`);
  await server.query(`INSERT INTO ${name}.items VALUES (4,'four','n4',4.00)`);

  const all = await env.runUntilIdle();
  const stream = all.slice(first.length);
  const items = changes(stream, 'items');
  assert.deepEqual(
    items.map((v) => v.op),
    ['c', 'u', 'd', 'c'],
  );
  assert.deepEqual(items[1].before, { id: 1, label: 'one', price: 'AJY=' });
  assert.deepEqual(items[1].after, { id: 1, label: 'uno', price: 'AJY=' });
  assert.deepEqual(items[3].after, { id: 4, label: 'four', note: 'n4', price: 'AZA=' });
  const tombstones = stream.filter((l) => l.value === null);
  assert.equal(tombstones.length, 1);
  assert.deepEqual(tombstones[0].key, { id: 2 });
  const ddl = stream.filter((l) => l.topic === 'it' && l.value && 'ddl' in l.value);
  assert.equal(ddl.length, 1);
  assert.match(String(ddl[0].value?.ddl), /ADD COLUMN note/);
});

test('transforms configured on the capture task shape records before publishing (ReadToInsertEvent + unwrap)', async () => {
  const server = db();
  const name = await server.createDatabase('smt');
  await server.query(`CREATE TABLE ${name}.t (id INT PRIMARY KEY, v VARCHAR(10))`);
  await server.query(`INSERT INTO ${name}.t VALUES (1,'a')`);
  const env = captureEnv(server, name, {
    transforms: 'r2c,unwrap',
    'transforms.r2c.type': 'io.debezium.connector.mysql.transforms.ReadToInsertEvent',
    'transforms.unwrap.type': 'io.debezium.transforms.ExtractNewRecordState',
    'transforms.unwrap.add.fields': 'op,table',
    'transforms.unwrap.delete.tombstone.handling.mode': 'rewrite',
  });
  await env.runUntilIdle();
  await server.query(`DELETE FROM ${name}.t WHERE id=1`);
  const lines = (await env.runUntilIdle()).filter((l) => l.topic.endsWith('.t'));
  assert.deepEqual(
    lines.map((l) => l.value),
    [
      { id: 1, v: 'a', __op: 'c', __table: 't', __deleted: 'false' },
      { id: 1, v: 'a', __op: 'd', __table: 't', __deleted: 'true' },
    ],
  );
});

test('DDL written under sql_mode=ANSI_QUOTES is read with "..." as identifiers (the statement\'s own sql_mode)', async () => {
  const server = db();
  const name = await server.createDatabase('ansi');
  const env = captureEnv(server, name);
  await env.runUntilIdle();
  const conn = await server.connect({ database: name, multipleStatements: true });
  try {
    await conn.query(`SET SESSION sql_mode = 'ANSI_QUOTES'`);
    await conn.query(`CREATE TABLE "quoted" ("id" INT PRIMARY KEY, "label" VARCHAR(10) DEFAULT 'x')`);
    await conn.query(`INSERT INTO "quoted" ("id", "label") VALUES (1, 'one')`);
  } finally {
    await conn.end();
  }
  const created = changes(await env.runUntilIdle(), 'quoted');
  assert.deepEqual(
    created.map((v) => [v.op, v.after]),
    [['c', { id: 1, label: 'one' }]],
  );
});

test('delivery retries follow errors.max.retries: unlimited by default (12 failures survive), 3 means 4 attempts', async () => {
  const server = db();
  const name = await server.createDatabase('retry');
  await server.query(`CREATE TABLE ${name}.t (id INT PRIMARY KEY)`);
  await server.query(`INSERT INTO ${name}.t VALUES (1),(2)`);
  // Injected failures: the first `failures` sends are refused as retriable, then the real file sink takes over.
  const flaky = (failures: number) => {
    const counter = { attempts: 0 };
    const wrapSink = (sink: Sink): Sink => ({
      name: sink.name,
      start: () => sink.start(),
      close: () => sink.close(),
      send: async (records) => {
        if (++counter.attempts <= failures) throw new SinkError('injected delivery failure', { retriable: true });
        return sink.send(records);
      },
    });
    return { counter, overrides: { wrapSink } };
  };
  const fast = { 'errors.retry.delay.initial.ms': '1', 'errors.retry.delay.max.ms': '2' };
  const unlimited = flaky(12);
  const env = captureEnv(server, name, fast, { overrides: unlimited.overrides });
  assert.deepEqual(
    changes(await env.runUntilIdle(), 't').map((v) => v.op),
    ['r', 'r'],
  );
  assert.ok(unlimited.counter.attempts >= 13);

  const limited = flaky(100);
  const env3 = captureEnv(server, name, { ...fast, 'errors.max.retries': '3' }, { overrides: limited.overrides });
  await assert.rejects(env3.runUntilIdle(), /injected delivery failure/);
  assert.equal(limited.counter.attempts, 4);
});
