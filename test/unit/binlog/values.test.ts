/** Column value decoding on exact, hand-built bytes. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type CellValue,
  MysqlDate,
  MysqlDateTime,
  MysqlJson,
  MysqlJsonPartial,
  MysqlTime,
  MysqlTimestamp,
  utcMillis,
} from '../../../src/model/values.js';
import { decodeDecimal } from '../../../src/source/mysql/binlog/decimal.js';
import { BinlogDecodeError, BinlogDecoder, type ColumnHint } from '../../../src/source/mysql/binlog/decoder.js';
import { EventType } from '../../../src/source/mysql/binlog/event-types.js';
import { jsonBinaryToText, quote } from '../../../src/source/mysql/binlog/json-binary.js';
import { ColumnType } from '../../../src/source/mysql/column-type.js';
import { buildEvent, packed, rowsV2Body, tableMapBody } from './helpers.js';

/** Decodes one non-null value of a single-column table through TABLE_MAP + WRITE_ROWS_V2. */
function decodeValue(
  type: number,
  meta: number[],
  value: number[],
  opts: { optional?: Array<[number, number[]]>; hint?: ColumnHint } = {},
): CellValue {
  const decoder = new BinlogDecoder({ columnHints: opts.hint ? () => [opts.hint] : undefined });
  decoder.decode(buildEvent(EventType.TABLE_MAP, tableMapBody(7, 'd', 't', [{ type, meta }], opts.optional)));
  const ev = decoder.decode(buildEvent(EventType.WRITE_ROWS_V2, rowsV2Body(7, 1, [[0x00, ...value]])));
  assert.ok(ev.type === 'WRITE_ROWS');
  assert.equal(ev.rows.length, 1);
  return ev.rows[0][0];
}

// ---- independent test-side encoders (following MySQL's documented layouts) ----
const DIG2BYTES = [0, 1, 1, 2, 2, 3, 3, 4, 4, 4];
function encodeDecimal(text: string, precision: number, scale: number): number[] {
  const neg = text.startsWith('-');
  const [ip, fp = ''] = text.replace('-', '').split('.');
  const intg = precision - scale;
  const intDigits = ip.padStart(intg, '0');
  const fracDigits = fp.padEnd(scale, '0');
  const out: number[] = [];
  const push = (digits: string) => {
    if (digits.length === 0) return;
    const n = DIG2BYTES[digits.length];
    let v = BigInt(digits);
    const bytes: number[] = [];
    for (let i = 0; i < n; i++) {
      bytes.unshift(Number(v & 0xffn));
      v >>= 8n;
    }
    out.push(...bytes);
  };
  push(intDigits.slice(0, intg % 9));
  for (let i = intg % 9; i < intg; i += 9) push(intDigits.slice(i, i + 9));
  for (let i = 0; i + 9 <= scale; i += 9) push(fracDigits.slice(i, i + 9));
  push(fracDigits.slice(scale - (scale % 9)));
  out[0] ^= 0x80;
  return neg ? out.map((b) => b ^ 0xff) : out;
}

function be(v: bigint | number, n: number): number[] {
  let x = BigInt(v);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    out.unshift(Number(x & 0xffn));
    x >>= 8n;
  }
  return out;
}

/** TIME2 as my_time_packed_to_binary writes it. */
function encodeTime2(neg: boolean, h: number, m: number, s: number, us: number, fsp: number): number[] {
  const hms = BigInt((h << 12) | (m << 6) | s);
  let nr = (hms << 24n) + BigInt(us);
  if (neg) nr = -nr;
  const intPart = nr >> 24n; // arithmetic shift, like C on signed values
  const fracPart = nr - (nr < 0n ? -(-nr & 0xffffffn) : nr & 0xffffffn) === 0n ? 0n : 0n; // placeholder (unused)
  void fracPart;
  const frac = nr < 0n ? -(-nr % 16777216n) : nr % 16777216n; // C remainder keeps the sign
  switch (fsp) {
    case 0:
      return be(0x800000n + intPart, 3);
    case 1:
    case 2:
      return [...be(0x800000n + intPart, 3), Number(BigInt.asUintN(8, frac / 10000n))];
    case 3:
    case 4:
      return [...be(0x800000n + intPart, 3), ...be(BigInt.asUintN(16, frac / 100n), 2)];
    default:
      return be(nr + 0x800000000000n, 6);
  }
}

