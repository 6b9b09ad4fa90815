/**
 * Liveness of a capture task for `/health` (the ECS container health check): healthy while it makes progress or
 * has nothing to do. "Nothing to do" is verified, not assumed: after `stuckAfterMs` without a binlog event the
 * monitor asks the server whether its binlog has moved past ours (`isCaughtUp`); an idle database is healthy, a
 * silent connection while the server writes is not.
 */
import { errorMessage } from '../common/errors.js';
import { type DeliveryStatus, HEALTHY_DELIVERY } from '../sinks/delivery-status.js';
import type { MetricsSource } from './collector.js';

export interface HealthOptions {
  /** Binlog silence after which the server position is checked. @default 300000 (5 min) */
  stuckAfterMs?: number;
  /** How long a server-position check result is reused. @default 30000 */
  recheckIntervalMs?: number;
  /** A snapshot without a new row or table for this long is stuck. @default 1800000 (30 min) */
  snapshotStallMs?: number;
  /** Time allowed in the `starting` phase (lease wait, schema recovery). @default 600000 (10 min) */
  startupGraceMs?: number;
  /** A sink failing (and retrying) for this long makes the task unhealthy. @default 300000 (5 min) */
  deliveryStallMs?: number;
}

export const HEALTH_DEFAULTS: Required<HealthOptions> = {
  stuckAfterMs: 300_000,
  recheckIntervalMs: 30_000,
  snapshotStallMs: 1_800_000,
  startupGraceMs: 600_000,
  deliveryStallMs: 300_000,
};

export interface HealthStatus {
  healthy: boolean;
  phase: string;
  reason: string;
  /** Present while the sink is failing: attempts, duration, oldest unacknowledged record age, last error. */
  delivery?: DeliveryStatus;
  /** Binlog retention runway of the resume position, once measured (never decides health: a restart cannot help). */
  retentionRunwaySeconds?: number;
}

export class HealthMonitor {
  private readonly opts: Required<HealthOptions>;
  private readonly startedAt: number;
  private snapshotProgress = -1;
  private snapshotProgressAt: number;
  private caughtUpCheck: { at: number; result: boolean | Error } | null = null;
  private pending: Promise<void> | null = null;

  constructor(
    private readonly source: MetricsSource,
    options: HealthOptions = {},
    private readonly now: () => number = Date.now,
    private readonly delivery: () => DeliveryStatus = () => HEALTHY_DELIVERY,
  ) {
    this.opts = { ...HEALTH_DEFAULTS, ...options };
    this.startedAt = now();
    this.snapshotProgressAt = this.startedAt;
  }

  async check(): Promise<HealthStatus> {
    const runway = this.source.metrics.RetentionRunwaySeconds;
    const source = await this.checkSource();
    const status = typeof runway === 'number' ? { ...source, retentionRunwaySeconds: runway } : source;
    const delivery = this.delivery();
    if (!delivery.failing) return status;
    const seconds = Math.round(delivery.failingForMs / 1000);
    const what = `sink delivery failing for ${seconds} s (${delivery.failedAttempts} failed attempts, last: ${delivery.lastError})`;
    if (delivery.failingForMs > this.opts.deliveryStallMs) return { ...status, healthy: false, reason: what, delivery };
    return { ...status, reason: `${status.reason}; ${what}`, delivery };
  }

  private async checkSource(): Promise<HealthStatus> {
    const { phase, snapshot, streaming } = this.source.metrics;
    const now = this.now();
    switch (phase) {
      case 'stopped':
        return { healthy: false, phase, reason: 'capture stopped' };
      case 'starting': {
        const waited = now - this.startedAt;
        return waited > this.opts.startupGraceMs
          ? { healthy: false, phase, reason: `still starting after ${Math.round(waited / 1000)} s` }
          : { healthy: true, phase, reason: 'starting' };
      }
      case 'snapshot': {
        // Any row scanned, table planned or table finished is progress.
        const finished = snapshot.TotalTableCount - snapshot.RemainingTableCount;
        const progress =
          snapshot.totalRowsScanned + snapshot.CapturedTables.length + snapshot.TotalTableCount + finished;
        if (progress !== this.snapshotProgress) {
          this.snapshotProgress = progress;
          this.snapshotProgressAt = now;
        }
        const idle = now - this.snapshotProgressAt;
        return idle > this.opts.snapshotStallMs
          ? { healthy: false, phase, reason: `snapshot made no progress for ${Math.round(idle / 1000)} s` }
          : { healthy: true, phase, reason: 'snapshot running' };
      }
      case 'streaming': {
        const silent = streaming.MilliSecondsSinceLastEvent;
        if (silent <= this.opts.stuckAfterMs) return { healthy: true, phase, reason: 'streaming' };
        const caughtUp = await this.caughtUp(now);
        if (caughtUp instanceof Error)
          return {
            healthy: false,
            phase,
            reason: `no binlog event for ${Math.round(silent / 1000)} s and the server position cannot be read: ${caughtUp.message}`,
          };
        return caughtUp
          ? { healthy: true, phase, reason: 'idle: caught up with the server' }
          : {
              healthy: false,
              phase,
              reason: `no binlog event for ${Math.round(silent / 1000)} s while the server's binlog has moved on`,
            };
      }
    }
  }

  private async caughtUp(now: number): Promise<boolean | Error> {
    const cached = this.caughtUpCheck;
    if (cached && now - cached.at < this.opts.recheckIntervalMs) return cached.result;
    if (!this.source.isCaughtUp) return true;
    this.pending ??= this.source
      .isCaughtUp()
      .then(
        (r) => {
          this.caughtUpCheck = { at: this.now(), result: r };
        },
        (err) => {
          this.caughtUpCheck = { at: this.now(), result: new Error(errorMessage(err)) };
        },
      )
      .finally(() => {
        this.pending = null;
      });
    await this.pending;
    return this.caughtUpCheck!.result;
  }
}
