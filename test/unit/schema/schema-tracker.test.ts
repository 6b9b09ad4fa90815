import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { columnInfo } from '../../../src/events/column-info.js';
import { SchemaTracker, UnparseableDdlError } from '../../../src/source/mysql/schema/index.js';
import type { SchemaHistoryEntry } from '../../../src/stores/schema-history.js';

const at = { defaultDatabase: 'app', position: { file: 'mysql-bin.000003', pos: 4711 } };

function tracker(ddl: string[], opts: ConstructorParameters<typeof SchemaTracker>[0] = {}): SchemaTracker {
  const t = new SchemaTracker(opts);
  for (const s of ddl) t.apply(s, at);
  return t;
}
const cols = (t: SchemaTracker, table: string, db = 'app') => t.getTable(db, table)?.columns.map((c) => c.name);

describe('SchemaTracker: CREATE TABLE column derivation', () => {
  it('derives information_schema types, lengths and defaults', () => {
    const t = tracker([
      `CREATE TABLE t (id SERIAL, f BOOL, d DECIMAL, c CHAR, b BIT, dt DATETIME, f1 FLOAT(20), f2 FLOAT(40),
         i INT UNSIGNED NOT NULL DEFAULT '7', dz DATETIME(3) DEFAULT '2020-01-02', e BINARY, v VARCHAR(5) BYTE)`,
    ]);
    const c = Object.fromEntries(t.getTable('app', 't')!.columns.map((x) => [x.name, x]));
    assert.equal(c.id.columnType, 'bigint(20) unsigned');
    assert.deepEqual([c.id.nullable, c.id.autoIncrement, c.id.hasDefault], [false, true, false]);
    assert.deepEqual(t.getTable('app', 't')!.uniqueKeys, [{ name: 'id', columns: ['id'] }]);
    assert.equal(c.f.columnType, 'tinyint(1)');
    assert.deepEqual([c.d.columnType, c.d.length, c.d.scale], ['decimal(10,0)', 10, 0]);
    assert.deepEqual([c.c.columnType, c.c.length], ['char(1)', 1]);
    assert.equal(c.b.columnType, 'bit(1)');
    assert.deepEqual([c.dt.columnType, c.dt.length], ['datetime', 0]);
    assert.equal(c.f1.dataType, 'float');
    assert.equal(c.f2.dataType, 'double');
    assert.deepEqual([c.i.columnType, c.i.defaultValue, c.i.hasDefault], ['int(10) unsigned', '7', true]);
    assert.equal(c.dz.defaultValue, '2020-01-02 00:00:00.000');
    assert.equal(c.e.columnType, 'binary(1)');
    assert.deepEqual([c.v.dataType, c.v.charset], ['varbinary', null]);
  });

  it('drops integer display widths for MySQL 8 except tinyint(1) and ZEROFILL', () => {
    const t = tracker(['CREATE TABLE t (a INT, b TINYINT(1), c INT(5) ZEROFILL, d YEAR, e SERIAL)'], {
      flavor: 'mysql',
    });
    assert.deepEqual(
      t.getTable('app', 't')!.columns.map((c) => c.columnType),
      ['int', 'tinyint(1)', 'int(5) unsigned zerofill', 'year', 'bigint unsigned'],
    );
  });

  it('unescapes ENUM/SET members with commas and quotes', () => {
    const t = tracker([
      `CREATE TABLE t (e ENUM('a,b', 'it''s', "say \\"hi\\"", 'x)y') DEFAULT 'a,b', s SET('1','2,3'))`,
    ]);
    const [e, s] = t.getTable('app', 't')!.columns;
    assert.deepEqual(e.enumValues, ['a,b', "it's", 'say "hi"', 'x)y']);
    assert.equal(e.columnType, `enum('a,b','it''s','say "hi"','x)y')`);
    assert.equal(e.length, 8);
    assert.equal(e.defaultValue, 'a,b');
    assert.deepEqual(s.enumValues, ['1', '2,3']);
  });

  it('inherits charsets: column → table → database → server', () => {
    const t = tracker(
      [
        'CREATE DATABASE app CHARACTER SET latin1',
        'CREATE TABLE t1 (a VARCHAR(3))',
        'CREATE TABLE t2 (a VARCHAR(3), b VARCHAR(3) CHARACTER SET utf8, c TEXT COLLATE latin2_czech_cs) CHARSET=cp1251',
        'CREATE TABLE t3 (a CHAR(2)) COLLATE utf8mb4_unicode_ci',
        'CREATE TABLE other.t4 (a CHAR(2))',
        'CREATE TABLE t5 (a CHAR(2) BINARY, b CHAR(2) CHARACTER SET latin1 BINARY, n NATIONAL CHAR(2))',
      ],
      { serverCharset: 'utf8mb4' },
    );
    const cs = (tbl: string, db = 'app') => t.getTable(db, tbl)!.columns.map((c) => `${c.charset}/${c.collation}`);
    assert.deepEqual(cs('t1'), ['latin1/latin1_swedish_ci']);
    assert.deepEqual(cs('t2'), ['cp1251/cp1251_general_ci', 'utf8mb3/utf8mb3_general_ci', 'latin2/latin2_czech_cs']);
    assert.deepEqual(cs('t3'), ['utf8mb4/utf8mb4_unicode_ci']);
    assert.deepEqual(cs('t4', 'other'), ['utf8mb4/utf8mb4_general_ci']);
    assert.deepEqual(cs('t5'), ['latin1/latin1_bin', 'latin1/latin1_bin', 'utf8mb3/utf8mb3_general_ci']);
  });

  it('documents hasDefault/defaultValue semantics', () => {
    const t = tracker([
      `CREATE TABLE t (a INT, b INT NOT NULL, c INT DEFAULT NULL, d INT NOT NULL DEFAULT 0, e INT AUTO_INCREMENT KEY,
        f TIMESTAMP(6) NOT NULL DEFAULT NOW(6), g VARCHAR(36) DEFAULT (uuid()), h BIT(4) DEFAULT 5, i INT AS (d + 1))`,
    ]);
    const d = t.getTable('app', 't')!.columns.map((c) => [c.name, c.hasDefault, c.defaultValue]);
    assert.deepEqual(d, [
      ['a', true, null],
      ['b', false, null],
      ['c', true, null],
      ['d', true, '0'],
      ['e', false, null],
      ['f', true, 'CURRENT_TIMESTAMP(6)'],
      ['g', true, 'uuid()'],
      ['h', true, "b'101'"],
      ['i', false, null],
    ]);
    assert.equal(t.getTable('app', 't')!.columns[8].generated, true);
  });

  it('executes MySQL version comments and skips ordinary comments', () => {
    const t = tracker([
      'CREATE TABLE t (a INT /* , skipped INT */, /*!50700 b INT, */ c INT -- x\n) /*!40101 DEFAULT CHARSET=latin1 */',
    ]);
    assert.deepEqual(cols(t, 't'), ['a', 'b', 'c']);
    assert.equal(t.getTable('app', 't')!.charset, 'latin1');
  });

  it('models typed temporal literals, adjacent strings and introduced hex literals as defaults', () => {
    const t = tracker([
      `CREATE TABLE t (d DATE DEFAULT DATE '2001-02-03', tm TIME DEFAULT TIME '10:11:12',
         ts DATETIME DEFAULT TIMESTAMP '2001-02-03 04:05:06', s VARCHAR(10) DEFAULT 'ab' 'cd',
         h VARCHAR(5) CHARACTER SET latin1 DEFAULT _latin1 X'4142', u VARCHAR(2) DEFAULT _utf8mb4 0xE282AC,
         k CHAR(1) CHARACTER SET cp1251 DEFAULT _koi8r 0xFF)`,
      "ALTER TABLE t ALTER COLUMN tm SET DEFAULT TIME '09:00'",
    ]);
    const c = Object.fromEntries(t.getTable('app', 't')!.columns.map((x) => [x.name, x]));
    assert.equal(c.d.defaultValue, '2001-02-03');
    assert.equal(c.tm.defaultValue, '09:00');
    assert.equal(c.ts.defaultValue, '2001-02-03 04:05:06');
    assert.equal(c.s.defaultValue, 'abcd');
    assert.equal(c.h.defaultValue, 'AB');
    assert.equal(c.u.defaultValue, '€');
    assert.deepEqual([c.k.hasDefault, c.k.defaultValue], [true, "x'FF'"], 'other introducers keep the bytes');
  });

  it('accepts qualified column names and "quoted" names (ANSI_QUOTES sessions) without the option', () => {
    const t = tracker([
      'CREATE TABLE t (t.id INT NOT NULL, app.t.name VARCHAR(5), PRIMARY KEY (id))',
      'ALTER TABLE t ADD COLUMN t.note TEXT AFTER id',
      'CREATE TABLE "q" ("a b" INT, PRIMARY KEY ("a b"))',
    ]);
    assert.deepEqual(cols(t, 't'), ['id', 'note', 'name']);
    assert.deepEqual(cols(t, 'q'), ['a b']);
    assert.deepEqual(t.getTable('app', 'q')!.primaryKey, ['a b']);
  });
});