function encodeDatetime2(
  y: number,
  mo: number,
  d: number,
  h: number,
  mi: number,
  s: number,
  us: number,
  fsp: number,
): number[] {
  const ymd = (BigInt(y * 13 + mo) << 5n) | BigInt(d);
  const hms = BigInt((h << 12) | (mi << 6) | s);
  const intPart = (ymd << 17n) | hms;
  return [...be(intPart + 0x8000000000n, 5), ...encodeFrac(us, fsp)];
}
function encodeFrac(us: number, fsp: number): number[] {
  if (fsp === 0) return [];
  if (fsp <= 2) return [us / 10000];
  if (fsp <= 4) return be(us / 100, 2);
  return be(us, 3);
}

describe('DECIMAL', () => {
  it('decodes the MySQL documentation vectors', () => {
    assert.equal(decodeDecimal(Buffer.from('810dfb38d204d2', 'hex'), 0, 14, 4), '1234567890.1234');
    assert.equal(decodeDecimal(Buffer.from('7ef204c72dfb2d', 'hex'), 0, 14, 4), '-1234567890.1234');
  });
  const cases: Array<[string, number, number]> = [
    ['0.00', 5, 2],
    ['-12.50', 10, 2],
    ['-0.05', 10, 2],
    ['1234567890', 10, 0],
    ['-1', 3, 0],
    ['12345678901234567890123456789012345.123456789012345678901234567890', 65, 30],
    ['-99999999999999999999999999999999999.999999999999999999999999999999', 65, 30],
    ['0.000000000000000000000000000001', 65, 30],
    ['99999999999999999999999999999999999999999999999999999999999999999', 65, 0],
    ['-0.123456789', 10, 9],
  ];
  for (const [text, p, s] of cases) {
    it(`DECIMAL(${p},${s}) ${text}`, () => {
      assert.equal(decodeValue(ColumnType.NEWDECIMAL, [p, s], encodeDecimal(text, p, s)), text);
    });
  }
  it('scale 0 has no decimal point, exact bytes', () => {
    assert.deepEqual(encodeDecimal('1234567890', 10, 0), [0x81, 0x0d, 0xfb, 0x38, 0xd2]);
    assert.equal(decodeValue(ColumnType.NEWDECIMAL, [10, 0], [0x81, 0x0d, 0xfb, 0x38, 0xd2]), '1234567890');
  });
});

describe('integers', () => {
  it('BIGINT UNSIGNED max is an exact bigint', () => {
    const v = decodeValue(ColumnType.LONGLONG, [], new Array(8).fill(0xff), { optional: [[1, [0x80]]] });
    assert.equal(v, 18446744073709551615n);
  });
  it('BIGINT signed: -1, 2^53-1 as number, 2^53 and min as bigint', () => {
    assert.equal(decodeValue(ColumnType.LONGLONG, [], new Array(8).fill(0xff)), -1);
    const le = (v: bigint) => {
      const b = Buffer.alloc(8);
      b.writeBigInt64LE(v);
      return [...b];
    };
    assert.equal(decodeValue(ColumnType.LONGLONG, [], le(9007199254740991n)), 9007199254740991);
    assert.equal(decodeValue(ColumnType.LONGLONG, [], le(-9007199254740991n)), -9007199254740991);
    assert.equal(decodeValue(ColumnType.LONGLONG, [], le(9007199254740992n)), 9007199254740992n);
    assert.equal(decodeValue(ColumnType.LONGLONG, [], le(-9223372036854775808n)), -9223372036854775808n);
  });
  it('signedness from TABLE_MAP metadata, else from the schema hint', () => {
    assert.equal(decodeValue(ColumnType.TINY, [], [0xff]), -1);
    assert.equal(decodeValue(ColumnType.TINY, [], [0xff], { optional: [[1, [0x80]]] }), 255);
    assert.equal(decodeValue(ColumnType.TINY, [], [0xff], { hint: { unsigned: true } }), 255);
    assert.equal(decodeValue(ColumnType.INT24, [], [0xff, 0xff, 0xff]), -1);
    assert.equal(decodeValue(ColumnType.INT24, [], [0xff, 0xff, 0xff], { hint: { unsigned: true } }), 16777215);
    assert.equal(decodeValue(ColumnType.LONG, [], [0xd3, 0x02, 0x96, 0xc0], { optional: [[1, [0x80]]] }), 3231056595);
  });
  it('YEAR, FLOAT, DOUBLE', () => {
    assert.equal(decodeValue(ColumnType.YEAR, [], [124]), 2024);
    assert.equal(decodeValue(ColumnType.YEAR, [], [0]), 0);
    assert.equal(decodeValue(ColumnType.FLOAT, [4], [0x00, 0x00, 0xc0, 0x3f]), 1.5);
    const d = Buffer.alloc(8);
    d.writeDoubleLE(-2.25);
    assert.equal(decodeValue(ColumnType.DOUBLE, [8], [...d]), -2.25);
  });
});

