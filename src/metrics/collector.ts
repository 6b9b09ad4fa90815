/**
 * Samples the live counters of a capture (source stats + change queue) into one set of metric values. Pure
 * apart from the clock, so the EMF emitter, the Prometheus endpoint and the health check read the same numbers.
 */
import { type DeliveryStatus, HEALTHY_DELIVERY } from '../sinks/delivery-status.js';
import {
  DeliveryMetric,
  EmfProperty,
  type MetricName,
  RetentionMetric,
  SchemaHistoryMetric,
  SnapshotMetric,
  StreamingMetric,
} from './names.js';

/** What the collector reads from a change source (structurally `MySqlSource`). */
export interface MetricsSourceStats {
  phase: 'starting' | 'snapshot' | 'streaming' | 'stopped';
  snapshotRows: number;
  snapshotTables: number;
  eventsSeen: number;
  eventsFiltered: number;
  committedTransactions: number;
  /** Source timestamp (ms) of the last binlog event; 0 = none yet. */
  lastEventTsMs: number;
  binlogFile: string;
  binlogPosition: number;
  connected: boolean;
  disconnects: number;
  /** Tables whose snapshot scan has finished (optional: RemainingTableCount falls back to the phase). */
  snapshotTablesCompleted?: number;
  /** Wall-clock start/end of the snapshot (optional: otherwise observed from phase changes). */
  snapshotStartedAtMs?: number;
  snapshotCompletedAtMs?: number;
  /** GTID set of the last committed position, when the server uses GTIDs. */
  gtids?: string | null;
  /**
   * Debezium-named snapshot views, when the source keeps them (MySqlSource does, including chunked snapshots that
   * run while streaming); they take precedence over what is derived from the fields above.
   */
  readonly TotalTableCount?: number;
  readonly RemainingTableCount?: number;
  readonly RowsScanned?: number;
  readonly SnapshotRunning?: boolean;
  readonly SnapshotCompleted?: boolean;
  readonly SnapshotDurationInSeconds?: number;
  /** Binlog retention runway (seconds; null = unlimited or not measured yet), when the source measures it. */
  readonly RetentionRunwaySeconds?: number | null;
  /** Schema history progress, when the history store exposes it. */
  schemaHistoryChangesApplied?: number;
  schemaHistoryStatus?: string;
}

export interface MetricsSource {
  readonly stats: MetricsSourceStats;
  msSinceLastEvent?(): number;
  isCaughtUp?(): Promise<boolean>;
}

/** What the collector reads from the capture task (structurally `CaptureTask`). */
export interface MetricsTask {
  readonly queue: { readonly remainingCapacity: number; readonly sizeInBytes: number; readonly length: number };
  /** Sink outage state (structurally `CaptureTask.deliveryStatus`). */
  deliveryStatus?(): DeliveryStatus;
}

export interface MetricSample {
  readonly timestampMs: number;
  readonly values: Partial<Record<MetricName, number>>;
  /** EMF properties: strings or numbers that are not metrics. */
  readonly properties: Record<string, string | number>;
}

export class MetricsCollector {
  private observedSnapshotStart = 0;
  private observedSnapshotEnd = 0;
  private lastPhase: MetricsSourceStats['phase'] = 'starting';

  constructor(
    private readonly source: MetricsSource,
    private readonly task: MetricsTask,
    private readonly now: () => number = Date.now,
  ) {}

  sample(): MetricSample {
    const now = this.now();
    const st = this.source.stats;
    this.observePhase(st.phase, now);
    const snapStart = st.snapshotStartedAtMs || this.observedSnapshotStart;
    const snapEnd = st.snapshotCompletedAtMs || this.observedSnapshotEnd;
    const running = st.phase === 'snapshot' && !snapEnd;
    const completed = snapEnd > 0;
    const total = st.snapshotTables;
    const remaining = completed
      ? 0
      : st.snapshotTablesCompleted !== undefined
        ? Math.max(0, total - st.snapshotTablesCompleted)
        : total;
    const duration = snapStart ? Math.max(0, ((snapEnd || now) - snapStart) / 1000) : 0;

    const sinceLast = this.source.msSinceLastEvent?.() ?? 0;
    // Debezium's definition: processing time of the last event minus its source timestamp. It does not grow
    // while the database is idle (MilliSecondsSinceLastEvent does).
    const behind = st.lastEventTsMs > 0 ? Math.max(0, now - sinceLast - st.lastEventTsMs) : 0;

    const delivery = this.task.deliveryStatus?.() ?? HEALTHY_DELIVERY;
    const values: Partial<Record<MetricName, number>> = {
      [SnapshotMetric.TotalTableCount]: st.TotalTableCount ?? total,
      [SnapshotMetric.RemainingTableCount]: st.RemainingTableCount ?? remaining,
      [SnapshotMetric.RowsScanned]: st.RowsScanned ?? st.snapshotRows,
      [SnapshotMetric.SnapshotRunning]: (st.SnapshotRunning ?? running) ? 1 : 0,
      [SnapshotMetric.SnapshotCompleted]: (st.SnapshotCompleted ?? completed) ? 1 : 0,
      [SnapshotMetric.SnapshotDurationInSeconds]: Math.round((st.SnapshotDurationInSeconds ?? duration) * 1000) / 1000,
      [StreamingMetric.MilliSecondsBehindSource]: behind,
      [StreamingMetric.MilliSecondsSinceLastEvent]: Math.max(0, sinceLast),
      [StreamingMetric.TotalNumberOfEventsSeen]: st.eventsSeen,
      [StreamingMetric.NumberOfEventsFiltered]: st.eventsFiltered,
      [StreamingMetric.NumberOfCommittedTransactions]: st.committedTransactions,
      [StreamingMetric.Connected]: st.connected ? 1 : 0,
      [StreamingMetric.QueueRemainingCapacity]: this.task.queue.remainingCapacity,
      [StreamingMetric.CurrentQueueSizeInBytes]: this.task.queue.sizeInBytes,
      [StreamingMetric.NumberOfDisconnects]: st.disconnects,
      [DeliveryMetric.SinkDeliveryFailing]: delivery.failing ? 1 : 0,
      [DeliveryMetric.SinkFailedAttempts]: delivery.failedAttempts,
      [DeliveryMetric.OldestUnacknowledgedAgeMs]: delivery.oldestUnacknowledgedAgeMs,
    };
    if (st.schemaHistoryChangesApplied !== undefined)
      values[SchemaHistoryMetric.ChangesApplied] = st.schemaHistoryChangesApplied;
    const runway = st.RetentionRunwaySeconds;
    if (typeof runway === 'number') values[RetentionMetric.RetentionRunwaySeconds] = runway;

    const properties: Record<string, string | number> = { [EmfProperty.Phase]: st.phase };
    if (st.binlogFile) {
      properties[EmfProperty.BinlogFile] = st.binlogFile;
      properties[EmfProperty.BinlogPosition] = st.binlogPosition;
    }
    if (st.gtids) properties[EmfProperty.Gtids] = st.gtids;
    if (st.schemaHistoryStatus) properties[EmfProperty.SchemaHistoryStatus] = st.schemaHistoryStatus;
    return { timestampMs: now, values, properties };
  }

  private observePhase(phase: MetricsSourceStats['phase'], now: number): void {
    if (phase === this.lastPhase) return;
    if (phase === 'snapshot' && !this.observedSnapshotStart) this.observedSnapshotStart = now;
    if (this.lastPhase === 'snapshot' && !this.observedSnapshotEnd) this.observedSnapshotEnd = now;
    this.lastPhase = phase;
  }
}
