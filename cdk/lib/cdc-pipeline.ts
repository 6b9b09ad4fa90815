/**
 * CdcPipeline: the whole serverless-cdc deployment as one L3 construct, composed of parts (cdk/lib/constructs/):
 *
 * - `CdcStreams`: a KMS-encrypted Kinesis stream of Debezium change events (and the transform router's output);
 * - `CdcStateTables`: DynamoDB tables for offsets, schema history and the single-writer lease (key schemas of
 *   `src/stores/dynamodb`);
 * - `CdcCaptureService`: one ECS Fargate task (`node bin/cdc.js run`, configured by `CDC_*` environment variables
 *   named by the config catalog) reading the binlog of an existing Aurora/RDS cluster or instance (or any
 *   host/port), credentials read from an existing Secrets Manager secret;
 * - `CdcConsumers`: Lambda consumers (transform router, materialiser) with Kinesis event source mappings and SQS
 *   on-failure DLQs;
 * - `CdcAlarms` (to an SNS topic) and `CdcDashboard` on the metric names shared with the task
 *   (`src/metrics/names.ts`).
 *
 * The parts build into this construct's scope, so the logical ids are those of the single construct it once was
 * (see constructs/scope.ts). Every resource the construct can create can also be passed in; passing one and
 * configuring its creation is an error, never a silent choice.
 */
import {
  type aws_cloudwatch as cloudwatch,
  type Duration,
  type aws_dynamodb as dynamodb,
  type aws_ec2 as ec2,
  type aws_ecs as ecs,
  aws_iam as iam,
  type aws_kinesis as kinesis,
  aws_kms as kms,
  type aws_logs as logs,
  RemovalPolicy,
  type aws_s3 as s3,
  type aws_sns as sns,
} from 'aws-cdk-lib';
import { Construct } from 'constructs';
import type { MetricName } from '../../src/metrics/names.js';
import { CdcAlarms } from './constructs/alarms.js';
import { captureMetric } from './constructs/capture-metrics.js';
import { CdcCaptureService } from './constructs/capture-service.js';
import { CdcClaimCheck } from './constructs/claim-check.js';
import { CdcConsumers } from './constructs/consumers.js';
import { CdcDashboard } from './constructs/dashboard.js';
import {
  CDC_PIPELINE_DEFAULTS,
  type CdcConsumer,
  type CdcPipelineProps,
  type ChangeStreamLayout,
} from './constructs/props.js';
import { CdcSignals } from './constructs/signals.js';
import { CdcStateTables } from './constructs/state-tables.js';
import { CdcStreams } from './constructs/streams.js';

export * from './constructs/props.js';

export class CdcPipeline extends Construct {
  readonly connectorName: string;
  /** The change stream's record layout (`sink.kinesis.payload`), which its consumers are configured to read. */
  readonly changeStreamLayout: ChangeStreamLayout;
  readonly stream: kinesis.IStream;
  /** The transform router's output stream (null without a router). */
  readonly routedStream: kinesis.IStream | null;
  readonly encryptionKey: kms.IKey;
  readonly offsetsTable: dynamodb.ITable;
  readonly schemaHistoryTable: dynamodb.ITable;
  readonly leaseTable: dynamodb.ITable;
  readonly cluster: ecs.ICluster;
  readonly taskDefinition: ecs.FargateTaskDefinition;
  readonly container: ecs.ContainerDefinition;
  readonly service: ecs.FargateService;
  readonly securityGroup: ec2.SecurityGroup;
  readonly logGroup: logs.LogGroup;
  readonly transformRouter: CdcConsumer | null;
  readonly materializer: CdcConsumer | null;
  readonly alarmTopic: sns.ITopic | null;
  readonly alarms: cloudwatch.Alarm[];
  readonly dashboard: cloudwatch.Dashboard | null;
  /** The claim-check bucket (null without `claimCheck`). */
  readonly claimCheckBucket: s3.IBucket | null;
  /** The Kinesis signal stream (null without `signals`). */
  readonly signalStream: kinesis.IStream | null;
  /** The parts, for extensions that add to one of them (e.g. `parts.alarms?.add(...)`). */
  readonly parts: {
    readonly streams: CdcStreams;
    readonly tables: CdcStateTables;
    readonly capture: CdcCaptureService;
    readonly consumers: CdcConsumers;
    readonly claimCheck: CdcClaimCheck | null;
    readonly signals: CdcSignals | null;
    readonly alarms: CdcAlarms | null;
    readonly dashboard: CdcDashboard | null;
  };

