/**
 * QueueItem.flush: a checkpoint that must not wait for offset.flush.interval.ms (a finished snapshot) is committed
 * as soon as its batch is delivered; ordinary checkpoints still wait for the interval.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SinkError } from '../../../src/common/errors.js';
import { silentLogger } from '../../../src/common/logger.js';
import { ChangeQueue } from '../../../src/engine/change-queue.js';
import { Publisher } from '../../../src/engine/publisher.js';
import type { QueueItem } from '../../../src/model/queue-item.js';
import type { SinkRecord } from '../../../src/model/sink-record.js';
import type { SourceOffset } from '../../../src/model/source-offset.js';
import type { Sink } from '../../../src/sinks/sink.js';
import type { OffsetStore } from '../../../src/stores/offset-store.js';

function record(i: number): SinkRecord {
  const value = JSON.stringify({ op: 'c', after: { id: i } });
  return { topic: 't', key: `{"id":${i}}`, value, sizeBytes: value.length + 8 };
}

const sink: Sink = { name: 'memory', start: async () => {}, send: async () => {}, close: async () => {} };

function memoryStore(): OffsetStore & { commits: SourceOffset[] } {
  const commits: SourceOffset[] = [];
  return {
    commits,
    load: async () => null,
    commit: async (o) => {
      commits.push(o);
    },
    probe: async () => {},
    close: async () => {},
  };
}

async function until(cond: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 2));
  }
}

describe('Publisher flush checkpoints', () => {
  it('commits a flush checkpoint at once, ordinary ones only at the flush interval', async () => {
    const queue = new ChangeQueue<QueueItem>({ maxItems: 100, maxBytes: 1 << 20 });
    const store = memoryStore();
    const publisher = new Publisher({
      queue,
      sink,
      offsetStore: store,
      logger: silentLogger,
      maxBatchSize: 10,
      offsetFlushIntervalMs: 3_600_000,
    });
    const running = publisher.run();
    try {
      await queue.put({ record: record(1), offset: { file: 'b.000001', pos: 100 } }, 10);
      await until(() => store.commits.length === 1); // the very first checkpoint commits at once (no commit yet)
      await queue.put({ record: record(2), offset: { file: 'b.000001', pos: 200 } }, 10);
      await queue.put(
        { record: null, offset: { file: 'b.000001', pos: 300, snapshot_completed: true }, flush: true },
        0,
      );
      await until(() => store.commits.length === 2);
      assert.deepEqual(store.commits[1], { file: 'b.000001', pos: 300, snapshot_completed: true });
      await queue.put({ record: record(3), offset: { file: 'b.000001', pos: 400 } }, 10);
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(store.commits.length, 2, 'an ordinary checkpoint waits for offset.flush.interval.ms');
    } finally {
      queue.close();
    }
    await running;
    assert.equal(store.commits.at(-1)?.pos, 400, 'and is committed on shutdown');
  });
});

describe('Publisher and the lease', () => {
  it('checks the lease before every attempt: a lease lost during retries stops the batch unsent', async () => {
    const queue = new ChangeQueue<QueueItem>({ maxItems: 100, maxBytes: 1 << 20 });
    let held = true;
    let attempts = 0;
    const lost = new Error('lease lost while retrying');
    const failing: Sink = {
      name: 'flaky',
      start: async () => {},
      send: async () => {
        attempts++;
        held = false; // the lease expires during the outage
        throw new SinkError('endpoint down', { retriable: true });
      },
      close: async () => {},
    };
    const publisher = new Publisher({
      queue,
      sink: failing,
      offsetStore: memoryStore(),
      lease: {
        acquire: async () => 1,
        assertHeld: () => {
          if (!held) throw lost;
        },
        token: 1,
        onLost: () => {},
        release: async () => {},
      },
      logger: silentLogger,
      maxBatchSize: 10,
      retry: { maxRetries: -1, initialDelayMs: 1, maxDelayMs: 1 },
    });
    const running = publisher.run().then(
      () => null,
      (e: unknown) => e,
    );
    await queue.put({ record: record(1), offset: { file: 'b.000001', pos: 100 } }, 10);
    assert.equal(await running, lost, 'the lease error, not a sink error');
    assert.equal(attempts, 1, 'no retry is sent once the lease is gone');
  });
});
