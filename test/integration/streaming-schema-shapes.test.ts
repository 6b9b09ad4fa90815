/**
 * Table shapes and DDL forms a Debezium consumer meets every day, through `cdc run` against the private MariaDB:
 * keys from NOT NULL unique indexes, MariaDB's SET STATEMENT prefix, TRUNCATE, DDL on other databases, RENAME,
 * DROP DATABASE, BOOLEAN/JSON columns, system-versioned tables and sequences. One server for the file.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { javaHashSetOrder } from '../../src/source/mysql/schema/change-events.js';
import { useMariaDb } from '../harness/fixtures.js';
import { captureEnv, changes, type SinkLine } from './support/capture.js';

const db = useMariaDb();

/** Schema-change events (topic = topic.prefix), in order. */
function schemaChanges(lines: SinkLine[]): Array<{ key: Record<string, unknown>; value: Record<string, unknown> }> {
  return lines
    .filter((l) => l.topic === 'it' && l.value !== null && 'ddl' in l.value)
    .map((l) => ({ key: l.key ?? {}, value: l.value ?? {} }));
}

type Change = { type: string; id: string; table: { primaryKeyColumnNames: string[] } | null };

test('NOT NULL unique key without a primary key: it is the key in the model, the snapshot and the events', async () => {
  const server = db();
  const name = await server.createDatabase('uk');
  // Snapshot path (information_schema): the nullable unique index comes first by name and must not be chosen.
  await server.query(
    `CREATE TABLE ${name}.snap (a INT NULL, b INT NOT NULL, v VARCHAR(10), UNIQUE KEY a_nullable (a), UNIQUE KEY b_key (b))`,
  );
  await server.query(`INSERT INTO ${name}.snap VALUES (NULL, 1, 'x')`);
  const env = captureEnv(server, name);
  const first = await env.runUntilIdle();
  const read = changes(first, 'snap');
  assert.deepEqual(
    read.map((v) => v.op),
    ['r'],
  );
  const readKey = first.find((l) => l.topic.endsWith('.snap'))?.key;
  assert.deepEqual(readKey, { b: 1 });

  // DDL path: column-level NOT NULL UNIQUE and a two-column table-level one.
  await server.query(`CREATE TABLE ${name}.live (a INT NOT NULL UNIQUE, v VARCHAR(10))`);
  await server.query(`CREATE TABLE ${name}.two (x INT NOT NULL, y INT NOT NULL, v INT, UNIQUE KEY xy (x, y))`);
  await server.query(`INSERT INTO ${name}.live VALUES (1, 'one')`);
  await server.query(`UPDATE ${name}.live SET v = 'uno' WHERE a = 1`);
  await server.query(`INSERT INTO ${name}.two VALUES (1, 2, 3)`);
  await server.query(`UPDATE ${name}.snap SET v = 'y' WHERE b = 1`);
  // Dropping the index leaves the table keyless; a NOT NULL unique index added later becomes the key again.
  await server.query(`ALTER TABLE ${name}.two DROP INDEX xy`);
  await server.query(`INSERT INTO ${name}.two VALUES (4, 5, 6)`);
  await server.query(`ALTER TABLE ${name}.two ADD UNIQUE KEY yk (y)`);
  await server.query(`INSERT INTO ${name}.two VALUES (7, 8, 9)`);

  const lines = (await env.runUntilIdle()).slice(first.length);
  const keys = (table: string) => lines.filter((l) => l.topic === `it.${name}.${table}`).map((l) => l.key);
  assert.deepEqual(keys('live'), [{ a: 1 }, { a: 1 }]);
  assert.deepEqual(keys('two'), [{ x: 1, y: 2 }, null, { y: 8 }]);
  assert.deepEqual(keys('snap'), [{ b: 1 }]);
  const created = schemaChanges(lines)
    .flatMap((e) => e.value.tableChanges as Change[])
    .filter((c) => c.id === `"${name}"."live"`);
  assert.deepEqual(created[0]?.table?.primaryKeyColumnNames, ['a']);
});

