/**
 * The public props of CdcPipeline and every default, shared by the pipeline and its parts (cdk/lib/constructs/*).
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  Duration,
  type aws_dynamodb as dynamodb,
  type aws_ec2 as ec2,
  type aws_ecs as ecs,
  type aws_lambda_event_sources as eventSources,
  type aws_kinesis as kinesis,
  type aws_kms as kms,
  type aws_lambda as lambda,
  aws_logs as logs,
  type aws_lambda_nodejs as nodejs,
  type RemovalPolicy,
  type aws_rds as rds,
  type aws_s3 as s3,
  type aws_secretsmanager as secretsmanager,
  type aws_sns as sns,
  type aws_sqs as sqs,
} from 'aws-cdk-lib';

/** The repository root (build context of the Dockerfile, project root of the Lambda bundles). */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** The source database: exactly one of `cluster`, `instance`, `host`. */
export interface CdcDatabaseProps {
  /** An existing Aurora MySQL cluster: the task connects to its writer endpoint. @default - none */
  readonly cluster?: rds.IDatabaseCluster;
  /** An existing RDS MySQL/MariaDB instance. @default - none */
  readonly instance?: rds.IDatabaseInstance;
  /** Any MySQL-family host reachable from the VPC. @default - none */
  readonly host?: string;
  /** Port with `host`. @default 3306 */
  readonly port?: number;
  /**
   * Security group of the database with `host`: the construct adds an ingress rule from the task. With `cluster`
   * or `instance` their own connections are used.
   * @default - no ingress rule is added for `host`
   */
  readonly securityGroup?: ec2.ISecurityGroup;
  /**
   * Secrets Manager secret in the RDS layout (`username`, `password`): the task reads it by ARN at start and again
   * after an access-denied error (rotation). Not used with `iamAuth`.
   */
  readonly secret: secretsmanager.ISecret;
  /**
   * Sign in with RDS IAM authentication tokens as `iamAuthUser` (created `IDENTIFIED WITH AWSAuthenticationPlugin`)
   * instead of the secret's password; grants the task `rds-db:connect` for that user. Needs TLS.
   * @default false
   */
  readonly iamAuth?: boolean;
  /** Database user for `iamAuth`. @default 'cdc' */
  readonly iamAuthUser?: string;
  /** `database.ssl.mode`. @default 'required' */
  readonly sslMode?: 'disabled' | 'preferred' | 'required' | 'verify_ca' | 'verify_identity';
}

/**
 * What the task captures: a MySQL-family database (default), or a Vitess keyspace through VTGate's VStream (then
 * `database.host`/`port` name VTGate's gRPC endpoint, default port 15991, and the secret holds VTGate's static
 * gRPC auth `username`/`password`). See docs/vitess.md.
 */
export type CdcSourceProps =
  | { readonly kind: 'mysql' }
  | {
      readonly kind: 'vitess';
      /** `vitess.keyspace`. */
      readonly keyspace: string;
      /** `vitess.shard`. @default - every shard of the keyspace */
      readonly shards?: string[];
      /** `vitess.tablet.type`. @default 'MASTER' */
      readonly tabletType?: 'MASTER' | 'PRIMARY' | 'REPLICA' | 'RDONLY';
    };

/** `sink.kinesis.payload` of the change stream (see `CdcPipelineProps.changeStreamLayout`). */
export type ChangeStreamLayout = 'record' | 'value';

/** The change stream. */
export interface CdcStreamProps {
  /** An existing stream (then no other stream property may be set). @default - a new stream */
  readonly stream?: kinesis.IStream;
  /** Provisioned mode with this many shards. @default - on-demand */
  readonly shardCount?: number;
  /** Retention. @default Duration.hours(24) */
  readonly retention?: Duration;
  /** Stream name. @default - generated */
  readonly streamName?: string;
}

/** The S3 claim-check of records over the stream's limit (docs/large-records.md). */
export interface CdcClaimCheckProps {
  /** An existing bucket (then `expiration` may not be set). @default - a new bucket (KMS with the pipeline's key, TLS only, public access blocked, lifecycle expiry) */
  readonly bucket?: s3.IBucket;
  /** Key prefix of the objects (`sink.claim.check.prefix`). @default 'cdc/claim-check/' */
  readonly prefix?: string;
  /**
   * Objects expire after this: keep it longer than any consumer may read a record late (stream retention, DLQ).
   * @default - the longer of the streams' retention and the dead-letter queues' 14 days, plus one day
   */
  readonly expiration?: Duration;
  /** Records larger than this go to S3 even where the stream takes them (`sink.claim.check.threshold.bytes`). @default - the stream's record limit */
  readonly thresholdBytes?: number;
}

