/**
 * The key property of the schema layer: a table created/altered by DDL read from the binlog models exactly like the
 * same table loaded from the server's information_schema. Runs the round-trip fixture on a private MariaDB.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { ColumnDef, TableDef } from '../../src/source/mysql/schema/index.js';
import { loadSchema, SchemaTracker, splitStatements, trackerOptionsFor } from '../../src/source/mysql/schema/index.js';
import { useMariaDb } from '../harness/fixtures.js';

const FIXTURE = new URL('../fixtures/ddl/roundtrip-mariadb.sql', import.meta.url);

describe('schema loader vs tracker on MariaDB', () => {
  const server = useMariaDb();

  it('models every table of the round-trip fixture identically from DDL and from information_schema', async () => {
    const s = server();
    const db = await s.createDatabase('schema_rt');
    const statements = splitStatements(readFileSync(FIXTURE, 'utf8'));
    const conn = await s.connect({ database: db });
    try {
      for (const sql of statements) await conn.query(sql);
      const loaded = await loadSchema(conn, { databases: [db], includeCreateStatements: true });
      assert.equal(loaded.server.flavor, 'mariadb');

      const tracker = new SchemaTracker(trackerOptionsFor(loaded.server));
      const dbDef = loaded.databases.find((d) => d.name === db);
      assert.ok(dbDef, 'database loaded');
      tracker.putDatabase(dbDef);
      for (const sql of statements) tracker.apply(sql, { defaultDatabase: db, position: 'fixture' });

      const fromDdl = tracker.tables().filter((t) => t.database === db);
      const names = (ts: { name: string }[]) => ts.map((t) => t.name).sort();
      assert.deepEqual(names(fromDdl), names(loaded.tables));
      assert.deepEqual(differences(tracker, loaded.tables, db), []);

      // SHOW CREATE TABLE output (what schema history stores for snapshots) also rebuilds the same model.
      const fromShowCreate = new SchemaTracker(trackerOptionsFor(loaded.server));
      fromShowCreate.putDatabase(dbDef);
      for (const text of loaded.createStatements.values()) fromShowCreate.apply(text, { defaultDatabase: db });
      assert.deepEqual(differences(fromShowCreate, loaded.tables, db), []);
    } finally {
      await conn.end();
    }
  });
});

/** Every field that differs, as readable lines, so one run shows all problems. */
function differences(tracker: SchemaTracker, expectedTables: TableDef[], db: string): string[] {
  const out: string[] = [];
  for (const expected of expectedTables) {
    const actual = tracker.getTable(db, expected.name);
    if (!actual) {
      out.push(`${expected.name}: missing`);
      continue;
    }
    const { columns: ec, ...eRest } = expected;
    const { columns: ac, ...aRest } = actual;
    for (const k of Object.keys(eRest) as Array<keyof typeof eRest>) {
      if (JSON.stringify(aRest[k]) !== JSON.stringify(eRest[k]))
        out.push(`${expected.name}.${k}: ddl ${JSON.stringify(aRest[k])} server ${JSON.stringify(eRest[k])}`);
    }
    if (ac.length !== ec.length) out.push(`${expected.name}: ${ac.length} columns, server ${ec.length}`);
    ec.forEach((e, i) => {
      const a = ac[i] ?? {};
      for (const k of Object.keys(e) as Array<keyof ColumnDef>) {
        if (JSON.stringify(a[k as keyof typeof a]) !== JSON.stringify(e[k]))
          out.push(
            `${expected.name}.${e.name}.${k}: ddl ${JSON.stringify(a[k as keyof typeof a])} server ${JSON.stringify(e[k])}`,
          );
      }
    });
  }
  return out;
}
