/**
 * The terminal's snapshot progress bar: one line on stderr, redrawn from the snapshot metrics (rows scanned per
 * table against information_schema's estimates) at most every `intervalMs` while a snapshot runs, ended with a
 * newline once it stops. The capture itself never draws; this only reads its metrics.
 */
import type { SnapshotMetricsView } from '../model/snapshot-metrics.js';

export interface SnapshotProgressBarOptions {
  snapshot: SnapshotMetricsView;
  /** Where to draw (a terminal). */
  tty: NodeJS.WritableStream;
  /** @default 200 */
  intervalMs?: number;
  /** Bar width in characters. @default 30 */
  width?: number;
}

/** The bar's text for the current state of `snapshot`. */
export function progressLine(snapshot: SnapshotMetricsView, width = 30): string {
  let scanned = 0;
  let estimated = 0;
  let done = 0;
  for (const t of snapshot.tables.values()) {
    scanned += t.rowsScanned;
    estimated += Math.max(t.estimatedRows, t.rowsScanned);
    if (t.done) done++;
  }
  const frac = estimated > 0 ? Math.min(1, scanned / estimated) : 0;
  const filled = Math.round(frac * width);
  const secs = snapshot.SnapshotDurationInSeconds;
  const rate = secs > 0 ? Math.round(scanned / secs) : 0;
  return `snapshot [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(frac * 100).toFixed(0).padStart(3)}% ${scanned}/~${estimated} rows, ${done}/${snapshot.tables.size} tables, ${rate} rows/s`;
}

export class SnapshotProgressBar {
  private readonly timer: NodeJS.Timeout;
  private drawn = false;

  constructor(private readonly options: SnapshotProgressBarOptions) {
    this.timer = setInterval(() => this.tick(), options.intervalMs ?? 200);
    this.timer.unref();
  }

  /** Draws or ends the line as the snapshot's state asks (the timer calls it; exposed for tests). */
  tick(): void {
    const { snapshot, tty } = this.options;
    if (snapshot.SnapshotRunning && snapshot.tables.size > 0) {
      tty.write(`\r\x1b[K${progressLine(snapshot, this.options.width)}`);
      this.drawn = true;
    } else if (this.drawn) this.end();
  }

  /** Stops redrawing; a drawn line gets its final state and a newline. */
  stop(): void {
    clearInterval(this.timer);
    if (this.drawn) this.end();
  }

  private end(): void {
    this.options.tty.write(`\r\x1b[K${progressLine(this.options.snapshot, this.options.width)}\n`);
    this.drawn = false;
  }
}

/** A bar on `stream` when it is a terminal; null otherwise (logs and pipes get no control sequences). */
export function progressBarFor(
  snapshot: SnapshotMetricsView,
  stream: NodeJS.WritableStream,
): SnapshotProgressBar | null {
  return (stream as { isTTY?: boolean }).isTTY ? new SnapshotProgressBar({ snapshot, tty: stream }) : null;
}