describe('SchemaTracker: ALTER / RENAME / DROP sequences', () => {
  it('adds, drops, modifies, changes and renames columns with positions and keys', () => {
    const t = tracker([
      'CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(5), c TEXT, UNIQUE KEY ub (b, a))',
      'ALTER TABLE t ADD COLUMN z INT FIRST, ADD y DATE AFTER a, DROP COLUMN c',
      'ALTER TABLE t MODIFY b VARCHAR(10) NOT NULL AFTER id, CHANGE a a2 BIGINT',
      'ALTER TABLE t RENAME COLUMN y TO y2',
    ]);
    const table = t.getTable('app', 't')!;
    assert.deepEqual(
      table.columns.map((c) => [c.name, c.position, c.columnType]),
      [
        ['z', 0, 'int(11)'],
        ['id', 1, 'int(11)'],
        ['b', 2, 'varchar(10)'],
        ['a2', 3, 'bigint(20)'],
        ['y2', 4, 'date'],
      ],
    );
    assert.deepEqual(table.primaryKey, ['id']);
    assert.deepEqual(table.uniqueKeys, [{ name: 'ub', columns: ['b', 'a2'] }]);
  });

  it('reports ALTER changes with the full resulting definition', () => {
    const t = tracker(['CREATE TABLE t (id INT)']);
    const r = t.apply('ALTER TABLE t ADD PRIMARY KEY (id), ADD v INT', at);
    assert.equal(r.tableChanges.length, 1);
    assert.equal(r.tableChanges[0].type, 'ALTER');
    assert.equal(r.tableChanges[0].id, 'app.t');
    assert.deepEqual(r.tableChanges[0].table?.primaryKey, ['id']);
    assert.equal(r.tableChanges[0].table?.columns[0].nullable, false, 'PRIMARY KEY implies NOT NULL');
  });

  it('renames tables (multi-pair, swaps, ALTER ... RENAME across databases)', () => {
    const t = tracker(['CREATE TABLE a (x INT)', 'CREATE TABLE b (y INT)']);
    const r = t.apply('RENAME TABLE a TO tmp, b TO a, tmp TO b', at);
    assert.deepEqual(cols(t, 'a'), ['y']);
    assert.deepEqual(cols(t, 'b'), ['x']);
    assert.deepEqual(
      r.tableChanges.map((c) => `${c.type} ${c.id}`),
      ['ALTER app.tmp', 'ALTER app.a', 'ALTER app.b'],
    );
    assert.deepEqual(
      r.tableChanges.map((c) => c.previousId),
      ['app.a', 'app.b', 'app.tmp'],
    );
    t.apply('ALTER TABLE a RENAME TO other.moved', at);
    assert.equal(t.getTable('app', 'a'), undefined);
    assert.deepEqual(cols(t, 'moved', 'other'), ['y']);
  });

  it('CREATE TABLE ... LIKE copies the definition; unknown source → needsReload', () => {
    const t = tracker(["CREATE TABLE src (id INT PRIMARY KEY, v ENUM('x') DEFAULT 'x')"]);
    t.apply('CREATE TABLE dst LIKE src', at);
    assert.deepEqual({ ...t.getTable('app', 'dst')!, name: 'src' }, t.getTable('app', 'src'));
    const r = t.apply('CREATE TABLE dst2 LIKE nowhere', at);
    assert.deepEqual(r.needsReload, ['app.dst2']);
  });

  it('marks CREATE TABLE ... SELECT and unknown/unappliable ALTERs for reload', () => {
    const t = tracker(['CREATE TABLE t (id INT)']);
    assert.deepEqual(t.apply('CREATE TABLE s (extra INT) SELECT id FROM t', at).needsReload, ['app.s']);
    assert.deepEqual(t.apply('ALTER TABLE t MODIFY nothere INT', at).needsReload, ['app.t']);
    assert.deepEqual(cols(t, 't'), ['id'], 'failed ALTER leaves the table unchanged');
    assert.deepEqual(t.apply('ALTER TABLE unknown ADD x INT', at).needsReload, ['app.unknown']);
    assert.deepEqual(t.apply('ALTER TABLE t ADD SYSTEM VERSIONING', at).needsReload, ['app.t']);
  });

  it('MariaDB periods: WITHOUT OVERLAPS keys index the period end and start; PRIMARY KEY IF NOT EXISTS', () => {
    const t = tracker([
      `CREATE TABLE b (room INT NOT NULL, guest INT, f DATE NOT NULL, e DATE NOT NULL, PERIOD FOR p (f, e),
         PRIMARY KEY (room, p WITHOUT OVERLAPS), UNIQUE KEY g (guest, p WITHOUT OVERLAPS))`,
      'CREATE TABLE s (id INT NOT NULL, n INT NOT NULL, a DATE, z DATE)',
      'ALTER TABLE s ADD PRIMARY KEY IF NOT EXISTS (id)',
      'ALTER TABLE s ADD PERIOD IF NOT EXISTS FOR w (a, z)',
    ]);
    assert.deepEqual(t.getTable('app', 'b')!.primaryKey, ['room', 'e', 'f'], 'as information_schema shows it');
    assert.deepEqual(t.getTable('app', 'b')!.uniqueKeys, [{ name: 'g', columns: ['guest', 'e', 'f'] }]);
    assert.deepEqual(t.getTable('app', 's')!.primaryKey, ['id']);
    assert.equal(t.apply('ALTER TABLE s ADD PRIMARY KEY IF NOT EXISTS (n)', at).needsReload.length, 0);
    assert.deepEqual(t.getTable('app', 's')!.primaryKey, ['id'], 'IF NOT EXISTS keeps the existing key');
    t.apply('ALTER TABLE s ADD UNIQUE KEY IF NOT EXISTS un (n)', at);
    t.apply('ALTER TABLE s ADD UNIQUE KEY IF NOT EXISTS un (a)', at);
    assert.deepEqual(t.getTable('app', 's')!.uniqueKeys, [{ name: 'un', columns: ['n'] }]);
    // The tracker does not model periods added by ALTER: a key over one is re-read from the server.
    assert.deepEqual(t.apply('ALTER TABLE s ADD UNIQUE KEY u (n, w WITHOUT OVERLAPS)', at).needsReload, ['app.s']);
  });

  it('drops tables (multi, IF EXISTS, TEMPORARY ignored) and whole databases', () => {
    const t = tracker(['CREATE TABLE a (x INT)', 'CREATE TABLE b (x INT)', 'CREATE TABLE other.c (x INT)']);
    assert.equal(t.apply('DROP TEMPORARY TABLE IF EXISTS a', at).ignored, true);
    assert.ok(t.getTable('app', 'a'));
    const r = t.apply('DROP TABLE IF EXISTS a, nothere, other.c', at);
    assert.deepEqual(
      r.tableChanges.map((c) => `${c.type} ${c.id}`),
      ['DROP app.a', 'DROP other.c'],
    );
    const d = t.apply('DROP DATABASE app', at);
    assert.deepEqual(
      d.tableChanges.map((c) => c.id),
      ['app.b'],
    );
    assert.deepEqual(d.databasesDropped, ['app']);
  });

  it('notes TRUNCATE, CREATE/DROP INDEX, CONVERT TO CHARACTER SET', () => {
    const t = tracker(['CREATE TABLE t (a INT, b TEXT, c VARCHAR(4)) CHARSET latin1']);
    assert.deepEqual(t.apply('TRUNCATE t', at).truncated, ['app.t']);
    t.apply('CREATE UNIQUE INDEX ua ON t (a)', at);
    assert.deepEqual(t.getTable('app', 't')!.uniqueKeys, [{ name: 'ua', columns: ['a'] }]);
    t.apply('DROP INDEX ua ON t', at);
    assert.deepEqual(t.getTable('app', 't')!.uniqueKeys, []);
    t.apply('ALTER TABLE t CONVERT TO CHARACTER SET utf8mb4', at);
    const [, b, c] = t.getTable('app', 't')!.columns;
    assert.deepEqual([b.dataType, b.charset, b.collation], ['mediumtext', 'utf8mb4', 'utf8mb4_general_ci']);
    assert.deepEqual([c.columnType, c.charset], ['varchar(4)', 'utf8mb4']);
  });

  it('ignores non-structural statements and notes database changes', () => {
    const t = new SchemaTracker();
    for (const s of ['GRANT ALL ON *.* TO x', 'CREATE VIEW v AS SELECT 1', 'BEGIN', 'SET NAMES utf8', 'FLUSH LOGS'])
      assert.equal(t.apply(s, at).ignored, true, s);
    assert.deepEqual(t.apply('CREATE DATABASE d1 CHARSET latin2', at).databasesCreated, ['d1']);
    assert.deepEqual(t.getDatabase('d1'), { name: 'd1', charset: 'latin2', collation: 'latin2_general_ci' });
  });
});

