/**
 * Records wait in the change queue, so their texts must be single sequential strings, not the ropes (trees of
 * concatenated pieces) that building them by concatenation leaves: a rope of a 40-column value keeps ~100 small
 * strings alive per record. Measured as retained heap per record after a full GC.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { flatten } from '../../../src/events/envelope.js';
import { TableEventBuilder } from '../../../src/events/index.js';
import type { SinkRecord } from '../../../src/model/sink-record.js';
import { col, fixedClock, source, table } from './fixtures.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const wide = table(
  'db',
  'wide',
  [
    col('id', 'int', { nullable: false }),
    ...Array.from({ length: 40 }, (_, i) => col(`c${i}`, i % 2 === 0 ? 'bigint' : 'varchar(64)', { nullable: false })),
  ],
  ['id'],
);

function heapUsed(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

test('records hold flat texts: retained heap per record is close to its text length', () => {
  const builder = new TableEventBuilder(wide, { topicPrefix: 'p', clockMicros: fixedClock });
  const row = (i: number) => [
    i,
    ...Array.from({ length: 40 }, (_, k) => (k % 2 === 0 ? i * 1_000_003 + k : `v-${i}-${k}`)),
  ];
  // Warm up first: the optimising compiler is where a flattening without effect was dropped.
  for (let i = 0; i < 30_000; i++) builder.insert(row(i), { ...source, row: i, id: `g/0/${i}` });
  const n = 3000;
  const keep: SinkRecord[] = [];
  const before = heapUsed();
  let chars = 0;
  for (let i = 0; i < n; i++) {
    const [r] = builder.insert(row(i), { ...source, row: i, id: `g/0/${i}` });
    chars += (r.value?.length ?? 0) + (r.key?.length ?? 0) + (r.headers?.['__cdc.id'].length ?? 0);
    keep.push(r);
  }
  const retained = heapUsed() - before;
  // One-byte flat strings take about a byte a character plus headers; allow the record objects and slack.
  const perRecord = retained / n;
  const textPerRecord = chars / n;
  assert.ok(
    perRecord < textPerRecord * 1.3 + 300,
    `retained ${Math.round(perRecord)} bytes per record for ${Math.round(textPerRecord)} characters of text`,
  );
  assert.equal(keep.length, n);
});

test('flatten returns the same text, white space at its ends included (it flattens by trimming)', () => {
  for (const edge of [' ', '\t', '\n', '\u00a0', '\u2028', '\ufeff', '']) {
    for (const body of ['0123456789abcdef', 'caf\u00e9 au lait, s\u2019il vous pla\u00eet', '\u{1f600} smile please']) {
      let rope = '';
      for (const piece of [edge, body.slice(0, 5), body.slice(5), edge]) rope += piece;
      assert.equal(flatten(rope), `${edge}${body}${edge}`);
    }
  }
  assert.equal(flatten('short'), 'short');
});
