/**
 * The running capture's view of its retention runway: measures it periodically for the file of the position the
 * capture would resume from (stored offset, snapshot start, committed stream position) and warns before, and
 * during, a snapshot expected to outlast it. Measuring never fails the capture: errors are logged once.
 */
import type { Connection as PromiseConnection } from 'mysql2/promise';
import { errorMessage } from '../../../common/errors.js';
import type { Logger } from '../../../common/logger.js';
import { snapshotRunwayWarning } from './runway.js';
import { type RunwayMeasurement, RunwayMonitor } from './runway-monitor.js';

/** Snapshot rate assumed before one is measured (rows/s): deliberately modest, it only decides a warning. */
export const ASSUMED_SNAPSHOT_ROWS_PER_SECOND = 5000;

export interface CaptureRunwayOptions {
  connect(): Promise<PromiseConnection>;
  logger: Logger;
  /** @default 60000 */
  intervalMs?: number;
  /** Replaces the monitor (tests). */
  monitor?: RunwayMonitor;
}

export class CaptureRunway {
  private readonly monitor: RunwayMonitor;
  private timer: NodeJS.Timeout | null = null;
  private neededFile: () => string | null = () => null;
  private measuring: Promise<RunwayMeasurement | null> | null = null;
  private failedOnce = false;
  private warnedDuringSnapshot = false;

  constructor(private readonly options: CaptureRunwayOptions) {
    this.monitor = options.monitor ?? new RunwayMonitor({ connect: options.connect, logger: options.logger });
  }

  /** Seconds left for the needed file (null: unlimited, or not measured yet). */
  get seconds(): number | null {
    return this.monitor.last?.seconds ?? null;
  }

  get last(): RunwayMeasurement | null {
    return this.monitor.last;
  }

  /** Starts periodic measurement of `neededFile()`'s runway. */
  start(neededFile: () => string | null): void {
    this.neededFile = neededFile;
    if (this.timer) return;
    this.timer = setInterval(() => void this.measure(), this.options.intervalMs ?? 60_000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Measures now (one at a time); null when there is no needed file yet or the server cannot be asked. */
  measure(): Promise<RunwayMeasurement | null> {
    const file = this.neededFile();
    if (!file) return Promise.resolve(null);
    this.measuring ??= this.monitor
      .measure(file)
      .catch((err: unknown) => {
        if (!this.failedOnce)
          this.options.logger.warn('cannot measure the binlog retention runway', { error: errorMessage(err) });
        this.failedOnce = true;
        return null;
      })
      .finally(() => {
        this.measuring = null;
      });
    return this.measuring;
  }

  /** Before a snapshot of ~`estimatedRows` rows starting at `file`: warns when it is expected to outlast the runway. */
  async beforeSnapshot(file: string, estimatedRows: number): Promise<void> {
    const previous = this.neededFile;
    this.neededFile = () => file;
    const m = await this.measure();
    this.neededFile = previous;
    if (!m) return;
    const w = snapshotRunwayWarning(estimatedRows, ASSUMED_SNAPSHOT_ROWS_PER_SECOND, m.seconds);
    if (w)
      this.options.logger.warn(w.message, {
        estimatedRows,
        rowsPerSecond: ASSUMED_SNAPSHOT_ROWS_PER_SECOND,
        rate: 'assumed',
        expectedSeconds: w.expectedSeconds,
        runwaySeconds: m.seconds,
        retention: m.setting.setting,
        file,
      });
  }

  /**
   * During a snapshot, with the rate measured so far: warns once when the remaining rows are expected to take longer
   * than the runway left (of the last measurement).
   */
  duringSnapshot(rowsScanned: number, elapsedMs: number, estimatedRemainingRows: number): void {
    if (this.warnedDuringSnapshot || elapsedMs < 10_000 || rowsScanned === 0) return;
    const m = this.monitor.last;
    if (!m || m.seconds === null) return;
    const rate = rowsScanned / (elapsedMs / 1000);
    const left = m.seconds - (Date.now() - m.measuredAtMs) / 1000;
    const w = snapshotRunwayWarning(estimatedRemainingRows, rate, left);
    if (!w) return;
    this.warnedDuringSnapshot = true;
    this.options.logger.warn(w.message, {
      estimatedRows: estimatedRemainingRows,
      rowsPerSecond: Math.round(rate),
      rate: 'measured',
      expectedSeconds: w.expectedSeconds,
      runwaySeconds: Math.round(left),
      retention: m.setting.setting,
      file: m.neededFile,
    });
  }
}
