import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { quote, writeString } from '../../../src/events/converters.js';
import {
  bytesToUnscaled,
  createFieldConverter,
  type EventOptions,
  float32Text,
  resolveOptions,
  twosComplementBytes,
} from '../../../src/events/index.js';
import type { ColumnDef } from '../../../src/model/table-def.js';
import {
  type CellValue,
  MysqlDate,
  MysqlDateTime,
  MysqlJson,
  MysqlJsonPartial,
  MysqlTime,
  MysqlTimestamp,
} from '../../../src/model/values.js';
import { col } from './fixtures.js';

function conv(c: ColumnDef, o: Partial<EventOptions> = {}) {
  const fc = createFieldConverter(c, resolveOptions({ topicPrefix: 't', ...o }));
  return { ...fc, text: (v: CellValue) => fc.write(fc.convert(v)) };
}
const notNull = { nullable: false };

describe('integer types', () => {
  it('maps signed and unsigned widths like Debezium', () => {
    assert.equal(conv(col('a', 'tinyint')).schema.type, 'int8');
    assert.equal(conv(col('a', 'tinyint unsigned')).schema.type, 'int16');
    assert.equal(conv(col('a', 'smallint')).schema.type, 'int16');
    assert.equal(conv(col('a', 'smallint unsigned')).schema.type, 'int32');
    assert.equal(conv(col('a', 'mediumint unsigned')).schema.type, 'int32');
    assert.equal(conv(col('a', 'int')).schema.type, 'int32');
    assert.equal(conv(col('a', 'int unsigned')).schema.type, 'int64');
    assert.equal(conv(col('a', 'bigint')).schema.type, 'int64');
  });

  it('writes min/max values exactly, int64 as bare JSON numbers', () => {
    assert.equal(conv(col('a', 'tinyint')).text(-128), '-128');
    assert.equal(conv(col('a', 'tinyint unsigned')).text(255), '255');
    assert.equal(conv(col('a', 'int unsigned')).text(4294967295), '4294967295');
    assert.equal(conv(col('a', 'int')).text(-2147483648), '-2147483648');
    assert.equal(conv(col('a', 'bigint')).text(-9223372036854775808n), '-9223372036854775808');
    assert.equal(conv(col('a', 'bigint')).text(9223372036854775807n), '9223372036854775807');
  });

  it('BIGINT UNSIGNED long mode wraps above 2^63-1, precise mode is a Decimal(20,0)', () => {
    const long = conv(col('a', 'bigint unsigned'));
    assert.equal(long.schema.type, 'int64');
    assert.equal(long.text(18446744073709551615n), '-1');
    assert.equal(long.text(9007199254740991), '9007199254740991');
    const precise = conv(col('a', 'bigint unsigned'), { bigintUnsignedHandlingMode: 'precise' });
    assert.equal(precise.schema.name, 'org.apache.kafka.connect.data.Decimal');
    assert.deepEqual(precise.schema.parameters, { scale: '0', 'connect.decimal.precision': '20' });
    const b64 = precise.convert(18446744073709551615n) as string;
    assert.equal(b64, 'AP//////////');
    assert.equal(bytesToUnscaled(Buffer.from(b64, 'base64')), 18446744073709551615n);
  });

  it('TINYINT(1) stays int8 by default and becomes boolean with tinyIntOneToBoolean', () => {
    assert.equal(conv(col('a', 'tinyint(1)')).text(1), '1');
    const b = conv(col('a', 'tinyint(1)'), { tinyIntOneToBoolean: true });
    assert.equal(b.schema.type, 'boolean');
    assert.equal(b.text(1), 'true');
    assert.equal(b.text(0), 'false');
    assert.equal(conv(col('a', 'boolean')).text(2), 'true');
  });

  it('NULL is null when nullable and the fallback (or default) when NOT NULL', () => {
    assert.equal(conv(col('a', 'int')).text(null), 'null');
    assert.equal(conv(col('a', 'int', notNull)).text(null), '0');
    const withDefault = conv(col('a', 'int', { nullable: false, hasDefault: true, defaultValue: '42' }));
    assert.equal(withDefault.text(null), '42');
    assert.equal(withDefault.schema.default, 42);
  });
});

