/**
 * The hot path writes each cell with FieldConverter.text, a fused convert + write; it must produce exactly the
 * text of write(convert(v)) for every type, handling mode, nullability and edge value (NULL, absent, zero dates,
 * non-finite floats, escapes), and isoSeconds must match Date's ISO text.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isoSeconds } from '../../../src/events/converters.js';
import { createFieldConverter, type EventOptions, resolveOptions } from '../../../src/events/index.js';
import {
  type CellValue,
  MysqlDate,
  MysqlDateTime,
  MysqlJson,
  MysqlTime,
  MysqlTimestamp,
} from '../../../src/model/values.js';
import { col } from './fixtures.js';

const cases: Array<[string, CellValue[]]> = [
  ['tinyint', [0, -128, 127]],
  ['tinyint(1)', [0, 1, 5]],
  ['int unsigned', [0, 4294967295]],
  ['bigint', [0, -9007199254740991, 9223372036854775807n]],
  ['bigint unsigned', [0, 18446744073709551615n]],
  ['float', [1.1, 0, Number.NaN]],
  ['double', [0.1, -1e300, Number.POSITIVE_INFINITY, Number.NaN]],
  ['decimal(12,2)', ['0.00', '-12.50', '1234567890.12', '-0.01']],
  ['decimal(30,5)', ['123456789012345678901234.12345', '-1.00000']],
  ['datetime', [new MysqlDateTime(2024, 1, 2, 3, 4, 5, 0, 0), new MysqlDateTime(0, 0, 0, 0, 0, 0, 0, 0)]],
  [
    'datetime(6)',
    [new MysqlDateTime(1969, 12, 31, 23, 59, 59, 999999, 6), new MysqlDateTime(2024, 0, 1, 0, 0, 0, 0, 6)],
  ],
  ['timestamp(6)', [new MysqlTimestamp(1700000000, 120, 6), new MysqlTimestamp(0, 0, 6), '2024-01-01T00:00:00Z']],
  ['timestamp', [new MysqlTimestamp(0, 500000, 0), new MysqlTimestamp(2147483647, 0, 0)]],
  ['date', [new MysqlDate(2024, 2, 29), new MysqlDate(0, 0, 0)]],
  ['time(3)', [new MysqlTime(-1_000, 3), new MysqlTime(90_000_000_000, 3)]],
  ['varchar(32)', ['plain', 'quote " and \\ and \n', '\ud800 lone', 'émoji 😀', Buffer.from('bytes')]],
  ['text', ['', 'x'.repeat(1000)]],
  ['json', [new MysqlJson('{"a":[1,"x"]}'), new MysqlJson('')]],
  ['varbinary(8)', [Buffer.from([0, 1, 255])]],
  ['binary(4)', [Buffer.from([1])]],
  ['bit(1)', [Buffer.from([1])]],
  ['bit(12)', [Buffer.from([0x0f, 0xff])]],
  ['year', [0, 69, 2024]],
  ['bool', [0, 1, 2]],
  ['float(10,2)', [1.5, -0.25]],
  ['time', [new MysqlTime(0, 0), new MysqlTime(-3_020_399_000_000, 0), new MysqlTime(86_400_000_000, 0)]],
  ['time(6)', [new MysqlTime(45_296_789_012, 6), new MysqlTime(-1, 6), new MysqlTime(90_000_000_000, 6)]],
  ['date', [new MysqlDate(69, 1, 1), new MysqlDate(2024, 0, 5), new MysqlDate(1, 12, 31)]],
  ['datetime(3)', [new MysqlDateTime(2024, 1, 2, 3, 4, 5, 120_000, 3), new MysqlDateTime(70, 1, 1, 0, 0, 0, 0, 3)]],
  ['bit(7)', [Buffer.from([0x55]), Buffer.from([])]],
  ['bit(24)', [Buffer.from([1, 2, 3]), Buffer.from([4])]],
  ['bit(64)', [Buffer.from([1, 2, 3, 4, 5, 6, 7, 8]), Buffer.from([0xff, 0xfe])]],
  ['bit(65)', [Buffer.from([1, 2, 3, 4, 5, 6, 7, 8, 9])]],
  ['bigint unsigned', [18446744073709551615n, 9007199254740991]],
  ['uuid', [Buffer.from('00112233445566778899aabbccddeeff', 'hex'), Buffer.from([1, 2])]],
  ['inet4', [Buffer.from([127, 0, 0, 1])]],
  ['inet6', [Buffer.from('20010db8000000000000000000000001', 'hex')]],
  ['json', [new MysqlJson('"quote \\" \u0001 ü \ud800"'), '{"raw":1}']],
  ['blob', [Buffer.from([0xfb, 0xff, 0x3e]), 'text as bytes']],
  ['text', ['ctrl \u0000\u001f\u007f', 'lone \udc00 and pair \ud83d\ude00', 'line\u2028sep']],
];

/** Columns needing more than a type: ENUM and SET members (with characters that need escaping). */
const withMembers: Array<[string, string[], CellValue[]]> = [
  ["enum('a','b\"q','c')", ['a', 'b"q', 'c'], [0, 1, 2, 3, 4, 'literal']],
  ["set('x','y\\z','w')", ['x', 'y\\z', 'w'], [0, 1, 2n, 3, 7n, 8, 15n, 2n ** 40n, 'x,w']],
];

