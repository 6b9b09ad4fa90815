/**
 * Samples a capture's metric objects (written by the source, see model/capture-metrics.ts) and its change queue
 * into one set of metric values, so the EMF emitter and the Prometheus endpoint publish the same numbers.
 */
import type { CaptureMetricsView } from '../model/capture-metrics.js';
import { type DeliveryStatus, HEALTHY_DELIVERY } from '../sinks/delivery-status.js';
import {
  DeliveryMetric,
  EmfProperty,
  type MetricName,
  QueueMetric,
  RetentionMetric,
  SchemaHistoryMetric,
  SnapshotMetric,
  StreamingMetric,
} from './names.js';

/** What the collector and the health check read from a change source (structurally `ChangeSource`). */
export interface MetricsSource {
  readonly metrics: CaptureMetricsView;
  isCaughtUp?(): Promise<boolean>;
}

/** What the collector reads from the capture task (structurally `CaptureTask`). */
export interface MetricsTask {
  readonly queue: {
    readonly remainingCapacity: number;
    readonly sizeInBytes: number;
    readonly length: number;
    readonly peakLength: number;
    readonly peakSizeInBytes: number;
  };
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
  constructor(
    private readonly source: MetricsSource,
    private readonly task: MetricsTask,
    private readonly now: () => number = Date.now,
  ) {}

  sample(): MetricSample {
    const now = this.now();
    const { phase, snapshot: snap, streaming: st, schemaHistory: history } = this.source.metrics;
    const delivery = this.task.deliveryStatus?.() ?? HEALTHY_DELIVERY;
    const values: Partial<Record<MetricName, number>> = {
      [SnapshotMetric.TotalTableCount]: snap.TotalTableCount,
      [SnapshotMetric.RemainingTableCount]: snap.RemainingTableCount,
      [SnapshotMetric.RowsScanned]: snap.totalRowsScanned,
      [SnapshotMetric.SnapshotRunning]: snap.SnapshotRunning ? 1 : 0,
      [SnapshotMetric.SnapshotCompleted]: snap.SnapshotCompleted ? 1 : 0,
      [SnapshotMetric.SnapshotDurationInSeconds]: Math.round(snap.SnapshotDurationInSeconds * 1000) / 1000,
      [StreamingMetric.MilliSecondsBehindSource]: st.MilliSecondsBehindSource,
      [StreamingMetric.MilliSecondsSinceLastEvent]: st.MilliSecondsSinceLastEvent,
      [StreamingMetric.TotalNumberOfEventsSeen]: st.TotalNumberOfEventsSeen,
      [StreamingMetric.NumberOfEventsFiltered]: st.NumberOfEventsFiltered,
      [StreamingMetric.NumberOfCommittedTransactions]: st.NumberOfCommittedTransactions,
      [StreamingMetric.Connected]: st.Connected ? 1 : 0,
      [StreamingMetric.QueueRemainingCapacity]: this.task.queue.remainingCapacity,
      [StreamingMetric.CurrentQueueSizeInBytes]: this.task.queue.sizeInBytes,
      [StreamingMetric.NumberOfDisconnects]: st.NumberOfDisconnects,
      [QueueMetric.QueuePeakSize]: this.task.queue.peakLength,
      [QueueMetric.QueuePeakSizeInBytes]: this.task.queue.peakSizeInBytes,
      [DeliveryMetric.SinkDeliveryFailing]: delivery.failing ? 1 : 0,
      [DeliveryMetric.SinkFailedAttempts]: delivery.failedAttempts,
      [DeliveryMetric.OldestUnacknowledgedAgeMs]: delivery.oldestUnacknowledgedAgeMs,
    };
    if (history) values[SchemaHistoryMetric.ChangesApplied] = history.ChangesApplied;
    const runway = this.source.metrics.RetentionRunwaySeconds;
    if (typeof runway === 'number') values[RetentionMetric.RetentionRunwaySeconds] = runway;

    const properties: Record<string, string | number> = { [EmfProperty.Phase]: phase };
    if (st.BinlogFilename) {
      properties[EmfProperty.BinlogFile] = st.BinlogFilename;
      properties[EmfProperty.BinlogPosition] = st.BinlogPosition;
    }
    if (st.GtidSet) properties[EmfProperty.Gtids] = st.GtidSet;
    if (history) properties[EmfProperty.SchemaHistoryStatus] = history.Status;
    return { timestampMs: now, values, properties };
  }
}