describe('floating point and decimals', () => {
  it('FLOAT is float32 written with its shortest text; FLOAT(M,D) and DOUBLE are float64', () => {
    const f = conv(col('a', 'float'));
    assert.equal(f.schema.type, 'float32');
    assert.equal(f.text(Math.fround(1.1)), '1.1');
    assert.equal(float32Text(Math.fround(3.4028234663852886e38)), '3.4028235e+38');
    assert.equal(conv(col('a', 'float(10,2)')).schema.type, 'float64');
    assert.equal(conv(col('a', 'double')).text(0.1), '0.1');
  });

  it("DECIMAL precise: base64 of the unscaled two's-complement bytes, scale and precision parameters", () => {
    const d = conv(col('a', 'decimal(10,2)'));
    assert.equal(d.schema.type, 'bytes');
    assert.equal(d.schema.name, 'org.apache.kafka.connect.data.Decimal');
    assert.deepEqual(d.schema.parameters, { scale: '2', 'connect.decimal.precision': '10' });
    assert.equal(d.convert('12.50'), 'BOI='); // 1250 = 0x04E2
    assert.equal(d.convert('-12.50'), '+x4='); // -1250 = 0xFB1E
    assert.equal(d.convert('1.27'), 'fw=='); // 127 = 0x7F
    assert.equal(d.convert('1.28'), 'AIA='); // 128 needs a sign byte
    assert.equal(d.convert('0.00'), 'AA==');
    for (const v of ['99999999.99', '-99999999.99', '0.01', '-0.01']) {
      const bytes = Buffer.from(d.convert(v) as string, 'base64');
      assert.equal(bytesToUnscaled(bytes), BigInt(v.replace('.', '')), v);
    }
    assert.deepEqual([...twosComplementBytes(-129n)], [0xff, 0x7f]);
  });

  it('DECIMAL double and string modes', () => {
    const dbl = conv(col('a', 'decimal(10,2)'), { decimalHandlingMode: 'double' });
    assert.equal(dbl.schema.type, 'float64');
    assert.equal(dbl.text('-12.50'), '-12.5');
    const str = conv(col('a', 'decimal(10,2)', notNull), { decimalHandlingMode: 'string' });
    assert.equal(str.schema.type, 'string');
    assert.equal(str.text('-12.50'), '"-12.50"');
    assert.equal(str.text(null), '"0.00"');
  });
});

