/**
 * Type matrix through the real pipeline: every MariaDB column type, edge values, read by the snapshot (text
 * protocol) and by streaming (binlog). Both must produce the same Debezium values, and those values must be the
 * documented mapping.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useMariaDb } from '../harness/fixtures.js';
import { captureEnv, changes } from './support/capture.js';

const db = useMariaDb();

const COLUMNS = `
  id INT PRIMARY KEY,
  ti TINYINT, tiu TINYINT UNSIGNED, si SMALLINT, siu SMALLINT UNSIGNED, mi MEDIUMINT, miu MEDIUMINT UNSIGNED,
  i INT, iu INT UNSIGNED, bi BIGINT, biu BIGINT UNSIGNED,
  f FLOAT, d DOUBLE, dec65 DECIMAL(65,30), dec52 DECIMAL(5,2),
  b1 BIT(1), b10 BIT(10), y YEAR, dt DATE, tm TIME(6), dt0 DATETIME, dt3 DATETIME(3), dt6 DATETIME(6),
  ts0 TIMESTAMP NULL DEFAULT NULL, ts6 TIMESTAMP(6) NULL DEFAULT NULL,
  zd DATE NULL, zdn DATE NOT NULL DEFAULT '2000-01-01', zdt DATETIME NULL,
  zdtn DATETIME NOT NULL DEFAULT '2000-01-01 00:00:00', zts TIMESTAMP NOT NULL DEFAULT '2000-01-01 00:00:00',
  c CHAR(4) CHARACTER SET utf8mb4, vc VARCHAR(20) CHARACTER SET utf8mb4, l1 VARCHAR(20) CHARACTER SET latin1,
  bn BINARY(4), vb VARBINARY(8), bl BLOB, tx TEXT,
  e ENUM('a,b','c','d''e'), st SET('x','y','z'),
  j JSON, g GEOMETRY, p POINT,
  u UUID, i4 INET4, i6 INET6`;

const NAMES = COLUMNS.split('\n')
  .join(' ')
  .split(/,(?![^(]*\))/)
  .map((c) => c.trim().split(/\s+/)[0])
  .filter(Boolean);

/** Row value lists (without id). Row A: maxima and exotic values; row B: minima and zero dates; row C: NULLs. */
const A = `127, 255, 32767, 65535, 8388607, 16777215, 2147483647, 4294967295, 9223372036854775807, 18446744073709551615,
  1.5, -1.25e300, '-12345678901234567890123456789012345.123456789012345678901234567890', -0.01,
  b'1', b'1000000001', 2155, '2024-02-29', '-838:59:59.000000', '2024-01-02 03:04:05', '2024-01-02 03:04:05.123',
  '2024-01-02 03:04:05.123456', '2024-01-02 03:04:05', '2038-01-19 03:14:07.999999',
  '2024-01-01', '2024-01-01', '2024-01-01 10:00:00', '2024-01-01 10:00:00', '2024-01-01 10:00:00',
  'a😀', '😀 emoji ünï', 'café ÿ', x'0102', x'00ff', x'deadbeef00', 'long text ✓',
  'a,b', 'x,z', '{"a": [1, 2.5, "x"], "b": null}', ST_GeomFromText('LINESTRING(0 0,1 1)'), POINT(1.5, -2),
  '123e4567-e89b-12d3-a456-426614174000', '192.168.0.1', '2001:db8::1'`;
const B = `-128, 0, -32768, 0, -8388608, 0, -2147483648, 0, -9223372036854775808, 0,
  -3.4028234e38, 5e-324, '0.000000000000000000000000000001', -999.99,
  b'0', b'0000000000', 1901, '1000-01-01', '-12:34:56.789012', '1000-01-01 00:00:00', '9999-12-31 23:59:59.999',
  '1970-01-01 00:00:00.000001', '1970-01-01 00:00:01', '1970-01-01 00:00:01.000001',
  '0000-00-00', '0000-00-00', '0000-00-00 00:00:00', '0000-00-00 00:00:00', '0000-00-00 00:00:00',
  '', '', '', x'', x'', x'', '',
  'd''e', '', '[]', ST_GeomFromText('POINT(3 4)', 4326), POINT(0, 0),
  '00000000-0000-0000-0000-000000000000', '0.0.0.0', '::ffff:1.2.3.4'`;
