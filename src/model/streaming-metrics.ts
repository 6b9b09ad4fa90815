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
  readonly TotalNumberOfEventsSeen: number;
  /** Events dropped by the table/op filters. */
  readonly NumberOfEventsFiltered: number;
  /** Undecodable events skipped (event.deserialization.failure.handling.mode=warn|skip). */
  readonly NumberOfSkippedEvents: number;
  readonly NumberOfCommittedTransactions: number;
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
  Connected = false;
  TotalNumberOfEventsSeen = 0;
  NumberOfEventsFiltered = 0;
  NumberOfSkippedEvents = 0;
  NumberOfCommittedTransactions = 0;
  NumberOfDisconnects = 0;
  BinlogFilename = '';
  BinlogPosition = 0;
  GtidSet: string | null = null;
  IsGtidModeEnabled = false;
  lastEventTimestampMs = 0;
  private lastActivityAtMs: number;

  constructor(private readonly now: () => number = Date.now) {
    this.lastActivityAtMs = now();
  }

  /** An event was read; `sourceTsMs` its source timestamp (0 or absent: the event carries none). */
  eventRead(sourceTsMs = 0): void {
    this.lastActivityAtMs = this.now();
    if (sourceTsMs > 0) this.lastEventTimestampMs = sourceTsMs;
  }

  /** Progress other than a binlog event (chunk rows, a blocking snapshot ending): the capture is not silent. */
  activity(): void {
    this.lastActivityAtMs = this.now();
  }

  /** Absolute counters, from a stream runner that keeps its own. */
  counted(c: { seen: number; filtered: number; committed: number; skipped?: number }): void {
    this.TotalNumberOfEventsSeen = c.seen;
    this.NumberOfEventsFiltered = c.filtered;
    this.NumberOfCommittedTransactions = c.committed;
    if (c.skipped !== undefined) this.NumberOfSkippedEvents = c.skipped;
  }

  eventSeen(): void {
    this.TotalNumberOfEventsSeen++;
  }

  eventFiltered(): void {
    this.NumberOfEventsFiltered++;
  }

  transactionCommitted(): void {
    this.NumberOfCommittedTransactions++;
  }

  /** Connection state; `disconnects` when the connection keeps its own count. */
  connection(connected: boolean, disconnects?: number): void {
    this.Connected = connected;
    if (disconnects !== undefined) this.NumberOfDisconnects = disconnects;
  }

  /** The stream was lost and is being reopened. */
  disconnected(): void {
    this.NumberOfDisconnects++;
  }

  /** Where the stream is; `gtids` undefined keeps the previous GTID set. */
  position(file: string, pos: number, gtids?: string | null): void {
    this.BinlogFilename = file;
    this.BinlogPosition = pos;
    if (gtids !== undefined) this.GtidSet = gtids;
  }

  gtidMode(enabled: boolean): void {
    this.IsGtidModeEnabled = enabled;
  }

  get MilliSecondsBehindSource(): number {
    return this.lastEventTimestampMs > 0 ? Math.max(0, this.lastActivityAtMs - this.lastEventTimestampMs) : 0;
  }

  get MilliSecondsSinceLastEvent(): number {
    return Math.max(0, this.now() - this.lastActivityAtMs);
  }

  get SourceEventPosition(): SourceEventPosition {
    return { file: this.BinlogFilename, pos: this.BinlogPosition, gtids: this.GtidSet };
  }
}