describe('temporal', () => {
  it('TIME2 with every fsp, positive and negative', () => {
    const cases: Array<[boolean, number, number, number, number, number, string]> = [
      [false, 12, 34, 56, 0, 0, '12:34:56'],
      [true, 838, 59, 59, 0, 0, '-838:59:59'],
      [false, 1, 2, 3, 400000, 1, '01:02:03.4'],
      [true, 0, 0, 1, 500000, 1, '-00:00:01.5'],
      [true, 10, 0, 0, 120000, 2, '-10:00:00.12'],
      [false, 0, 0, 0, 123400, 4, '00:00:00.1234'],
      [true, 1, 0, 0, 1000, 3, '-01:00:00.001'],
      [true, 23, 59, 59, 999999, 6, '-23:59:59.999999'],
      [false, 23, 59, 59, 10, 5, '23:59:59.00001'],
    ];
    for (const [neg, h, m, s, us, fsp, text] of cases) {
      const v = decodeValue(ColumnType.TIME2, [fsp], encodeTime2(neg, h, m, s, us, fsp));
      assert.ok(v instanceof MysqlTime);
      assert.equal(v.toString(), text, `TIME(${fsp}) ${text}`);
      const micros = ((h * 60 + m) * 60 + s) * 1e6 + us;
      assert.equal(v.micros, neg ? -micros : micros);
    }
  });
  it('TIME2 exact bytes for -00:00:01.5 (fsp 1)', () => {
    assert.deepEqual(encodeTime2(true, 0, 0, 1, 500000, 1), [0x7f, 0xff, 0xfe, 0xce]);
    assert.equal(String(decodeValue(ColumnType.TIME2, [1], [0x7f, 0xff, 0xfe, 0xce])), '-00:00:01.5');
  });
  it('DATETIME2 with fsp and the zero value', () => {
    const v = decodeValue(ColumnType.DATETIME2, [6], encodeDatetime2(2024, 1, 2, 3, 4, 5, 123456, 6));
    assert.ok(v instanceof MysqlDateTime);
    assert.equal(v.toString(), '2024-01-02 03:04:05.123456');
    assert.equal(
      String(decodeValue(ColumnType.DATETIME2, [3], encodeDatetime2(1999, 12, 31, 23, 59, 59, 120000, 3))),
      '1999-12-31 23:59:59.120',
    );
    assert.equal(
      String(decodeValue(ColumnType.DATETIME2, [0], encodeDatetime2(9999, 12, 31, 0, 0, 0, 0, 0))),
      '9999-12-31 00:00:00',
    );
    const zero = decodeValue(ColumnType.DATETIME2, [0], [0x80, 0, 0, 0, 0]);
    assert.ok(zero instanceof MysqlDateTime && zero.isZero);
    assert.equal(zero.toString(), '0000-00-00 00:00:00');
  });
  it('DATETIME2 and TIMESTAMP2 fields match the 40-bit (32-bit) integer arithmetic for random bytes at every fsp', () => {
    // The decoders read fields from the bytes in 32-bit arithmetic; this is the format's definition as numbers.
    let seed = 12345;
    const next = () => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return seed >>> 24;
    };
    for (let fsp = 0; fsp <= 6; fsp++) {
      for (let n = 0; n < 2000; n++) {
        const bytes = Array.from({ length: 8 }, next);
        if (n % 3 !== 2) bytes[0] |= 0x80; // the sign bit every written value has; a third below it
        const fracLen = (fsp + 1) >> 1;
        const frac = (at: number) => {
          let f = 0;
          for (let i = 0; i < fracLen; i++) f = f * 256 + bytes[at + i];
          return fracLen === 0 ? 0 : f * 10 ** (6 - 2 * fracLen);
        };
        const intPart = Buffer.from(bytes).readUIntBE(0, 5) - 0x8000000000;
        const ymd = Math.floor(intPart / 131072);
        const hms = intPart % 131072;
        const ym = ymd >> 5;
        const dt = decodeValue(ColumnType.DATETIME2, [fsp], bytes.slice(0, 5 + fracLen)) as MysqlDateTime;
        assert.deepEqual(
          [dt.year, dt.month, dt.day, dt.hour, dt.minute, dt.second, dt.micros, dt.fsp],
          [(ym / 13) | 0, ym % 13, ymd & 31, hms >> 12, (hms >> 6) & 63, hms & 63, frac(5), fsp],
          `DATETIME2(${fsp}) ${bytes}`,
        );
        const ts = decodeValue(ColumnType.TIMESTAMP2, [fsp], bytes.slice(0, 4 + fracLen)) as MysqlTimestamp;
        assert.deepEqual(
          [ts.seconds, ts.micros, ts.fsp],
          [Buffer.from(bytes).readUInt32BE(0), frac(4), fsp],
          `TIMESTAMP2(${fsp}) ${bytes}`,
        );
      }
    }
  });
  it('TIMESTAMP2 with fsp and zero', () => {
    const v = decodeValue(ColumnType.TIMESTAMP2, [3], [...be(1704164645, 4), ...be(1230, 2)]);
    assert.ok(v instanceof MysqlTimestamp);
    assert.equal(v.seconds, 1704164645);
    assert.equal(v.micros, 123000);
    assert.equal(v.toString(), '2024-01-02T03:04:05.123Z');
    const zero = decodeValue(ColumnType.TIMESTAMP2, [0], [0, 0, 0, 0]);
    assert.ok(zero instanceof MysqlTimestamp && zero.isZero);
  });
  it('DATE, zero DATE and old DATETIME/TIMESTAMP/TIME', () => {
    const date = (y: number, m: number, d: number) => {
      const v = (y << 9) | (m << 5) | d;
      return [v & 0xff, (v >> 8) & 0xff, v >> 16];
    };
    assert.equal(String(decodeValue(ColumnType.DATE, [], date(2024, 2, 29))), '2024-02-29');
    const zero = decodeValue(ColumnType.DATE, [], [0, 0, 0]);
    assert.ok(zero instanceof MysqlDate && zero.isZero);
    const dt = Buffer.alloc(8);
    dt.writeBigUInt64LE(20240102030405n);
    assert.equal(String(decodeValue(ColumnType.DATETIME, [], [...dt])), '2024-01-02 03:04:05');
    assert.equal(
      (decodeValue(ColumnType.TIMESTAMP, [], [0x25, 0x84, 0x93, 0x65]) as MysqlTimestamp).seconds,
      0x65938425,
    );
    const t = -(12 * 10000 + 34 * 100 + 56) & 0xffffff;
    assert.equal(String(decodeValue(ColumnType.TIME, [], [t & 0xff, (t >> 8) & 0xff, t >> 16])), '-12:34:56');
  });
});