const C = NAMES.slice(1)
  .map((n) => (/^(zdn|zdtn|zts)$/.test(n) ? 'DEFAULT' : 'NULL'))
  .join(', ');

const SESSION = "SET SESSION sql_mode='', time_zone='+00:00';";

function unscaledBase64(text: string, scale: number): string {
  const [int, frac = ''] = text.replace('-', '').split('.');
  let v = BigInt(int + frac.padEnd(scale, '0'));
  if (text.startsWith('-')) v = -v;
  // Minimal big-endian two's complement, like BigInteger.toByteArray().
  let hex = (v < 0n ? (1n << BigInt(8 * 40)) + v : v).toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  let bytes = Buffer.from(hex, 'hex');
  if (v < 0n) {
    let i = 0;
    while (i < bytes.length - 1 && bytes[i] === 0xff && bytes[i + 1] & 0x80) i++;
    bytes = bytes.subarray(i);
  } else if (bytes[0] & 0x80) bytes = Buffer.concat([Buffer.from([0]), bytes]);
  return bytes.toString('base64');
}

const wkbPoint = (x: number, y: number) => {
  const b = Buffer.alloc(21);
  b[0] = 1;
  b.writeUInt32LE(1, 1);
  b.writeDoubleLE(x, 5);
  b.writeDoubleLE(y, 13);
  return b.toString('base64');
};

const wkbLine = (xy: number[]) => {
  const b = Buffer.alloc(9 + 8 * xy.length);
  b[0] = 1;
  b.writeUInt32LE(2, 1);
  b.writeUInt32LE(xy.length / 2, 5);
  for (let i = 0; i < xy.length; i++) b.writeDoubleLE(xy[i], 9 + 8 * i);
  return b.toString('base64');
};

const EXPECT_A = {
  ti: 127,
  tiu: 255,
  si: 32767,
  siu: 65535,
  mi: 8388607,
  miu: 16777215,
  i: 2147483647,
  iu: 4294967295,
  bi: 9223372036854775807n,
  biu: -1, // bigint.unsigned.handling.mode=long wraps like Java's long
  f: 1.5,
  d: -1.25e300,
  dec65: unscaledBase64('-12345678901234567890123456789012345.123456789012345678901234567890', 30),
  dec52: unscaledBase64('-0.01', 2),
  b1: true,
  b10: Buffer.from([0x01, 0x02]).toString('base64'),
  y: 2155,
  dt: 19782,
  tm: -3020399000000,
  dt0: 1704164645000,
  dt3: 1704164645123,
  dt6: 1704164645123456,
  ts0: '2024-01-02T03:04:05Z',
  ts6: '2038-01-19T03:14:07.999999Z',
  zd: 19723,
  zdn: 19723,
  zdt: 1704103200000,
  zdtn: 1704103200000,
  zts: '2024-01-01T10:00:00Z',
  c: 'a😀',
  vc: '😀 emoji ünï',
  l1: 'café ÿ',
  bn: 'AQIAAA==',
  vb: 'AP8=',
  bl: '3q2+7wA=',
  tx: 'long text ✓',
  e: 'a,b',
  st: 'x,z',
  j: '{"a": [1, 2.5, "x"], "b": null}',
  g: {
    wkb: wkbLine([0, 0, 1, 1]),
    srid: null,
    extensions: null,
  },
  p: { x: 1.5, y: -2, wkb: wkbPoint(1.5, -2), srid: null },
  u: '123e4567-e89b-12d3-a456-426614174000',
  i4: '192.168.0.1',
  i6: '2001:db8::1',
};

const EXPECT_B_SOME = {
  bi: -9223372036854775808n,
  f: -3.4028235e38, // float32 written the way Java's Float.toString prints it
  d: 5e-324,
  dec65: unscaledBase64('0.000000000000000000000000000001', 30),
  b1: false,
  b10: 'AAA=',
  y: 1901,
  dt: -354285,
  tm: -45296789012,
  dt3: 253402300799999,
  dt6: 1,
  ts0: '1970-01-01T00:00:01Z',
  ts6: '1970-01-01T00:00:01.000001Z',
  zd: null, // zero date in a nullable column: null
  zdn: 10957, // NOT NULL zero date: the column default
  zdt: null,
  zdtn: 946684800000,
  bn: 'AAAAAA==',
  e: "d'e",
  st: '',
  j: '[]',
  g: { wkb: wkbPoint(3, 4), srid: 4326, extensions: null },
  u: '00000000-0000-0000-0000-000000000000',
  i4: '0.0.0.0',
  i6: '::ffff:1.2.3.4',
};