/** Ad-hoc snapshot signals through a Kinesis stream (docs/snapshots.md "Signals"). */
export interface CdcSignalsProps {
  /** An existing stream to read signals from. @default - a new one-shard stream encrypted with the pipeline's key */
  readonly stream?: kinesis.IStream;
  /** Keep the signalling-table (`source`) channel enabled beside the stream. @default true */
  readonly sourceChannel?: boolean;
  /** `signal.poll.interval.ms`. @default - the connector's default (5 s) */
  readonly pollInterval?: Duration;
}

/** One Lambda consumer of the change stream. */
export interface CdcConsumerProps {
  /** Entry file. @default - `lambdas/<name>.ts` in the repository */
  readonly entry?: string;
  /** Extra environment variables. @default - none */
  readonly environment?: Record<string, string>;
  /** @default 100 */
  readonly batchSize?: number;
  /** @default Duration.seconds(1) */
  readonly maxBatchingWindow?: Duration;
  /** @default 3 */
  readonly retryAttempts?: number;
  /** @default 1 */
  readonly parallelizationFactor?: number;
  /** @default Duration.seconds(60) */
  readonly timeout?: Duration;
  /** @default 512 */
  readonly memorySize?: number;
  /** Where the mapping starts on first deploy. @default TRIM_HORIZON */
  readonly startingPosition?: lambda.StartingPosition;
  /**
   * Stream the consumer reads.
   * @default - the change stream
   */
  readonly inputStream?: kinesis.IStream;
}

/** The materialiser: Debezium change events → one DynamoDB "latest state" table per source table. */
export interface CdcMaterializerProps extends CdcConsumerProps {
  /** `CDC_TABLE_NAME_TEMPLATE` (`{db}`, `{table}`, `{topic}`). @default '{db}.{table}' */
  readonly tableNameTemplate?: string;
  /**
   * The target tables (partition key `__key`, String): the function may read and write exactly these. Without
   * them it may write every table whose name matches the template with `*` for the placeholders.
   * @default - tables matching the template
   */
  readonly tables?: dynamodb.ITable[];
}

/** Alarm thresholds. */
export interface CdcAlarmProps {
  /** Existing topic for alarm actions. @default - a new KMS-encrypted topic */
  readonly topic?: sns.ITopic;
  /** Email subscribed to a created topic. @default - none */
  readonly email?: string;
  /** `MilliSecondsBehindSource` above this for `lagEvaluationMinutes`. @default Duration.minutes(5) */
  readonly replicationLag?: Duration;
  /** @default 5 */
  readonly lagEvaluationMinutes?: number;
  /**
   * `MilliSecondsSinceLastEvent` above this (no binlog event, so no heartbeat write either); `false` disables it
   * for databases that are legitimately idle without a heartbeat writer.
   * @default Duration.minutes(15)
   */
  readonly noEvents?: Duration | false;
  /**
   * `RetentionRunwaySeconds` (minimum) below this for 5 minutes: the binlog file the capture resumes from will be
   * purged by the binlog retention soon (docs/deploy.md#retention-runway). `false` disables it.
   * @default Duration.hours(6)
   */
  readonly retentionRunway?: Duration | false;
  /** Consumer iterator age above this. @default Duration.minutes(10) */
  readonly iteratorAge?: Duration;
  /** Lambda errors per 5 minutes above this. @default 0 */
  readonly lambdaErrors?: number;
  /** Throttled Kinesis records per 5 minutes above this. @default 0 */
  readonly kinesisThrottledRecords?: number;
  /** DynamoDB throttle events per 5 minutes above this. @default 0 */
  readonly dynamoThrottles?: number;
}

