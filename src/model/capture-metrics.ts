/**
 * The metrics of one capture: its phase and Debezium's three metric groups (snapshot, streaming, schema history),
 * plus our binlog retention gauge. A change source owns one {@link CaptureMetrics} and writes it; everything else
 * (metrics/, the CLI) reads it through {@link CaptureMetricsView}.
 */
import type { SchemaHistoryMetrics, SchemaHistoryMetricsView } from './schema-history-metrics.js';
import { SnapshotMetrics, type SnapshotMetricsView } from './snapshot-metrics.js';
import { StreamingMetrics, type StreamingMetricsView } from './streaming-metrics.js';

export type CapturePhase = 'starting' | 'snapshot' | 'streaming' | 'stopped';

export interface CaptureMetricsView {
  readonly phase: CapturePhase;
  readonly snapshot: SnapshotMetricsView;
  readonly streaming: StreamingMetricsView;
  /** Null for a source that keeps no schema history (Vitess: VStream describes every table itself). */
  readonly schemaHistory: SchemaHistoryMetricsView | null;
  /** Seconds before the binlog file the capture resumes from may be purged (null: unlimited or not measured). */
  readonly RetentionRunwaySeconds: number | null;
}

export interface CaptureMetricsOptions {
  /** The schema history metrics, for a source that keeps a history. @default null */
  schemaHistory?: SchemaHistoryMetrics | null;
  /** @default Date.now */
  now?: () => number;
}

export class CaptureMetrics implements CaptureMetricsView {
  readonly snapshot: SnapshotMetrics;
  readonly streaming: StreamingMetrics;
  readonly schemaHistory: SchemaHistoryMetrics | null;
  private current: CapturePhase = 'starting';
  private runway: () => number | null = () => null;

  constructor(options: CaptureMetricsOptions = {}) {
    const now = options.now ?? Date.now;
    this.snapshot = new SnapshotMetrics(now);
    this.streaming = new StreamingMetrics(now);
    this.schemaHistory = options.schemaHistory ?? null;
  }

  get phase(): CapturePhase {
    return this.current;
  }

  enter(phase: CapturePhase): void {
    this.current = phase;
  }

  /** The runway is measured where the retention is watched; the gauge reads that measurement. */
  retentionRunwayFrom(read: () => number | null): void {
    this.runway = read;
  }

  get RetentionRunwaySeconds(): number | null {
    return this.runway();
  }
}
