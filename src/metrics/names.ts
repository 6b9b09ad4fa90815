/**
 * The one definition of the capture task's metrics: namespace, dimensions, names (Debezium's MBean attribute
 * names), units and kinds. The EMF emitter, the Prometheus endpoint, the CDK alarms and the dashboard all import
 * these constants, so renaming a metric here breaks every consumer at compile time instead of silently leaving
 * an alarm on a metric nobody publishes.
 */

/** CloudWatch namespace of the capture task's metrics. */
export const METRICS_NAMESPACE = 'ServerlessCDC';

/** Dimension carrying the connector `name` (one pipeline = one connector). */
export const CONNECTOR_DIMENSION = 'Connector';

/** The dimension set every metric is published under (EMF `Dimensions: [[...]]`). */
export const METRIC_DIMENSIONS: readonly string[] = [CONNECTOR_DIMENSION];

/** CloudWatch units used here (a subset of the EMF/CloudWatch unit names). */
export type MetricUnit = 'Count' | 'Milliseconds' | 'Seconds' | 'Bytes' | 'None';

/** `counter` only ever grows during one process; `gauge` goes up and down (Prometheus TYPE). */
export type MetricKind = 'counter' | 'gauge';

export interface MetricDefinition {
  readonly unit: MetricUnit;
  readonly kind: MetricKind;
  readonly help: string;
}

/** Snapshot metrics (Debezium `context=snapshot`). Booleans are 0/1. */
export const SnapshotMetric = {
  TotalTableCount: 'TotalTableCount',
  RemainingTableCount: 'RemainingTableCount',
  RowsScanned: 'RowsScanned',
  SnapshotRunning: 'SnapshotRunning',
  SnapshotCompleted: 'SnapshotCompleted',
  SnapshotDurationInSeconds: 'SnapshotDurationInSeconds',
} as const;

/** Streaming metrics (Debezium `context=streaming`). Booleans are 0/1. */
export const StreamingMetric = {
  MilliSecondsBehindSource: 'MilliSecondsBehindSource',
  MilliSecondsSinceLastEvent: 'MilliSecondsSinceLastEvent',
  TotalNumberOfEventsSeen: 'TotalNumberOfEventsSeen',
  NumberOfEventsFiltered: 'NumberOfEventsFiltered',
  NumberOfCommittedTransactions: 'NumberOfCommittedTransactions',
  Connected: 'Connected',
  QueueRemainingCapacity: 'QueueRemainingCapacity',
  CurrentQueueSizeInBytes: 'CurrentQueueSizeInBytes',
  NumberOfDisconnects: 'NumberOfDisconnects',
} as const;

/**
 * Change-queue high-water marks since the task started (ours, no Debezium equivalent): the most items and bytes
 * held at once. The gauges above are read once per sample and miss a burst that filled and drained in between.
 */
export const QueueMetric = {
  QueuePeakSize: 'QueuePeakSize',
  QueuePeakSizeInBytes: 'QueuePeakSizeInBytes',
} as const;

/** Delivery metrics (ours, no Debezium equivalent): a sink outage is visible while the sink retries. */
export const DeliveryMetric = {
  SinkDeliveryFailing: 'SinkDeliveryFailing',
  SinkFailedAttempts: 'SinkFailedAttempts',
  OldestUnacknowledgedAgeMs: 'OldestUnacknowledgedAgeMs',
} as const;

/** Schema history metrics (Debezium `context=schema-history`), published when the source exposes them. */
export const SchemaHistoryMetric = {
  ChangesApplied: 'SchemaHistoryChangesApplied',
} as const;

/**
 * Binlog retention (ours, no Debezium equivalent): seconds before the binlog file the capture resumes from may be
 * purged by the server's retention. Published once measured and while the retention is finite.
 */
export const RetentionMetric = {
  RetentionRunwaySeconds: 'RetentionRunwaySeconds',
} as const;

export type SnapshotMetricName = (typeof SnapshotMetric)[keyof typeof SnapshotMetric];
export type StreamingMetricName = (typeof StreamingMetric)[keyof typeof StreamingMetric];
export type QueueMetricName = (typeof QueueMetric)[keyof typeof QueueMetric];
export type SchemaHistoryMetricName = (typeof SchemaHistoryMetric)[keyof typeof SchemaHistoryMetric];
export type DeliveryMetricName = (typeof DeliveryMetric)[keyof typeof DeliveryMetric];
export type RetentionMetricName = (typeof RetentionMetric)[keyof typeof RetentionMetric];
export type MetricName =
  | SnapshotMetricName
  | StreamingMetricName
  | QueueMetricName
  | DeliveryMetricName
  | SchemaHistoryMetricName
  | RetentionMetricName;

