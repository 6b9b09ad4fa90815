/**
 * Debezium's snapshot metrics (MBean `context=snapshot`), kept by the snapshot runners: the consistent (initial)
 * snapshot, blocking snapshots, and chunked (incremental) snapshots that run beside the stream. Runners call the
 * write methods; readers (metrics/, the CLI's progress bar) see {@link SnapshotMetricsView}.
 */

/** Rows of one table: scanned so far, information_schema's estimate, and whether its scan finished. */
export interface TableScan {
  readonly rowsScanned: number;
  readonly estimatedRows: number;
  readonly done: boolean;
}

export interface SnapshotMetricsView {
  /** Tables the snapshot reads rows of (consistent + chunked). */
  readonly TotalTableCount: number;
  /** Of those, tables not completely scanned yet. */
  readonly RemainingTableCount: number;
  /** Rows scanned per `db.table` (Debezium's `RowsScanned` map). */
  readonly RowsScanned: Readonly<Record<string, number>>;
  /** The sum of {@link RowsScanned} (what the `RowsScanned` metric publishes). */
  readonly totalRowsScanned: number;
  readonly SnapshotRunning: boolean;
  /** True while a pause-snapshot signal holds the chunked snapshot. */
  readonly SnapshotPaused: boolean;
  /** Seconds the snapshot spent paused, summed over its pauses (the current one included). */
  readonly SnapshotPausedDurationInSeconds: number;
  readonly SnapshotCompleted: boolean;
  readonly SnapshotAborted: boolean;
  /** Seconds from the start to the end of the snapshot (to now while it runs); 0 before any. */
  readonly SnapshotDurationInSeconds: number;
  /** Tables captured by the snapshot (with or without rows), `db.table`. */
  readonly CapturedTables: readonly string[];
  /** Snapshot rows emitted (read events). */
  readonly TotalNumberOfEventsSeen: number;
  /** Always 0: the snapshot reads captured tables only. */
  readonly NumberOfEventsFiltered: number;
  /** `db.table` of the last row scanned (null before any). */
  readonly LastEvent: string | null;
  /** Milliseconds since the last row was scanned (0 before any; to within the time of ~1000 rows). */
  readonly MilliSecondsSinceLastEvent: number;
  /** The chunk last emitted by a chunked snapshot: `db.table` and its sequence number (null: none). */
  readonly ChunkId: string | null;
  /** Exclusive lower and inclusive upper primary key of that chunk (JSON; null: from the start / none). */
  readonly ChunkFrom: string | null;
  readonly ChunkTo: string | null;
  /** Per-table progress (for the progress bar and runway estimates). */
  readonly tables: ReadonlyMap<string, TableScan>;
}

interface MutableTableScan {
  rowsScanned: number;
  estimatedRows: number;
  done: boolean;
}

export class SnapshotMetrics implements SnapshotMetricsView {
  private running = false;
  private completedFlag = false;
  private abortedFlag = false;
  private startedAtMs = 0;
  private endedAtMs = 0;
  private total = 0;
  private done = 0;
  /** Chunked (incremental) snapshot: tables requested and finished, and whether some are still pending. */
  private incremental = { running: false, total: 0, done: 0 };
  private pausedAtMs = 0;
  private pausedMs = 0;
  private rows = 0;
  private lastRowAtMs = 0;
  private readonly perTable = new Map<string, MutableTableScan>();
  private captured: readonly string[] = [];
  private lastTable: string | null = null;
  private chunk: { id: string | null; from: string | null; to: string | null } = { id: null, from: null, to: null };

  constructor(private readonly now: () => number = Date.now) {}

  // --- consistent snapshot -------------------------------------------------------------------------------------

  /** A consistent snapshot starts (its duration is measured from here). */
  started(): void {
    this.running = true;
    this.startedAtMs = this.now();
  }

  /** The snapshot's tables are known: `captured` all of them, `withRows` how many it reads rows of. */
  planned(captured: readonly string[], withRows: number): void {
    this.captured = [...captured];
    this.total = withRows;
  }

  /** Information_schema's row estimate for a table about to be scanned (`alreadyScanned`: a resumed scan). */
  tableEstimated(id: string, estimatedRows: number, alreadyScanned = 0): void {
    const t = this.perTable.get(id);
    if (t) t.estimatedRows = Math.max(estimatedRows, t.rowsScanned);
    else {
      this.perTable.set(id, { rowsScanned: alreadyScanned, estimatedRows, done: false });
      this.rows += alreadyScanned;
    }
  }

  /** `n` more rows of `id` were read. */
  rowsScanned(id: string, n: number): void {
    let t = this.perTable.get(id);
    if (!t) {
      t = { rowsScanned: 0, estimatedRows: 0, done: false };
      this.perTable.set(id, t);
    }
    t.rowsScanned += n;
    this.rows += n;
    // The clock is slow next to counting a row: read it for a new table, a batch (chunk) and every 1024th row.
    if (n > 1 || id !== this.lastTable || (this.rows & 1023) === 0) this.lastRowAtMs = this.now();
    this.lastTable = id;
  }

