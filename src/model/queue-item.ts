import type { SinkRecord } from './sink-record.js';
import type { SourceOffset } from './source-offset.js';

/**
 * What sources put on the change queue: a record to publish, an offset checkpoint, or both. A checkpoint says
 * "once everything before (and including) this item is delivered, a restart may resume from `offset`".
 * Checkpoints without a record let offsets advance through filtered transactions and heartbeats.
 */
export interface QueueItem {
  record: SinkRecord | null;
  offset: SourceOffset | null;
  /**
   * Commit this checkpoint as soon as it is delivered instead of at the next offset.flush.interval.ms (a finished
   * snapshot: a restart must not redo it).
   */
  flush?: boolean;
}

/**
 * What `emit` returns when the queue took the item at once (it had room): an already settled promise, so a producer
 * can skip the await (and its microtask) per record and only wait when the queue is full: `if (p !== ACCEPTED)
 * await p`.
 */
export const ACCEPTED: Promise<void> = Promise.resolve();
