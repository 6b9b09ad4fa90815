/**
 * Runs one capture (Debezium's ChangeEventSourceCoordinator): the start decision (a pure function of what is known
 * at start), then the snapshot runner, then the stream runner, with stop-after-snapshot (initial_only), abort, and
 * the capture's phase. What a snapshot or a stream is belongs to the runners; this only sequences them.
 */
import type { Logger } from '../common/logger.js';
import type { CapturePhase } from '../model/capture-metrics.js';
import type { SourceOffset } from '../model/source-offset.js';
import type { SnapshotRunner, StreamRunner } from './capture-runners.js';
import { decideStart, type StartDecision, type StartFacts } from './start-decision.js';

export type { CapturePhase };

/** How a capture run ended (for tests and logs; errors reject instead). */
export type CaptureOutcome = 'snapshot-only' | 'aborted' | 'streamed';

export interface CaptureCoordinatorOptions {
  snapshot: SnapshotRunner;
  stream: StreamRunner;
  signal: AbortSignal;
  logger: Logger;
  /** The error for a stored position this server cannot resume (the decision was `fail`). */
  positionLost(): Error;
  /** Told every phase change (metrics, the retention watch). */
  onPhase?(phase: CapturePhase): void;
}

export class CaptureCoordinator {
  private current: CapturePhase = 'starting';

  constructor(private readonly options: CaptureCoordinatorOptions) {}

  get phase(): CapturePhase {
    return this.current;
  }

  /** Decides from `facts` and runs the capture from `offset` (the stored one, null on a first start). */
  async run(facts: StartFacts & { offset: SourceOffset | null }): Promise<CaptureOutcome> {
    const { snapshot, stream, signal, logger } = this.options;
    const start: StartDecision = decideStart(facts);
    if (start.kind === 'fail') throw this.options.positionLost();
    let from: SourceOffset;
    if (start.kind === 'snapshot') {
      this.enter('snapshot');
      from = await snapshot.run(start);
      if (start.stopAfter) {
        this.enter('stopped');
        logger.info('initial_only snapshot finished; not streaming');
        return 'snapshot-only';
      }
    } else {
      snapshot.skipped?.();
      from = await stream.recover(facts.offset, start.schema);
    }
    if (signal.aborted) return 'aborted';
    this.enter('streaming');
    try {
      await stream.run({ from, resumed: from === facts.offset, enter: (phase) => this.enter(phase) });
    } finally {
      this.enter('stopped');
    }
    return signal.aborted ? 'aborted' : 'streamed';
  }

  private enter(phase: CapturePhase): void {
    this.current = phase;
    this.options.onPhase?.(phase);
  }
}