describe('strings, bytes, ENUM, SET, BIT', () => {
  it('charset from TABLE_MAP collation: latin1 is windows-1252, binary stays a Buffer', () => {
    // COLUMN_CHARSET (3): latin1_swedish_ci = 8
    assert.equal(decodeValue(ColumnType.VARCHAR, [20, 0], [2, 0x80, 0xe9], { optional: [[3, [8]]] }), '€é');
    assert.deepEqual(
      decodeValue(ColumnType.VARCHAR, [20, 0], [2, 0x80, 0xe9], { optional: [[3, [63]]] }),
      Buffer.from([0x80, 0xe9]),
    );
    assert.equal(decodeValue(ColumnType.VARCHAR, [20, 0], [2, 0xc3, 0xa9]), 'é'); // default utf8
    // ucs2 (35) is big-endian UTF-16
    assert.equal(
      decodeValue(ColumnType.STRING, [0xfe, 20], [4, 0x00, 0x41, 0x4e, 0x2d], { optional: [[3, [35]]] }),
      'A中',
    );
  });
  it('BLOB is a Buffer unless the schema says it is text; MariaDB JSON becomes MysqlJson', () => {
    assert.deepEqual(decodeValue(ColumnType.BLOB, [2], [3, 0, 0x61, 0x62, 0x63]), Buffer.from('abc'));
    assert.equal(decodeValue(ColumnType.BLOB, [2], [3, 0, 0x61, 0x62, 0x63], { hint: { binary: false } }), 'abc');
    const json = decodeValue(ColumnType.BLOB, [4], [7, 0, 0, 0, ...Buffer.from('{"a":1}')], {
      hint: { json: true, charset: 'utf8mb4' },
    });
    assert.deepEqual(json, new MysqlJson('{"a":1}'));
    // UTF-8 documents keep their bytes for the converter to escape (MysqlJson.fromUtf8).
    assert.ok(json instanceof MysqlJson && json.utf8 !== null);
    assert.equal(json.utf8.toString('utf8', json.utf8Start, json.utf8End), '{"a":1}');
    const latin1 = decodeValue(ColumnType.BLOB, [4], [2, 0, 0, 0, 0x22, 0xe9], {
      hint: { json: true, charset: 'latin1' },
    });
    assert.ok(latin1 instanceof MysqlJson && latin1.utf8 === null && latin1.text === '"é');
  });
  it('CHAR longer than 255 bytes uses the packed metadata length (2-byte prefix)', () => {
    // CHAR(100) utf8mb4 = 400 bytes: metadata 0xee 0x90 → real type STRING, length 0x190.
    const text = 'x'.repeat(300);
    assert.equal(decodeValue(ColumnType.STRING, [0xee, 0x90], [0x2c, 0x01, ...Buffer.from(text)]), text);
  });
  it('ENUM index and SET bitmask (STRING with the real type in metadata)', () => {
    assert.equal(decodeValue(ColumnType.STRING, [0xf7, 1], [3]), 3);
    assert.equal(decodeValue(ColumnType.STRING, [0xf7, 2], [0x2c, 0x01]), 300);
    assert.equal(decodeValue(ColumnType.STRING, [0xf8, 1], [0b101]), 0b101n);
    assert.equal(decodeValue(ColumnType.STRING, [0xf8, 8], new Array(8).fill(0xff)), 0xffffffffffffffffn);
  });
  it('BIT(n) is big-endian bytes, ceil(n/8) long', () => {
    // BIT(10): metadata bits%8 = 2, bytes = 1 → 2 bytes
    assert.deepEqual(decodeValue(ColumnType.BIT, [2, 1], [0x03, 0xff]), Buffer.from([0x03, 0xff]));
  });
  it('GEOMETRY is a Buffer, VECTOR a Float32Array', () => {
    assert.deepEqual(decodeValue(ColumnType.GEOMETRY, [4], [2, 0, 0, 0, 0xaa, 0xbb]), Buffer.from([0xaa, 0xbb]));
    const f = Buffer.alloc(8);
    f.writeFloatLE(1.5, 0);
    f.writeFloatLE(-2, 4);
    const v = decodeValue(ColumnType.VECTOR, [4], [8, 0, 0, 0, ...f]);
    assert.ok(v instanceof Float32Array);
    assert.deepEqual(Array.from(v), [1.5, -2]);
  });
});

