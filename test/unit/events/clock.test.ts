/**
 * The envelope's processing time: the default clock shares one reading between the records built right after it
 * (at most 64, never past the current microtask), and the builder reuses the texts of a repeated reading while a
 * new one gets its own ts_ms/ts_us/ts_ns.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TableEventBuilder } from '../../../src/events/index.js';
import { wallClockMicros } from '../../../src/events/options.js';
import { customers, source } from './fixtures.js';

/** Waits until the wall clock moved past `micros` (a condition, not a fixed sleep). */
function spinPast(micros: number): void {
  while ((performance.timeOrigin + performance.now()) * 1000 <= micros + 1000) {}
}

test('the default clock shares a reading for at most 64 records and never past the microtask', async () => {
  await null;
  const first = wallClockMicros();
  spinPast(first);
  for (let i = 2; i <= 64; i++) assert.equal(wallClockMicros(), first, `call ${i} reuses the reading`);
  const fresh = wallClockMicros();
  assert.ok(fresh > first, 'call 65 reads the clock again');
  spinPast(fresh);
  assert.equal(wallClockMicros(), fresh);
  await null;
  assert.ok(wallClockMicros() > fresh, 'a later microtask reads the clock again');
  const now = Date.now() * 1000;
  assert.ok(Math.abs(wallClockMicros() - now) < 5_000_000, 'close to Date.now()');
});

test('records of a repeated clock reading share its texts; a new reading gets its own', () => {
  const readings = [1_700_000_000_123_456, 1_700_000_000_123_456, 1_700_000_001_000_001, 999];
  let i = 0;
  const b = new TableEventBuilder(customers, { topicPrefix: 'p', clockMicros: () => readings[i++] });
  const ts = (value: string | null) => {
    const v = JSON.parse(value ?? 'null') as { ts_ms: number; ts_us: number; ts_ns: number };
    return [v.ts_ms, v.ts_us, v.ts_ns];
  };
  const row = [1, 'a', 'b', 'c'];
  const early = { ...source, tsMs: 0 };
  assert.deepEqual(
    ts(b.insert(row, early)[0].value),
    [1_700_000_000_123, 1_700_000_000_123_456, 1_700_000_000_123_456_000],
  );
  assert.deepEqual(
    ts(b.insert(row, early)[0].value),
    [1_700_000_000_123, 1_700_000_000_123_456, 1_700_000_000_123_456_000],
  );
  assert.deepEqual(
    ts(b.insert(row, early)[0].value),
    [1_700_000_001_000, 1_700_000_001_000_001, 1_700_000_001_000_001_000],
  );
  assert.deepEqual(ts(b.insert(row, early)[0].value), [0, 999, 999_000]);
});

test('a zero time prints ts_ns 0 (not 0000, which is not JSON) in the source block and the envelope', () => {
  const b = new TableEventBuilder(customers, { topicPrefix: 'p', clockMicros: () => 0 });
  const v = JSON.parse(b.insert([1, 'a', 'b', 'c'], { ...source, tsMs: 0 })[0].value ?? 'null') as {
    ts_ns: number;
    source: { ts_ns: number; ts_us: number };
  };
  assert.deepEqual([v.ts_ns, v.source.ts_us, v.source.ts_ns], [0, 0, 0]);
});
