/**
 * Live type matrix: every MariaDB column type with edge values goes through INSERT, UPDATE and DELETE, is read back
 * through our replication client + decoder, and every CellValue is compared exactly with an expectation computed
 * independently by the server from the same rows (HEX(), CAST(... AS CHAR), UNIX_TIMESTAMP(), col+0), converted to
 * the CellValue the values.ts contract promises. Then the table is altered (columns added and dropped) and the
 * matrix runs again: every row must decode with the TABLE_MAP of its time.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Connection } from 'mysql2/promise';
import {
  type CellValue,
  MysqlDate,
  MysqlDateTime,
  MysqlTime,
  MysqlTimestamp,
  type Row,
} from '../../src/model/values.js';
import { useMariaDb } from '../harness/fixtures.js';
import { binlogPosition, decodeFrom, type RowChange, rowChanges } from './support/binlog-stream.js';

const server = useMariaDb({ options: { 'max-allowed-packet': '64M' } });

/** How the server's text for a column becomes the CellValue we expect (values.ts). */
type Kind =
  | 'int'
  | 'decimal'
  | 'real'
  | 'text'
  | 'bytes'
  | 'enum'
  | 'set'
  | 'year'
  | 'date'
  | { bit: number }
  | { datetime: number }
  | { time: number }
  | { timestamp: number };

interface Column {
  name: string;
  ddl: string;
  kind: Kind;
  /** SQL literals of rows 1..4 (row 5 is NULL in every column). */
  values: [string, string, string, string];
}

