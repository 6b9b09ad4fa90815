import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decimalBase64, decimalBase64Json, twosComplementBytes, unscaledDecimal } from '../../../src/events/binary.js';
import { numberText } from '../../../src/events/converters.js';

const slow = (t: string, scale: number) => twosComplementBytes(unscaledDecimal(t, scale)).toString('base64');

test('decimalBase64 (number fast path) equals the BigInt encoding at byte-length edges and beyond 15 digits', () => {
  const cases: Array<[string, number]> = [
    ['0', 0],
    ['0.00', 2],
    ['-0.00', 2],
    ['-0.01', 2],
    ['127', 0],
    ['128', 0],
    ['-128', 0],
    ['-129', 0],
    ['32767', 0],
    ['-32768', 0],
    ['8388607', 0],
    ['-8388609', 0],
    ['999999999999999', 0],
    ['-999999999999999', 0],
    ['9999999999999.99', 2],
    ['-9999999999999.99', 2],
    ['99999999999999999', 0],
    ['-12345678901234567890123456789012345.123456789012345678901234567890', 30],
    ['+5.00', 2],
    ['12.5', 3],
    ['12.345', 2],
    ['12.', 0],
    ['.50', 2],
    [' 1.00', 2],
    ['1.00 ', 2],
    ['8388608', 0],
    ['-8388608', 0],
    ['2147483647.5', 1],
    ['-140737488355328', 0],
    ['140737488355328', 0],
    ['2147483647', 0],
    ['2147483648', 0],
    ['-2147483648', 0],
    ['-2147483649', 0],
    ['21474836.47', 2],
    ['-21474836.49', 2],
    ['549755813887', 0],
    ['549755813888', 0],
    ['-549755813888', 0],
    ['-549755813889', 0],
  ];
  for (let i = 1; i < 2 ** 52; i = i * 3 + 1) {
    cases.push([String(i), 0], [`-${i}`, 0], [`${Math.floor(i / 100)}.${String(i % 100).padStart(2, '0')}`, 2]);
  }
  for (let i = 1; i < 2 ** 50; i *= 2) cases.push([String(i - 1), 0], [String(i), 0], [`-${i}`, 0], [`-${i + 1}`, 0]);
  for (const [t, s] of cases) {
    assert.equal(decimalBase64(t, s), slow(t, s), `${t} at scale ${s}`);
    assert.equal(decimalBase64Json(t, s), `"${slow(t, s)}"`, `${t} at scale ${s} (JSON)`);
  }
});

test('numberText equals String(v) for integers of every width, negatives, fractions and non-finite values', () => {
  const cases = [
    0,
    -0,
    1,
    -1,
    999_999_999,
    1e9,
    -1e9,
    1_000_000_001,
    2_147_483_647,
    2_147_483_648,
    -2_147_483_648,
    2_200_000_000,
    2_200_000_007,
    2_210_000_000,
    100_000_000_000,
    1704067200000000,
    1704067200000001,
    -1704067200000001,
    Number.MAX_SAFE_INTEGER,
    -Number.MAX_SAFE_INTEGER,
    Number.MAX_SAFE_INTEGER + 1,
    2 ** 60,
    1e21,
    1.5e10,
    123456789012.5,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
  ];
  for (let x = 1; x < Number.MAX_SAFE_INTEGER; x = x * 7 + 3) cases.push(x, -x, x + 0.25);
  // Every digit count of the low half (0 to 8 digits) above 2^31.
  for (let lo = 0; lo < 1e8; lo = lo * 10 + 9) cases.push(3e9 + lo, 1704067200000000 + lo, 3e9 + lo + 1);
  for (const v of cases) assert.equal(numberText(v), String(v), String(v));
});
