/**
 * Our events for the Debezium tutorial's `inventory` operations compared with the examples in Debezium's
 * MySQL documentation / tutorial ("Viewing change events": snapshot reads of customers 1001-1004, the update of
 * 1004 to 'Anne Marie', the insert of a new customer, the delete of 1004 with its tombstone). Values, op, keys
 * (with the documented key schema) and the `source` fields that do not depend on time or binlog position.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { INVENTORY_DATA, INVENTORY_SCHEMA } from '../../src/cli/demo/inventory.js';
import { useMariaDb } from '../harness/fixtures.js';
import { captureEnv, type SinkLine } from './support/capture.js';

const db = useMariaDb();

const CUSTOMERS = [
  { id: 1001, first_name: 'Sally', last_name: 'Thomas', email: 'sally.thomas@acme.com' },
  { id: 1002, first_name: 'George', last_name: 'Bailey', email: 'gbailey@foobar.com' },
  { id: 1003, first_name: 'Edward', last_name: 'Walker', email: 'ed@walker.com' },
  { id: 1004, first_name: 'Anne', last_name: 'Kretchmar', email: 'annek@noanswer.org' },
];

/** The documented key of dbserver1.inventory.customers, schema included (Debezium's converter default). */
const keyOf = (id: number) => ({
  schema: {
    type: 'struct',
    fields: [{ type: 'int32', optional: false, field: 'id' }],
    optional: false,
    name: 'dbserver1.inventory.customers.Key',
  },
  payload: { id },
});

/** `source` fields that the documentation examples fix (timings, positions, server id and thread vary). */
function stableSource(s: Record<string, unknown>) {
  const { connector, name, db: database, table, snapshot, gtid, query } = s;
  return { connector, name, db: database, table, snapshot, gtid, query };
}

interface Payload {
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  source: Record<string, unknown>;
  op: string;
  ts_ms: number;
}

function customerEvents(lines: SinkLine[]) {
  return lines
    .filter((l) => l.topic === 'dbserver1.inventory.customers')
    .map((l) => ({ key: l.key, value: l.value === null ? null : (l.value as { payload: Payload }).payload }));
}

test('inventory tutorial: snapshot reads, insert, update, delete match the Debezium documentation examples', async () => {
  const server = db();
  await server.query('CREATE DATABASE inventory');
  const conn = await server.connect({ database: 'inventory' });
  try {
    for (const sql of [...INVENTORY_SCHEMA, ...INVENTORY_DATA]) await conn.query(sql);
  } finally {
    await conn.end();
  }
  const env = captureEnv(server, 'inventory', {
    'topic.prefix': 'dbserver1',
    'key.converter.schemas.enable': 'true',
    'value.converter.schemas.enable': 'true',
  });
  const snap = customerEvents(await env.runUntilIdle());
  assert.deepEqual(
    snap.map((e) => e.key),
    CUSTOMERS.map((c) => keyOf(c.id)),
  );
  snap.forEach((e, i) => {
    assert.equal(e.value?.op, 'r');
    assert.equal(e.value?.before, null);
    assert.deepEqual(e.value?.after, CUSTOMERS[i]);
    assert.deepEqual(stableSource(e.value?.source ?? {}), {
      connector: 'mysql',
      name: 'dbserver1',
      db: 'inventory',
      table: 'customers',
      // Debezium 2.x markers; customers is neither the first nor the last table of the snapshot.
      snapshot: i === 0 ? 'first_in_data_collection' : i === 3 ? 'last_in_data_collection' : 'true',
      gtid: null,
      query: null,
    });
    assert.equal(e.value?.source.row, 0);
    assert.equal(e.value?.source.thread, null);
    assert.equal(typeof e.value?.ts_ms, 'number');
  });

  const first = env.lines().length;
  // A DDL first: its QUERY event carries a thread id, which must not leak into the later transactions.
  await server.query('CREATE TABLE inventory.scratch (id INT PRIMARY KEY)');
  await server.query("INSERT INTO inventory.customers VALUES (default, 'Sarah', 'Thompson', 'kitt@acme.com')");
  await server.query("UPDATE inventory.customers SET first_name='Anne Marie' WHERE id=1004");
  await server.query('DELETE FROM inventory.addresses WHERE customer_id=1004');
  await server.query('DELETE FROM inventory.customers WHERE id=1004');
  const [insert, update, del, tombstone, ...rest] = customerEvents((await env.runUntilIdle()).slice(first));
  assert.equal(rest.length, 0);
  const streamed = (op: string) => ({
    connector: 'mysql',
    name: 'dbserver1',
    db: 'inventory',
    table: 'customers',
    snapshot: 'false',
    query: null,
    op,
  });
  const check = (e: { value: Payload | null }, op: string) => {
    const s = e.value?.source ?? {};
    const { gtid: _gtid, ...rest } = stableSource(s);
    assert.deepEqual({ ...rest, op: e.value?.op }, streamed(op));
    // MariaDB GTIDs are domain-server-sequence; the docs' MySQL example shows null without GTID mode.
    assert.match(String(s.gtid), /^\d+-\d+-\d+$/);
    assert.equal(typeof s.server_id, 'number');
    assert.ok(Number(s.server_id) > 0);
    assert.ok(Number(s.pos) > 0);
    // MariaDB logs no BEGIN (with its thread id) for DML transactions; MySQL would show the session's thread.
    assert.equal(s.thread, null);
    assert.match(String(s.file), /-bin\.\d{6}$/);
  };
  assert.deepEqual(insert.key, keyOf(1005));
  check(insert, 'c');
  assert.equal(insert.value?.before, null);
  assert.deepEqual(insert.value?.after, {
    id: 1005,
    first_name: 'Sarah',
    last_name: 'Thompson',
    email: 'kitt@acme.com',
  });

  assert.deepEqual(update.key, keyOf(1004));
  check(update, 'u');
  assert.deepEqual(update.value?.before, CUSTOMERS[3]);
  assert.deepEqual(update.value?.after, { ...CUSTOMERS[3], first_name: 'Anne Marie' });

  assert.deepEqual(del.key, keyOf(1004));
  check(del, 'd');
  assert.deepEqual(del.value?.before, { ...CUSTOMERS[3], first_name: 'Anne Marie' });
  assert.equal(del.value?.after, null);
  assert.deepEqual(tombstone, { key: keyOf(1004), value: null });
});
