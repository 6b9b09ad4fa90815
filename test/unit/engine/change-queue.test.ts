import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ChangeQueue } from '../../../src/engine/change-queue.js';

test('put blocks when the byte bound is reached and resumes after a take', async () => {
  const q = new ChangeQueue<number>({ maxItems: 100, maxBytes: 10 });
  await q.put(1, 6);
  let admitted = false;
  const pending = q.put(2, 6).then(() => {
    admitted = true;
  });
  await new Promise((r) => setImmediate(r));
  assert.equal(admitted, false, 'second put must wait: 12 bytes > 10');
  assert.deepEqual(await q.takeBatch(10), [1]);
  await pending;
  assert.equal(admitted, true);
  assert.equal(q.sizeInBytes, 6);
});

test('put blocks on the count bound; batches respect maxBatch and order', async () => {
  const q = new ChangeQueue<number>({ maxItems: 3, maxBytes: 0 });
  const producer = (async () => {
    for (let i = 0; i < 10; i++) await q.put(i, 1);
    q.close();
  })();
  const got: number[] = [];
  for (;;) {
    const b = await q.takeBatch(2);
    if (b === null) break;
    assert.ok(b.length <= 2);
    assert.ok(q.length <= 3);
    got.push(...b);
  }
  await producer;
  assert.deepEqual(got, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
});

test('an oversize item is admitted into an empty queue; takeBatch times out with []', async () => {
  const q = new ChangeQueue<string>({ maxItems: 10, maxBytes: 5 });
  await q.put('big', 50);
  assert.deepEqual(await q.takeBatch(5, 10), ['big']);
  assert.deepEqual(await q.takeBatch(5, 10), []);
});

test('fail() rejects blocked producers', async () => {
  const q = new ChangeQueue<number>({ maxItems: 1, maxBytes: 0 });
  await q.put(1, 1);
  const blocked = q.put(2, 1);
  q.fail(new Error('sink down'));
  await assert.rejects(blocked, /sink down/);
});

test('a taken item is no longer referenced by the queue (it can be collected while others still wait)', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const q = new ChangeQueue<{ n: number }>({ maxItems: 100, maxBytes: 0 });
  const refs: WeakRef<{ n: number }>[] = [];
  // Items made in a function of their own, so no local of the test holds one.
  const putItem = (n: number) => {
    const item = { n };
    refs.push(new WeakRef(item));
    return q.put(item, 1);
  };
  for (let n = 0; n < 5; n++) await putItem(n);
  // A partial take (3 of 5 stay queued), then a take that drains the queue.
  assert.deepEqual(
    (await q.takeBatch(2))?.map((i) => i.n),
    [0, 1],
  );
  await new Promise((r) => setImmediate(r)); // WeakRef targets are held until the job that made them ends
  gc();
  assert.deepEqual(
    refs.map((r) => r.deref()?.n),
    [undefined, undefined, 2, 3, 4],
  );
  assert.deepEqual(
    (await q.takeBatch(10))?.map((i) => i.n),
    [2, 3, 4],
  );
  await new Promise((r) => setImmediate(r));
  gc();
  assert.deepEqual(
    refs.map((r) => r.deref()),
    [undefined, undefined, undefined, undefined, undefined],
  );
  await q.put({ n: 5 }, 1);
  assert.deepEqual(
    (await q.takeBatch(10))?.map((i) => i.n),
    [5],
  );
});

test('timed waits share one timer: each times out on its own, and an ended one never cuts a later wait short', async () => {
  const q = new ChangeQueue<number>({ maxItems: 10, maxBytes: 0 });
  const early = q.takeBatch(10, 20);
  await q.put(1, 1);
  assert.deepEqual(await early, [1], 'a put ends a timed wait at once');
  assert.deepEqual(await q.takeBatch(10, 20), [], 'the next timed wait still times out');
  const again = q.takeBatch(10, 20);
  await q.put(2, 1);
  assert.deepEqual(await again, [2]);
  // An untimed wait while the last timed wait's timer runs out: Node fires timers in deadline order, so once a
  // later 30 ms timer has fired, the 20 ms one has too.
  let settled = false;
  const untimed = q.takeBatch(10).then((b) => {
    settled = true;
    return b;
  });
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(settled, false, 'the ended wait’s timer must not wake an untimed wait');
  await q.put(3, 1);
  assert.deepEqual(await untimed, [3]);
  q.close();
  assert.equal(await q.takeBatch(10, 20), null);
});

test('peakLength and peakSizeInBytes keep the most held at once, each on its own, across takes and blocked puts', async () => {
  const q = new ChangeQueue<number>({ maxItems: 3, maxBytes: 100 });
  assert.equal(q.peakLength, 0);
  assert.equal(q.peakSizeInBytes, 0);
  await q.put(1, 10);
  await q.put(2, 10);
  assert.deepEqual(await q.takeBatch(1), [1]);
  await q.put(3, 70); // 2 items, 80 bytes: the byte peak rises while the count does not
  assert.equal(q.peakLength, 2);
  assert.equal(q.peakSizeInBytes, 80);
  await q.put(4, 1);
  const blocked = q.put(5, 1); // the count bound: waits, then goes in through the slow path
  assert.deepEqual(await q.takeBatch(3), [2, 3, 4]);
  await blocked;
  assert.equal(q.length, 1);
  assert.equal(q.peakLength, 3);
  assert.equal(q.peakSizeInBytes, 81);
  // Many small batches: the taken head is compacted away, and the peak counts only the items still held.
  for (let i = 0; i < 3000; i++) {
    await q.put(i, 0);
    await q.takeBatch(1);
  }
  assert.equal(q.peakLength, 3);
});
