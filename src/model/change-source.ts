/** The engine's port for a change source: what the capture task runs and what it hands the source. */
import type { Logger } from '../common/logger.js';
import type { CaptureMetricsView } from './capture-metrics.js';
import type { QueueItem } from './queue-item.js';
import type { SourceOffset } from './source-offset.js';

/** What a change source gets from the task. */
export interface SourceContext {
  /** The offset to resume from (null on first start). */
  offset: SourceOffset | null;
  /** Put an item on the queue; awaiting it is the backpressure. */
  emit(item: QueueItem): Promise<void>;
  signal: AbortSignal;
  logger: Logger;
}

export interface ChangeSource {
  /** The capture's metrics (snapshot, streaming, schema history), written by the source, read by metrics/. */
  readonly metrics: CaptureMetricsView;
  /** Runs until `signal` aborts (resolves) or a fatal error (rejects). May resolve by itself (e.g. initial_only). */
  run(ctx: SourceContext): Promise<void>;
  /** True when the source has caught up with the server and holds nothing unemitted (for --until-idle). */
  isCaughtUp?(): Promise<boolean>;
}