export interface CdcPipelineProps {
  /** Connector `name` (offsets/lease key and the `Connector` metric dimension). @default 'cdc' */
  readonly connectorName?: string;
  /** `topic.prefix`. @default - connectorName */
  readonly topicPrefix?: string;
  /** VPC of the task (and of the database). */
  readonly vpc: ec2.IVpc;
  /** Subnets of the task. @default - private subnets with egress */
  readonly taskSubnets?: ec2.SubnetSelection;
  readonly database: CdcDatabaseProps;
  /** The source kind. @default { kind: 'mysql' } */
  readonly source?: CdcSourceProps;
  /** Further connector properties (Debezium names, e.g. `table.include.list`) → `CDC_*` variables. @default {} */
  readonly properties?: Record<string, string>;
  /**
   * Layout of the change stream's records (the task's `sink.kinesis.payload`), and with it whether the stable
   * event ids (header `__cdc.id`) reach the stream's consumers (docs/delivery.md "The change stream's layout"):
   * - `'record'`: each record is the line `{"topic","key","value","headers"}`: the transform router drops repeats
   *   by their id and the materialiser orders two changes of one row in one transaction exactly, also when they
   *   are delivered again after a capture crash. Other consumers read the Debezium value from `.value`.
   * - `'value'`: Debezium Server's layout, the value JSON alone (partition key = key JSON), for consumers written
   *   for Debezium Server: no headers, so no ids; the router passes repeats on and the materialiser orders by
   *   publication (it converges, but may briefly re-apply an older change after a capture crash).
   *
   * The consumers that read the change stream are configured for this layout (`CDC_INPUT_FORMAT`: `auto` with
   * `record`, so value records left by an earlier deployment are still read during the switch; `value` with
   * `value`); a consumer with its own `inputStream` detects the layout per record. Setting
   * `properties['sink.kinesis.payload']` to another value is an error.
   * @default 'record'
   */
  readonly changeStreamLayout?: ChangeStreamLayout;
  /** Container image. @default - built from the repository's Dockerfile (`ContainerImage.fromAsset`) */
  readonly image?: ecs.ContainerImage;
  /** @default X86_64 */
  readonly cpuArchitecture?: ecs.CpuArchitecture;
  /** Fargate CPU units. @default 512 */
  readonly cpu?: number;
  /** Fargate memory. @default 1024 */
  readonly memoryLimitMiB?: number;
  /** Existing ECS cluster. @default - a new cluster with Container Insights */
  readonly cluster?: ecs.ICluster;
  /** Capture log retention. @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
  /** Port of `/metrics` and `/health` in the task. @default 8080 */
  readonly metricsPort?: number;
  /** @default - a new on-demand stream */
  readonly stream?: CdcStreamProps;
  /**
   * A stream for Debezium's snapshot notifications (docs/notifications.md): the task's `kinesis` notification
   * channel writes to it (added to `notification.enabled.channels`, with `log` when none is set) and may
   * `PutRecord` on it (and use its key).
   * @default - no notification stream
   */
  readonly notificationStream?: kinesis.IStream;
  /**
   * Output of the transform router (`CDC_OUTPUT_STREAM`), same settings model as `stream`. Ignored without a
   * transform router.
   * @default - a new on-demand stream
   */
  readonly routedStream?: CdcStreamProps;
  /** Key for the stream, DLQs and alarm topic. @default - a new key with rotation */
  readonly encryptionKey?: kms.IKey;
  /** Existing state tables (all three or none). @default - new tables */
  readonly tables?: { offsets: dynamodb.ITable; schemaHistory: dynamodb.ITable; lease: dynamodb.ITable };
  /** Removal policy of the stateful resources created here. @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
  /** Transform router consumer; `false` for none. @default {} */
  readonly transformRouter?: CdcConsumerProps | false;
  /** Materialiser consumer; `false` for none. @default {} */
  readonly materializer?: CdcMaterializerProps | false;
  /** Alarms; `false` for none. @default {} */
  readonly alarms?: CdcAlarmProps | false;
  /** @default true */
  readonly dashboard?: boolean;
  /**
   * S3 claim-check for records over the stream's record limit: the task, the router and the materialiser are
   * configured and granted for it. `false`: none (such records follow `sink.kinesis.oversize.handling`).
   * @default false
   */
  readonly claimCheck?: CdcClaimCheckProps | false;
  /**
   * A Kinesis stream for ad-hoc snapshot signals (`execute-snapshot`), read by the task (read-only grant); works
   * with `read.only=true` captures that may not write a signalling table. `false`: none.
   * @default false
   */
  readonly signals?: CdcSignalsProps | false;
}

/** Every default in one place. */
export const CDC_PIPELINE_DEFAULTS = {
  connectorName: 'cdc',
  changeStreamLayout: 'record',
  cpu: 512,
  memoryLimitMiB: 1024,
  logRetention: logs.RetentionDays.ONE_MONTH,
  metricsPort: 8080,
  databasePort: 3306,
  sslMode: 'required',
  iamAuthUser: 'cdc',
  streamRetention: Duration.hours(24),
  tableNameTemplate: '{db}.{table}',
  deadLetterRetention: Duration.days(14),
  claimCheck: { prefix: 'cdc/claim-check/' },
  consumer: {
    batchSize: 100,
    maxBatchingWindow: Duration.seconds(1),
    retryAttempts: 3,
    parallelizationFactor: 1,
    timeout: Duration.seconds(60),
    memorySize: 512,
  },
  alarms: {
    replicationLag: Duration.minutes(5),
    lagEvaluationMinutes: 5,
    noEvents: Duration.minutes(15),
    retentionRunway: Duration.hours(6),
    iteratorAge: Duration.minutes(10),
    lambdaErrors: 0,
    kinesisThrottledRecords: 0,
    dynamoThrottles: 0,
  },
} as const;

/** A created Lambda consumer. */
export interface CdcConsumer {
  readonly function: nodejs.NodejsFunction;
  readonly deadLetterQueue: sqs.Queue;
  readonly eventSource: eventSources.KinesisEventSource;
}
