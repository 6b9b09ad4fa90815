/**
 * Snapshot progress: rows scanned per table against information_schema's estimate, mirrored into counters (for
 * MySqlSource.stats) and, on a terminal, drawn as a one-line progress bar on stderr (redrawn at most 5 times/s).
 */
export interface TableProgress {
  rowsScanned: number;
  estimatedRows: number;
  done: boolean;
}

export class SnapshotProgress {
  readonly tables = new Map<string, TableProgress>();
  private lastDraw = 0;
  private drawn = false;
  private readonly started = performance.now();

  /** `tty`: where to draw the bar (null = counters only). */
  constructor(private readonly tty: NodeJS.WritableStream | null) {}

  static forStderr(): SnapshotProgress {
    return new SnapshotProgress(process.stderr.isTTY ? process.stderr : null);
  }

  table(id: string, estimatedRows: number, alreadyScanned = 0): void {
    const t = this.tables.get(id);
    if (t) t.estimatedRows = Math.max(estimatedRows, t.rowsScanned);
    else this.tables.set(id, { rowsScanned: alreadyScanned, estimatedRows, done: false });
    this.draw();
  }

  rows(id: string, n: number): void {
    const t = this.tables.get(id) ?? { rowsScanned: 0, estimatedRows: 0, done: false };
    t.rowsScanned += n;
    this.tables.set(id, t);
    this.draw();
  }

  tableDone(id: string): void {
    const t = this.tables.get(id);
    if (t) {
      t.done = true;
      t.estimatedRows = t.rowsScanned;
    }
    this.draw(true);
  }

  get rowsScanned(): number {
    let n = 0;
    for (const t of this.tables.values()) n += t.rowsScanned;
    return n;
  }

  /** Plain-object view for stats. */
  snapshot(): Record<string, TableProgress> {
    return Object.fromEntries([...this.tables].map(([k, v]) => [k, { ...v }]));
  }

  finish(): void {
    this.draw(true);
    if (this.tty && this.drawn) this.tty.write('\n');
    this.drawn = false;
  }

  /** The bar's text (exported for tests). */
  line(width = 30): string {
    let scanned = 0;
    let estimated = 0;
    let done = 0;
    for (const t of this.tables.values()) {
      scanned += t.rowsScanned;
      estimated += Math.max(t.estimatedRows, t.rowsScanned);
      if (t.done) done++;
    }
    const frac = estimated > 0 ? Math.min(1, scanned / estimated) : 0;
    const filled = Math.round(frac * width);
    const secs = (performance.now() - this.started) / 1000;
    const rate = secs > 0 ? Math.round(scanned / secs) : 0;
    return `snapshot [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(frac * 100).toFixed(0).padStart(3)}% ${scanned}/~${estimated} rows, ${done}/${this.tables.size} tables, ${rate} rows/s`;
  }

  private draw(force = false): void {
    if (!this.tty) return;
    const now = performance.now();
    if (!force && now - this.lastDraw < 200) return;
    this.lastDraw = now;
    this.tty.write(`\r\x1b[K${this.line()}`);
    this.drawn = true;
  }
}
