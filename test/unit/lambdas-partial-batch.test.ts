/** processKinesisBatch: Powertools' BatchProcessor as the Lambdas use it. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KinesisStreamEvent, KinesisStreamRecord } from 'aws-lambda';
import { processKinesisBatch } from '../../lambdas/lib/partial-batch.js';

const event = (n: number): KinesisStreamEvent => ({
  Records: Array.from({ length: n }, (_, i) => ({ kinesis: { sequenceNumber: `seq-${i}` } }) as KinesisStreamRecord),
});

test('failures are listed in event order when parallel handlers finish out of order', async () => {
  const e = event(5);
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const res = await processKinesisBatch(
    e,
    async (r) => {
      const i = Number(r.kinesis.sequenceNumber.slice(4));
      if (i === 1) await gate; // finishes last
      if (i === 4) release();
      if (i % 2 === 1 || i === 4) throw new Error(`fail ${i}`);
    },
    { inParallel: true },
  );
  assert.deepEqual(res.batchItemFailures, [
    { itemIdentifier: 'seq-1' },
    { itemIdentifier: 'seq-3' },
    { itemIdentifier: 'seq-4' },
  ]);
});

test('a batch that fails entirely is a response listing every record, not a thrown error; sequential runs in order', async () => {
  const seen: string[] = [];
  const res = await processKinesisBatch(
    event(3),
    async (r) => {
      seen.push(r.kinesis.sequenceNumber);
      await Promise.resolve();
      throw new Error('down');
    },
    { inParallel: false },
  );
  assert.deepEqual(seen, ['seq-0', 'seq-1', 'seq-2']);
  assert.deepEqual(
    res.batchItemFailures.map((f) => f.itemIdentifier),
    ['seq-0', 'seq-1', 'seq-2'],
  );
  const ok = await processKinesisBatch(event(2), async () => {}, { inParallel: true });
  assert.deepEqual(ok, { batchItemFailures: [] });
});