const bigJson = JSON.stringify({
  items: Array.from({ length: 1500 }, (_, i) => ({
    id: i,
    name: `item-${i} ✓ ünïcode`,
    tags: ['a', 'b,c'],
    ok: i % 2 === 0,
  })),
});
const setMembers = Array.from({ length: 64 }, (_, i) => `m${i}`);
const sq = (s: string) => `'${s.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;

const COLUMNS: Column[] = [
  { name: 'ti', ddl: 'TINYINT', kind: 'int', values: ['-128', '127', '0', '-1'] },
  { name: 'tiu', ddl: 'TINYINT UNSIGNED', kind: 'int', values: ['0', '255', '128', '1'] },
  { name: 'si', ddl: 'SMALLINT', kind: 'int', values: ['-32768', '32767', '0', '-2'] },
  { name: 'siu', ddl: 'SMALLINT UNSIGNED', kind: 'int', values: ['0', '65535', '32768', '1'] },
  { name: 'mi', ddl: 'MEDIUMINT', kind: 'int', values: ['-8388608', '8388607', '0', '-3'] },
  { name: 'miu', ddl: 'MEDIUMINT UNSIGNED', kind: 'int', values: ['0', '16777215', '8388608', '1'] },
  { name: 'i', ddl: 'INT', kind: 'int', values: ['-2147483648', '2147483647', '0', '-4'] },
  { name: 'iu', ddl: 'INT UNSIGNED', kind: 'int', values: ['0', '4294967295', '2147483648', '1'] },
  {
    name: 'bi',
    ddl: 'BIGINT',
    kind: 'int',
    values: ['-9223372036854775808', '9223372036854775807', '9007199254740991', '-9007199254740992'],
  },
  {
    name: 'biu',
    ddl: 'BIGINT UNSIGNED',
    kind: 'int',
    values: ['0', '18446744073709551615', '9007199254740992', '9007199254740991'],
  },
  {
    name: 'dec65',
    ddl: 'DECIMAL(65,30)',
    kind: 'decimal',
    values: [
      `-${'9'.repeat(35)}.${'9'.repeat(30)}`,
      `${'9'.repeat(35)}.${'9'.repeat(30)}`,
      `0.${'0'.repeat(29)}1`,
      '-1.5',
    ],
  },
  { name: 'dec10', ddl: 'DECIMAL(10,0)', kind: 'decimal', values: ['-9999999999', '9999999999', '0', '-1'] },
  { name: 'dec55', ddl: 'DECIMAL(5,5)', kind: 'decimal', values: ['-0.99999', '0.99999', '0', '-0.00001'] },
  {
    name: 'dec18',
    ddl: 'DECIMAL(18,9)',
    kind: 'decimal',
    values: ['-123456789.123456789', '1.000000001', '0.5', '-0.000000001'],
  },
  {
    name: 'f',
    ddl: 'FLOAT',
    kind: 'real',
    values: ['3.4028234663852886e38', '-3.4028234663852886e38', '1.401298464324817e-45', '0.1'],
  },
  {
    name: 'd',
    ddl: 'DOUBLE',
    kind: 'real',
    values: ['1.7976931348623157e308', '-1.7976931348623157e308', '5e-324', '0.30000000000000004'],
  },
  { name: 'b1', ddl: 'BIT(1)', kind: { bit: 1 }, values: ["b'0'", "b'1'", "b'1'", "b'0'"] },
  { name: 'b8', ddl: 'BIT(8)', kind: { bit: 1 }, values: ["b'0'", "b'11111111'", "b'10000001'", "b'1'"] },
  {
    name: 'b17',
    ddl: 'BIT(17)',
    kind: { bit: 3 },
    values: ["b'0'", `b'${'1'.repeat(17)}'`, "b'10000000000000001'", "b'1'"],
  },
  {
    name: 'b64',
    ddl: 'BIT(64)',
    kind: { bit: 8 },
    values: ["b'0'", `b'${'1'.repeat(64)}'`, `b'1${'0'.repeat(63)}'`, "b'1'"],
  },
  { name: 'dt', ddl: 'DATE', kind: 'date', values: ["'1000-01-01'", "'9999-12-31'", "'0000-00-00'", "'2024-02-00'"] },
  ...[0, 1, 2, 3, 4, 5, 6].map(
    (fsp): Column => ({
      name: `dtm${fsp}`,
      ddl: `DATETIME(${fsp})`,
      kind: { datetime: fsp },
      values: [
        "'1000-01-01 00:00:00'",
        "'9999-12-31 23:59:59.999999'",
        "'0000-00-00 00:00:00'",
        "'2024-02-29 12:34:56.123456'",
      ],
    }),
  ),
  ...[0, 1, 2, 3, 4, 5, 6].map(
    (fsp): Column => ({
      name: `ts${fsp}`,
      ddl: `TIMESTAMP(${fsp}) NULL DEFAULT NULL`,
      kind: { timestamp: fsp },
      values: [
        "'1970-01-01 00:00:01'",
        "'2038-01-19 03:14:07.999999'",
        "'0000-00-00 00:00:00'",
        "'2024-02-29 12:34:56.654321'",
      ],
    }),
  ),
  ...[0, 3, 6].map(
    (fsp): Column => ({
      name: `tm${fsp}`,
      ddl: `TIME(${fsp})`,
      kind: { time: fsp },
      values: ["'-838:59:59.999999'", "'838:59:59.999999'", "'-00:00:00.000001'", "'-01:02:03.456789'"],
    }),
  ),
  { name: 'yr', ddl: 'YEAR', kind: 'year', values: ['1901', '2155', '0000', '2024'] },
  {
    name: 'vc',
    ddl: 'VARCHAR(64) CHARACTER SET utf8mb4',
    kind: 'text',
    values: ["'😀 emoji 🎉'", "''", "'a''b\\\\c'", "'\t\n'"],
  },
  {
    name: 'vc300',
    ddl: 'VARCHAR(300) CHARACTER SET utf8mb4',
    kind: 'text',
    values: [sq('𝄞'.repeat(300)), "''", sq('x'.repeat(300)), "'ok'"],
  },
  { name: 'ch', ddl: 'CHAR(10) CHARACTER SET utf8mb4', kind: 'text', values: ["'trail   '", "''", "'🙂'", "'  lead'"] },
  { name: 'chl1', ddl: 'CHAR(10) CHARACTER SET latin1', kind: 'text', values: ["'café €'", "''", "'ÿ'", "'x'"] },
  {
    name: 'vcl1',
    ddl: 'VARCHAR(40) CHARACTER SET latin1',
    kind: 'text',
    values: ["'naïve – “quotes” €'", "''", "'Ææ'", "'z'"],
  },
  { name: 'vc3', ddl: 'VARCHAR(20) CHARACTER SET utf8mb3', kind: 'text', values: ["'ñ € 日本'", "''", "'ü'", "'q'"] },
  { name: 'tt', ddl: 'TINYTEXT', kind: 'text', values: ["'tiny ✓'", "''", sq('t'.repeat(255)), "'t'"] },
  {
    name: 'tx',
    ddl: 'TEXT CHARACTER SET latin1',
    kind: 'text',
    values: ["'latin1 text: àéîõü £'", "''", "'x'", "'y'"],
  },
  { name: 'mt', ddl: 'MEDIUMTEXT', kind: 'text', values: [sq('m😀'.repeat(20_000)), "''", "'m'", "'n'"] },
  { name: 'lt', ddl: 'LONGTEXT', kind: 'text', values: ["'long 🚀'", "''", "'l'", "'k'"] },
  { name: 'bn', ddl: 'BINARY(8)', kind: 'bytes', values: ["x'00'", "x'FF00FF0000FF00FF'", "x''", "x'0001'"] },
  { name: 'vb', ddl: 'VARBINARY(20)', kind: 'bytes', values: ["x'000000'", "x''", "x'FF'", "x'00FF00'"] },
  { name: 'tb', ddl: 'TINYBLOB', kind: 'bytes', values: ["x'00'", "x''", "x'DEADBEEF'", "x'01'"] },
  { name: 'bl', ddl: 'BLOB', kind: 'bytes', values: ["x'0000'", "x''", `x'${'AB'.repeat(70_000 / 2)}'`, "x'02'"] },
  { name: 'mb', ddl: 'MEDIUMBLOB', kind: 'bytes', values: ["x'00'", "x''", `x'${'CD'.repeat(100_000)}'`, "x'03'"] },
  { name: 'lb', ddl: 'LONGBLOB', kind: 'bytes', values: ["x'00'", "x''", "x'EF'", "x'04'"] },
  { name: 'js', ddl: 'JSON', kind: 'text', values: [sq(bigJson), "'[]'", `'{"k": "v,w", "n": null}'`, '\'"s"\''] },
  {
    name: 'en',
    ddl: "ENUM('a,b', 'c''d', '', 'x y')",
    kind: 'enum',
    values: ["'a,b'", "'x y'", "''", "'not-a-member'"],
  },
  {
    name: 'st',
    ddl: `SET(${setMembers.map((m) => `'${m}'`).join(', ')})`,
    kind: 'set',
    values: ["''", `'${setMembers.join(',')}'`, "'m0,m63'", "'m5'"],
  },
  {
    name: 'geo',
    ddl: 'GEOMETRY',
    kind: 'bytes',
    values: [
      "ST_GeomFromText('POINT(1 2)')",
      "ST_GeomFromText('POLYGON((0 0,10 0,10 10,0 10,0 0))', 4326)",
      "ST_GeomFromText('LINESTRING(-1.5 2.25,3 4)')",
      "ST_GeomFromText('GEOMETRYCOLLECTION(POINT(0 0))')",
    ],
  },
  {
    name: 'pt',
    ddl: 'POINT',
    kind: 'bytes',
    values: ['POINT(0, 0)', 'POINT(-180, 90)', 'POINT(1e300, -1e-300)', 'POINT(0.5, 0.25)'],
  },
  {
    name: 'uu',
    ddl: 'UUID',
    kind: 'bytes',
    values: [
      "'00000000-0000-0000-0000-000000000000'",
      "'ffffffff-ffff-ffff-ffff-ffffffffffff'",
      "'6ccd780c-baba-1026-9564-5b8c656024db'",
      "'123e4567-e89b-42d3-a456-426614174000'",
    ],
  },
  {
    name: 'ip4',
    ddl: 'INET4',
    kind: 'bytes',
    values: ["'0.0.0.0'", "'255.255.255.255'", "'10.0.0.1'", "'192.168.1.0'"],
  },
  {
    name: 'ip6',
    ddl: 'INET6',
    kind: 'bytes',
    values: ["'::'", "'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'", "'::ffff:1.2.3.4'", "'2001:db8::1:0'"],
  },
];

const ROWS = 5;

function selectExpr(c: Column): string {
  const q = `\`${c.name}\``;
  const k = c.kind;
  if (typeof k === 'object') {
    if ('bit' in k) return `LPAD(HEX(${q}), ${2 * k.bit}, '0')`;
    if ('timestamp' in k) return `CAST(UNIX_TIMESTAMP(${q}) AS CHAR)`;
    return `CAST(${q} AS CHAR)`;
  }
  switch (k) {
    case 'real':
      // Widened to DOUBLE: a FLOAT's exact value, printed with round-trip precision.
      return `CAST(CAST(${q} AS DOUBLE) AS CHAR)`;
    case 'text':
      return `CONVERT(${q} USING utf8mb4)`;
    case 'bytes':
      return `HEX(${q})`;
    case 'set':
      // SET + 0 is a signed BIGINT: all 64 members would read as -1.
      return `CAST(CAST(${q} + 0 AS UNSIGNED) AS CHAR)`;
    case 'enum':
    case 'year':
      return `CAST(${q} + 0 AS CHAR)`;
    default:
      return `CAST(${q} AS CHAR)`;
  }
}

