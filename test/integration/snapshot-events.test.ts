/**
 * What a snapshot writes, compared with Debezium's MySQL/MariaDB connector, through `cdc run` on the private
 * MariaDB: the table-structure phase's schema events in Debezium's order, the source.snapshot markers when the
 * first table is empty or no data is read, and source.ts_ms read from the server once per table.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useMariaDb } from '../harness/fixtures.js';
import { captureEnv, changes, type SinkLine } from './support/capture.js';

const db = useMariaDb();

type Source = { snapshot: string; ts_ms: number; table: string | null; db: string };
const schemaEvents = (lines: SinkLine[]) => lines.filter((l) => l.topic === 'it' && l.value && 'ddl' in l.value);

test('snapshot schema events, markers and times match Debezium (empty first table, server CURRENT_TIMESTAMP)', async () => {
  const server = db();
  const name = await server.createDatabase('snapev');
  await server.query(`CREATE TABLE ${name}.a_empty (id INT PRIMARY KEY)`);
  await server.query(`CREATE TABLE ${name}.b (id INT PRIMARY KEY, v VARCHAR(10))`);
  await server.query(`CREATE TABLE ${name}.c (id INT PRIMARY KEY)`);
  await server.query(`INSERT INTO ${name}.b VALUES (1,'x'),(2,'y')`);
  await server.query(`INSERT INTO ${name}.c VALUES (7)`);
  const [{ cs, coll, t0: before }] = await server.query<Array<{ cs: string; coll: string; t0: number }>>(
    'SELECT @@character_set_server AS cs, @@collation_server AS coll, UNIX_TIMESTAMP() AS t0',
  );
  const [dbLocale] = await server.query<Array<{ c: string; k: string }>>(
    'SELECT DEFAULT_CHARACTER_SET_NAME AS c, DEFAULT_COLLATION_NAME AS k FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?',
    [name],
  );
  const env = captureEnv(server, name, { 'include.schema.changes': 'true' });
  const lines = await env.runUntilIdle();
  const [{ t1: after }] = await server.query<Array<{ t1: number }>>('SELECT UNIX_TIMESTAMP() AS t1');

  const ddls = schemaEvents(lines).map((l) => String(l.value?.ddl));
  const q = `\`${name}\``;
  assert.deepEqual(ddls.slice(0, 8), [
    `SET character_set_server=${cs}, collation_server=${coll};`,
    `DROP TABLE IF EXISTS ${q}.\`a_empty\``,
    `DROP TABLE IF EXISTS ${q}.\`b\``,
    `DROP TABLE IF EXISTS ${q}.\`c\``,
    `DROP DATABASE IF EXISTS ${q}`,
    `CREATE DATABASE ${q} CHARSET ${dbLocale.c} COLLATE ${dbLocale.k}`,
    `USE ${q}`,
    ddls[7],
  ]);
  assert.equal(ddls.length, 10);
  assert.match(ddls[7], /^CREATE TABLE `a_empty`/);
  assert.match(ddls[9], /^CREATE TABLE `c`/);
  const events = schemaEvents(lines).map((l) => l.value as Record<string, unknown>);
  assert.deepEqual(events[0].databaseName, '');
  assert.deepEqual(events[0].tableChanges, []);
  assert.deepEqual(
    (events[2].tableChanges as Array<{ type: string }>).map((c) => c.type),
    ['DROP'],
  );
  assert.equal((events[2].source as Source).table, 'b');
  assert.deepEqual(events[4].tableChanges, []);

  const rows = [...changes(lines, 'b'), ...changes(lines, 'c')];
  assert.deepEqual(
    rows.map((v) => (v.source as Source).snapshot),
    ['first_in_data_collection', 'last_in_data_collection', 'last'],
    'no row is "first" when the first table is empty (Debezium marks the first table positionally)',
  );
  for (const v of rows) {
    const src = v.source as Source;
    assert.equal(src.ts_ms % 1000, 0, 'source.ts_ms is the server CURRENT_TIMESTAMP, whole seconds');
    assert.ok(src.ts_ms >= before * 1000 && src.ts_ms <= after * 1000, `source.ts_ms ${src.ts_ms} from the server`);
    assert.ok((v.ts_ms as number) >= src.ts_ms, 'envelope ts_ms is never earlier than source.ts_ms');
  }
  const bRows = changes(lines, 'b');
  assert.equal((bRows[0].source as Source).ts_ms, (bRows[1].source as Source).ts_ms, 'read once per table');

  // The recorded history (with its DROP/CREATE DATABASE entries) still decodes the stream after a restart.
  await server.query(`INSERT INTO ${name}.b VALUES (3,'z')`);
  const more = (await env.runUntilIdle()).slice(lines.length);
  assert.deepEqual(
    changes(more, 'b').map((v) => [v.op, (v.after as { id: number }).id]),
    [['c', 3]],
  );
});

test('snapshot.mode=no_data: the last schema event is marked last', async () => {
  const server = db();
  const name = await server.createDatabase('snapnd');
  await server.query(`CREATE TABLE ${name}.t1 (id INT PRIMARY KEY)`);
  await server.query(`CREATE TABLE ${name}.t2 (id INT PRIMARY KEY)`);
  await server.query(`INSERT INTO ${name}.t1 VALUES (1)`);
  const env = captureEnv(server, name, { 'include.schema.changes': 'true', 'snapshot.mode': 'no_data' });
  const lines = await env.runUntilIdle();
  assert.equal(changes(lines, 't1').length, 0);
  const markers = schemaEvents(lines).map((l) => (l.value as { source: Source }).source.snapshot);
  assert.ok(markers.length >= 3);
  assert.equal(markers.at(-1), 'last');
  assert.deepEqual(new Set(markers.slice(0, -1)), new Set(['true']));
  assert.match(String(schemaEvents(lines).at(-1)?.value?.ddl), /^CREATE TABLE `t2`/);
});

test('time.precision.mode=isostring: DATE, TIME, DATETIME as Debezium ISO strings, the same in snapshot and stream', async () => {
  const server = db();
  const name = await server.createDatabase('snapiso');
  await server.query(
    `CREATE TABLE ${name}.t (id INT PRIMARY KEY, d DATE, tm TIME(3), dt6 DATETIME(6), dt DATETIME, ts TIMESTAMP(0) NULL)`,
  );
  const row = `'2023-11-21', '10:15:30.500', '2023-11-21 18:29:26.123450', '0987-01-02 03:04:05', '2023-11-21 18:29:26'`;
  await server.query(`INSERT INTO ${name}.t VALUES (1, ${row})`);
  const env = captureEnv(server, name, {
    'time.precision.mode': 'isostring',
    'value.converter.schemas.enable': 'true',
  });
  const first = await env.runUntilIdle();
  await server.query(`INSERT INTO ${name}.t VALUES (2, ${row})`);
  const all = await env.runUntilIdle();
  const values = all
    .filter((l) => l.topic.endsWith('.t') && l.value)
    .map(
      (l) =>
        l.value as {
          schema: { fields: Array<{ field: string; fields?: Array<{ field: string; name?: string }> }> };
          payload: { op: string; after: Record<string, unknown> };
        },
    );
  assert.ok(first.length > 0);
  assert.deepEqual(
    values.map((v) => v.payload.op),
    ['r', 'c'],
  );
  const expected = {
    d: '2023-11-21Z',
    tm: '10:15:30.5Z',
    dt6: '2023-11-21T18:29:26.12345Z',
    dt: '0987-01-02T03:04:05Z',
    ts: '2023-11-21T18:29:26Z',
  };
  for (const v of values) {
    const { id: _id, ...rest } = v.payload.after;
    assert.deepEqual(rest, expected, `${v.payload.op} event`);
    const after = v.schema.fields.find((f) => f.field === 'after')!;
    const names = Object.fromEntries((after.fields ?? []).map((f) => [f.field, f.name]));
    assert.equal(names.d, 'io.debezium.time.IsoDate');
    assert.equal(names.tm, 'io.debezium.time.IsoTime');
    assert.equal(names.dt6, 'io.debezium.time.IsoTimestamp');
    assert.equal(names.dt, 'io.debezium.time.IsoTimestamp');
    assert.equal(names.ts, 'io.debezium.time.ZonedTimestamp');
  }
});
