/**
 * The two halves of a capture, as the coordinator sees them (Debezium's SnapshotChangeEventSource and
 * StreamingChangeEventSource): a snapshot runner that takes the snapshot the start decision asks for, and a stream
 * runner that follows the change log from a position, until stopped or up to a bound. Sources implement them; the
 * engine's CaptureCoordinator runs them.
 */
import type { PositionLike } from '../model/binlog-position.js';
import type { QueueItem } from '../model/queue-item.js';
import type { SourceOffset } from '../model/source-offset.js';
import type { StartDecision } from './start-decision.js';

/** What the start decision asks a snapshot runner for. */
export type SnapshotRequest = Extract<StartDecision, { kind: 'snapshot' }>;

export interface SnapshotRunner {
  /** Takes the snapshot; resolves with the offset streaming starts from (the snapshot's position). */
  run(request: SnapshotRequest): Promise<SourceOffset>;
  /** No snapshot is taken on this start (Debezium notifies the initial snapshot as SKIPPED). */
  skipped?(): void;
}

export interface StreamRun {
  from: SourceOffset;
  /** `from` is the stored offset (a restart), not a position this start established. */
  resumed?: boolean;
  /** Stop at this position (a bounded run, e.g. a replay); absent: stream until aborted. */
  until?: PositionLike;
  /** Where a bounded run's items go instead of the queue. */
  emit?(item: QueueItem): Promise<void>;
  /**
   * A stream that starts with a copy of the tables (VStream's copy phase) reports the copy as the snapshot phase,
   * then streaming; set by the coordinator.
   */
  enter?(phase: 'snapshot' | 'streaming'): void;
}

export interface StreamRunner {
  /**
   * Rebuilds the schema at `offset` when no snapshot runs: from schema history, or from the server as it is now
   * (first start with snapshot.mode=never, or history lost). Resolves with the offset to stream from.
   */
  recover(offset: SourceOffset | null, schema: 'history' | 'server'): Promise<SourceOffset>;
  /** Streams from `run.from` until the capture is aborted (resolves), `run.until` is reached, or a fatal error. */
  run(run: StreamRun): Promise<void>;
}
