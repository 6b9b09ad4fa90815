import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type EventOptions,
  PK_UPDATE_NEWKEY_HEADER,
  PK_UPDATE_OLDKEY_HEADER,
  parseMessageKeyColumns,
  TableEventBuilder,
  TransactionContext,
  transactionId,
} from '../../../src/events/index.js';
import { recordSize } from '../../../src/model/sink-record.js';
import { col, customers, fixedClock, source, table } from './fixtures.js';

const base: EventOptions = { topicPrefix: 'mysql-server-1', clockMicros: fixedClock };
const builder = (o: Partial<EventOptions> = {}, t = customers) => new TableEventBuilder(t, { ...base, ...o });
const parse = (s: string | null) => (s === null ? null : JSON.parse(s));
const anne = [1004, 'Anne', 'Kretchmar', 'annek@noanswer.org'];
const anneMarie = [1004, 'Anne Marie', 'Kretchmar', 'annek@noanswer.org'];

describe('Debezium documentation example: inventory.customers', () => {
  it('create event key, schema names and payload match the docs (timing/position ignored)', () => {
    const [rec] = builder({ schemasEnable: true }).insert(anne, {
      ...source,
      query: "INSERT INTO customers (first_name, last_name, email) VALUES ('Anne', 'Kretchmar', 'annek@noanswer.org')",
    });
    assert.equal(rec.topic, 'mysql-server-1.inventory.customers');
    // Key exactly as in "Change event keys".
    assert.deepEqual(parse(rec.key), {
      schema: {
        type: 'struct',
        name: 'mysql-server-1.inventory.customers.Key',
        optional: false,
        fields: [{ field: 'id', type: 'int32', optional: false }],
      },
      payload: { id: 1004 },
    });
    const value = parse(rec.value);
    const docRowSchema = {
      type: 'struct',
      fields: [
        { type: 'int32', optional: false, field: 'id' },
        { type: 'string', optional: false, field: 'first_name' },
        { type: 'string', optional: false, field: 'last_name' },
        { type: 'string', optional: false, field: 'email' },
      ],
      optional: true,
      name: 'mysql-server-1.inventory.customers.Value',
    };
    assert.deepEqual(value.schema.fields[0], { ...docRowSchema, field: 'before' });
    assert.deepEqual(value.schema.fields[1], { ...docRowSchema, field: 'after' });
    assert.equal(value.schema.fields[2].name, 'io.debezium.connector.mysql.Source');
    assert.equal(value.schema.name, 'mysql-server-1.inventory.customers.Envelope');
    assert.deepEqual(
      value.schema.fields
        .slice(4)
        .map((f: { field: string; type: string; optional: boolean }) => [f.field, f.type, f.optional]),
      [
        ['op', 'string', false],
        ['ts_ms', 'int64', true],
        ['ts_us', 'int64', true],
        ['ts_ns', 'int64', true],
      ],
    );
    const p = value.payload;
    assert.equal(p.before, null);
    assert.deepEqual(p.after, { id: 1004, first_name: 'Anne', last_name: 'Kretchmar', email: 'annek@noanswer.org' });
    assert.equal(p.op, 'c');
    const { version, ts_ms, ts_us, ts_ns, file, pos, row, server_id, thread, sequence, ...rest } = p.source;
    assert.equal(typeof version, 'string');
    assert.deepEqual(rest, {
      connector: 'mysql',
      name: 'mysql-server-1',
      snapshot: 'false',
      db: 'inventory',
      table: 'customers',
      gtid: null,
      query: "INSERT INTO customers (first_name, last_name, email) VALUES ('Anne', 'Kretchmar', 'annek@noanswer.org')",
    });
  });

  it('update and delete payloads match the docs', () => {
    const b = builder();
    const [u] = b.update(anne, anneMarie, source);
    const pu = parse(u.value);
    assert.equal(pu.op, 'u');
    assert.deepEqual(pu.before, { id: 1004, first_name: 'Anne', last_name: 'Kretchmar', email: 'annek@noanswer.org' });
    assert.deepEqual(pu.after, {
      id: 1004,
      first_name: 'Anne Marie',
      last_name: 'Kretchmar',
      email: 'annek@noanswer.org',
    });
    const [d, tomb] = b.delete(anneMarie, source);
    const pd = parse(d.value);
    assert.equal(pd.op, 'd');
    assert.equal(pd.after, null);
    assert.deepEqual(pd.before, pu.after);
    assert.equal(tomb.value, null);
    assert.equal(tomb.key, '{"id":1004}');
  });
});