test('MariaDB SET STATEMENT ... FOR <DDL> reaches the model, the history and the schema-change events', async () => {
  const server = db();
  const name = await server.createDatabase('setst');
  await server.query(`CREATE TABLE ${name}.t (id INT PRIMARY KEY, a VARCHAR(10))`);
  const env = captureEnv(server, name);
  const first = await env.runUntilIdle();
  const prefix = 'SET STATEMENT max_statement_time=100, lock_wait_timeout=5 FOR';
  await server.query(`${prefix} ALTER TABLE ${name}.t ADD COLUMN b INT NOT NULL DEFAULT 7`);
  await server.query(`INSERT INTO ${name}.t VALUES (1, 'x', 2)`);
  await server.query(`${prefix} CREATE TABLE ${name}.u (id INT PRIMARY KEY, v INT)`);
  await server.query(`INSERT INTO ${name}.u VALUES (1, 1)`);
  await server.query(`${prefix} RENAME TABLE ${name}.u TO ${name}.u2`);
  await server.query(`INSERT INTO ${name}.u2 VALUES (2, 2)`);
  await server.query(`${prefix} DROP TABLE ${name}.u2`);
  const lines = (await env.runUntilIdle()).slice(first.length);
  assert.deepEqual(
    changes(lines, 't').map((v) => v.after),
    [{ id: 1, a: 'x', b: 2 }],
  );
  assert.deepEqual(
    [...changes(lines, 'u'), ...changes(lines, 'u2')].map((v) => v.after),
    [
      { id: 1, v: 1 },
      { id: 2, v: 2 },
    ],
  );
  // Debezium reports the statement without the SET STATEMENT prefix.
  assert.deepEqual(
    schemaChanges(lines).map((e) => [e.value.ddl, (e.value.tableChanges as Change[]).map((c) => `${c.type} ${c.id}`)]),
    [
      [`ALTER TABLE ${name}.t ADD COLUMN b INT NOT NULL DEFAULT 7`, [`ALTER "${name}"."t"`]],
      [`CREATE TABLE ${name}.u (id INT PRIMARY KEY, v INT)`, [`CREATE "${name}"."u"`]],
      [`RENAME TABLE ${name}.u TO ${name}.u2`, [`ALTER "${name}"."u2"`]],
      // MariaDB logs DROP TABLE rewritten (`... /* generated by server */`); Debezium reports `DROP TABLE <quoted id>`.
      [`DROP TABLE \`${name}\`.\`u2\``, [`DROP "${name}"."u2"`]],
    ],
  );
  const history = readFileSync(join(env.dir, 'history.jsonl'), 'utf8');
  assert.match(history, /SET STATEMENT max_statement_time=100, lock_wait_timeout=5 FOR ALTER TABLE/);
});

test('TRUNCATE: skipped by default (skipped.operations=t), a keyless op "t" with skipped.operations=none', async () => {
  const server = db();
  const name = await server.createDatabase('trunc');
  await server.query(`CREATE TABLE ${name}.t (id INT PRIMARY KEY)`);
  await server.query(`INSERT INTO ${name}.t VALUES (1)`);
  const quiet = captureEnv(server, name);
  const loud = captureEnv(server, name, { 'skipped.operations': 'none' });
  const q0 = (await quiet.runUntilIdle()).length;
  const l0 = (await loud.runUntilIdle()).length;
  await server.query(`TRUNCATE TABLE ${name}.t`);
  await server.query(`INSERT INTO ${name}.t VALUES (2)`);
  const q = (await quiet.runUntilIdle()).slice(q0);
  const l = (await loud.runUntilIdle()).slice(l0);
  // Debezium sends TRUNCATE to no schema-change topic, whatever skipped.operations says.
  assert.deepEqual(schemaChanges(q), []);
  assert.deepEqual(schemaChanges(l), []);
  assert.deepEqual(
    q.map((x) => [x.topic, x.value?.op]),
    [[`it.${name}.t`, 'c']],
  );
  assert.deepEqual(
    l.map((x) => [x.topic, x.key, x.value?.op]),
    [
      [`it.${name}.t`, null, 't'],
      [`it.${name}.t`, { id: 2 }, 'c'],
    ],
  );
  const t = l[0].value ?? {};
  assert.equal(t.before, null);
  assert.equal(t.after, null);
  const source = t.source as Record<string, unknown>;
  assert.equal(source.db, name);
  assert.equal(source.table, 't');
  assert.equal(typeof t.ts_ms, 'number');
});

