/**
 * Heartbeats (Debezium's HeartbeatImpl + the action query of the EventDispatcher): every heartbeat.interval.ms a
 * heartbeat record carrying the last commit-boundary offset, so offsets advance while captured tables are idle, and
 * heartbeat.action.query run on the source so an idle database still produces change events. A stream runner feeds
 * it where the stream stands; the dispatcher decides when a heartbeat may go out.
 */
import { errorMessage } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import { ACCEPTED, type QueueItem } from '../model/queue-item.js';
import type { SinkRecord } from '../model/sink-record.js';
import type { SourceOffset } from '../model/source-offset.js';

/** What the stream runner tells the dispatcher about the stream. */
export interface HeartbeatFeed {
  /** The offset of the last commit boundary (null: nothing streamed yet). */
  offset(): SourceOffset | null;
  /** True inside a transaction: its offset would not be resumable. */
  inTransaction(): boolean;
}

export interface HeartbeatDispatcherOptions {
  /** heartbeat.interval.ms; 0 turns heartbeats (and the action query) off. */
  intervalMs: number;
  /** heartbeat.action.query; null or '' = none. */
  actionQuery: string | null;
  /** Runs the action query on the source; a rejection is logged, never fatal. */
  runActionQuery(sql: string): Promise<void>;
  /** The heartbeat record for a timestamp (ms). */
  heartbeat(tsMs: number): SinkRecord;
  /** Where heartbeats go (the queue, with the stream's offset decorations). */
  emit(item: QueueItem): Promise<void>;
  logger: Logger;
}

export class HeartbeatDispatcher {
  private timer: NodeJS.Timeout | null = null;
  private pendingEmits = 0;
  private acting = false;
  private lastServerBeatAt = 0;

  constructor(private readonly options: HeartbeatDispatcherOptions) {}

  /**
   * Wraps the stream's emit so the dispatcher sees emits waiting for queue capacity: no heartbeat is sent while
   * one is pending (its offset would overtake the records still waiting).
   */
  track(emit: (item: QueueItem) => Promise<void>): (item: QueueItem) => Promise<void> {
    return (item) => {
      const accepted = emit(item);
      // Taken at once (the common case): nothing is pending, and the streamer skips its await.
      if (accepted === ACCEPTED) return accepted;
      this.pendingEmits++;
      return accepted.finally(() => {
        this.pendingEmits--;
      });
    };
  }

  /** True when a heartbeat may be sent now. */
  mayBeat(feed: HeartbeatFeed, signal: AbortSignal): boolean {
    return this.pendingEmits === 0 && !feed.inTransaction() && !signal.aborted;
  }

  start(feed: HeartbeatFeed, signal: AbortSignal): void {
    const { intervalMs, actionQuery } = this.options;
    if (intervalMs <= 0 || this.timer) return;
    this.timer = setInterval(() => this.tick(feed, signal, actionQuery), intervalMs);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /**
   * A heartbeat from the server (VStream sends them while idle) drives the clock instead of a timer: at most one
   * record per interval, with the server's time (ms; 0 = unknown) and the offset the stream stands at. Awaited by
   * the stream loop, so it is queued in order.
   */
  async serverBeat(tsMs: number, offset: () => SourceOffset | null): Promise<void> {
    if (this.options.intervalMs <= 0) return;
    const now = Date.now();
    if (now - this.lastServerBeatAt < this.options.intervalMs) return;
    this.lastServerBeatAt = now;
    await this.options.emit({ record: this.options.heartbeat(tsMs > 0 ? tsMs : now), offset: offset() });
  }

  private tick(feed: HeartbeatFeed, signal: AbortSignal, actionQuery: string | null): void {
    if (actionQuery && !this.acting && !signal.aborted) {
      this.acting = true;
      void this.options
        .runActionQuery(actionQuery)
        .catch((err: unknown) =>
          this.options.logger.warn('heartbeat.action.query failed', { error: errorMessage(err) }),
        )
        .finally(() => {
          this.acting = false;
        });
    }
    if (!this.mayBeat(feed, signal)) return;
    void this.options.emit({ record: this.options.heartbeat(Date.now()), offset: feed.offset() }).catch(() => {});
  }
}
