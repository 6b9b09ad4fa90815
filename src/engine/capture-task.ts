/**
 * The capture task: runs a change source (snapshot then streaming, decided by the source) into the byte-bounded
 * queue, and the publisher from the queue into the sink, with offsets committed after delivery. Owns the lease:
 * nothing is published before it is acquired, and losing it stops the task before anyone else can publish.
 */
import { errorMessage } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import type { ChangeSource } from '../model/change-source.js';
import type { QueueItem } from '../model/queue-item.js';
import type { SinkRecord } from '../model/sink-record.js';
import type { SourceOffset } from '../model/source-offset.js';
import { type DeliveryStatus, HEALTHY_DELIVERY } from '../sinks/delivery-status.js';
import type { Sink } from '../sinks/sink.js';
import type { Lease } from '../stores/lease.js';
import type { OffsetStore } from '../stores/offset-store.js';
import { ChangeQueue } from './change-queue.js';
import { Publisher } from './publisher.js';
import type { RetryPolicy } from './retry.js';

export interface CaptureTaskOptions {
  source: ChangeSource;
  sink: Sink;
  offsetStore: OffsetStore;
  lease?: Lease | null;
  logger: Logger;
  maxBatchSize: number;
  maxQueueSize: number;
  maxQueueSizeInBytes: number;
  offsetFlushIntervalMs?: number;
  /** Delivery retry policy (errors.max.retries ...). @default DEFAULT_RETRY_POLICY */
  retry?: RetryPolicy;
  onDelivered?: (records: SinkRecord[], offset: SourceOffset | null) => void;
  /** Single-message transforms applied before publishing. */
  transform?: (records: SinkRecord[]) => SinkRecord[];
}

export interface RunOptions {
  /** Exit once caught up and no change has been seen for this long. */
  untilIdleMs?: number;
  signal?: AbortSignal;
}

export class CaptureTask {
  readonly queue: ChangeQueue<QueueItem>;
  private publisher: Publisher | null = null;

  constructor(private readonly options: CaptureTaskOptions) {
    this.queue = new ChangeQueue<QueueItem>({
      maxItems: options.maxQueueSize,
      maxBytes: options.maxQueueSizeInBytes,
    });
  }

  /** Delivery outage state: the sink's own (retries inside send) or the Publisher's retries, whichever is failing. */
  deliveryStatus(): DeliveryStatus {
    const own = this.options.sink.deliveryStatus?.() ?? HEALTHY_DELIVERY;
    const publisher = this.publisher?.delivery.status() ?? HEALTHY_DELIVERY;
    return own.failing || !publisher.failing ? own : publisher;
  }

  get committedOffset(): SourceOffset | null {
    return this.publisher?.committedOffset ?? null;
  }

  async run(run: RunOptions = {}): Promise<void> {
    const { logger, source, sink, offsetStore, lease } = this.options;
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    run.signal?.addEventListener('abort', onAbort, { once: true });
    let fatal: unknown = null;
    const failWith = (err: unknown) => {
      fatal ??= err;
      stop.abort();
    };

    if (lease) {
      logger.info('waiting for the publishing lease');
      const token = await lease.acquire(stop.signal);
      logger.info('lease acquired', { fencingToken: token });
      lease.onLost((err) => {
        // The error says how it was lost (taken over, deadline reached in time, or found late after a pause).
        logger.error('lease lost: stopping', { error: errorMessage(err) });
        this.queue.fail(err);
        failWith(err);
      });
    }
    await sink.start();
    const offset = await offsetStore.load();
    // Nothing is published before the store has shown it can commit: otherwise every restart republishes.
    await offsetStore.probe();
    logger.info('starting capture', { resumeFrom: offset ? { file: offset.file, pos: offset.pos } : 'beginning' });

    this.publisher = new Publisher({
      queue: this.queue,
      sink,
      offsetStore,
      lease,
      logger,
      maxBatchSize: this.options.maxBatchSize,
      offsetFlushIntervalMs: this.options.offsetFlushIntervalMs,
      ...(this.options.retry ? { retry: this.options.retry } : {}),
      onDelivered: this.options.onDelivered,
      transform: this.options.transform,
    });
    const publishing = this.publisher.run().catch(failWith);
    const idleWatch = run.untilIdleMs !== undefined ? this.watchIdle(run.untilIdleMs, stop) : null;

    try {
      await source.run({
        offset,
        emit: (item) => this.queue.put(item, item.record?.sizeBytes ?? 0),
        signal: stop.signal,
        logger,
      });
    } catch (err) {
      if (!stop.signal.aborted || fatal === null) failWith(err);
    }
    this.queue.close();
    await publishing;
    if (idleWatch) clearInterval(idleWatch);
    run.signal?.removeEventListener('abort', onAbort);
    await sink.close();
    await lease?.release().catch((err) => logger.warn('lease release failed', { error: errorMessage(err) }));
    if (fatal !== null) throw fatal;
  }

  private watchIdle(idleMs: number, stop: AbortController): NodeJS.Timeout {
    const { source } = this.options;
    let checking = false;
    return setInterval(
      () => {
        if (checking || stop.signal.aborted) return;
        if (this.queue.length > 0 || source.metrics.streaming.MilliSecondsSinceLastEvent < idleMs) return;
        checking = true;
        void (source.isCaughtUp?.() ?? Promise.resolve(true))
          .then((caughtUp) => {
            if (caughtUp && this.queue.length === 0) {
              this.options.logger.info('caught up and idle: stopping', { idleMs });
              stop.abort();
            }
          })
          .catch(() => {})
          .finally(() => {
            checking = false;
          });
      },
      Math.min(250, idleMs),
    );
  }
}
