/**
 * Debezium's streaming metrics (MBean `context=streaming`, with the MySQL connector's binlog additions), kept by
 * the stream runner. Readers see {@link StreamingMetricsView}.
 */

/** Where the stream is: the binlog coordinates after the last event handled, and the GTID set of the resume point. */
export interface SourceEventPosition {
  readonly file: string;
  readonly pos: number;
  readonly gtids: string | null;
}

export interface StreamingMetricsView {
  /** True while the replication connection is up. */
  readonly Connected: boolean;
  /**
   * Processing time of the last event minus its source timestamp (0 before any): Debezium's definition, which does
   * not grow while the database is idle (MilliSecondsSinceLastEvent does).
   */
  readonly MilliSecondsBehindSource: number;
  /** Milliseconds since the capture last made progress: a binlog event read, or snapshot chunk rows emitted. */
  readonly MilliSecondsSinceLastEvent: number;
  /** Type of the last event read (`WRITE_ROWS`, `XID`, `ROW`, ...; null before any). */
  readonly LastEvent: string | null;
  readonly TotalNumberOfEventsSeen: number;
  /** Events dropped by the table/op filters. */
  readonly NumberOfEventsFiltered: number;
  /** Undecodable events skipped (event.deserialization.failure.handling.mode=warn|skip). */
  readonly NumberOfSkippedEvents: number;
  readonly NumberOfCommittedTransactions: number;
  /** GTID of the last committed transaction (null: none yet, or the server logs no GTIDs). */
  readonly LastTransactionId: string | null;
  readonly NumberOfDisconnects: number;
  readonly BinlogFilename: string;
  readonly BinlogPosition: number;
  /** GTID set of the last resume position (null when the server logs none). */
  readonly GtidSet: string | null;
  readonly IsGtidModeEnabled: boolean;
  readonly SourceEventPosition: SourceEventPosition;
  /** Source timestamp (ms) of the last event read; 0 = none yet. */
  readonly lastEventTimestampMs: number;
}

export class StreamingMetrics implements StreamingMetricsView {
  private connected = false;
  private seen = 0;
  private filtered = 0;
  private skipped = 0;
  private committed = 0;
  private lastTransaction: string | null = null;
  private disconnects = 0;
  private file = '';
  private pos = 0;
  private gtids: string | null = null;
  private gtidModeEnabled = false;
  private lastType: string | null = null;
  private lastEventTsMs = 0;
  private lastActivityAtMs: number;

  constructor(private readonly now: () => number = Date.now) {
    this.lastActivityAtMs = now();
  }

  /** An event was read: `sourceTsMs` its source timestamp (0: it carries none), `type` what it is. */
  eventRead(sourceTsMs = 0, type?: string): void {
    this.lastActivityAtMs = this.now();
    if (sourceTsMs > 0) this.lastEventTsMs = sourceTsMs;
    if (type !== undefined) this.lastType = type;
  }

  /** Progress other than a binlog event (chunk rows, a blocking snapshot ending): the capture is not silent. */
  activity(): void {
    this.lastActivityAtMs = this.now();
  }

  /** Absolute counters, from a stream runner that keeps its own (positional: called for every event). */
  counted(seen: number, filtered: number, committed: number, skipped: number): void {
    this.seen = seen;
    this.filtered = filtered;
    this.committed = committed;
    this.skipped = skipped;
  }

  eventSeen(): void {
    this.seen++;
  }

  eventFiltered(): void {
    this.filtered++;
  }

  transactionCommitted(): void {
    this.committed++;
  }

  /** The id (GTID) of the last committed transaction. */
  lastTransactionId(id: string | null): void {
    this.lastTransaction = id;
  }

  /** Connection state; `disconnects` when the connection keeps its own count. */
  connection(connected: boolean, disconnects?: number): void {
    this.connected = connected;
    if (disconnects !== undefined) this.disconnects = disconnects;
  }

  /** The stream was lost and is being reopened. */
  disconnected(): void {
    this.disconnects++;
  }

  /** Where the stream is; `gtids` undefined keeps the previous GTID set. */
  position(file: string, pos: number, gtids?: string | null): void {
    this.file = file;
    this.pos = pos;
    if (gtids !== undefined) this.gtids = gtids;
  }

  gtidMode(enabled: boolean): void {
    this.gtidModeEnabled = enabled;
  }

  get Connected(): boolean {
    return this.connected;
  }

  get MilliSecondsBehindSource(): number {
    return this.lastEventTsMs > 0 ? Math.max(0, this.lastActivityAtMs - this.lastEventTsMs) : 0;
  }

  get MilliSecondsSinceLastEvent(): number {
    return Math.max(0, this.now() - this.lastActivityAtMs);
  }

  get LastEvent(): string | null {
    return this.lastType;
  }

  get TotalNumberOfEventsSeen(): number {
    return this.seen;
  }

  get NumberOfEventsFiltered(): number {
    return this.filtered;
  }

  get NumberOfSkippedEvents(): number {
    return this.skipped;
  }

  get NumberOfCommittedTransactions(): number {
    return this.committed;
  }

  get LastTransactionId(): string | null {
    return this.lastTransaction;
  }

  get NumberOfDisconnects(): number {
    return this.disconnects;
  }

  get BinlogFilename(): string {
    return this.file;
  }

  get BinlogPosition(): number {
    return this.pos;
  }

  get GtidSet(): string | null {
    return this.gtids;
  }

  get IsGtidModeEnabled(): boolean {
    return this.gtidModeEnabled;
  }

  get SourceEventPosition(): SourceEventPosition {
    return { file: this.file, pos: this.pos, gtids: this.gtids };
  }

  get lastEventTimestampMs(): number {
    return this.lastEventTsMs;
  }
}