function toInt(s: string): number | bigint {
  const b = BigInt(s);
  return b >= -9007199254740991n && b <= 9007199254740991n ? Number(b) : b;
}

function micros(frac: string | undefined): number {
  return Number((frac ?? '').padEnd(6, '0'));
}

/** The server's text for one cell → the CellValue values.ts promises for it. */
function expected(c: Column, text: string | null): CellValue {
  if (text === null) return null;
  const k = c.kind;
  if (typeof k === 'object') {
    if ('bit' in k) return Buffer.from(text, 'hex');
    if ('datetime' in k) {
      const m = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d+))?$/.exec(text);
      assert.ok(m, `DATETIME text ${text}`);
      const n = m.slice(1, 7).map(Number);
      return new MysqlDateTime(n[0], n[1], n[2], n[3], n[4], n[5], micros(m[7]), k.datetime);
    }
    if ('time' in k) {
      const m = /^(-?)(\d+):(\d\d):(\d\d)(?:\.(\d+))?$/.exec(text);
      assert.ok(m, `TIME text ${text}`);
      const abs = ((Number(m[2]) * 60 + Number(m[3])) * 60 + Number(m[4])) * 1_000_000 + micros(m[5]);
      return new MysqlTime(m[1] ? -abs : abs, k.time);
    }
    const [sec, frac] = text.split('.');
    return new MysqlTimestamp(Number(sec), micros(frac), k.timestamp);
  }
  switch (k) {
    case 'int':
      return toInt(text);
    case 'decimal':
    case 'text':
      return text;
    case 'real':
      return Number(text);
    case 'bytes':
      return Buffer.from(text, 'hex');
    case 'enum':
    case 'year':
      return Number(text);
    case 'set':
      return BigInt(text);
    case 'date': {
      const [y, mo, d] = text.split('-').map(Number);
      return new MysqlDate(y, mo, d);
    }
  }
}

