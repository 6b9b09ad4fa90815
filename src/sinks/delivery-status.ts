/**
 * Visibility of delivery outages: a sink that keeps retrying (errors.max.retries=-1 is the default) must not be
 * silent. The tracker logs the first failure at warn, then a summary at most every `summaryIntervalMs` (failed
 * attempts, how long it has been failing, age of the oldest unacknowledged record), and the recovery at info; the
 * same numbers feed the metrics and `/health`. Messages carry error texts and counts, never record contents.
 */
import type { Logger } from '../common/logger.js';

export interface DeliveryStatus {
  /** True from the first failed attempt until the next acknowledged one. */
  readonly failing: boolean;
  /** Failed attempts (requests or entries) since the failure began; 0 while healthy. */
  readonly failedAttempts: number;
  /** How long delivery has been failing, ms; 0 while healthy. */
  readonly failingForMs: number;
  /** Age of the oldest record handed to the sink and not yet acknowledged, ms; 0 when none is waiting. */
  readonly oldestUnacknowledgedAgeMs: number;
  /** The last failure's message (an SDK/OS error text, no record data). */
  readonly lastError: string | null;
}

export const HEALTHY_DELIVERY: DeliveryStatus = {
  failing: false,
  failedAttempts: 0,
  failingForMs: 0,
  oldestUnacknowledgedAgeMs: 0,
  lastError: null,
};

export interface DeliveryTrackerOptions {
  /** What is failing, for the log lines, e.g. `kinesis` or `file`. */
  readonly sink: string;
  readonly logger: Logger;
  /** @default 30000 */
  readonly summaryIntervalMs?: number;
  readonly now?: () => number;
}

export class DeliveryTracker {
  private since = 0;
  private attempts = 0;
  private lastLogAt = 0;
  private lastError: string | null = null;
  /** Start time of the oldest unacknowledged send (0 = none in flight). */
  private oldestPendingSince = 0;
  private readonly now: () => number;
  private readonly interval: number;

  constructor(private readonly options: DeliveryTrackerOptions) {
    this.now = options.now ?? Date.now;
    this.interval = options.summaryIntervalMs ?? 30_000;
  }

  /** A batch was handed to the sink at `startedAt` and is not yet acknowledged. */
  pending(startedAt: number): void {
    if (this.oldestPendingSince === 0 || startedAt < this.oldestPendingSince) this.oldestPendingSince = startedAt;
  }

  /** Nothing is waiting any more (the batch was acknowledged or given up). */
  settled(): void {
    this.oldestPendingSince = 0;
  }

  failure(error: string, context: Record<string, unknown> = {}): void {
    const now = this.now();
    this.attempts++;
    this.lastError = error;
    if (this.since === 0) {
      this.since = now;
      this.lastLogAt = now;
      this.options.logger.warn(`${this.options.sink} delivery failing; retrying`, { ...context, error });
      return;
    }
    if (now - this.lastLogAt >= this.interval) {
      this.lastLogAt = now;
      const s = this.status();
      this.options.logger.warn(`${this.options.sink} delivery still failing`, {
        ...context,
        failedAttempts: s.failedAttempts,
        failingForMs: s.failingForMs,
        oldestUnacknowledgedAgeMs: s.oldestUnacknowledgedAgeMs,
        lastError: error,
      });
    }
  }

  success(): void {
    if (this.since === 0) return;
    this.options.logger.info(`${this.options.sink} delivery recovered`, {
      failedAttempts: this.attempts,
      outageMs: this.now() - this.since,
    });
    this.since = 0;
    this.attempts = 0;
    this.lastError = null;
  }

  status(): DeliveryStatus {
    if (this.since === 0 && this.oldestPendingSince === 0) return HEALTHY_DELIVERY;
    const now = this.now();
    return {
      failing: this.since !== 0,
      failedAttempts: this.attempts,
      failingForMs: this.since === 0 ? 0 : now - this.since,
      oldestUnacknowledgedAgeMs: this.oldestPendingSince === 0 ? 0 : now - this.oldestPendingSince,
      lastError: this.lastError,
    };
  }
}