describe('MySQL binary JSON', () => {
  const text = (hex: string) => {
    const b = Buffer.from(hex.replace(/\s+/g, ''), 'hex');
    return jsonBinaryToText(b, 0, b.length);
  };
  it('scalars', () => {
    assert.equal(text('0401'), 'true');
    assert.equal(text('0402'), 'false');
    assert.equal(text('0400'), 'null');
    assert.equal(text('05d6ff'), '-42');
    assert.equal(text('06ffff'), '65535');
    assert.equal(text('07ffffffff'), '-1');
    assert.equal(text('08ffffffff'), '4294967295');
    assert.equal(text('09ffffffffffffff7f'), '9223372036854775807');
    assert.equal(text('0affffffffffffffff'), '18446744073709551615');
    assert.equal(text('0b0000000000000040'), '2.0');
    assert.equal(text('0b000000000000f83f'), '1.5');
    assert.equal(text(`0c05${Buffer.from('hello').toString('hex')}`), '"hello"');
    assert.equal(text(`0c06${Buffer.from('a"b\\c\n').toString('hex')}`), '"a\\"b\\\\c\\n"');
    assert.equal(text(''), 'null');
  });
  it('array and object as compact JSON (Debezium / JsonStringFormatter separators)', () => {
    assert.equal(text('02 0300 0f00 050100 0c0d00 040000 0161'), '[1,"a",null]');
    assert.equal(
      text('00 0200 2300 1200 0100 1300 0100 0b1400 021c00 6162 000000000000f83f 0100 0700 040100'),
      '{"a":1.5,"b":[true]}',
    );
  });
  it('opaque DECIMAL, DATETIME, TIME, DATE and other types', () => {
    assert.equal(text(`0f f6 04 0402 8c22`), '12.34');
    const dtPacked = (y: number, mo: number, d: number, h: number, mi: number, s: number, us: number) => {
      const ymd = (BigInt(y * 13 + mo) << 5n) | BigInt(d);
      const v = (((ymd << 17n) | BigInt((h << 12) | (mi << 6) | s)) << 24n) | BigInt(us);
      const b = Buffer.alloc(8);
      b.writeBigInt64LE(v);
      return b.toString('hex');
    };
    assert.equal(text(`0f 0c 08 ${dtPacked(2015, 1, 15, 23, 24, 25, 0)}`), '"2015-01-15 23:24:25.000000"');
    assert.equal(text(`0f 07 08 ${dtPacked(2015, 1, 15, 23, 24, 25, 500)}`), '"2015-01-15 23:24:25.000500"');
    assert.equal(text(`0f 0a 08 ${dtPacked(2015, 1, 15, 0, 0, 0, 0)}`), '"2015-01-15"');
    const time = Buffer.alloc(8);
    time.writeBigInt64LE(-((BigInt((12 << 12) | (30 << 6) | 1) << 24n) | 250000n));
    assert.equal(text(`0f 0b 08 ${time.toString('hex')}`), '"-12:30:01.250000"');
    assert.equal(text('0f 0f 02 6162'), '"base64:type15:YWI="');
  });
  it("doubles follow my_gcvt: 'f' format for 1e-15 <= |x| < 1e15 (and larger non-integers), else exponent", () => {
    const cases: Array<[number, string]> = [
      [0.1, '0.1'],
      [-0.0, '-0.0'],
      [0, '0.0'],
      [2, '2.0'],
      [-1.5, '-1.5'],
      [1e-5, '0.00001'],
      [1.5e-7, '0.00000015'],
      [1e-15, '0.000000000000001'],
      [1e-16, '1e-16'],
      [1.25e-300, '1.25e-300'],
      [1e14, '100000000000000.0'],
      [123456789012345, '123456789012345.0'],
      [1e15, '1e15'],
      [1234567890123456.8, '1234567890123456.8'],
      [1e100, '1e100'],
      [-1.7976931348623157e308, '-1.7976931348623157e308'],
      [5e-324, '5e-324'],
      [0.30000000000000004, '0.30000000000000004'],
    ];
    for (const [d, want] of cases) {
      const b = Buffer.alloc(9);
      b[0] = 0x0b;
      b.writeDoubleLE(d, 1);
      assert.equal(jsonBinaryToText(b, 0, 9), want, String(d));
      assert.equal(JSON.parse(want), d);
    }
  });
  it("strings are quoted as MySQL does: each control character's escape, quote and backslash; a lone surrogate raw", () => {
    const controls = Array.from({ length: 32 }, (_, c) => String.fromCharCode(c)).join('');
    const want = `"${['\\u0000', '\\u0001', '\\u0002', '\\u0003', '\\u0004', '\\u0005', '\\u0006', '\\u0007', '\\b', '\\t', '\\n', '\\u000b', '\\f', '\\r'].join('')}${Array.from({ length: 18 }, (_, i) => `\\u00${(14 + i).toString(16).padStart(2, '0')}`).join('')}"`;
    assert.equal(quote(controls), want);
    assert.equal(quote(`é "€" \\ 😀\u007f`), '"é \\"€\\" \\\\ 😀\u007f"');
    assert.equal(quote('a"\ud800'), '"a\\"\ud800"');
    assert.equal(quote('plain'), '"plain"');
  });
  it('JSON column through a rows event', () => {
    assert.deepEqual(decodeValue(ColumnType.JSON, [4], [3, 0, 0, 0, 0x05, 0x2a, 0x00]), new MysqlJson('42'));
  });
});

