/**
 * Table shapes and DDL forms a Debezium consumer meets every day, through `cdc run` against the private MariaDB:
 * keys from NOT NULL unique indexes, MariaDB's SET STATEMENT prefix, TRUNCATE, DDL on other databases, RENAME,
 * DROP DATABASE, BOOLEAN/JSON columns, system-versioned tables and sequences. One server for the file.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
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