const modes: Array<Partial<EventOptions>> = [
  {},
  { decimalHandlingMode: 'string', binaryHandlingMode: 'hex', timePrecisionMode: 'connect' },
  { decimalHandlingMode: 'double', binaryHandlingMode: 'base64-url-safe', timePrecisionMode: 'adaptive' },
  { bigintUnsignedHandlingMode: 'precise', tinyIntOneToBoolean: true },
  { timePrecisionMode: 'isostring', binaryHandlingMode: 'base64', enableTimeAdjuster: false },
  { timePrecisionMode: 'adaptive', decimalHandlingMode: 'precise', bigintUnsignedHandlingMode: 'long' },
];

describe('FieldConverter.text', () => {
  it('equals write(convert(v)) for every type, mode, nullability and edge value', () => {
    let checked = 0;
    for (const mode of modes) {
      const opts = resolveOptions({ topicPrefix: 't', ...mode });
      const all: Array<[string, string[] | null, CellValue[]]> = [
        ...cases.map(([type, values]): [string, null, CellValue[]] => [type, null, values]),
        ...withMembers,
      ];
      for (const [type, members, values] of all) {
        for (const nullable of [true, false]) {
          for (const withDefault of [false, true]) {
            const extra =
              withDefault && /int|decimal|char|text/.test(type) ? { hasDefault: true, defaultValue: '7' } : {};
            const fc = createFieldConverter(col('c', type, { nullable, enumValues: members, ...extra }), opts);
            // Twice: cached texts (SET) must stay right.
            for (const v of [...values, ...values, null, undefined]) {
              const what = `${type} nullable=${nullable} ${JSON.stringify(mode)} ${String(v)}`;
              const expected = fc.write(fc.convert(v));
              assert.equal(fc.text(v), expected, what);
              // The parts the row writer uses compose to the same text.
              const parts =
                v === null ? fc.nullText : v === undefined ? fc.missingText : (fc.present(v) ?? fc.nullText);
              assert.equal(parts, expected, `parts of ${what}`);
              checked++;
            }
          }
        }
      }
    }
    assert.ok(checked > 3000, String(checked));
  });
});

describe('isoSeconds', () => {
  it("matches Date's ISO text, inside and outside the fast range", () => {
    const samples = [0, 59, 86_399, 86_400, 951_782_400, 1_709_164_800, 2_147_483_647, 253_402_300_799];
    for (let i = 0; i < 5000; i++) samples.push((i * 2_654_435_761) % 253_402_300_800);
    samples.push(-1, -86_401, 1.5, 253_402_300_800, -62_135_596_800);
    for (const s of samples) assert.equal(isoSeconds(s), new Date(s * 1000).toISOString().slice(0, 19), String(s));
  });
});