  constructor(scope: Construct, id: string, props: CdcPipelineProps) {
    super(scope, id);
    const name = props.connectorName ?? CDC_PIPELINE_DEFAULTS.connectorName;
    this.connectorName = name;
    this.changeStreamLayout = changeStreamLayoutOf(props);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const db = props.database;
    const dbKinds = [db.cluster, db.instance, db.host].filter((x) => x !== undefined).length;
    if (dbKinds !== 1)
      throw new Error('CdcPipeline: set exactly one of database.cluster, database.instance, database.host');
    if (db.securityGroup && !db.host)
      throw new Error(
        'CdcPipeline: database.securityGroup is only for database.host (clusters/instances bring theirs)',
      );
    if (db.port !== undefined && !db.host) throw new Error('CdcPipeline: database.port is only for database.host');
    const source = props.source ?? { kind: 'mysql' };
    if (source.kind === 'vitess' && (!db.host || db.iamAuth || db.sslMode))
      throw new Error(
        "CdcPipeline: source.kind 'vitess' needs database.host (VTGate) and the secret; iamAuth and sslMode are MySQL-only",
      );

    this.encryptionKey =
      props.encryptionKey ??
      new kms.Key(this, 'Key', {
        description: `serverless-cdc ${name}: change stream, dead-letter queues, alarm topic`,
        enableKeyRotation: true,
        removalPolicy,
      });
    // CloudWatch alarms publish to the encrypted topic.
    this.encryptionKey.grant(
      new iam.ServicePrincipal('cloudwatch.amazonaws.com'),
      'kms:Decrypt',
      'kms:GenerateDataKey*',
    );

    const streams = new CdcStreams(this, {
      stream: props.stream ?? {},
      routedStream: props.routedStream ?? {},
      withRoutedStream: props.transformRouter !== false,
      encryptionKey: this.encryptionKey,
      removalPolicy,
    });
    this.stream = streams.stream;
    this.routedStream = streams.routedStream;

    const tables = new CdcStateTables(this, { existing: props.tables, removalPolicy });
    this.offsetsTable = tables.offsets;
    this.schemaHistoryTable = tables.schemaHistory;
    this.leaseTable = tables.lease;

    const claimCheck = props.claimCheck
      ? new CdcClaimCheck(this, {
          claimCheck: props.claimCheck,
          encryptionKey: this.encryptionKey,
          removalPolicy,
          streamRetention: [props.stream?.retention, props.routedStream?.retention].reduce<Duration>(
            (a, b) => (b && b.toHours() > a.toHours() ? b : a),
            CDC_PIPELINE_DEFAULTS.streamRetention,
          ),
        })
      : null;
    this.claimCheckBucket = claimCheck?.bucket ?? null;
    const signals = props.signals
      ? new CdcSignals(this, { signals: props.signals, encryptionKey: this.encryptionKey, removalPolicy })
      : null;
    this.signalStream = signals?.stream ?? null;

    const capture = new CdcCaptureService(this, {
      ...props,
      changeStreamLayout: this.changeStreamLayout,
      connectorName: name,
      topicPrefix: props.topicPrefix ?? name,
      source,
      stream: this.stream,
      tables,
      removalPolicy,
      claimCheck,
      signals,
    });
    this.cluster = capture.cluster;
    this.logGroup = capture.logGroup;
    this.taskDefinition = capture.taskDefinition;
    this.container = capture.container;
    this.securityGroup = capture.securityGroup;
    this.service = capture.service;

    const consumers = new CdcConsumers(this, {
      connectorName: name,
      stream: this.stream,
      changeStreamLayout: this.changeStreamLayout,
      routedStream: this.routedStream,
      transformRouter: props.transformRouter ?? {},
      materializer: props.materializer ?? {},
      claimCheck,
    });
    this.transformRouter = consumers.transformRouter;
    this.materializer = consumers.materializer;

    const alarms =
      props.alarms === false
        ? null
        : new CdcAlarms(this, {
            ...props.alarms,
            connectorName: name,
            encryptionKey: this.encryptionKey,
            removalPolicy,
            capture,
            stream: this.stream,
            routedStream: this.routedStream,
            consumers,
            tables,
          });
    this.alarmTopic = alarms?.topic ?? null;
    this.alarms = alarms?.alarms ?? [];
    const dashboard =
      props.dashboard === false
        ? null
        : new CdcDashboard(this, { connectorName: name, capture, stream: this.stream, consumers, alarms: this.alarms });
    this.dashboard = dashboard?.dashboard ?? null;
    this.parts = { streams, tables, capture, consumers, claimCheck, signals, alarms, dashboard };
  }

  /** A metric the capture task publishes (EMF), for this connector. */
  metric(name: MetricName, options: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return captureMetric(this.connectorName, name, options);
  }

  /** ECS running task count (Container Insights). */
  metricRunningTaskCount(): cloudwatch.Metric {
    return this.parts.capture.metricRunningTaskCount();
  }
}

/** The layout from the typed prop or, without it, from `properties['sink.kinesis.payload']`; both and different is an error. */
function changeStreamLayoutOf(props: CdcPipelineProps): ChangeStreamLayout {
  const fromProperties = props.properties?.['sink.kinesis.payload'];
  if (fromProperties !== undefined && fromProperties !== 'record' && fromProperties !== 'value')
    throw new Error(
      `CdcPipeline: properties['sink.kinesis.payload']=${fromProperties} is not record or value; set changeStreamLayout instead`,
    );
  const layout = props.changeStreamLayout ?? fromProperties ?? CDC_PIPELINE_DEFAULTS.changeStreamLayout;
  if (fromProperties !== undefined && fromProperties !== layout)
    throw new Error(
      `CdcPipeline: changeStreamLayout '${layout}' and properties['sink.kinesis.payload']=${fromProperties} disagree; remove the property (changeStreamLayout configures the task and its consumers together)`,
    );
  return layout;
}