test('schema changes are keyed by the database the statement touches; RENAME is one ALTER; DROP DATABASE lists no tables', async () => {
  const server = db();
  const home = await server.createDatabase('home');
  const other = await server.createDatabase('other');
  await server.query(`CREATE TABLE ${other}.t (id INT PRIMARY KEY)`);
  await server.query(`CREATE TABLE ${home}.d (id INT PRIMARY KEY)`);
  await server.query(`CREATE TABLE ${home}.x (id INT PRIMARY KEY)`);
  await server.query(`CREATE TABLE ${home}.y (id INT PRIMARY KEY)`);
  const env = captureEnv(server, home, { 'database.include.list': `${home},${other}` });
  const first = await env.runUntilIdle();
  const conn = await server.connect({ database: home });
  try {
    await conn.query(`ALTER TABLE ${other}.t ADD COLUMN c INT`);
    await conn.query('RENAME TABLE d TO d2');
    await conn.query('RENAME TABLE x TO x2, y TO y2');
    await conn.query('CREATE TABLE x (id INT PRIMARY KEY)');
    await conn.query('CREATE TABLE y (id INT PRIMARY KEY)');
    await conn.query('DROP TABLE IF EXISTS x, y');
  } finally {
    await conn.end();
  }
  // No default database: the qualified name decides.
  await server.query(`CREATE TABLE ${other}.n (id INT PRIMARY KEY)`);
  await server.query(`DROP DATABASE ${other}`);
  const events = schemaChanges((await env.runUntilIdle()).slice(first.length));
  const shape = events.map((e) => ({
    key: e.key.databaseName,
    db: e.value.databaseName,
    sourceDb: (e.value.source as { db: string }).db,
    table: (e.value.source as { table: string | null }).table,
    ddl: e.value.ddl,
    changes: (e.value.tableChanges as Change[]).map((c) => `${c.type} ${c.id}`),
  }));
  const q = (db: string, t: string) => `"${db}"."${t}"`;
  // source.table of the two events of one database: Debezium's HashSet order (unit-tested in change-events.test.ts).
  const xy = javaHashSetOrder([`${home}.x2`, `${home}.y2`])
    .map((id) => id.slice(id.indexOf('.') + 1))
    .join(',');
  const xyDropped = javaHashSetOrder([`${home}.x`, `${home}.y`])
    .map((id) => id.slice(id.indexOf('.') + 1))
    .join(',');
  assert.deepEqual(shape, [
    {
      key: other,
      db: other,
      sourceDb: other,
      table: 't',
      ddl: `ALTER TABLE ${other}.t ADD COLUMN c INT`,
      changes: [`ALTER ${q(other, 't')}`],
    },
    {
      key: home,
      db: home,
      sourceDb: home,
      table: 'd2',
      ddl: 'RENAME TABLE d TO d2',
      changes: [`ALTER ${q(home, 'd2')}`],
    },
    // Debezium: one event per renamed table, each with its own clause, source.table from their HashSet.
    {
      key: home,
      db: home,
      sourceDb: home,
      table: xy,
      ddl: 'RENAME TABLE x TO x2',
      changes: [`ALTER ${q(home, 'x2')}`],
    },
    {
      key: home,
      db: home,
      sourceDb: home,
      table: xy,
      ddl: 'RENAME TABLE y TO y2',
      changes: [`ALTER ${q(home, 'y2')}`],
    },
    ...['x', 'y'].map((t) => ({
      key: home,
      db: home,
      sourceDb: home,
      table: t,
      ddl: `CREATE TABLE ${t} (id INT PRIMARY KEY)`,
      changes: [`CREATE ${q(home, t)}`],
    })),
    // Debezium: one event per dropped table, `DROP TABLE [IF EXISTS] ` + its quoted id.
    ...['x', 'y'].map((t) => ({
      key: home,
      db: home,
      sourceDb: home,
      table: xyDropped,
      ddl: `DROP TABLE IF EXISTS \`${home}\`.\`${t}\``,
      changes: [`DROP ${q(home, t)}`],
    })),
    {
      key: other,
      db: other,
      sourceDb: other,
      table: 'n',
      ddl: `CREATE TABLE ${other}.n (id INT PRIMARY KEY)`,
      changes: [`CREATE ${q(other, 'n')}`],
    },
    { key: other, db: other, sourceDb: other, table: null, ddl: `DROP DATABASE ${other}`, changes: [] },
  ]);
  // The renamed tables keep capturing under their new names after a restart (the history replays the rename).
  await server.query(`INSERT INTO ${home}.d2 VALUES (5)`);
  const after = await env.runUntilIdle();
  assert.deepEqual(changes(after, 'd2').at(-1)?.after, { id: 5 });
});