describe('SchemaTracker: names, policies, persistence', () => {
  it('compares table names case-insensitively with lower_case_table_names=1/2', () => {
    const t1 = tracker(['CREATE TABLE Orders (Id INT)', 'ALTER TABLE ORDERS ADD x INT'], { lowerCaseTableNames: 1 });
    assert.equal(t1.getTable('APP', 'orders')?.name, 'orders');
    assert.deepEqual(cols(t1, 'orders'), ['Id', 'x']);
    const t2 = tracker(['CREATE TABLE Orders (Id INT)', 'ALTER TABLE ORDERS ADD x INT'], { lowerCaseTableNames: 2 });
    assert.equal(t2.getTable('app', 'orders')?.name, 'Orders');
    const t0 = tracker(['CREATE TABLE Orders (Id INT)'], { lowerCaseTableNames: 0 });
    assert.equal(t0.getTable('app', 'orders'), undefined);
  });

  it('answers repeated lookups (cached by exact spelling) exactly as the case-folded lookup, across DDL', () => {
    for (const lctn of [0, 1, 2] as const) {
      const t = tracker(['CREATE TABLE Orders (Id INT)'], { lowerCaseTableNames: lctn });
      const spellings: [string, string][] = [
        ['app', 'Orders'],
        ['APP', 'orders'],
        ['app', 'ORDERS'],
      ];
      const look = () => spellings.map(([db, name]) => t.getTable(db, name)?.columns.map((c) => c.name) ?? null);
      const visible = lctn === 0 ? [['Id'], null, null] : [['Id'], ['Id'], ['Id']];
      assert.deepEqual(look(), visible, `lower_case_table_names=${lctn}`);
      assert.deepEqual(look(), visible, `lower_case_table_names=${lctn}, second lookup`);
      t.apply('ALTER TABLE Orders ADD x INT', at);
      const altered = visible.map((v) => (v ? ['Id', 'x'] : null));
      assert.deepEqual(look(), altered, `lower_case_table_names=${lctn}, after ALTER`);
      t.apply('RENAME TABLE Orders TO Gone', at);
      assert.deepEqual(look(), [null, null, null], `lower_case_table_names=${lctn}, after RENAME`);
      t.apply('CREATE TABLE Orders (Id INT, y INT)', at);
      const saved = t.snapshot();
      assert.deepEqual(
        look(),
        visible.map((v) => (v ? ['Id', 'y'] : null)),
        `lower_case_table_names=${lctn}`,
      );
      t.apply('DROP DATABASE app', at);
      assert.deepEqual(look(), [null, null, null], `lower_case_table_names=${lctn}, after DROP DATABASE`);
      t.restore(saved);
      assert.deepEqual(
        look(),
        visible.map((v) => (v ? ['Id', 'y'] : null)),
        `lower_case_table_names=${lctn}`,
      );
      t.restore({ version: 1, databases: [], tables: [] });
      assert.deepEqual(look(), [null, null, null], `lower_case_table_names=${lctn}, after restore`);
    }
  });

  it('reads "double quoted" identifiers under ANSI_QUOTES', () => {
    const t = tracker(['CREATE TABLE "q t" ("my col" INT)'], { ansiQuotes: true });
    assert.deepEqual(cols(t, 'q t'), ['my col']);
  });

  it('throws UnparseableDdlError naming the statement and position, or skips when configured', () => {
    const bad = 'CREATE TABLE t (a INT) FOO=1 BAR';
    const t = new SchemaTracker();
    assert.throws(
      () => t.apply(bad, at),
      (err: unknown) =>
        err instanceof UnparseableDdlError &&
        err.code === 'SCHEMA_UNPARSEABLE_DDL' &&
        err.message.includes('mysql-bin.000003:4711') &&
        err.message.includes('CREATE TABLE t (a INT) FOO=1') &&
        err.offset === 23,
    );
    const lenient = new SchemaTracker({ skipUnparseableDdl: true });
    const r = lenient.apply(bad, at);
    assert.deepEqual([r.skipped, r.statement, r.tableChanges.length], [true, 'UNPARSEABLE', 0]);
  });

  it('falls back to node-sql-parser and asks for a reload of what it touched', () => {
    const t = tracker(['CREATE TABLE t (id INT)']);
    const r = t.apply('ALTER TABLE t ADD COLUMN a INT NOT NULL DEFAULT 1 + 1', at);
    assert.equal(r.parsedBy, 'node-sql-parser');
    assert.deepEqual(r.needsReload, ['app.t']);
    const off = new SchemaTracker({ useFallbackParser: false, skipUnparseableDdl: true });
    assert.equal(off.apply('ALTER TABLE t ADD COLUMN a INT NOT NULL DEFAULT 1 + 1', at).skipped, true);
  });

  it('snapshot()/restore() round-trip through JSON', () => {
    const t = tracker(['CREATE DATABASE app CHARSET latin1', "CREATE TABLE t (id INT PRIMARY KEY, e ENUM('a','b'))"]);
    const copy = new SchemaTracker();
    copy.restore(JSON.parse(JSON.stringify(t.snapshot())));
    assert.deepEqual(copy.snapshot(), t.snapshot());
    assert.equal(copy.getDatabase('app')?.charset, 'latin1');
  });

  it('fromHistory() rebuilds the model from recorded entries', () => {
    const live = new SchemaTracker();
    const entries: SchemaHistoryEntry[] = [];
    const ddl = [
      'CREATE DATABASE app CHARSET latin1',
      'CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(3))',
      'CREATE TABLE u (id INT)',
      'ALTER TABLE t ADD w INT',
      'RENAME TABLE u TO u2',
      'DROP TABLE u2',
    ];
    ddl.forEach((s, seq) => {
      const r = live.apply(s, at);
      entries.push({
        seq,
        position: { file: 'mysql-bin.000003', pos: 100 + seq },
        ts_ms: 0,
        databaseName: 'app',
        ddl: s,
        tableChanges: r.tableChanges.map(({ type, id, table, previousId }) => ({
          type,
          id,
          table,
          ...(previousId ? { previousId } : {}),
        })),
      });
    });
    const rebuilt = SchemaTracker.fromHistory(entries.reverse());
    assert.deepEqual(rebuilt.snapshot(), live.snapshot());
  });

  it('keeps a table filter: unfiltered tables are not modelled', () => {
    const t = tracker(['CREATE TABLE keep (a INT)', 'CREATE TABLE skip_me (a INT)'], {
      tableFilter: (_db, name) => !name.startsWith('skip'),
    });
    assert.ok(t.getTable('app', 'keep'));
    assert.equal(t.getTable('app', 'skip_me'), undefined);
  });
});

