/**
 * float32Text's fast path (one toPrecision(9), then each precision from its digits) must print exactly what the
 * general search (toPrecision(p) for p = 1..9) prints: random bit patterns over the whole float32 range, powers of
 * two (uneven rounding intervals), decimal ties at every precision, subnormals, extremes, zeros and non-finite.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { float32Text, float32TextGeneral } from '../../../src/events/binary.js';

test('float32Text equals the general shortest-digits search for every kind of float32', () => {
  const values: number[] = [0, -0, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY];
  values.push(3.4028234663852886e38, 1.401298464324817e-45, 1.1754943508222875e-38, 1.1, 0.1, 16777217, 1e21);
  const bits = new Uint32Array(1);
  const asFloat = new Float32Array(bits.buffer);
  // A fixed xorshift sequence, so a failure reproduces.
  let seed = 0x9e3779b9;
  for (let i = 0; i < 200_000; i++) {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    bits[0] = seed >>> 0;
    values.push(asFloat[0]);
  }
  for (let k = -149; k <= 127; k++) values.push(2 ** k, -(2 ** k), 1.5 * 2 ** k, 2 ** k * (1 - 2 ** -24));
  for (let e = -45; e <= 38; e++) {
    for (const m of [1, 1.5, 2.5, 5, 7.5, 9.5, 9.99999, 1.00001, 1.25, 1.125, 4.999999, 5.000001]) {
      values.push(m * 10 ** e, -m * 10 ** e);
    }
  }
  for (let i = 0; i < 20_000; i++) values.push(i / 7, i / 100, i * 0.1, i / 1024, -i / 3);
  let differ = 0;
  for (const v of values) {
    if (float32Text(v) !== float32TextGeneral(v)) {
      differ++;
      assert.equal(float32Text(v), float32TextGeneral(v), `float32Text(${v})`);
    }
  }
  assert.equal(differ, 0);
  assert.equal(float32Text(1.1), '1.1');
  assert.equal(float32Text(-0), '0');
  assert.equal(float32Text(Number.NaN), 'null');
});