export const METRIC_DEFINITIONS: Readonly<Record<MetricName, MetricDefinition>> = {
  TotalTableCount: { unit: 'Count', kind: 'gauge', help: 'Tables included in the snapshot.' },
  RemainingTableCount: { unit: 'Count', kind: 'gauge', help: 'Snapshot tables not yet completely scanned.' },
  RowsScanned: { unit: 'Count', kind: 'counter', help: 'Rows read by the snapshot so far.' },
  SnapshotRunning: { unit: 'None', kind: 'gauge', help: '1 while a snapshot is running.' },
  SnapshotCompleted: { unit: 'None', kind: 'gauge', help: '1 once a snapshot completed in this process.' },
  SnapshotDurationInSeconds: { unit: 'Seconds', kind: 'gauge', help: 'Seconds the snapshot has taken so far.' },
  MilliSecondsBehindSource: {
    unit: 'Milliseconds',
    kind: 'gauge',
    help: 'Processing time minus the source timestamp of the last binlog event.',
  },
  MilliSecondsSinceLastEvent: { unit: 'Milliseconds', kind: 'gauge', help: 'Time since the last binlog event.' },
  TotalNumberOfEventsSeen: { unit: 'Count', kind: 'counter', help: 'Change events read from the binlog.' },
  NumberOfEventsFiltered: { unit: 'Count', kind: 'counter', help: 'Events dropped by the table/op filters.' },
  NumberOfCommittedTransactions: { unit: 'Count', kind: 'counter', help: 'Transactions committed on the source.' },
  Connected: { unit: 'None', kind: 'gauge', help: '1 while the binlog connection is up.' },
  QueueRemainingCapacity: { unit: 'Count', kind: 'gauge', help: 'Free slots in the change queue.' },
  CurrentQueueSizeInBytes: { unit: 'Bytes', kind: 'gauge', help: 'Bytes held in the change queue.' },
  NumberOfDisconnects: { unit: 'Count', kind: 'counter', help: 'Binlog connection losses.' },
  QueuePeakSize: { unit: 'Count', kind: 'gauge', help: 'Most items the change queue held at once since start.' },
  QueuePeakSizeInBytes: { unit: 'Bytes', kind: 'gauge', help: 'Most bytes the change queue held at once since start.' },
  SchemaHistoryChangesApplied: { unit: 'Count', kind: 'counter', help: 'Schema changes applied to the history.' },
  RetentionRunwaySeconds: {
    unit: 'Seconds',
    kind: 'gauge',
    help: 'Seconds before the binlog file the capture resumes from may be purged by the binlog retention.',
  },
  SinkDeliveryFailing: { unit: 'None', kind: 'gauge', help: '1 while the sink is retrying failed deliveries.' },
  SinkFailedAttempts: { unit: 'Count', kind: 'gauge', help: 'Failed delivery attempts in the current outage.' },
  OldestUnacknowledgedAgeMs: {
    unit: 'Milliseconds',
    kind: 'gauge',
    help: 'Age of the oldest record handed to the sink and not yet acknowledged.',
  },
};

/** Every metric that is always published (schema history and retention metrics only when available). */
export const CORE_METRIC_NAMES: readonly MetricName[] = [
  ...Object.values(SnapshotMetric),
  ...Object.values(StreamingMetric),
  ...Object.values(QueueMetric),
  ...Object.values(DeliveryMetric),
];

/** Every metric name that can be published. */
export const ALL_METRIC_NAMES: readonly MetricName[] = [
  ...CORE_METRIC_NAMES,
  ...Object.values(SchemaHistoryMetric),
  ...Object.values(RetentionMetric),
];

/**
 * What the Lambda consumers publish (EMF through Powertools) in the same namespace, under the dimensions
 * `Connector` (CDC_CONNECTOR_NAME, set by CdcPipeline) and `service` (the consumer), so alarms and dashboards
 * select one pipeline's consumer.
 */
export const ConsumerMetric = {
  RecordsIn: 'RecordsIn',
  RecordsOut: 'RecordsOut',
  DuplicatesDropped: 'DuplicatesDropped',
  DeadLettered: 'DeadLettered',
  FailedRecords: 'FailedRecords',
  ItemsWritten: 'ItemsWritten',
  OversizeRows: 'OversizeRows',
  StaleEventsSkipped: 'StaleEventsSkipped',
  EventsIgnored: 'EventsIgnored',
} as const;
export type ConsumerMetricName = (typeof ConsumerMetric)[keyof typeof ConsumerMetric];
export const CONSUMER_METRIC_NAMES: readonly ConsumerMetricName[] = Object.values(ConsumerMetric);
/** Powertools' service dimension; its values are the consumers' service names. */
export const SERVICE_DIMENSION = 'service';
export const CONSUMER_SERVICES = { transformRouter: 'cdc-transform-router', materializer: 'cdc-materializer' } as const;

/** Non-metric EMF properties (searchable in Logs Insights, never dimensions: they change all the time). */
export const EmfProperty = {
  Phase: 'Phase',
  BinlogFile: 'BinlogFile',
  BinlogPosition: 'BinlogPosition',
  Gtids: 'Gtids',
  SchemaHistoryStatus: 'SchemaHistoryStatus',
} as const;