test('BOOLEAN and JSON columns: Debezium types them boolean and io.debezium.data.Json when created while streaming, by the stored type (tinyint(1), longtext) when snapshotted', async () => {
  const server = db();
  const name = await server.createDatabase('bj');
  await server.query(`CREATE TABLE ${name}.snap (id INT PRIMARY KEY, flag BOOLEAN, doc JSON)`);
  const env = captureEnv(server, name, { 'value.converter.schemas.enable': 'true' });
  const first = await env.runUntilIdle();
  await server.query(`CREATE TABLE ${name}.live (id INT PRIMARY KEY, flag BOOL NOT NULL, doc JSON)`);
  await server.query(`INSERT INTO ${name}.live VALUES (1, TRUE, '{"a": 1}')`);
  await server.query(`INSERT INTO ${name}.snap VALUES (1, TRUE, '{"a": 1}')`);
  const lines = (await env.runUntilIdle()).slice(first.length);
  const row = (table: string) => {
    const v = lines.find((l) => l.topic === `it.${name}.${table}`)?.value as {
      schema: { fields: Array<{ field: string; fields?: Array<{ field: string; type: string; name?: string }> }> };
      payload: { after: Record<string, unknown> };
    };
    const after = v.schema.fields.find((f) => f.field === 'after')?.fields ?? [];
    const types = Object.fromEntries(after.map((f) => [f.field, f.name ?? f.type]));
    return { after: v.payload.after, types };
  };
  assert.deepEqual(row('live'), {
    after: { id: 1, flag: true, doc: '{"a": 1}' },
    types: { id: 'int32', flag: 'boolean', doc: 'io.debezium.data.Json' },
  });
  assert.deepEqual(row('snap'), {
    after: { id: 1, flag: 1, doc: '{"a": 1}' },
    types: { id: 'int32', flag: 'int8', doc: 'string' },
  });
  const created = lines
    .filter((l) => l.topic === 'it')
    .flatMap((l) => (l.value as { payload: { tableChanges: Change[] } }).payload.tableChanges)
    .find((c) => c.id === `"${name}"."live"`)?.table as unknown as { columns: Array<Record<string, unknown>> };
  assert.deepEqual(
    created.columns.slice(1).map((c) => [c.name, c.typeName, c.jdbcType, c.length ?? null]),
    [
      ['flag', 'BOOL', 16, null],
      ['doc', 'JSON', 1111, null],
    ],
  );
});

test('system-versioned tables and sequences never stop the capture; snapshot.mode=recovery rebuilds past them', async () => {
  const server = db();
  const name = await server.createDatabase('sv');
  await server.query(`CREATE TABLE ${name}.snap (id INT PRIMARY KEY, v INT) WITH SYSTEM VERSIONING`);
  await server.query(`CREATE SEQUENCE ${name}.s_old`);
  const env = captureEnv(server, name);
  const first = await env.runUntilIdle();
  await server.query(`CREATE TABLE ${name}.live (id INT PRIMARY KEY, v INT) WITH SYSTEM VERSIONING`);
  await server.query(
    `CREATE TABLE ${name}.expl (id INT PRIMARY KEY, v INT, rs TIMESTAMP(6) GENERATED ALWAYS AS ROW START, re TIMESTAMP(6) GENERATED ALWAYS AS ROW END, PERIOD FOR SYSTEM_TIME(rs, re)) WITH SYSTEM VERSIONING`,
  );
  await server.query(`CREATE SEQUENCE ${name}.s_new`);
  const dml = async () => {
    for (const t of ['snap', 'live', 'expl']) {
      await server.query(`INSERT INTO ${name}.${t} (id, v) VALUES (1, 1)`);
      await server.query(`UPDATE ${name}.${t} SET v = 2 WHERE id = 1`);
      await server.query(`DELETE FROM ${name}.${t} WHERE id = 1`);
    }
    await server.query(`SELECT NEXTVAL(${name}.s_old), NEXTVAL(${name}.s_new)`);
  };
  await dml();
  const lines = (await env.runUntilIdle()).slice(first.length);
  // The table as queried: an UPDATE's old version and a DELETE's closed row are history, not changes.
  const ops = (ls: typeof lines, t: string) =>
    changes(ls, t).map((v) => [
      v.op,
      (v.before as { v?: number } | null)?.v ?? null,
      (v.after as { v?: number } | null)?.v ?? null,
    ]);
  const expected = [
    ['c', null, 1],
    ['u', 1, 2],
    ['d', 2, null],
  ];
  for (const t of ['snap', 'live', 'expl']) assert.deepEqual(ops(lines, t), expected, t);
  // Debezium's view of an implicitly versioned table: its visible columns only.
  assert.deepEqual(Object.keys(changes(lines, 'live')[0].after as object), ['id', 'v']);
  assert.deepEqual(
    lines.filter((l) => /\.s_(old|new)$/.test(l.topic)),
    [],
  );

  // Recovery: the history is rebuilt from the server, where these tables are versioned and s_* are sequences.
  const stores = {
    'offset.storage.file.filename': join(env.dir, 'offsets.json'),
    'schema.history.internal.file.filename': join(env.dir, 'recovered-history.jsonl'),
  };
  await captureEnv(server, name, { ...stores, 'snapshot.mode': 'recovery' }).runUntilIdle();
  await dml();
  const recovered = await captureEnv(server, name, stores).runUntilIdle();
  for (const t of ['snap', 'live', 'expl']) assert.deepEqual(ops(recovered, t), expected, `${t} after recovery`);
});