/** JSON.parse loses int64 precision; compare big integers through their JSON text instead. */
function normalise(v: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = typeof x === 'bigint' ? Number(x) : x;
  return out;
}

async function runMatrix(extra: Record<string, string>) {
  const server = db();
  const name = await server.createDatabase('types');
  await server.query(`CREATE TABLE ${name}.t (${COLUMNS}) CHARACTER SET utf8mb4`);
  await server.query(`${SESSION} INSERT INTO ${name}.t VALUES (1, ${A}), (2, ${B}), (3, ${C})`);
  const env = captureEnv(server, name, extra);
  const snap = changes(await env.runUntilIdle(), 't');
  assert.deepEqual(
    snap.map((v) => v.op),
    ['r', 'r', 'r'],
  );
  await server.query(`${SESSION} INSERT INTO ${name}.t VALUES (11, ${A}), (12, ${B}), (13, ${C})`);
  await server.query(`${SESSION} UPDATE ${name}.t SET id = id WHERE id = 11`); // no-op: not logged
  await server.query(`${SESSION} REPLACE INTO ${name}.t VALUES (12, ${A})`);
  await server.query(`${SESSION} DELETE FROM ${name}.t WHERE id = 13`);
  const all = changes(env.lines(), 't');
  const stream = changes(await env.runUntilIdle(), 't').slice(all.length);
  assert.deepEqual(
    stream.map((v) => v.op),
    ['c', 'c', 'c', 'u', 'd'],
  );
  const after = (v: Record<string, unknown>) => {
    const { id: _id, ...rest } = v.after as Record<string, unknown>;
    return normalise(rest);
  };
  const before = (v: Record<string, unknown>) => {
    const { id: _id, ...rest } = v.before as Record<string, unknown>;
    return normalise(rest);
  };
  // Snapshot (text protocol) and streaming (binlog) agree value for value.
  for (let r = 0; r < 3; r++) assert.deepEqual(after(stream[r]), after(snap[r]), `row ${r + 1}: snapshot vs binlog`);
  assert.deepEqual(before(stream[3]), after(snap[1]));
  assert.deepEqual(after(stream[3]), after(snap[0]));
  assert.deepEqual(before(stream[4]), after(snap[2]));
  return { a: after(snap[0]), b: after(snap[1]), c: after(snap[2]) };
}

test('type matrix, default modes: snapshot and binlog agree and follow the Debezium mapping', async () => {
  const { a, b, c } = await runMatrix({});
  assert.deepEqual(a, normalise(EXPECT_A));
  for (const [k, v] of Object.entries(normalise(EXPECT_B_SOME))) assert.deepEqual(b[k], v, `row B column ${k}`);
  assert.equal(b.zts, '2000-01-01T00:00:00Z', 'NOT NULL zero TIMESTAMP: the column default, like DATE');
  for (const [k, v] of Object.entries(c)) {
    const expected = k === 'zdn' ? 10957 : k === 'zdtn' ? 946684800000 : k === 'zts' ? '2000-01-01T00:00:00Z' : null;
    assert.deepEqual(v, expected, `row C column ${k}`);
  }
});

test('type matrix, decimal=string, binary=hex, time.precision=connect', async () => {
  const { a, b } = await runMatrix({
    'decimal.handling.mode': 'string',
    'binary.handling.mode': 'hex',
    'time.precision.mode': 'connect',
  });
  assert.equal(a.dec65, '-12345678901234567890123456789012345.123456789012345678901234567890');
  assert.equal(a.dec52, '-0.01');
  assert.equal(b.dec65, '0.000000000000000000000000000001');
  assert.equal(a.bn, '01020000');
  assert.equal(a.vb, '00ff');
  assert.equal(a.bl, 'deadbeef00');
  assert.equal(a.tm, null, 'connect Time cannot hold negative values');
  assert.equal(b.tm, null);
  assert.equal(a.dt6, 1704164645123, 'connect Timestamp is milliseconds');
  assert.equal(a.dt0, 1704164645000);
  assert.equal(a.dt, 19782);
});