describe('bits, enums, sets, json', () => {
  it('BIT(1) is boolean, BIT(n>1) is io.debezium.data.Bits in little-endian bytes', () => {
    const b1 = conv(col('a', 'bit(1)'));
    assert.equal(b1.schema.type, 'boolean');
    assert.equal(b1.text(Buffer.from([1])), 'true');
    assert.equal(b1.text(Buffer.from([0])), 'false');
    const b10 = conv(col('a', 'bit(10)'));
    assert.deepEqual(
      { type: b10.schema.type, name: b10.schema.name, parameters: b10.schema.parameters },
      { type: 'bytes', name: 'io.debezium.data.Bits', parameters: { length: '10' } },
    );
    // b'1000000010' big-endian = 02 02 → little-endian 02 02; b'0100000001' = 01 01; b'1000000001' = 02 01 → 01 02
    assert.deepEqual([...Buffer.from(b10.convert(Buffer.from([0x02, 0x01])) as string, 'base64')], [0x01, 0x02]);
  });

  it('ENUM index → member, 0 → empty string; allowed parameter', () => {
    const e = conv(col('a', "enum('x','y','z')", { enumValues: ['x', 'y', 'z'] }));
    assert.equal(e.schema.name, 'io.debezium.data.Enum');
    assert.deepEqual(e.schema.parameters, { allowed: 'x,y,z' });
    assert.equal(e.text(2), '"y"');
    assert.equal(e.text(0), '""');
  });

  it('SET bitmask → comma-joined members in declaration order', () => {
    const s = conv(col('a', "set('a','b','c')", { enumValues: ['a', 'b', 'c'] }));
    assert.equal(s.schema.name, 'io.debezium.data.EnumSet');
    assert.equal(s.text(0b101n), '"a,c"');
    assert.equal(s.text(0n), '""');
    assert.equal(s.text(0b111n), '"a,b,c"');
    // A negative mask (a signed read of bit 63) is the unsigned mask: it ends, after 64 bits.
    assert.equal(s.text(-1n), `"a,b,c${','.repeat(61)}"`);
  });

  it('JSON is io.debezium.data.Json text; partial JSON updates are rejected', () => {
    const j = conv(col('a', 'json'));
    assert.equal(j.schema.name, 'io.debezium.data.Json');
    assert.equal(j.text(new MysqlJson('{"k": [1, 2]}')), JSON.stringify('{"k": [1, 2]}'));
    assert.equal(conv(col('a', 'json', notNull)).text(new MysqlJson('')), '"{}"');
    assert.throws(() => j.convert(new MysqlJsonPartial([{ op: 'remove', path: '$.a' }])), /binlog_row_value_options/);
  });

  it('JSON documents with their UTF-8 bytes have the text of their string (escaped from the bytes)', () => {
    // The converter's own one-step text (conv's text goes through convert and write).
    const j = createFieldConverter(col('a', 'json'), resolveOptions({ topicPrefix: 't' }));
    const docs = [
      JSON.stringify({ s: 'lorem "ipsum" \\ dolor\tsit\u0001 '.repeat(20), n: [1, 2] }),
      JSON.stringify({ s: 'é€😀\u2028"'.repeat(60) }),
      'x',
    ];
    for (const doc of docs) {
      const bytes = Buffer.concat([Buffer.from('pad'), Buffer.from(doc), Buffer.from('"tail')]);
      const cell = MysqlJson.fromUtf8(doc, bytes, 3, bytes.length - 5);
      assert.equal(j.text(cell), j.text(new MysqlJson(doc)));
    }
    // Invalid UTF-8: the text is what decoding gave (U+FFFD), whichever way it is written.
    const bad = Buffer.from([0x7b, 0x22, 0xc3, 0x22, 0xed, 0xa0, 0x80, 0x5c, ...Buffer.from('a'.repeat(300)), 0x7d]);
    const text = bad.toString('utf8');
    assert.equal(j.text(MysqlJson.fromUtf8(text, bad, 0, bad.length)), JSON.stringify(text));
  });
});

