/**
 * The publishing loop: drains the change queue in batches into the sink and commits the offset of the last
 * checkpoint in each delivered batch. Offsets are committed only after the sink acknowledged everything before
 * them (at-least-once), at most every `offsetFlushIntervalMs`, and always on shutdown.
 */
import { errorMessage, SinkError } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import type { Sink, SinkRecord } from '../sinks/sink.js';
import type { Lease } from '../stores/lease.js';
import type { OffsetStore, SourceOffset } from '../stores/offset-store.js';
import type { ChangeQueue } from './change-queue.js';
import type { QueueItem } from './queue-item.js';

export interface PublisherOptions {
  queue: ChangeQueue<QueueItem>;
  sink: Sink;
  offsetStore: OffsetStore;
  lease?: Lease | null;
  logger: Logger;
  maxBatchSize: number;
  /** @default 1000 */
  offsetFlushIntervalMs?: number;
  /** Retries of a retriable sink failure before the task fails. @default 10 */
  maxRetries?: number;
  /** @default 200 */
  retryDelayInitialMs?: number;
  /** @default 10000 */
  retryDelayMaxMs?: number;
  /** Single-message transforms applied to each batch before it is sent (`transforms=...`). */
  transform?: (records: SinkRecord[]) => SinkRecord[];
  /** Called after each delivered batch (metrics, live views). */
  onDelivered?: (records: SinkRecord[], offset: SourceOffset | null) => void;
}

export class Publisher {
  private lastCommitted: SourceOffset | null = null;
  private pending: SourceOffset | null = null;
  private lastCommitAt = 0;
  /** Records delivered since start. */
  delivered = 0;

  constructor(private readonly options: PublisherOptions) {}

  /** Runs until the queue is closed and drained; rejects (after failing the queue) when delivery fails. */
  async run(): Promise<void> {
    const { queue, maxBatchSize } = this.options;
    const flushEvery = this.options.offsetFlushIntervalMs ?? 1000;
    try {
      for (;;) {
        // The timeout only serves pending commits; with flushEvery 0 each batch commits at once, so wait unbounded
        // (a 0 ms timeout would spin on empty batches while the source is idle).
        const batch = await queue.takeBatch(maxBatchSize, flushEvery > 0 ? flushEvery : undefined);
        if (batch === null) break;
        if (batch.length > 0) await this.deliver(batch);
        if (this.pending && Date.now() - this.lastCommitAt >= flushEvery) await this.commit();
      }
      await this.commit();
    } catch (err) {
      queue.fail(err instanceof Error ? err : new Error(String(err)));
      throw err;
    }
  }

  /** The offset most recently made durable. */
  get committedOffset(): SourceOffset | null {
    return this.lastCommitted;
  }

  private async deliver(batch: QueueItem[]): Promise<void> {
    const records: SinkRecord[] = [];
    let offset: SourceOffset | null = null;
    for (const item of batch) {
      if (item.record) records.push(item.record);
      if (item.offset) offset = item.offset;
    }
    const out = this.options.transform && records.length > 0 ? this.options.transform(records) : records;
    if (out.length > 0) {
      this.options.lease?.assertHeld();
      await this.sendWithRetry(out);
      this.delivered += out.length;
    }
    if (offset) this.pending = offset;
    this.options.onDelivered?.(out, offset);
  }

  private async sendWithRetry(records: SinkRecord[]): Promise<void> {
    const max = this.options.maxRetries ?? 10;
    let delay = this.options.retryDelayInitialMs ?? 200;
    for (let attempt = 0; ; attempt++) {
      try {
        await this.options.sink.send(records);
        return;
      } catch (err) {
        const retriable = err instanceof SinkError ? err.retriable : false;
        if (!retriable || attempt >= max) {
          if (err instanceof SinkError) throw err;
          throw new SinkError(`sink '${this.options.sink.name}' failed: ${errorMessage(err)}`, { cause: err });
        }
        this.options.logger.warn('sink send failed, retrying', { attempt: attempt + 1, error: errorMessage(err) });
        await new Promise((r) => setTimeout(r, Math.random() * delay));
        delay = Math.min(delay * 2, this.options.retryDelayMaxMs ?? 10_000);
      }
    }
  }

  private async commit(): Promise<void> {
    const offset = this.pending;
    if (!offset) return;
    this.options.lease?.assertHeld();
    await this.options.offsetStore.commit(offset);
    this.lastCommitted = offset;
    this.pending = null;
    this.lastCommitAt = Date.now();
  }
}
