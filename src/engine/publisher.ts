/**
 * The publishing loop: drains the change queue in batches into the sink and commits the offset of the last
 * checkpoint in each delivered batch. Offsets are committed only after the sink acknowledged everything before
 * them (at-least-once), at most every `offsetFlushIntervalMs`, and always on shutdown.
 */
import { errorMessage, SinkError } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import type { QueueItem } from '../model/queue-item.js';
import type { SinkRecord } from '../model/sink-record.js';
import type { SourceOffset } from '../model/source-offset.js';
import { DeliveryTracker } from '../sinks/delivery-status.js';
import type { Sink } from '../sinks/sink.js';
import type { Lease } from '../stores/lease.js';
import type { OffsetStore } from '../stores/offset-store.js';
import type { ChangeQueue } from './change-queue.js';
import { DEFAULT_RETRY_POLICY, mayRetry, type RetryPolicy, retryDelayMs } from './retry.js';

export interface PublisherOptions {
  queue: ChangeQueue<QueueItem>;
  sink: Sink;
  offsetStore: OffsetStore;
  lease?: Lease | null;
  logger: Logger;
  maxBatchSize: number;
  /** @default 1000 */
  offsetFlushIntervalMs?: number;
  /**
   * Retries of a failure the sink marks retriable (errors.max.retries and the retry delays). A sink that retries
   * per record under the same policy (Kinesis) marks its give-up final, so attempts never multiply.
   * @default DEFAULT_RETRY_POLICY (unlimited)
   */
  retry?: RetryPolicy;
  /** Single-message transforms applied to each batch before it is sent (`transforms=...`). */
  transform?: (records: SinkRecord[]) => SinkRecord[];
  /** Called after each delivered batch (metrics, live views). */
  onDelivered?: (records: SinkRecord[], offset: SourceOffset | null) => void;
}

export class Publisher {
  private lastCommitted: SourceOffset | null = null;
  private pending: SourceOffset | null = null;
  private lastCommitAt = 0;
  /** A delivered checkpoint asked to be made durable at once (QueueItem.flush). */
  private flushRequested = false;
  /** Records delivered since start. */
  delivered = 0;

  /** Outage visibility of the retries made here (sinks that retry inside `send` track their own). */
  readonly delivery: DeliveryTracker;

  constructor(private readonly options: PublisherOptions) {
    this.delivery = new DeliveryTracker({ sink: options.sink.name, logger: options.logger });
  }

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
        if (this.pending && (this.flushRequested || Date.now() - this.lastCommitAt >= flushEvery)) await this.commit();
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
      if (item.flush) this.flushRequested = true;
    }
    const out = this.options.transform && records.length > 0 ? this.options.transform(records) : records;
    if (out.length > 0) {
      await this.sendWithRetry(out);
      this.delivered += out.length;
    }
    if (offset) this.pending = offset;
    this.options.onDelivered?.(out, offset);
  }

  private async sendWithRetry(records: SinkRecord[]): Promise<void> {
    const { sink, logger } = this.options;
    const policy = this.options.retry ?? DEFAULT_RETRY_POLICY;
    this.delivery.pending(Date.now());
    try {
      for (let retries = 0; ; retries++) {
        // Before every attempt, retries included: a holder that lost the lease during an outage (or a pause)
        // must not publish an old batch after the new holder has published newer changes of the same keys.
        this.options.lease?.assertHeld();
        try {
          await sink.send(records);
          this.delivery.success();
          return;
        } catch (err) {
          const retriable = err instanceof SinkError ? err.retriable && !err.retriesExhausted : false;
          if (!retriable || !mayRetry(policy, retries)) {
            if (err instanceof SinkError) throw err;
            throw new SinkError(`sink '${sink.name}' failed: ${errorMessage(err)}`, { cause: err });
          }
          // First failure at warn, then a summary at most every 30 s (DeliveryTracker); each retry at debug.
          this.delivery.failure(errorMessage(err), { maxRetries: policy.maxRetries });
          logger.debug('sink send failed, retrying', { retry: retries + 1, error: errorMessage(err) });
          await new Promise((r) => setTimeout(r, retryDelayMs(policy, retries)));
        }
      }
    } finally {
      this.delivery.settled();
    }
  }

  private async commit(): Promise<void> {
    const offset = this.pending;
    if (!offset) return;
    this.options.lease?.assertHeld();
    await this.options.offsetStore.commit(offset);
    this.lastCommitted = offset;
    this.pending = null;
    this.flushRequested = false;
    this.lastCommitAt = Date.now();
  }
}