describe('temporal types', () => {
  it('DATE → epoch days (io.debezium.time.Date); zero dates null or epoch by nullability', () => {
    const d = conv(col('a', 'date'));
    assert.equal(d.schema.name, 'io.debezium.time.Date');
    assert.equal(d.text(new MysqlDate(2018, 6, 20)), '17702');
    assert.equal(d.text(new MysqlDate(1969, 12, 31)), '-1');
    assert.equal(d.text(new MysqlDate(0, 0, 0)), 'null');
    assert.equal(conv(col('a', 'date', notNull)).text(new MysqlDate(0, 0, 0)), '0');
    assert.equal(conv(col('a', 'date', notNull)).text(new MysqlDate(2020, 0, 15)), '0');
  });

  it('two-digit years are adjusted unless enableTimeAdjuster is off', () => {
    assert.equal(conv(col('a', 'date')).text(new MysqlDate(18, 6, 20)), '17702');
    assert.notEqual(conv(col('a', 'date'), { enableTimeAdjuster: false }).text(new MysqlDate(18, 6, 20)), '17702');
  });

  it('DATETIME(0-3) → ms Timestamp, DATETIME(4-6) → µs MicroTimestamp, read as UTC', () => {
    const ms = conv(col('a', 'datetime'));
    assert.equal(ms.schema.name, 'io.debezium.time.Timestamp');
    assert.equal(ms.text(new MysqlDateTime(2018, 6, 20, 6, 37, 3, 0, 0)), '1529476623000'); // the docs' example
    const ms3 = conv(col('a', 'datetime(3)'));
    assert.equal(ms3.text(new MysqlDateTime(2018, 6, 20, 6, 37, 3, 123000, 3)), '1529476623123');
    const us = conv(col('a', 'datetime(6)'));
    assert.equal(us.schema.name, 'io.debezium.time.MicroTimestamp');
    assert.equal(us.text(new MysqlDateTime(2018, 6, 20, 6, 37, 3, 123456, 6)), '1529476623123456');
    assert.equal(conv(col('a', 'datetime', notNull)).text(new MysqlDateTime(0, 0, 0, 0, 0, 0, 0, 0)), '0');
    assert.equal(ms.text(new MysqlDateTime(0, 0, 0, 0, 0, 0, 0, 0)), 'null');
  });

  it('TIMESTAMP → ZonedTimestamp ISO-8601 UTC with the column fsp digits', () => {
    const t0 = conv(col('a', 'timestamp'));
    assert.equal(t0.schema.name, 'io.debezium.time.ZonedTimestamp');
    assert.equal(t0.text(new MysqlTimestamp(1529501823, 0, 0)), '"2018-06-20T13:37:03Z"');
    assert.equal(
      conv(col('a', 'timestamp(3)')).text(new MysqlTimestamp(1529501823, 120000, 3)),
      '"2018-06-20T13:37:03.120Z"',
    );
    assert.equal(
      conv(col('a', 'timestamp(6)')).text(new MysqlTimestamp(1529501823, 0, 6)),
      '"2018-06-20T13:37:03.000000Z"',
    );
    assert.equal(t0.text(new MysqlTimestamp(0, 0, 0)), 'null');
    assert.equal(conv(col('a', 'timestamp', notNull)).text(new MysqlTimestamp(0, 0, 0)), '"1970-01-01T00:00:00Z"');
  });

  it('TIME → signed µs MicroTime; connect mode ms and only within a day', () => {
    const t = conv(col('a', 'time'));
    assert.equal(t.schema.name, 'io.debezium.time.MicroTime');
    assert.equal(t.text(new MysqlTime(-3020399000000, 0)), '-3020399000000'); // -838:59:59
    assert.equal(t.text(new MysqlTime(45296789012, 6)), '45296789012');
    const c = conv(col('a', 'time(3)'), { timePrecisionMode: 'connect' });
    assert.equal(c.schema.name, 'org.apache.kafka.connect.data.Time');
    assert.equal(c.schema.type, 'int32');
    assert.equal(c.text(new MysqlTime(45296789000, 3)), '45296789');
    assert.equal(c.text(new MysqlTime(-1000000, 3)), 'null');
    const a = conv(col('a', 'time(3)'), { timePrecisionMode: 'adaptive' });
    assert.equal(a.schema.name, 'io.debezium.time.Time');
    assert.equal(
      conv(col('a', 'date'), { timePrecisionMode: 'connect' }).schema.name,
      'org.apache.kafka.connect.data.Date',
    );
    assert.equal(
      conv(col('a', 'datetime(6)'), { timePrecisionMode: 'connect' }).schema.name,
      'org.apache.kafka.connect.data.Timestamp',
    );
  });

  it('YEAR → int32 io.debezium.time.Year', () => {
    const y = conv(col('a', 'year'));
    assert.equal(y.schema.name, 'io.debezium.time.Year');
    assert.equal(y.text(2024), '2024');
  });
});