async function serverRows(conn: Connection, table: string, cols: Column[]): Promise<Row[]> {
  const [rows] = await conn.query({
    sql: `SELECT id, ${cols.map(selectExpr).join(', ')} FROM ${table} ORDER BY id`,
    rowsAsArray: true,
  });
  return (rows as (string | number | null)[][]).map((r) => [
    Number(r[0]),
    ...cols.map((c, i) => expected(c, r[i + 1] as string | null)),
  ]);
}

/**
 * Inserts rows 1..5, rewrites each row i with the literals of row i+1 (row 5 with row 1's, so NULLs ↔ values) in one
 * transaction, deletes
 * everything; returns the server's view after the insert and after the update. Three transactions.
 */
async function exercise(conn: Connection, table: string, cols: Column[]): Promise<{ inserted: Row[]; updated: Row[] }> {
  const literal = (c: Column, row: number) => (row === ROWS ? 'NULL' : c.values[row - 1]);
  const tuples = Array.from({ length: ROWS }, (_, k) => `(${k + 1}, ${cols.map((c) => literal(c, k + 1)).join(', ')})`);
  await conn.query(
    `INSERT INTO ${table} (id, ${cols.map((c) => `\`${c.name}\``).join(', ')}) VALUES ${tuples.join(', ')}`,
  );
  const inserted = await serverRows(conn, table, cols);
  await conn.query('BEGIN');
  for (let row = 1; row <= ROWS; row++) {
    const sets = cols.map((c) => `\`${c.name}\` = ${literal(c, (row % ROWS) + 1)}`).join(', ');
    await conn.query(`UPDATE ${table} SET ${sets} WHERE id = ${row}`);
  }
  await conn.query('COMMIT');
  const updated = await serverRows(conn, table, cols);
  await conn.query(`DELETE FROM ${table}`);
  return { inserted, updated };
}