describe('partial images and column selection', () => {
  it('absent columns are undefined; includeColumns skips values but keeps alignment', () => {
    const cols = [{ type: ColumnType.LONG }, { type: ColumnType.VARCHAR, meta: [10, 0] }, { type: ColumnType.LONG }];
    const tm = buildEvent(EventType.TABLE_MAP, tableMapBody(9, 'd', 't', cols));
    const body = [
      ...tableMapBody(9, 'd', 't', cols).slice(0, 8), // table id + flags
      ...[2, 0], // v2 extra-data length
      ...packed(3),
      0b101, // columns 0 and 2 present
      0b00, // null bitmap over 2 present columns
      ...[1, 0, 0, 0],
      ...[2, 0, 0, 0],
    ];
    const d1 = new BinlogDecoder();
    d1.decode(tm);
    const ev = d1.decode(buildEvent(EventType.WRITE_ROWS_V2, body));
    assert.ok(ev.type === 'WRITE_ROWS');
    assert.deepEqual(ev.rows, [[1, undefined, 2]]);

    const d2 = new BinlogDecoder({ includeColumns: (_db, _t, i) => i !== 1 });
    d2.decode(tm);
    const full = rowsV2Body(9, 3, [[0, 7, 0, 0, 0, 3, 0x61, 0x62, 0x63, 8, 0, 0, 0]]);
    const ev2 = d2.decode(buildEvent(EventType.WRITE_ROWS_V2, full));
    assert.ok(ev2.type === 'WRITE_ROWS');
    assert.deepEqual(ev2.rows, [[7, undefined, 8]]);
  });
});

