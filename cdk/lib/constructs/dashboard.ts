/** The pipeline's CloudWatch dashboard: lag, throughput, snapshot, task, Kinesis, consumers and alarm status. */
import { aws_cloudwatch as cloudwatch, Duration, type aws_kinesis as kinesis } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import {
  CONSUMER_SERVICES,
  ConsumerMetric,
  type MetricName,
  RetentionMetric,
  SnapshotMetric,
  StreamingMetric,
} from '../../../src/metrics/names.js';
import { captureMetric, consumerMetric } from './capture-metrics.js';
import type { CdcCaptureService } from './capture-service.js';
import type { CdcConsumers } from './consumers.js';
import type { PipelinePart } from './scope.js';

export interface CdcDashboardProps {
  readonly connectorName: string;
  readonly capture: CdcCaptureService;
  readonly stream: kinesis.IStream;
  readonly consumers: CdcConsumers;
  /** Shown in an alarm status widget when there are any. */
  readonly alarms: readonly cloudwatch.IAlarm[];
}

export class CdcDashboard implements PipelinePart {
  readonly dashboard: cloudwatch.Dashboard;

  constructor(
    readonly scope: Construct,
    p: CdcDashboardProps,
  ) {
    const m = (n: MetricName, statistic = 'Maximum') => captureMetric(p.connectorName, n, { statistic });
    const rate = (n: MetricName, label: string) =>
      new cloudwatch.MathExpression({
        // Counters reset when the task restarts; negative steps are restarts, not throughput.
        expression: `IF(DIFF(${n.toLowerCase()}) >= 0, DIFF(${n.toLowerCase()}) / 60, 0)`,
        usingMetrics: { [n.toLowerCase()]: m(n) },
        label,
        period: Duration.minutes(1),
      });
    const d = new cloudwatch.Dashboard(scope, 'Dashboard', {
      dashboardName: `serverless-cdc-${p.connectorName}`.replace(/[^A-Za-z0-9_-]/g, '-'),
    });
    const consumers = p.consumers.all();
    const stream = p.stream;
    d.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Replication lag',
        left: [m(StreamingMetric.MilliSecondsBehindSource), m(StreamingMetric.MilliSecondsSinceLastEvent, 'Minimum')],
        leftYAxis: { label: 'ms', showUnits: false },
        // How long the resume position has before the binlog retention purges it (docs/deploy.md#retention-runway).
        right: [m(RetentionMetric.RetentionRunwaySeconds, 'Minimum')],
        rightYAxis: { label: 's', showUnits: false },
        width: 12,
      }),
      new cloudwatch.GraphWidget({
        title: 'Throughput (per second)',
        left: [
          rate(StreamingMetric.TotalNumberOfEventsSeen, 'binlog events/s'),
          rate(StreamingMetric.NumberOfCommittedTransactions, 'transactions/s'),
          rate(StreamingMetric.NumberOfEventsFiltered, 'filtered/s'),
        ],
        right: [stream.metricIncomingRecords({ period: Duration.minutes(1), statistic: 'Sum' })],
        width: 12,
      }),
    );
    d.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Snapshot progress',
        left: [m(SnapshotMetric.RowsScanned)],
        right: [
          m(SnapshotMetric.TotalTableCount),
          m(SnapshotMetric.RemainingTableCount),
          m(SnapshotMetric.SnapshotRunning),
          m(SnapshotMetric.SnapshotCompleted),
        ],
        width: 8,
      }),
      new cloudwatch.SingleValueWidget({
        title: 'Snapshot',
        metrics: [m(SnapshotMetric.SnapshotDurationInSeconds), m(SnapshotMetric.RemainingTableCount)],
        width: 4,
      }),
      new cloudwatch.GraphWidget({
        title: 'Capture task',
        left: [m(StreamingMetric.QueueRemainingCapacity, 'Minimum'), p.capture.metricRunningTaskCount()],
        right: [
          m(StreamingMetric.CurrentQueueSizeInBytes),
          m(StreamingMetric.Connected, 'Minimum'),
          m(StreamingMetric.NumberOfDisconnects),
        ],
        width: 12,
      }),
    );
    d.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Kinesis',
        left: [
          stream.metricPutRecordsThrottledRecords({ period: Duration.minutes(1), statistic: 'Sum' }),
          stream.metricPutRecordsFailedRecords({ period: Duration.minutes(1), statistic: 'Sum' }),
        ],
        right: [stream.metricGetRecordsIteratorAgeMilliseconds({ period: Duration.minutes(1), statistic: 'Maximum' })],
        width: 12,
      }),
      new cloudwatch.GraphWidget({
        title: 'Lambda consumers',
        left: consumers.flatMap(([id, c]) => [
          c.function.metricErrors({ label: `${id} errors`, period: Duration.minutes(1) }),
          c.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
            label: `${id} DLQ`,
            period: Duration.minutes(1),
          }),
        ]),
        right: consumers.map(([id, c]) =>
          c.function.metric('IteratorAge', {
            label: `${id} iterator age`,
            period: Duration.minutes(1),
            statistic: 'Maximum',
          }),
        ),
        width: 12,
      }),
    );
    // What the consumers did with the records (their EMF metrics, selected by this pipeline's Connector).
    const router = (name: (typeof ConsumerMetric)[keyof typeof ConsumerMetric]) =>
      consumerMetric(p.connectorName, CONSUMER_SERVICES.transformRouter, name, { label: `router ${name}` });
    const materializer = (name: (typeof ConsumerMetric)[keyof typeof ConsumerMetric]) =>
      consumerMetric(p.connectorName, CONSUMER_SERVICES.materializer, name, { label: `materializer ${name}` });
    const records = [
      ...(p.consumers.transformRouter
        ? [
            router(ConsumerMetric.RecordsOut),
            router(ConsumerMetric.DuplicatesDropped),
            router(ConsumerMetric.DeadLettered),
          ]
        : []),
      ...(p.consumers.materializer
        ? [materializer(ConsumerMetric.ItemsWritten), materializer(ConsumerMetric.StaleEventsSkipped)]
        : []),
    ];
    if (records.length > 0)
      d.addWidgets(new cloudwatch.GraphWidget({ title: 'Consumer records (per minute)', left: records, width: 24 }));
    if (p.alarms.length > 0)
      d.addWidgets(new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: [...p.alarms], width: 24 }));
    this.dashboard = d;
  }
}
