/**
 * Vitess records wait in the change queue like MySQL ones, so their texts must be flat strings, not ropes of the
 * concatenated column pieces (see test/unit/events/flat-records.test.ts): retained heap per queued record close to
 * its text length.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { SinkRecord } from '../../../src/model/sink-record.js';
import { VitessTableEvents } from '../../../src/source/vitess/vitess-events.js';
import { vitessEventOptions } from './fixtures.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heapUsed(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

test('Vitess records hold flat texts: retained heap per record is close to its text length', () => {
  const fields = [
    { name: 'id', type: 'INT64', flags: 3, column_type: 'bigint' },
    ...Array.from({ length: 40 }, (_, i) =>
      i % 2 === 0
        ? { name: `c${i}`, type: 'INT64', flags: 1, column_type: 'bigint' }
        : { name: `c${i}`, type: 'VARCHAR', flags: 1, column_type: 'varchar(64)' },
    ),
  ];
  const events = new VitessTableEvents('ks', 'wide', fields, vitessEventOptions, false);
  const source = { tsMs: 1000, snapshot: 'false' as const, shard: '-80', vgtid: '[]' };
  const row = (i: number) =>
    [String(i), ...Array.from({ length: 40 }, (_, k) => (k % 2 === 0 ? String(i * 1_000_003 + k) : `v-${i}-${k}`))].map(
      (s) => Buffer.from(s),
    );
  // Warm up first: the optimising compiler is where a flattening without effect would be dropped.
  for (let i = 0; i < 20_000; i++) events.change(null, row(i), source, false);
  const n = 3000;
  const rows = Array.from({ length: n }, (_, i) => row(i));
  const keep: SinkRecord[] = [];
  const before = heapUsed();
  let chars = 0;
  for (let i = 0; i < n; i++) {
    const [r] = events.change(null, rows[i], source, false);
    chars += (r.value?.length ?? 0) + (r.key?.length ?? 0);
    keep.push(r);
  }
  const perRecord = (heapUsed() - before) / n;
  const textPerRecord = chars / n;
  assert.ok(
    perRecord < textPerRecord * 1.3 + 300,
    `retained ${Math.round(perRecord)} bytes per record for ${Math.round(textPerRecord)} characters of text`,
  );
  assert.equal(keep.length, n);
});
