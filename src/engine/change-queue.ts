/**
 * A queue bounded by count *and* bytes (Debezium's ChangeEventQueue). `put` waits while the queue is full, which
 * is how backpressure reaches the binlog reader: the reader awaits `put`, stops reading, and TCP flow control
 * pauses the server. `takeBatch` waits for at least one item, then drains up to `maxBatch` items.
 */

import { ACCEPTED } from '../model/queue-item.js';

export interface ChangeQueueOptions {
  /** Maximum number of items. */
  maxItems: number;
  /** Maximum total size in bytes; 0 disables the byte bound. */
  maxBytes: number;
}

interface Waiter {
  resolve: () => void;
}

export class ChangeQueue<T> {
  private items: T[] = [];
  private sizes: number[] = [];
  private head = 0;
  private bytes = 0;
  private peakItems = 0;
  private peakBytes = 0;
  private closed = false;
  private failure: Error | null = null;
  private readonly putWaiters: Waiter[] = [];
  private takeWaiter: (() => void) | null = null;
  /**
   * One timer serves every timed wait of takeBatch, re-armed per wait: a timer made and cleared per wait (the
   * publisher waits once per batch) churns Node's timer lists. Referenced only while a timed wait is on.
   */
  private waitTimer: NodeJS.Timeout | null = null;
  private waitTimerMs = 0;
  private timedWait = false;

  constructor(private readonly options: ChangeQueueOptions) {}

  get length(): number {
    return this.items.length - this.head;
  }
  get sizeInBytes(): number {
    return this.bytes;
  }
  get remainingCapacity(): number {
    return Math.max(0, this.options.maxItems - this.length);
  }
  /**
   * High-water marks since construction: the most items, and the most bytes, held at once (not necessarily at the
   * same moment). Exact however rarely anyone reads them, unlike a timer sampling `length`, which misses every peak
   * that builds and drains while the reader keeps the event loop busy. Between two takes only puts change the queue
   * and they only add, so the peak of that stretch is what the queue holds when the next take starts (or now):
   * takeBatch keeps the marks with one compare each per batch, and put, the reader's hot path, does nothing more.
   */
  get peakLength(): number {
    return Math.max(this.peakItems, this.length);
  }
  get peakSizeInBytes(): number {
    return Math.max(this.peakBytes, this.bytes);
  }

  /**
   * Enqueue; waits while full. A single item larger than the byte bound is admitted when the queue is empty.
   * Returns ACCEPTED when the item went in at once (no await needed), else a promise of it going in.
   */
  put(item: T, sizeBytes: number): Promise<void> {
    if (this.failure || this.isFull(sizeBytes)) return this.putWhenRoom(item, sizeBytes);
    this.items.push(item);
    this.sizes.push(sizeBytes);
    this.bytes += sizeBytes;
    this.wakeTaker();
    return ACCEPTED;
  }

  private async putWhenRoom(item: T, sizeBytes: number): Promise<void> {
    while (this.isFull(sizeBytes)) {
      if (this.failure) throw this.failure;
      await new Promise<void>((resolve) => this.putWaiters.push({ resolve }));
    }
    if (this.failure) throw this.failure;
    this.items.push(item);
    this.sizes.push(sizeBytes);
    this.bytes += sizeBytes;
    this.wakeTaker();
  }

  /**
   * Wait for at least one item (or close/timeout) and return up to `maxBatch` items. Returns an empty array on
   * timeout and `null` once closed and drained.
   */
  async takeBatch(maxBatch: number, timeoutMs?: number): Promise<T[] | null> {
    if (this.length === 0) {
      if (this.closed) return null;
      await new Promise<void>((resolve) => {
        this.takeWaiter = resolve;
        if (timeoutMs !== undefined) this.armWaitTimer(timeoutMs);
      });
      if (this.length === 0) return this.closed ? null : [];
    }
    if (this.length > this.peakItems) this.peakItems = this.length;
    if (this.bytes > this.peakBytes) this.peakBytes = this.bytes;
    const n = Math.min(maxBatch, this.length);
    const end = this.head + n;
    const batch = this.items.slice(this.head, end);
    for (let i = this.head; i < end; i++) this.bytes -= this.sizes[i];
    // Taken slots must not keep their records alive: a record the sink is done with then dies in the young
    // generation instead of being copied by every scavenge until the array is compacted.
    if (end === this.items.length) {
      this.items.length = 0;
      this.sizes.length = 0;
      this.head = 0;
    } else {
      (this.items as Array<T | undefined>).fill(undefined, this.head, end);
      this.head = end;
      if (this.head > 1024 && this.head * 2 > this.items.length) {
        this.items = this.items.slice(this.head);
        this.sizes = this.sizes.slice(this.head);
        this.head = 0;
      }
    }
    this.wakePutters();
    return batch;
  }

  /** No more items will be put; the consumer drains what is left. */
  close(): void {
    this.closed = true;
    this.wakeTaker();
    if (this.waitTimer) clearTimeout(this.waitTimer);
    this.waitTimer = null;
  }

  /** Fail waiting producers (e.g. the sink died) so the reader stops. */
  fail(err: Error): void {
    this.failure = err;
    this.closed = true;
    this.wakePutters();
    this.close();
  }

  private isFull(nextSize: number): boolean {
    if (this.length === 0) return false;
    if (this.length >= this.options.maxItems) return true;
    return this.options.maxBytes > 0 && this.bytes + nextSize > this.options.maxBytes;
  }
  private armWaitTimer(ms: number): void {
    this.timedWait = true;
    if (this.waitTimer && this.waitTimerMs === ms) {
      this.waitTimer.refresh().ref();
      return;
    }
    if (this.waitTimer) clearTimeout(this.waitTimer);
    this.waitTimerMs = ms;
    // Fires for the wait that armed it last (refresh restarts the countdown); a wait already ended ignores it.
    this.waitTimer = setTimeout(() => {
      if (this.timedWait) this.wakeTaker();
    }, ms);
  }
  private wakeTaker(): void {
    const w = this.takeWaiter;
    if (!w) return;
    this.takeWaiter = null;
    if (this.timedWait) {
      this.timedWait = false;
      this.waitTimer?.unref();
    }
    w();
  }
  private wakePutters(): void {
    // Called for every batch taken; nearly always nobody waits, and splice would allocate an empty array.
    if (this.putWaiters.length === 0) return;
    const waiting = this.putWaiters.splice(0);
    for (const w of waiting) w.resolve();
  }
}