  /** The consistent snapshot finished reading `id`. */
  tableScanned(id: string): void {
    this.lastRowAtMs = this.now();
    this.done++;
    this.markDone(id);
  }

  /**
   * The consistent snapshot finished. With `chunksFollow` the chunked snapshot continues beside the stream, and
   * the duration runs until it ends.
   */
  completed(chunksFollow = false): void {
    this.completedFlag = true;
    this.running = false;
    if (!chunksFollow) this.endedAtMs = this.now();
  }

  /**
   * The snapshot was interrupted: the consistent one failed, or the capture stopped (or a stop-snapshot signal
   * emptied it) before the chunked one finished.
   */
  aborted(): void {
    this.abortedFlag = true;
    this.running = false;
  }

  // --- blocking snapshot ---------------------------------------------------------------------------------------

  /** A blocking snapshot runs while streaming is paused. */
  blockingStarted(): void {
    this.running = true;
  }

  blockingEnded(): void {
    this.running = false;
  }

  // --- chunked (incremental) snapshot --------------------------------------------------------------------------

  /** Chunked snapshot tables: requested in total, finished, and whether any is still pending. */
  chunkedTables(total: number, done: number, running: boolean): void {
    // A new chunked snapshot (signal) after one was stopped: no longer aborted.
    if (running && !this.incremental.running) this.abortedFlag = false;
    this.incremental = { running, total, done };
  }

  /** Chunked snapshot pending at stream start (planned by the initial snapshot or resumed): its time counts too. */
  chunkedResumed(): void {
    this.completedFlag = true;
    this.endedAtMs = 0;
    if (!this.startedAtMs) this.startedAtMs = this.now();
  }

  /** A chunk of `id` was emitted: `seq` its number, `from`/`to` its key bounds (JSON, null = open). */
  chunkEmitted(id: string, seq: number, from: string | null, to: string | null): void {
    this.chunk = { id: `${id}#${seq}`, from, to };
  }

  /** The chunked snapshot finished reading `id`. */
  chunkedTableScanned(id: string): void {
    this.markDone(id);
  }

  /** pause-snapshot: the chunked snapshot waits before its next chunk. */
  paused(): void {
    if (!this.pausedAtMs) this.pausedAtMs = this.now();
  }

  /** resume-snapshot (or a stop that leaves nothing to read): the pause ends. */
  unpaused(): void {
    if (!this.pausedAtMs) return;
    this.pausedMs += this.now() - this.pausedAtMs;
    this.pausedAtMs = 0;
  }

  /** The chunked snapshot made progress: once no table is pending, the snapshot's duration ends here. */
  chunkedActivity(): void {
    if (!this.incremental.running && !this.endedAtMs) this.endedAtMs = this.now();
  }

  // --- views ---------------------------------------------------------------------------------------------------

  get TotalTableCount(): number {
    return this.total + this.incremental.total;
  }

  get RemainingTableCount(): number {
    return Math.max(0, this.total - this.done) + (this.incremental.total - this.incremental.done);
  }

  get RowsScanned(): Readonly<Record<string, number>> {
    return Object.fromEntries([...this.perTable].map(([id, t]) => [id, t.rowsScanned]));
  }

  get totalRowsScanned(): number {
    return this.rows;
  }

  get SnapshotRunning(): boolean {
    return this.running || this.incremental.running;
  }

  get SnapshotPaused(): boolean {
    return this.pausedAtMs > 0;
  }

  get SnapshotPausedDurationInSeconds(): number {
    return (this.pausedMs + (this.pausedAtMs ? this.now() - this.pausedAtMs : 0)) / 1000;
  }

  get SnapshotCompleted(): boolean {
    return this.completedFlag && !this.abortedFlag && !this.incremental.running;
  }

  get SnapshotAborted(): boolean {
    return this.abortedFlag;
  }

  get SnapshotDurationInSeconds(): number {
    return this.startedAtMs ? ((this.endedAtMs || this.now()) - this.startedAtMs) / 1000 : 0;
  }

  get CapturedTables(): readonly string[] {
    return this.captured;
  }

  get TotalNumberOfEventsSeen(): number {
    return this.rows;
  }

  get NumberOfEventsFiltered(): number {
    return 0;
  }

  get LastEvent(): string | null {
    return this.lastTable;
  }

  get MilliSecondsSinceLastEvent(): number {
    return this.lastRowAtMs ? Math.max(0, this.now() - this.lastRowAtMs) : 0;
  }

  get ChunkId(): string | null {
    return this.chunk.id;
  }

  get ChunkFrom(): string | null {
    return this.chunk.from;
  }

  get ChunkTo(): string | null {
    return this.chunk.to;
  }

  get tables(): ReadonlyMap<string, TableScan> {
    return this.perTable;
  }

  private markDone(id: string): void {
    const t = this.perTable.get(id);
    if (t) {
      t.done = true;
      t.estimatedRows = t.rowsScanned;
    }
  }
}