/** The decoded row changes must be exactly: 5 inserts, 5 updates (in id order), 5 deletes. */
function assertChanges(changes: RowChange[], cols: Column[], inserted: Row[], updated: Row[], what: string): void {
  const names = ['id', ...cols.map((c) => c.name)];
  assert.equal(changes.length, 3 * ROWS, `${what}: number of row changes`);
  for (let k = 0; k < ROWS; k++) {
    const c = changes[k];
    const u = changes[ROWS + k];
    const d = changes[2 * ROWS + k];
    assert.equal(c.op, 'c');
    assert.equal(u.op, 'u');
    assert.equal(d.op, 'd');
    if (c.op !== 'c' || u.op !== 'u' || d.op !== 'd') return;
    assertRow(c.after, inserted[k], names, `${what} insert row ${k + 1}`);
    assertRow(u.before, inserted[k], names, `${what} update before row ${k + 1}`);
    assertRow(u.after, updated[k], names, `${what} update after row ${k + 1}`);
    assertRow(d.before, updated[k], names, `${what} delete row ${k + 1}`);
  }
}

function assertRow(actual: Row, expectedRow: Row, names: string[], what: string): void {
  assert.equal(actual.length, expectedRow.length, `${what}: column count`);
  for (let i = 0; i < names.length; i++) {
    assert.deepEqual(actual[i], expectedRow[i], `${what}, column ${names[i]}`);
  }
}

test('every column type round-trips INSERT/UPDATE/DELETE exactly, before and after ALTER TABLE', {
  timeout: 60_000,
}, async () => {
  const s = server();
  const db = await s.createDatabase('types');
  const table = `\`${db}\`.matrix`;
  const conn = await s.connect({ database: db });
  try {
    // Permissive: zero dates, out-of-range ENUM → '' (index 0); UTC so TIMESTAMP literals are UTC.
    await conn.query("SET SESSION sql_mode = '', time_zone = '+00:00'");
    await conn.query(
      `CREATE TABLE ${table} (id INT PRIMARY KEY, ${COLUMNS.map((c) => `\`${c.name}\` ${c.ddl}`).join(', ')})`,
    );
    const start = await binlogPosition(s);
    const before = await exercise(conn, table, COLUMNS);

    // After the ALTER the same table id is re-mapped with another shape: new columns first and last, some gone.
    const dropped = new Set(['dec18', 'ts3', 'vc3', 'bl', 'en']);
    await conn.query(
      `ALTER TABLE ${table} ADD COLUMN added_first VARCHAR(10) FIRST, ADD COLUMN added_last BIGINT UNSIGNED, ` +
        [...dropped].map((n) => `DROP COLUMN \`${n}\``).join(', '),
    );
    const added: Column[] = [
      { name: 'added_first', ddl: '', kind: 'text', values: ["'f1'", "''", "'f3'", "'f4'"] },
      { name: 'added_last', ddl: '', kind: 'int', values: ['18446744073709551615', '0', '1', '2'] },
    ];
    const altered = [added[0], ...COLUMNS.filter((c) => !dropped.has(c.name)), added[1]];
    const after = await exercise(conn, table, altered);

    const events = await decodeFrom(s, { file: start.file, pos: start.pos }, 6);
    const changes = rowChanges(events);
    assert.equal(changes.length, 6 * ROWS);
    // Expected rows are in SELECT order (id first); the altered table has added_first before id.
    const idFirst = (r: Row) => [r[1], r[0], ...r.slice(2)];
    assertChanges(changes.slice(0, 3 * ROWS), COLUMNS, before.inserted, before.updated, 'original table');
    assertChanges(
      changes.slice(3 * ROWS).map((ch) => reorder(ch, idFirst)),
      altered,
      after.inserted,
      after.updated,
      'altered table',
    );

    // The TABLE_MAPs said which columns each row had at the time.
    const maps = events.flatMap((e) => (e.event.type === 'TABLE_MAP' ? [e.event.columns.map((c) => c.name)] : []));
    // One per statement: INSERT, 5 UPDATEs, DELETE, before and after the ALTER.
    const original = ['id', ...COLUMNS.map((c) => c.name)];
    const reshaped = ['added_first', 'id', ...altered.slice(1).map((c) => c.name)];
    assert.deepEqual(maps, [...Array(7).fill(original), ...Array(7).fill(reshaped)]);
  } finally {
    await conn.end();
  }
});

function reorder(ch: RowChange, f: (r: Row) => Row): RowChange {
  if (ch.op === 'c') return { ...ch, after: f(ch.after) };
  if (ch.op === 'd') return { ...ch, before: f(ch.before) };
  return { ...ch, before: f(ch.before), after: f(ch.after) };
}
