/**
 * doubleText's fast path (one to three decimals printed from an integer) must print exactly what String prints:
 * values of k decimals at every magnitude of the range and past its ends, their negatives, halfway and nearby
 * doubles that need more digits, random doubles, float32 values widened to double, and the classic rounding cases.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { doubleText } from '../../../src/events/converters.js';

test('doubleText equals String for doubles of few and many decimals, at every magnitude', () => {
  const values: number[] = [0, -0, 0.1 + 0.2, 1.005, 2.675, 8.675, 4.35, 1 / 3, 0.3, 1.25, 5e-324, 1e21, 1e-7];
  values.push(0.001, 0.000999, 0.0015, 999999999.999, 1e9 - 0.5, 1e9 - 0.001, 1e9 + 0.5, 123456789.125, 2 ** 53 + 0.5);
  // A fixed xorshift sequence, so a failure reproduces.
  let seed = 0x9e3779b9;
  const next = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 2 ** 32;
  };
  for (let i = 0; i < 100_000; i++) {
    const p = 10 ** (i % 4);
    const magnitude = 10 ** Math.floor(next() * 14 - 4);
    const m = Math.floor(next() * magnitude * p);
    values.push(m / p, -m / p, (m + 0.5) / p, m / p + 1e-9, Math.fround(m / p), next() * magnitude);
  }
  for (const x of values) assert.equal(doubleText(x), String(x), String(x));
});