describe('envelope shape', () => {
  it('orders payload and source fields as Debezium does', () => {
    const [r] = builder().insert(anne, { ...source, gtid: 'uuid:7' });
    const p = parse(r.value);
    assert.deepEqual(Object.keys(p), ['before', 'after', 'source', 'transaction', 'op', 'ts_ms', 'ts_us', 'ts_ns']);
    assert.deepEqual(Object.keys(p.source), [
      'version',
      'connector',
      'name',
      'ts_ms',
      'snapshot',
      'db',
      'sequence',
      'ts_us',
      'ts_ns',
      'table',
      'server_id',
      'gtid',
      'file',
      'pos',
      'row',
      'thread',
      'query',
    ]);
    assert.equal(p.transaction, null);
    assert.equal(p.source.gtid, 'uuid:7');
    assert.equal(p.ts_ms, 1465491411815);
    assert.equal(p.ts_us, 1465491411815437);
    assert.match(r.value ?? '', /"ts_ns":1465491411815437000[,}]/);
    assert.match(r.value ?? '', /"source":\{[^}]*"ts_ns":1465491411000000000,/);
    assert.equal(r.table, 'inventory.customers');
    assert.equal(r.sizeBytes, recordSize(r.key, r.value));
  });

  it('snapshot reads are op r with the snapshot marker', () => {
    const [r] = builder().read(anne, { ...source, snapshot: 'first' });
    const p = parse(r.value);
    assert.equal(p.op, 'r');
    assert.equal(p.source.snapshot, 'first');
  });

  it('writes int64 beyond 2^53 as JSON numbers, not strings', () => {
    const t = table('db', 'big', [col('id', 'bigint', { nullable: false })], ['id']);
    const [r] = builder({}, t).insert([9223372036854775807n], source);
    assert.equal(r.key, '{"id":9223372036854775807}');
    assert.match(r.value ?? '', /"after":\{"id":9223372036854775807\}/);
  });
});

describe('keys, primary key changes, tombstones, skipped operations', () => {
  it('a primary key change emits delete (newkey header), tombstone, create (oldkey header)', () => {
    const recs = builder().update(anne, [1005, 'Anne', 'Kretchmar', 'annek@noanswer.org'], source);
    assert.equal(recs.length, 3);
    const [del, tomb, create] = recs;
    assert.equal(parse(del.value).op, 'd');
    assert.equal(del.key, '{"id":1004}');
    assert.deepEqual(del.headers, { [PK_UPDATE_NEWKEY_HEADER]: '{"id":1005}' });
    assert.equal(tomb.value, null);
    assert.equal(tomb.key, '{"id":1004}');
    assert.deepEqual(tomb.headers, del.headers);
    assert.equal(parse(create.value).op, 'c');
    assert.equal(create.key, '{"id":1005}');
    assert.deepEqual(create.headers, { [PK_UPDATE_OLDKEY_HEADER]: '{"id":1004}' });
    assert.equal(create.sizeBytes, recordSize(create.key, create.value, create.headers));
  });

  it('tombstonesOnDelete=false drops the tombstone', () => {
    assert.equal(builder({ tombstonesOnDelete: false }).delete(anne, source).length, 1);
    assert.equal(builder({ tombstonesOnDelete: false }).update(anne, [1005, 'A', 'K', 'e'], source).length, 2);
  });

  it('skippedOperations: truncate skipped by default; explicit list honoured', () => {
    assert.equal(builder().truncate(source).length, 0);
    const [t] = builder({ skippedOperations: [] }).truncate(source);
    assert.equal(t.key, null);
    assert.equal(parse(t.value).op, 't');
    assert.equal(builder({ skippedOperations: ['u'] }).update(anne, anneMarie, source).length, 0);
    assert.equal(builder({ skippedOperations: ['d'] }).delete(anne, source).length, 0);
    // a key change with deletes skipped still emits the create
    const pk = builder({ skippedOperations: ['d'] }).update(anne, [1005, 'A', 'K', 'e'], source);
    assert.deepEqual(
      pk.map((r) => parse(r.value)?.op ?? null),
      ['c'],
    );
  });

  it('keyless tables have a null key; message.key.columns overrides the key', () => {
    const t = table('db', 'log', [col('msg', 'varchar(20)'), col('n', 'int')]);
    const [r] = builder({}, t).insert(['hi', 1], source);
    assert.equal(r.key, null);
    const keyed = builder({ messageKeyColumns: parseMessageKeyColumns('db.log:n,msg') }, t);
    assert.equal(keyed.insert(['hi', 1], source)[0].key, '{"n":1,"msg":"hi"}');
    const other = builder({ messageKeyColumns: parseMessageKeyColumns('inventory.customers:email') });
    assert.equal(other.insert(anne, source)[0].key, '{"email":"annek@noanswer.org"}');
  });
});

