import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OffsetStoreError } from '../../../src/common/errors.js';
import { silentLogger } from '../../../src/common/logger.js';
import { CaptureTask } from '../../../src/engine/capture-task.js';
import { CaptureMetrics } from '../../../src/model/capture-metrics.js';
import type { ChangeSource } from '../../../src/model/change-source.js';
import type { SinkRecord } from '../../../src/model/sink-record.js';
import type { SourceOffset } from '../../../src/model/source-offset.js';
import type { Sink } from '../../../src/sinks/sink.js';
import type { OffsetStore } from '../../../src/stores/offset-store.js';

export function record(i: number): SinkRecord {
  const value = JSON.stringify({ op: 'c', after: { id: i } });
  return { topic: 't', key: `{"id":${i}}`, value, sizeBytes: value.length + 8 };
}

/** Emits `n` records, each with its own checkpoint, then ends. */
export function source(n: number): ChangeSource {
  return {
    metrics: new CaptureMetrics(),
    async run(ctx) {
      for (let i = 1; i <= n; i++) await ctx.emit({ record: record(i), offset: { file: 'b.000001', pos: i * 100 } });
    },
  };
}

export class MemorySink implements Sink {
  readonly name = 'memory';
  sent: SinkRecord[] = [];
  async start() {}
  async send(records: SinkRecord[]) {
    this.sent.push(...records);
  }
  async close() {}
}

function store(commitError: Error | null): OffsetStore & { commits: SourceOffset[] } {
  const commits: SourceOffset[] = [];
  return {
    commits,
    async load() {
      return null;
    },
    async commit(o) {
      if (commitError) throw commitError;
      commits.push(o);
    },
    async probe() {
      if (commitError) throw commitError;
    },
    async close() {},
  };
}

const task = (src: ChangeSource, sink: Sink, offsetStore: OffsetStore) =>
  new CaptureTask({
    source: src,
    sink,
    offsetStore,
    logger: silentLogger,
    maxBatchSize: 10,
    maxQueueSize: 100,
    maxQueueSizeInBytes: 1 << 20,
    offsetFlushIntervalMs: 0,
  });

describe('CaptureTask start-up', () => {
  it('publishes nothing when the offset store cannot commit (the commit probe runs before publishing)', async () => {
    const sink = new MemorySink();
    const failing = store(new OffsetStoreError('offset commit rejected'));
    await assert.rejects(task(source(3), sink, failing).run(), /offset commit rejected/);
    assert.deepEqual(sink.sent, []);
  });

  it('publishes and commits when the store works', async () => {
    const sink = new MemorySink();
    const ok = store(null);
    await task(source(3), sink, ok).run();
    assert.equal(sink.sent.length, 3);
    assert.equal(ok.commits.at(-1)?.pos, 300);
  });
});