describe('a hot table (its whole row images decoded by generated code after the first few hundred)', () => {
  // 10 columns, so the null bitmap has two bytes; column 2 is left out by includeColumns.
  const cols = [
    { type: ColumnType.LONG },
    { type: ColumnType.VARCHAR, meta: [10, 0] },
    { type: ColumnType.LONG },
    ...Array.from({ length: 7 }, () => ({ type: ColumnType.TINY })),
  ];
  const le32 = (n: number) => [n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, (n >>> 24) & 0xff];
  /** Row i's cells: varchar null every 3rd row, the left-out column every 4th, the last column every 5th. */
  const cells = (i: number): Array<number | string | null> => [
    i,
    i % 3 === 0 ? null : `v${i}`,
    i % 4 === 0 ? null : -i,
    ...Array.from({ length: 6 }, (_, k) => ((i + k) % 256) - 128),
    i % 5 === 0 ? null : -(i % 100),
  ];
  const image = (i: number): number[] => {
    const row = cells(i);
    const nulls = [0, 0];
    const values: number[] = [];
    row.forEach((v, c) => {
      if (v === null) nulls[c >> 3] |= 1 << (c & 7);
      else if (typeof v === 'string') values.push(v.length, ...Buffer.from(v));
      else if (c <= 2) values.push(...le32(v));
      else values.push(v & 0xff);
    });
    return [...nulls, ...values];
  };
  const want = (i: number): CellValue[] => cells(i).map((v, c) => (c === 2 ? undefined : v));

  it('decodes every row as the column loop does: nulls, the left-out column, both bitmap bytes, updates', () => {
    const d = new BinlogDecoder({ includeColumns: (_db, _t, i) => i !== 2 });
    d.decode(buildEvent(EventType.TABLE_MAP, tableMapBody(11, 'd', 't', cols)));
    // Inserts in events of 100 rows, well past the point where the table counts as hot.
    for (let from = 0; from < 1000; from += 100) {
      const rows = Array.from({ length: 100 }, (_, k) => from + k);
      const ev = d.decode(buildEvent(EventType.WRITE_ROWS_V2, rowsV2Body(11, 10, rows.map(image))));
      assert.ok(ev.type === 'WRITE_ROWS');
      assert.deepEqual(ev.rows, rows.map(want), `rows ${from}..${from + 99}`);
    }
    const up = d.decode(
      buildEvent(EventType.UPDATE_ROWS_V2, rowsV2Body(11, 10, [image(7), image(8)], { update: true })),
    );
    assert.ok(up.type === 'UPDATE_ROWS');
    assert.deepEqual(up.rows, [{ before: want(7), after: want(8) }]);
    // A row image holding some of the columns still decodes by the loop: absent columns are undefined.
    const minimal = [
      ...tableMapBody(11, 'd', 't', cols).slice(0, 8),
      ...[2, 0],
      ...packed(10),
      ...[0b00000011, 0b00],
      0b00,
      ...le32(5),
      1,
      0x61,
    ];
    const ev = d.decode(buildEvent(EventType.WRITE_ROWS_V2, minimal));
    assert.ok(ev.type === 'WRITE_ROWS');
    assert.deepEqual(ev.rows, [[5, 'a', ...new Array(8).fill(undefined)]]);
  });

  it('reports a row image running past the event end the same way once hot', () => {
    const d = new BinlogDecoder();
    d.decode(buildEvent(EventType.TABLE_MAP, tableMapBody(12, 'd', 't', cols)));
    const rows = Array.from({ length: 300 }, (_, k) => k + 1);
    d.decode(buildEvent(EventType.WRITE_ROWS_V2, rowsV2Body(12, 10, rows.map(image))));
    const cut = image(1).slice(0, -1);
    assert.throws(
      () => d.decode(buildEvent(EventType.WRITE_ROWS_V2, rowsV2Body(12, 10, [cut]))),
      (e: unknown) => e instanceof BinlogDecodeError,
    );
  });
});