describe('SchemaTracker: what Debezium reports of a statement', () => {
  it('attributes a table statement to the database of the table it names, captured or not', () => {
    const t = new SchemaTracker({ tableFilter: (db) => db === 'app' });
    const other = t.apply('ALTER TABLE otherdb.t ADD COLUMN w INT', at);
    assert.deepEqual([other.database, other.namedTables, other.tableChanges], ['otherdb', ['otherdb.t'], []]);
    const rename = t.apply('RENAME TABLE x.a TO app.b', at);
    assert.deepEqual([rename.database, rename.namedTables], ['x', ['x.a', 'app.b']]);
    const db = t.apply('CREATE DATABASE d2', at);
    assert.deepEqual([db.database, db.namedTables], ['d2', undefined]);
  });

  it('an integer column written without a display width reports a null length, as Debezium DDL path does', () => {
    const t = tracker(['CREATE TABLE t (a INT, b INT(4), c BIGINT UNSIGNED)']);
    const c = Object.fromEntries(t.getTable('app', 't')!.columns.map((x) => [x.name, x]));
    // The model keeps what the server stores; the table change reports what the statement wrote.
    assert.deepEqual([c.a.columnType, c.a.length, columnInfo(c.a).length], ['int(11)', 11, null]);
    assert.deepEqual([c.b.columnType, columnInfo(c.b).length], ['int(4)', 4]);
    assert.deepEqual([c.c.columnType, columnInfo(c.c).length], ['bigint(20) unsigned', null]);
  });
});
