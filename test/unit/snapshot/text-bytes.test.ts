/**
 * The snapshot converts integer, double and temporal cells straight from their bytes (byteConverterFor); every
 * text the server can send, and shapes it does not, must give exactly the value of decoding the text and converting
 * it (textConverterFor), -0 and float rounding included.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { byteConverterFor, textConverterFor } from '../../../src/source/mysql/snapshot/text-values.js';
import { col } from '../events/fixtures.js';

const decode = (buf: Buffer, start: number, end: number) => buf.toString('utf8', start, end);

function same(columnType: string, texts: string[]): void {
  const c = col('c', columnType);
  const text = textConverterFor(c);
  const bytes = byteConverterFor(c, text, decode);
  assert.ok(bytes, `${columnType} has a byte converter`);
  for (const t of texts) {
    // Cells sit inside a larger packet: offsets other than 0, bytes around them.
    const buf = Buffer.from(`\u00fb${t}9.`);
    assert.deepStrictEqual(bytes(buf, 2, buf.length - 2), text(t), `${columnType} ${JSON.stringify(t)}`);
  }
}

const odd = ['', '-', '+1', ' 1', '1 ', '1e3', '0x10', '.5', '5.', '1.2.3', 'abc', '١٢'];

test('integers: Number(text) up to 15 digits, the BigInt rule of bigint beyond', () => {
  const ints = [
    '0',
    '-0',
    '7',
    '-128',
    '127',
    '2147483647',
    '-2147483648',
    '007',
    '999999999999999',
    '-99999999999999',
  ];
  for (const t of ['tinyint(4)', 'smallint(6)', 'mediumint(9)', 'int(11)', 'int(10) unsigned', 'year(4)'])
    same(t, [...ints, ...odd]);
  same('bigint(20)', [
    ...ints,
    ...odd,
    '9007199254740991',
    '-9007199254740991',
    '9007199254740993',
    '9223372036854775807',
    '-9223372036854775808',
    '1000000000000000',
  ]);
  same('bigint(20) unsigned', ['18446744073709551615', '0', '123456789012345']);
});

test('doubles and floats: the correctly rounded value of every printed shape', () => {
  const texts = [
    ...odd,
    '0',
    '-0',
    '0.5',
    '-0.5',
    '1.125',
    '0.1',
    '0.3',
    '123456789012345',
    '1234567890123456',
    '0.000000000000001',
    '99999999999999.9',
    '1.7976931348623157e308',
    '-2.2250738585072014e-308',
    '5e-324',
    '1e20',
    '0.30000000000000004',
    '3.4028234663852886e38',
    '16777217',
    '0.1000000000000001',
  ];
  let seed = 42;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  for (let i = 0; i < 3000; i++) {
    const x = (random() - 0.5) * 10 ** Math.floor(random() * 30 - 15);
    texts.push(String(x), x.toFixed(Math.floor(random() * 12)), x.toPrecision(1 + Math.floor(random() * 16)));
  }
  same('double', texts);
  same('float', texts);
});

test('dates, datetimes and timestamps: the in-place readers and their fallbacks', () => {
  const dates = ['2024-01-02', '0000-00-00', '9999-12-31', '1000-01-01', '2024-1-02', '2024/01/02', '2024-01-0x'];
  same('date', [...dates, ...odd]);
  const times = [
    '2024-01-02 03:04:05',
    '0000-00-00 00:00:00',
    '9999-12-31 23:59:59.999999',
    '1970-01-01 00:00:00',
    '2024-01-02 03:04:05.1234567',
    '2024-01-02T03:04:05',
    '2024-01-02 03:04:5x',
    '2024-01-02 03:04:05.',
    '2024-01-02',
  ];
  for (let digits = 1; digits <= 6; digits++) times.push(`2024-02-29 23:59:58.${'987654'.slice(0, digits)}`);
  for (const t of ['datetime', 'datetime(3)', 'datetime(6)', 'timestamp', 'timestamp(3)', 'timestamp(6)'])
    same(t, [...times, ...dates]);
});

test('types without a byte converter decode the text first', () => {
  for (const t of ['decimal(12,2)', 'varchar(10)', 'time(3)', 'enum', 'set', 'bit(3)'])
    assert.equal(byteConverterFor(col('c', t), textConverterFor(col('c', t)), decode), undefined, t);
});