describe('strings, binary, spatial, vectors, MariaDB types', () => {
  it('strings are JSON strings; BLOB/TEXT missing from the image get the unavailable placeholder', () => {
    const s = conv(col('a', 'varchar(10)'));
    assert.equal(s.text('naïve "q"'), JSON.stringify('naïve "q"'));
    assert.equal(conv(col('a', 'text')).text(undefined), '"__debezium_unavailable_value"');
    assert.equal(s.text(undefined), 'null');
  });

  it('binary.handling.mode bytes/base64/base64-url-safe/hex', () => {
    const v = Buffer.from([0xfb, 0xff]);
    const bytes = conv(col('a', 'varbinary(8)'));
    assert.equal(bytes.schema.type, 'bytes');
    assert.equal(bytes.text(v), '"+/8="');
    const b64 = conv(col('a', 'varbinary(8)'), { binaryHandlingMode: 'base64' });
    assert.equal(b64.schema.type, 'string');
    assert.equal(b64.text(v), '"+/8="');
    assert.equal(conv(col('a', 'blob'), { binaryHandlingMode: 'base64-url-safe' }).text(v), '"-_8="');
    assert.equal(conv(col('a', 'blob'), { binaryHandlingMode: 'hex' }).text(v), '"fbff"');
    // BINARY(n) is right-padded with zero bytes (DBZ-254)
    assert.equal(conv(col('a', 'binary(4)'), { binaryHandlingMode: 'hex' }).text(Buffer.from([1])), '"01000000"');
  });

  it('GEOMETRY → {wkb, srid}; POINT adds x/y', () => {
    const wkb = Buffer.alloc(21);
    wkb[0] = 1;
    wkb.writeUInt32LE(1, 1);
    wkb.writeDoubleLE(1.5, 5);
    wkb.writeDoubleLE(-2.25, 13);
    const stored = Buffer.concat([Buffer.from([0xe6, 0x10, 0, 0]), wkb]); // SRID 4326
    const g = conv(col('a', 'geometry'));
    assert.equal(g.schema.name, 'io.debezium.data.geometry.Geometry');
    assert.deepEqual(g.convert(stored), { wkb: wkb.toString('base64'), srid: 4326, extensions: null });
    const p = conv(col('a', 'point'));
    assert.equal(p.schema.name, 'io.debezium.data.geometry.Point');
    assert.deepEqual(p.convert(stored), { x: 1.5, y: -2.25, wkb: wkb.toString('base64'), srid: 4326 });
    const noSrid = Buffer.concat([Buffer.alloc(4), wkb]);
    assert.equal((g.convert(noSrid) as { srid: number | null }).srid, null);
  });

  it('VECTOR → FloatVector array of float32', () => {
    const v = conv(col('a', 'vector(3)'));
    assert.equal(v.schema.name, 'io.debezium.data.FloatVector');
    assert.equal(v.schema.items?.type, 'float32');
    assert.equal(v.text(new Float32Array([1.1, -2, 0.5])), '[1.1,-2,0.5]');
  });

  it('MariaDB UUID/INET4/INET6 as strings', () => {
    const u = conv(col('a', 'uuid'));
    assert.equal(u.schema.name, 'io.debezium.data.Uuid');
    assert.equal(
      u.text(Buffer.from('123e4567e89b12d3a456426614174000', 'hex')),
      '"123e4567-e89b-12d3-a456-426614174000"',
    );
    assert.equal(conv(col('a', 'inet4')).text(Buffer.from([192, 168, 0, 1])), '"192.168.0.1"');
    const v6 = conv(col('a', 'inet6'));
    assert.equal(v6.text(Buffer.from('20010db8000000000000ff0000428329', 'hex')), '"2001:db8::ff00:42:8329"');
    assert.equal(v6.text(Buffer.from('00000000000000000000ffffc0000280', 'hex')), '"::ffff:192.0.2.128"');
    assert.equal(v6.text(Buffer.from('00000000000000000000000000000001', 'hex')), '"::1"');
  });
});

describe('string literals', () => {
  it('quote and writeString equal JSON.stringify for every character that needs escaping, at any place, short and long', () => {
    const special = [
      '"',
      '\\',
      '\u0000',
      '\n',
      '\u001f',
      '\ud83d',
      '\ude00',
      '\ud83d\ude00',
      '\u2028',
      'é',
      '\u007f',
      ' ',
    ];
    for (const len of [0, 1, 5, 22, 23, 24, 25, 60, 400]) {
      const plain = 'a'.repeat(len);
      assert.equal(quote(plain), JSON.stringify(plain));
      for (const c of special) {
        for (const at of [0, len >> 1, len]) {
          const s = plain.slice(0, at) + c + plain.slice(at);
          assert.equal(quote(s), JSON.stringify(s), JSON.stringify(s));
          assert.equal(writeString(s), JSON.stringify(s), JSON.stringify(s));
        }
      }
    }
  });
});