describe('transaction metadata', () => {
  it('emits BEGIN before the first event, numbers events, and END with per-table counts', () => {
    const opts = { provideTransactionMetadata: true };
    const tx = new TransactionContext({ topicPrefix: 'mysql-server-1' });
    const orders = table('inventory', 'orders', [col('id', 'int', { nullable: false })], ['id']);
    const c = builder(opts);
    const o = builder(opts, orders);
    const id = transactionId({ gtid: '0e4d5dcd-a33b-11ea-80f1-02010a22a99e:10', file: 'f', pos: 1 });
    tx.begin(id, 1486500577000);
    const first = c.insert(anne, source, tx);
    assert.equal(first.length, 2);
    assert.equal(first[0].topic, 'mysql-server-1.transaction');
    assert.deepEqual(parse(first[0].key), { id });
    assert.deepEqual(parse(first[0].value), {
      status: 'BEGIN',
      id,
      event_count: null,
      data_collections: null,
      ts_ms: 1486500577000,
    });
    assert.deepEqual(parse(first[1].value).transaction, { id, total_order: 1, data_collection_order: 1 });
    const second = o.insert([7], source, tx);
    assert.deepEqual(parse(second[0].value).transaction, { id, total_order: 2, data_collection_order: 1 });
    const third = c.delete(anne, source, tx);
    assert.deepEqual(parse(third[0].value).transaction, { id, total_order: 3, data_collection_order: 2 });
    const end = tx.end(1486500577691);
    assert.ok(end);
    assert.deepEqual(parse(end.value), {
      status: 'END',
      id,
      event_count: 3,
      data_collections: [
        { data_collection: 'inventory.customers', event_count: 2 },
        { data_collection: 'inventory.orders', event_count: 1 },
      ],
      ts_ms: 1486500577691,
    });
    // A transaction without captured events emits nothing.
    tx.begin('x', 1);
    assert.equal(tx.end(2), null);
  });

  it('uses file=...,pos=... ids without GTIDs', () => {
    assert.equal(transactionId({ file: 'mysql-bin.000003', pos: 154 }), 'file=mysql-bin.000003,pos=154');
  });
});

describe('schemas enabled', () => {
  it('emits Debezium schema names and parameters for typed columns, source and transaction block', () => {
    const t = table(
      'shop',
      'orders',
      [
        col('id', 'bigint unsigned', { nullable: false }),
        col('amount', 'decimal(12,2)', { nullable: false, hasDefault: true, defaultValue: '1.50' }),
        col('status', "enum('new','paid')", { enumValues: ['new', 'paid'] }),
        col('created', 'timestamp(3)', { comment: 'creation time' }),
      ],
      ['id'],
    );
    const [r] = new TableEventBuilder(t, { topicPrefix: 'p', schemasEnable: true }).insert(
      [18446744073709551615n, '2.00', 2, null],
      source,
    );
    const v = JSON.parse(r.value ?? '');
    const after = v.schema.fields[1];
    assert.equal(after.name, 'p.shop.orders.Value');
    const [id, amount, status, created] = after.fields;
    assert.deepEqual(id, { type: 'int64', optional: false, field: 'id' });
    assert.deepEqual(amount, {
      type: 'bytes',
      optional: false,
      name: 'org.apache.kafka.connect.data.Decimal',
      version: 1,
      parameters: { scale: '2', 'connect.decimal.precision': '12' },
      default: 'AJY=',
      field: 'amount',
    });
    assert.deepEqual(status.parameters, { allowed: 'new,paid' });
    assert.equal(status.name, 'io.debezium.data.Enum');
    assert.deepEqual(
      [created.name, created.doc, created.optional],
      ['io.debezium.time.ZonedTimestamp', 'creation time', true],
    );
    const snapshot = v.schema.fields[2].fields.find((f: { field: string }) => f.field === 'snapshot');
    assert.deepEqual(snapshot.parameters, {
      allowed: 'true,first,first_in_data_collection,last_in_data_collection,last,false,incremental',
    });
    assert.equal(snapshot.default, 'false');
    assert.equal(v.schema.fields[3].name, 'event.block');
    assert.equal(v.schema.version, 2);
    // long mode: 2^64-1 arrives as a signed -1, written as a JSON number
    assert.equal(v.payload.after.id, -1);
    assert.equal(v.payload.after.amount, 'AMg=');
  });
});
