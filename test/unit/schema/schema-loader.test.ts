/** Loader normalisation with canned information_schema rows (the live-server equality test is in integration/). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  columnFromInformationSchema,
  loadSchema,
  parseEnumValues,
  SchemaTracker,
  type SqlQueryable,
  trackerOptionsFor,
} from '../../../src/source/mysql/schema/index.js';

const base = { charLen: null, fsp: null, cs: null, coll: null, extra: '', comment: '' };

describe('columnFromInformationSchema', () => {
  it('normalises MariaDB COLUMN_DEFAULT quoting (quoted literals, NULL as text, current_timestamp())', () => {
    const row = (name: string, columnType: string, def: string | null, nullable = 'YES', extra = '') =>
      columnFromInformationSchema(
        { ...base, name, dataType: columnType.replace(/\(.*$/, ''), columnType, def, nullable, extra },
        0,
        'mariadb',
      );
    assert.deepEqual(pick(row('a', 'varchar', "'it''s'")), [true, "it's"]);
    assert.deepEqual(pick(row('b', 'int(11)', 'NULL')), [true, null]);
    assert.deepEqual(pick(row('c', 'int(11)', null, 'NO')), [false, null]);
    assert.deepEqual(pick(row('d', 'timestamp', 'current_timestamp()', 'NO')), [true, 'CURRENT_TIMESTAMP']);
    assert.deepEqual(pick(row('e', 'datetime(6)', 'current_timestamp(6)', 'NO')), [true, 'CURRENT_TIMESTAMP(6)']);
    assert.deepEqual(pick(row('f', 'decimal(5,2)', '1.50')), [true, '1.50']);
    assert.deepEqual(pick(row('g', 'int(11)', null, 'NO', 'auto_increment')), [false, null]);
  });

  it('normalises MySQL COLUMN_DEFAULT (bare literals, DEFAULT_GENERATED expressions, NULL for nullable)', () => {
    const row = (columnType: string, def: string | null, nullable = 'YES', extra = '') =>
      columnFromInformationSchema(
        { ...base, name: 'x', dataType: columnType.replace(/[( ].*$/, ''), columnType, def, nullable, extra },
        0,
        'mysql',
      );
    assert.deepEqual(pick(row('varchar(5)', "it's")), [true, "it's"]);
    assert.deepEqual(pick(row('int', null)), [true, null]);
    assert.deepEqual(pick(row('int', null, 'NO')), [false, null]);
    assert.deepEqual(pick(row('timestamp', 'CURRENT_TIMESTAMP', 'NO', 'DEFAULT_GENERATED')), [
      true,
      'CURRENT_TIMESTAMP',
    ]);
    assert.deepEqual(pick(row('varchar(36)', 'uuid()', 'YES', 'DEFAULT_GENERATED')), [true, 'uuid()']);
    assert.equal(row('int unsigned', '1').unsigned, true);
    assert.equal(row('int', null, 'YES', 'VIRTUAL GENERATED').generated, true);
    assert.equal(row('int', null, 'YES', 'INVISIBLE').invisible, true);
  });

  it('parses ENUM/SET members from COLUMN_TYPE', () => {
    assert.deepEqual(parseEnumValues("enum('a,b','it''s','x)y','')"), ['a,b', "it's", 'x)y', '']);
  });
});

describe('loadSchema (fake connection)', () => {
  it('uses a fixed number of set-based queries and assembles keys and server options', async () => {
    const queries: string[] = [];
    const conn: SqlQueryable = {
      async query(sql: string) {
        queries.push(sql);
        if (sql.includes('@@version'))
          return [[{ version: '8.0.36', cs: 'utf8mb4', coll: 'utf8mb4_0900_ai_ci', lctn: 0 }], []];
        if (sql.includes('SCHEMATA')) return [[{ name: 'app', cs: 'utf8mb4', coll: 'utf8mb4_0900_ai_ci' }], []];
        if (sql.includes('information_schema.TABLES'))
          return [
            [
              { db: 'app', name: 't', coll: 'utf8mb4_0900_ai_ci', comment: '' },
              { db: 'app', name: 'skip', coll: 'latin1_swedish_ci', comment: '' },
            ],
            [],
          ];
        if (sql.includes('COLUMNS'))
          return [
            [
              {
                ...base,
                db: 'app',
                tbl: 't',
                name: 'id',
                dataType: 'int',
                columnType: 'int',
                def: null,
                nullable: 'NO',
              },
              {
                ...base,
                db: 'app',
                tbl: 't',
                name: 'v',
                dataType: 'varchar',
                columnType: 'varchar(3)',
                def: null,
                nullable: 'YES',
                charLen: 3,
                cs: 'utf8mb4',
                coll: 'utf8mb4_0900_ai_ci',
              },
            ],
            [],
          ];
        if (sql.includes('STATISTICS'))
          return [
            [
              { db: 'app', tbl: 't', idx: 'PRIMARY', col: 'id' },
              { db: 'app', tbl: 't', idx: 'uv', col: 'v' },
              { db: 'app', tbl: 't', idx: 'fx', col: null },
            ],
            [],
          ];
        if (sql.startsWith('SHOW VARIABLES LIKE'))
          return [[{ Variable_name: 'show_gipk_in_create_table_and_information_schema', Value: 'OFF' }], []];
        if (sql.startsWith('SET SESSION')) return [[], []];
        throw new Error(`unexpected query ${sql}`);
      },
    };
    const loaded = await loadSchema(conn, { tableFilter: (_db, t) => t !== 'skip' });
    assert.equal(queries.length, 7);
    // MySQL 8.0.30+ hides generated invisible primary keys from information_schema unless the session says ON.
    assert.ok(
      queries.indexOf('SET SESSION show_gipk_in_create_table_and_information_schema = ON') <
        queries.findIndex((q) => q.includes('COLUMNS')),
    );
    assert.deepEqual(loaded.server, {
      flavor: 'mysql',
      version: '8.0.36',
      intDisplayWidth: false,
      serverCharset: 'utf8mb4',
      serverCollation: 'utf8mb4_0900_ai_ci',
      lowerCaseTableNames: 0,
    });
    assert.deepEqual(
      loaded.tables.map((t) => t.name),
      ['t'],
    );
    // The same table from DDL on this server models identically.
    const tracker = new SchemaTracker(trackerOptionsFor(loaded.server));
    tracker.putDatabase(loaded.databases[0]);
    tracker.apply('CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(3), UNIQUE KEY uv (v))', { defaultDatabase: 'app' });
    assert.deepEqual(tracker.getTable('app', 't'), loaded.tables[0]);
  });
});

function pick(c: { hasDefault: boolean; defaultValue: string | null }): [boolean, string | null] {
  return [c.hasDefault, c.defaultValue];
}
