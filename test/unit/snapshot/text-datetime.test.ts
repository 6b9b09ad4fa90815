/**
 * The snapshot reads DATETIME/TIMESTAMP text in place (parseDateTime's fast path); every shape the server can send,
 * and a few it does not, must give the same value as the general split-based reader.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseDateTime, parseDateTimeGeneral } from '../../../src/source/mysql/snapshot/text-values.js';

test('parseDateTime equals the general reader for server text, fractions of every length and odd shapes', () => {
  const samples = [
    '2024-01-02 03:04:05',
    '0000-00-00 00:00:00',
    '9999-12-31 23:59:59.999999',
    '1000-01-01 00:00:00.000000',
    '2024-01-02',
    '2024-01-02 03:04:05.1234567',
    '2024-01-02T03:04:05',
    '2024-01-02 03:04:5x',
    '2024-01-02 03:04:05.',
  ];
  for (let digits = 1; digits <= 6; digits++) samples.push(`2024-02-29 23:59:58.${'987654'.slice(0, digits)}`);
  for (const s of samples) {
    for (const fsp of [0, 3, 6]) assert.deepEqual(parseDateTime(s, fsp), parseDateTimeGeneral(s, fsp), s);
  }
  assert.deepEqual(
    { ...parseDateTime('2024-02-29 23:59:58.98', 2) },
    { year: 2024, month: 2, day: 29, hour: 23, minute: 59, second: 58, micros: 980000, fsp: 2 },
  );
});