describe('PARTIAL_UPDATE_ROWS (binlog_row_value_options=PARTIAL_JSON), hand-built', () => {
  // Binary JSON (sql-common/json_binary.cc) and Json_diff_vector::write_binary (sql-common/json_diff.cc) bytes.
  const objA1 = [0x00, 1, 0, 12, 0, 11, 0, 1, 0, 0x05, 1, 0, 0x61]; // {"a": 1}: small object, inlined int16
  const jsonTrue = [0x04, 0x01];
  const jsonFalse = [0x04, 0x02];
  const u32le = (n: number) => [n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, n >>> 24];
  const blob = (bytes: number[]) => [...u32le(bytes.length), ...bytes];
  const path = (p: string) => [p.length, ...Buffer.from(p)];
  const double01 = [...Buffer.from(new Float64Array([0.1]).buffer)];
  const diffs = [
    ...[0x00, ...path('$.a'), 3, 0x05, 2, 0], // REPLACE $.a 2 (int16)
    ...[0x01, ...path('$."k y"'), 4, 0x0c, 2, 0x68, 0x69], // INSERT $."k y" "hi" (string)
    ...[0x01, ...path('$.d'), 9, 0x0b, ...double01], // INSERT $.d 0.1 (double)
    ...[0x02, ...path('$.gone')], // REMOVE $.gone (no value)
  ];
  const cols = [{ type: ColumnType.LONG }, { type: ColumnType.JSON, meta: [4] }, { type: ColumnType.JSON, meta: [4] }];
  const before = (id: number) => [0x00, ...u32le(id), ...blob(objA1), ...blob(jsonTrue)];
  const body = [
    ...tableMapBody(9, 'd', 't', cols).slice(0, 8), // table id + flags
    ...[2, 0], // v2 extra data length (none)
    ...packed(3),
    0x07, // before image: all columns
    0x07, // after image: all columns
    // row 1: after image with value_options = PARTIAL_JSON_UPDATES and partial bits: doc1 partial, doc2 full
    ...before(1),
    ...[...packed(1), 0b01, 0x00, ...u32le(1), ...blob(diffs), ...blob(jsonFalse)],
    // row 2: value_options = 0 -> no partial bits, full values
    ...before(2),
    ...[...packed(0), 0x00, ...u32le(2), ...blob(objA1), ...blob(jsonFalse)],
  ];
  it('decodes diffs for partial JSON columns and full values otherwise', () => {
    const decoder = new BinlogDecoder();
    decoder.decode(buildEvent(EventType.TABLE_MAP, tableMapBody(9, 'd', 't', cols)));
    const ev = decoder.decode(buildEvent(EventType.PARTIAL_UPDATE_ROWS, body));
    assert.ok(ev.type === 'PARTIAL_UPDATE_ROWS');
    assert.equal(ev.rows.length, 2);
    const [r1, r2] = ev.rows;
    assert.deepEqual(r1.before, [1, new MysqlJson('{"a":1}'), new MysqlJson('true')]);
    assert.equal(r1.after[0], 1);
    assert.ok(r1.after[1] instanceof MysqlJsonPartial);
    assert.deepEqual(r1.after[1].diffs, [
      { op: 'replace', path: '$.a', value: new MysqlJson('2') },
      { op: 'insert', path: '$."k y"', value: new MysqlJson('"hi"') },
      { op: 'insert', path: '$.d', value: new MysqlJson('0.1') },
      { op: 'remove', path: '$.gone' },
    ]);
    assert.deepEqual(r1.after[2], new MysqlJson('false'));
    assert.deepEqual(r2.after, [2, new MysqlJson('{"a":1}'), new MysqlJson('false')]);
  });
  it('a diff running past its column is a positioned decode error', () => {
    const decoder = new BinlogDecoder();
    decoder.decode(buildEvent(EventType.TABLE_MAP, tableMapBody(9, 'd', 't', cols)));
    const broken = body.slice();
    // Row 1's diff vector: make the REPLACE value length (3) claim 200 bytes.
    const at = 10 + 3 + before(1).length + 1 + 1 + 1 + 4 + 4 + 1 + 4;
    assert.equal(broken[at], 3);
    broken[at] = 200;
    assert.throws(
      () => decoder.decode(buildEvent(EventType.PARTIAL_UPDATE_ROWS, broken, { position: 777 })),
      (e: unknown) => e instanceof BinlogDecodeError && e.position === 777 && /past end/.test(e.message),
    );
  });
});

describe('utcMillis', () => {
  it('equals Date.UTC (years 100+) and keeps years 0..99 as such, across leap days, rollovers and repeats', () => {
    const years = [0, 1, 69, 99, 100, 399, 400, 1582, 1600, 1900, 1969, 1970, 2000, 2024, 2100, 9999];
    let checked = 0;
    for (const y of years) {
      for (let mo = 1; mo <= 12; mo++) {
        for (const d of [0, 1, 15, 28, 29, 30, 31]) {
          for (const [h, mi, s] of [
            [0, 0, 0],
            [23, 59, 59],
            [12, 30, 7],
          ]) {
            const want = y >= 100 ? Date.UTC(y, mo - 1, d, h, mi, s) : utcMillis(y, mo, d, h, mi, s);
            if (y >= 100) assert.equal(utcMillis(y, mo, d, h, mi, s), want, `${y}-${mo}-${d} ${h}:${mi}:${s}`);
            // The same date twice in a row (the cached day number) gives the same result.
            assert.equal(utcMillis(y, mo, d, h, mi, s), want);
            checked++;
          }
        }
      }
    }
    assert.equal(new Date(utcMillis(50, 3, 1, 0, 0, 0)).getUTCFullYear(), 50);
    assert.equal(utcMillis(2024, 2, 29, 0, 0, 0), Date.parse('2024-02-29T00:00:00Z'));
    assert.equal(utcMillis(1969, 12, 31, 23, 59, 59), -1000);
    assert.ok(checked > 4000);
  });
});
