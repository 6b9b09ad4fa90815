/**
 * CdcPipeline: the whole serverless-cdc deployment as one L3 construct.
 *
 * - capture: one ECS Fargate task (`node bin/cdc.js run`, configured by `CDC_*` environment variables) reading
 *   the binlog of an existing Aurora/RDS cluster or instance (or any host/port), credentials injected from an
 *   existing Secrets Manager secret;
 * - a KMS-encrypted Kinesis stream of Debezium change events;
 * - DynamoDB tables for offsets, schema history and the single-writer lease (key schemas of `src/stores/dynamodb`);
 * - Lambda consumers (transform router, materialiser) with Kinesis event source mappings and SQS on-failure DLQs;
 * - alarms (to an SNS topic) and a dashboard on the metric names shared with the task (`src/metrics/names.ts`).
 *
 * Every resource the construct can create can also be passed in; passing one and configuring its creation is an
 * error, never a silent choice.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  aws_cloudwatch as cloudwatch,
  aws_cloudwatch_actions as cwActions,
  Duration,
  aws_dynamodb as dynamodb,
  aws_ec2 as ec2,
  aws_ecs as ecs,
  aws_lambda_event_sources as eventSources,
  aws_iam as iam,
  aws_kinesis as kinesis,
  aws_kms as kms,
  aws_lambda as lambda,
  aws_logs as logs,
  aws_lambda_nodejs as nodejs,
  RemovalPolicy,
  type aws_rds as rds,
  Stack,
  type aws_secretsmanager as secretsmanager,
  aws_sns as sns,
  aws_sqs as sqs,
  Token,
  Validations,
} from 'aws-cdk-lib';
import { Platform } from 'aws-cdk-lib/aws-ecr-assets';
import { Construct } from 'constructs';
import {
  CONNECTOR_DIMENSION,
  METRICS_NAMESPACE,
  type MetricName,
  SnapshotMetric,
  StreamingMetric,
} from '../../src/metrics/names.js';

/** The repository root (build context of the Dockerfile, project root of the Lambda bundles). */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

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
}

/** Every default in one place. */
export const CDC_PIPELINE_DEFAULTS = {
  connectorName: 'cdc',
  cpu: 512,
  memoryLimitMiB: 1024,
  logRetention: logs.RetentionDays.ONE_MONTH,
  metricsPort: 8080,
  databasePort: 3306,
  sslMode: 'required',
  iamAuthUser: 'cdc',
  streamRetention: Duration.hours(24),
  tableNameTemplate: '{db}.{table}',
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

export class CdcPipeline extends Construct {
  readonly connectorName: string;
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
  readonly alarms: cloudwatch.Alarm[] = [];
  readonly dashboard: cloudwatch.Dashboard | null;

  constructor(scope: Construct, id: string, props: CdcPipelineProps) {
    super(scope, id);
    const D = CDC_PIPELINE_DEFAULTS;
    const name = props.connectorName ?? D.connectorName;
    this.connectorName = name;
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
    const s = props.stream ?? {};
    for (const [what, sp] of [
      ['stream', s],
      ['routedStream', props.routedStream ?? {}],
    ] as const)
      if (sp.stream && (sp.shardCount !== undefined || sp.retention || sp.streamName))
        throw new Error(
          `CdcPipeline: ${what}.stream is an existing stream; do not also set shardCount/retention/streamName`,
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

    // --- streams
    this.stream = this.createStream('Stream', s, removalPolicy);
    this.routedStream =
      props.transformRouter === false
        ? null
        : this.createStream('RoutedStream', props.routedStream ?? {}, removalPolicy);

    // --- state tables (key schemas of src/stores/dynamodb/*)
    if (props.tables) {
      this.offsetsTable = props.tables.offsets;
      this.schemaHistoryTable = props.tables.schemaHistory;
      this.leaseTable = props.tables.lease;
    } else {
      const table = (tid: string, partitionKey: string, sortKey?: string) =>
        new dynamodb.Table(this, tid, {
          partitionKey: { name: partitionKey, type: dynamodb.AttributeType.STRING },
          ...(sortKey ? { sortKey: { name: sortKey, type: dynamodb.AttributeType.STRING } } : {}),
          billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
          pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
          deletionProtection: true,
          encryption: dynamodb.TableEncryption.AWS_MANAGED,
          removalPolicy,
        });
      this.offsetsTable = table('OffsetsTable', 'connector');
      this.schemaHistoryTable = table('SchemaHistoryTable', 'connector', 'sk');
      this.leaseTable = table('LeaseTable', 'lease');
    }

    // --- capture service
    this.cluster =
      props.cluster ??
      new ecs.Cluster(this, 'Cluster', { vpc: props.vpc, containerInsightsV2: ecs.ContainerInsights.ENABLED });
    this.logGroup = new logs.LogGroup(this, 'CaptureLogs', {
      retention: props.logRetention ?? D.logRetention,
      removalPolicy,
    });
    const arch = props.cpuArchitecture ?? ecs.CpuArchitecture.X86_64;
    this.taskDefinition = new ecs.FargateTaskDefinition(this, 'TaskDefinition', {
      cpu: props.cpu ?? D.cpu,
      memoryLimitMiB: props.memoryLimitMiB ?? D.memoryLimitMiB,
      runtimePlatform: { cpuArchitecture: arch, operatingSystemFamily: ecs.OperatingSystemFamily.LINUX },
    });
    const metricsPort = props.metricsPort ?? D.metricsPort;
    const endpoint = this.databaseEndpoint(db, source.kind === 'vitess' ? 15991 : CDC_PIPELINE_DEFAULTS.databasePort);
    const environment: Record<string, string> = {};
    const set = (property: string, value: string) => {
      environment[`CDC_${property.toUpperCase().replace(/[.-]/g, '_')}`] = value;
    };
    for (const [k, v] of Object.entries(props.properties ?? {})) set(k, v);
    set('name', name);
    set('topic.prefix', props.topicPrefix ?? name);
    set('database.hostname', endpoint.host);
    set('database.port', endpoint.port);
    if (source.kind === 'vitess') {
      set('connector.class', 'io.debezium.connector.vitess.VitessConnector');
      set('vitess.keyspace', source.keyspace);
      if (source.shards) set('vitess.shard', source.shards.join(','));
      if (source.tabletType) set('vitess.tablet.type', source.tabletType);
    } else set('database.ssl.mode', db.sslMode ?? D.sslMode);
    set('sink.type', 'kinesis');
    set('sink.kinesis.stream.name', this.stream.streamName);
    set('offset.storage', 'dynamodb');
    set('offset.storage.dynamodb.table', this.offsetsTable.tableName);
    set('schema.history.internal', 'dynamodb');
    set('schema.history.internal.dynamodb.table', this.schemaHistoryTable.tableName);
    set('lease.enabled', 'true');
    set('lease.dynamodb.table', this.leaseTable.tableName);
    set('metrics.emf.enabled', 'true');
    set('metrics.http.port', String(metricsPort));
    set('log.format', 'json');
    set('aws.region', Stack.of(this).region);
    // The task reads the secret itself (not as ECS secrets) so it can read it again after a rotation: on an
    // access-denied error it re-reads the secret once and reconnects, without a restart.
    if (db.iamAuth) {
      // Signs in as iamAuthUser with 15-minute IAM tokens (TLS required): no password anywhere.
      set('database.iam.authentication', 'true');
      set('database.user', db.iamAuthUser ?? D.iamAuthUser);
    } else set('database.secret.arn', db.secret.secretArn);

    this.container = this.taskDefinition.addContainer('capture', {
      image:
        props.image ??
        ecs.ContainerImage.fromAsset(REPO_ROOT, {
          platform: arch === ecs.CpuArchitecture.ARM64 ? Platform.LINUX_ARM64 : Platform.LINUX_AMD64,
        }),
      command: ['run'],
      environment,
      logging: ecs.LogDrivers.awsLogs({ logGroup: this.logGroup, streamPrefix: 'capture' }),
      healthCheck: {
        command: [
          'CMD-SHELL',
          `node -e "fetch('http://127.0.0.1:${metricsPort}/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"`,
        ],
        interval: Duration.seconds(30),
        timeout: Duration.seconds(5),
        retries: 3,
        startPeriod: Duration.seconds(120),
      },
      stopTimeout: Duration.seconds(60),
    });
    Validations.of(this.taskDefinition).acknowledge(
      {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'Execution role: ecr:GetAuthorizationToken exists only on "*" (AWS requirement); every other statement is scoped (asserted in test/unit/cdk).',
      },
      {
        id: 'AwsSolutions-ECS2',
        reason:
          'The environment holds only non-secret configuration (names, endpoints, switches); credentials come from Secrets Manager as ECS secrets.',
      },
    );
    this.securityGroup = new ec2.SecurityGroup(this, 'TaskSecurityGroup', {
      vpc: props.vpc,
      description: `serverless-cdc ${name} capture task`,
      allowAllOutbound: true,
    });
    this.service = new ecs.FargateService(this, 'Service', {
      cluster: this.cluster,
      taskDefinition: this.taskDefinition,
      desiredCount: 1,
      // One writer: the DynamoDB lease is the real guarantee; these keep deployments from overlapping tasks.
      minHealthyPercent: 0,
      maxHealthyPercent: 100,
      circuitBreaker: { rollback: true },
      assignPublicIp: false,
      vpcSubnets: props.taskSubnets ?? { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS },
      securityGroups: [this.securityGroup],
    });
    if (db.cluster) db.cluster.connections.allowDefaultPortFrom(this.securityGroup, 'serverless-cdc capture task');
    else if (db.instance)
      db.instance.connections.allowDefaultPortFrom(this.securityGroup, 'serverless-cdc capture task');
    else if (db.securityGroup)
      db.securityGroup.addIngressRule(
        this.securityGroup,
        ec2.Port.tcp(Number(endpoint.port)),
        'serverless-cdc capture task',
      );
    this.grantCapture(this.taskDefinition.taskRole, db);

    // --- consumers
    const router = props.transformRouter;
    this.transformRouter =
      router === false
        ? null
        : this.addConsumer('TransformRouter', 'transform-router', router ?? {}, this.stream, (fn, dlq) => {
            // Output stream and record-level DLQ (see lambdas/transform-router.ts).
            const out = this.routedStream!;
            fn.addEnvironment('CDC_OUTPUT_STREAM', out.streamName);
            fn.addEnvironment('CDC_DLQ_URL', dlq.queueUrl);
            out.grant(
              fn,
              'kinesis:PutRecord',
              'kinesis:PutRecords',
              'kinesis:ListShards',
              'kinesis:DescribeStreamSummary',
            );
            out.encryptionKey?.grant(fn, 'kms:GenerateDataKey');
            dlq.grantSendMessages(fn);
          });
    const materializer = props.materializer;
    this.materializer =
      materializer === false
        ? null
        : this.addConsumer('Materializer', 'materializer', materializer ?? {}, this.stream, (fn, dlq) => {
            // It needs Debezium envelopes (op, source, after), so it reads the change stream, not the routed one.
            const m = materializer ?? {};
            const template = m.tableNameTemplate ?? CDC_PIPELINE_DEFAULTS.tableNameTemplate;
            fn.addEnvironment('CDC_TABLE_NAME_TEMPLATE', template);
            fn.addEnvironment('CDC_DLQ_URL', dlq.queueUrl);
            dlq.grantSendMessages(fn);
            if (m.tables) {
              for (const t of m.tables) t.grant(fn, 'dynamodb:GetItem', 'dynamodb:PutItem');
            } else {
              const pattern = template.replace(/\{(db|table|topic)\}/g, '*');
              fn.addToRolePolicy(
                new iam.PolicyStatement({
                  actions: ['dynamodb:GetItem', 'dynamodb:PutItem'],
                  resources: [
                    Stack.of(this).formatArn({ service: 'dynamodb', resource: 'table', resourceName: pattern }),
                  ],
                }),
              );
              const stack = Stack.of(this);
              const region = Token.isUnresolved(stack.region) ? '<AWS::Region>' : stack.region;
              const account = Token.isUnresolved(stack.account) ? '<AWS::AccountId>' : stack.account;
              Validations.of(fn.role!).acknowledge({
                id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:dynamodb:${region}:${account}:table/${pattern}]`,
                reason:
                  'The materialiser writes one table per source table, named by CDC_TABLE_NAME_TEMPLATE; the resource is that name pattern. Pass materializer.tables to scope it to exact tables.',
              });
            }
          });

    // --- alarms and dashboard
    if (props.alarms === false) {
      this.alarmTopic = null;
    } else {
      this.alarmTopic = this.createAlarms(props.alarms ?? {}, removalPolicy);
    }
    this.dashboard = props.dashboard === false ? null : this.createDashboard();
  }

  /** A metric the capture task publishes (EMF), for this connector. */
  metric(name: MetricName, options: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: METRICS_NAMESPACE,
      metricName: name,
      dimensionsMap: { [CONNECTOR_DIMENSION]: this.connectorName },
      period: Duration.minutes(1),
      statistic: 'Maximum',
      ...options,
    });
  }

  /** ECS running task count (Container Insights). */
  metricRunningTaskCount(): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: 'ECS/ContainerInsights',
      metricName: 'RunningTaskCount',
      dimensionsMap: { ClusterName: this.cluster.clusterName, ServiceName: this.service.serviceName },
      period: Duration.minutes(1),
      statistic: 'Minimum',
    });
  }

  private databaseEndpoint(db: CdcDatabaseProps, defaultPort: number): { host: string; port: string } {
    if (db.cluster) return { host: db.cluster.clusterEndpoint.hostname, port: String(db.cluster.clusterEndpoint.port) };
    if (db.instance) return { host: db.instance.dbInstanceEndpointAddress, port: db.instance.dbInstanceEndpointPort };
    return { host: db.host!, port: String(db.port ?? defaultPort) };
  }

  /** Exactly the calls the task makes (see src/sinks/kinesis, src/stores/dynamodb). */
  private grantCapture(role: iam.IRole, db: CdcDatabaseProps): void {
    this.stream.grant(
      role,
      'kinesis:PutRecord',
      'kinesis:PutRecords',
      'kinesis:ListShards',
      'kinesis:DescribeStreamSummary',
    );
    this.stream.encryptionKey?.grant(role, 'kms:GenerateDataKey');
    this.offsetsTable.grant(role, 'dynamodb:GetItem', 'dynamodb:UpdateItem');
    this.schemaHistoryTable.grant(role, 'dynamodb:Query', 'dynamodb:GetItem', 'dynamodb:PutItem');
    this.leaseTable.grant(role, 'dynamodb:UpdateItem');
    if (!db.iamAuth) db.secret.grantRead(role);
    if (db.iamAuth) {
      const user = db.iamAuthUser ?? CDC_PIPELINE_DEFAULTS.iamAuthUser;
      if (db.cluster) db.cluster.grantConnect(role, user);
      else if (db.instance) db.instance.grantConnect(role, user);
      else throw new Error('CdcPipeline: database.iamAuth needs database.cluster or database.instance');
    }
  }

  private createStream(id: string, s: CdcStreamProps, removalPolicy: RemovalPolicy): kinesis.IStream {
    if (s.stream) return s.stream;
    const stream = new kinesis.Stream(this, id, {
      ...(s.streamName ? { streamName: s.streamName } : {}),
      ...(s.shardCount !== undefined
        ? { streamMode: kinesis.StreamMode.PROVISIONED, shardCount: s.shardCount }
        : { streamMode: kinesis.StreamMode.ON_DEMAND }),
      retentionPeriod: s.retention ?? CDC_PIPELINE_DEFAULTS.streamRetention,
      encryption: kinesis.StreamEncryption.KMS,
      encryptionKey: this.encryptionKey,
      removalPolicy,
    });
    Validations.of(stream).acknowledge({
      id: 'AwsSolutions-KDS3',
      reason:
        'Deliberately a customer managed key (rotated, key policy under our control, shared with the alarm topic) instead of aws/kinesis.',
    });
    return stream;
  }

  private addConsumer(
    id: string,
    file: string,
    p: CdcConsumerProps,
    defaultInput: kinesis.IStream,
    configure?: (fn: nodejs.NodejsFunction, dlq: sqs.Queue) => void,
  ): CdcConsumer {
    const D = CDC_PIPELINE_DEFAULTS.consumer;
    // SQS-managed encryption: the ESM's on-failure records hold only batch metadata (shard, sequence numbers),
    // and it keeps KMS grants (ReEncrypt*/GenerateDataKey* wildcards) off the function role.
    const dlq = new sqs.Queue(this, `${id}Dlq`, {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(dlq).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is itself the on-failure destination (dead-letter queue) of the event source mapping.',
    });
    const logGroup = new logs.LogGroup(this, `${id}Logs`, { retention: logs.RetentionDays.ONE_MONTH });
    // An own role instead of AWSLambdaBasicExecutionRole: logs only to this function's log group.
    const role = new iam.Role(this, `${id}Role`, {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `serverless-cdc ${this.connectorName} ${file}`,
    });
    logGroup.grantWrite(role);
    const fn = new nodejs.NodejsFunction(this, id, {
      entry: p.entry ?? join(REPO_ROOT, 'lambdas', `${file}.ts`),
      projectRoot: REPO_ROOT,
      depsLockFilePath: join(REPO_ROOT, 'package-lock.json'),
      runtime: lambda.Runtime.NODEJS_24_X,
      role,
      architecture: lambda.Architecture.ARM_64,
      memorySize: p.memorySize ?? D.memorySize,
      timeout: p.timeout ?? D.timeout,
      environment: {
        CDC_CONNECTOR_NAME: this.connectorName,
        POWERTOOLS_SERVICE_NAME: `cdc-${file}`,
        ...p.environment,
      },
      logGroup,
      bundling: {
        format: nodejs.OutputFormat.ESM,
        target: 'node24',
        minify: true,
        sourceMap: true,
        // CommonJS dependencies inside an ESM bundle need `require`.
        banner: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
        externalModules: ['@aws-sdk/*'],
      },
    });
    configure?.(fn, dlq);
    const eventSource = new eventSources.KinesisEventSource(p.inputStream ?? defaultInput, {
      startingPosition: p.startingPosition ?? lambda.StartingPosition.TRIM_HORIZON,
      batchSize: p.batchSize ?? D.batchSize,
      maxBatchingWindow: p.maxBatchingWindow ?? D.maxBatchingWindow,
      bisectBatchOnError: true,
      retryAttempts: p.retryAttempts ?? D.retryAttempts,
      parallelizationFactor: p.parallelizationFactor ?? D.parallelizationFactor,
      reportBatchItemFailures: true,
      onFailure: new eventSources.SqsDlq(dlq),
    });
    fn.addEventSource(eventSource);
    return { function: fn, deadLetterQueue: dlq, eventSource };
  }

  private consumers(): Array<[string, CdcConsumer]> {
    const out: Array<[string, CdcConsumer]> = [];
    if (this.transformRouter) out.push(['TransformRouter', this.transformRouter]);
    if (this.materializer) out.push(['Materializer', this.materializer]);
    return out;
  }

  private createAlarms(p: CdcAlarmProps, removalPolicy: RemovalPolicy): sns.ITopic {
    const D = CDC_PIPELINE_DEFAULTS.alarms;
    let topic: sns.ITopic;
    if (p.topic) {
      if (p.email)
        throw new Error('CdcPipeline: alarms.email subscribes a created topic; subscribe your own topic yourself');
      topic = p.topic;
    } else {
      const created = new sns.Topic(this, 'AlarmTopic', {
        displayName: `serverless-cdc ${this.connectorName} alarms`,
        masterKey: this.encryptionKey,
        enforceSSL: true,
      });
      created.applyRemovalPolicy(removalPolicy);
      if (p.email)
        new sns.Subscription(this, 'AlarmEmail', {
          topic: created,
          protocol: sns.SubscriptionProtocol.EMAIL,
          endpoint: p.email,
        });
      topic = created;
    }
    const action = new cwActions.SnsAction(topic);
    const add = (id: string, props: cloudwatch.AlarmProps) => {
      const alarm = new cloudwatch.Alarm(this, id, props);
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
      this.alarms.push(alarm);
      return alarm;
    };
    const GT = cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD;
    const c = this.connectorName;

    const lagMinutes = p.lagEvaluationMinutes ?? D.lagEvaluationMinutes;
    add('ReplicationLagAlarm', {
      alarmDescription: `serverless-cdc ${c}: the capture is more than ${(p.replicationLag ?? D.replicationLag).toHumanString()} behind the source binlog (see docs/deploy.md#replication-lag)`,
      metric: this.metric(StreamingMetric.MilliSecondsBehindSource),
      threshold: (p.replicationLag ?? D.replicationLag).toMilliseconds(),
      comparisonOperator: GT,
      evaluationPeriods: lagMinutes,
      datapointsToAlarm: lagMinutes,
      treatMissingData: cloudwatch.TreatMissingData.IGNORE,
    });
    const noEvents = p.noEvents === undefined ? D.noEvents : p.noEvents;
    if (noEvents !== false)
      add('NoEventsAlarm', {
        alarmDescription: `serverless-cdc ${c}: no binlog event (change or heartbeat write) for ${noEvents.toHumanString()}, or no metrics at all (see docs/deploy.md#no-events)`,
        metric: this.metric(StreamingMetric.MilliSecondsSinceLastEvent, { statistic: 'Minimum' }),
        threshold: noEvents.toMilliseconds(),
        comparisonOperator: GT,
        evaluationPeriods: 3,
        treatMissingData: cloudwatch.TreatMissingData.BREACHING,
      });
    add('TaskNotRunningAlarm', {
      alarmDescription: `serverless-cdc ${c}: the capture service has no running task (see docs/deploy.md#task-not-running)`,
      metric: this.metricRunningTaskCount(),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
      evaluationPeriods: 3,
      treatMissingData: cloudwatch.TreatMissingData.BREACHING,
    });
    const streams: Array<[string, kinesis.IStream, string]> = [['Kinesis', this.stream, 'change stream']];
    if (this.routedStream)
      streams.push(['RoutedKinesis', this.routedStream, 'routed stream (transform router output)']);
    for (const [id, stream, what] of streams)
      add(`${id}WriteThrottleAlarm`, {
        alarmDescription: `serverless-cdc ${c}: PutRecords throttled on the ${what} (see docs/deploy.md#kinesis-write-throttling)`,
        metric: stream.metricPutRecordsThrottledRecords({ period: Duration.minutes(5), statistic: 'Sum' }),
        threshold: p.kinesisThrottledRecords ?? D.kinesisThrottledRecords,
        comparisonOperator: GT,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    for (const [id, consumer] of this.consumers()) {
      const fn = consumer.function;
      add(`${id}IteratorAgeAlarm`, {
        alarmDescription: `serverless-cdc ${c}: ${id} is falling behind the change stream (see docs/deploy.md#consumer-iterator-age)`,
        metric: fn.metric('IteratorAge', { period: Duration.minutes(1), statistic: 'Maximum' }),
        threshold: (p.iteratorAge ?? D.iteratorAge).toMilliseconds(),
        comparisonOperator: GT,
        evaluationPeriods: 5,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
      add(`${id}ErrorsAlarm`, {
        alarmDescription: `serverless-cdc ${c}: ${id} invocations fail (see docs/deploy.md#lambda-errors)`,
        metric: fn.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
        threshold: p.lambdaErrors ?? D.lambdaErrors,
        comparisonOperator: GT,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
      add(`${id}DlqAlarm`, {
        alarmDescription: `serverless-cdc ${c}: batches of ${id} were given up and sent to the dead-letter queue (see docs/deploy.md#dead-letter-queue)`,
        metric: consumer.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
          period: Duration.minutes(1),
          statistic: 'Maximum',
        }),
        threshold: 0,
        comparisonOperator: GT,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    }
    const tables: Array<[string, dynamodb.ITable]> = [
      ['Offsets', this.offsetsTable],
      ['SchemaHistory', this.schemaHistoryTable],
      ['Lease', this.leaseTable],
    ];
    for (const [id, table] of tables) {
      add(`${id}TableThrottleAlarm`, {
        alarmDescription: `serverless-cdc ${c}: DynamoDB throttles on the ${id} table (see docs/deploy.md#dynamodb-throttles)`,
        metric: new cloudwatch.MathExpression({
          expression: 'FILL(r, 0) + FILL(w, 0)',
          usingMetrics: {
            r: table.metric('ReadThrottleEvents', { period: Duration.minutes(5), statistic: 'Sum' }),
            w: table.metric('WriteThrottleEvents', { period: Duration.minutes(5), statistic: 'Sum' }),
          },
          label: `${id} throttle events`,
          period: Duration.minutes(5),
        }),
        threshold: p.dynamoThrottles ?? D.dynamoThrottles,
        comparisonOperator: GT,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    }
    return topic;
  }

  private createDashboard(): cloudwatch.Dashboard {
    const m = (n: MetricName, statistic = 'Maximum') => this.metric(n, { statistic });
    const rate = (n: MetricName, label: string) =>
      new cloudwatch.MathExpression({
        // Counters reset when the task restarts; negative steps are restarts, not throughput.
        expression: `IF(DIFF(${n.toLowerCase()}) >= 0, DIFF(${n.toLowerCase()}) / 60, 0)`,
        usingMetrics: { [n.toLowerCase()]: m(n) },
        label,
        period: Duration.minutes(1),
      });
    const d = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: `serverless-cdc-${this.connectorName}`.replace(/[^A-Za-z0-9_-]/g, '-'),
    });
    const consumers = this.consumers();
    d.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Replication lag',
        left: [m(StreamingMetric.MilliSecondsBehindSource), m(StreamingMetric.MilliSecondsSinceLastEvent, 'Minimum')],
        leftYAxis: { label: 'ms', showUnits: false },
        width: 12,
      }),
      new cloudwatch.GraphWidget({
        title: 'Throughput (per second)',
        left: [
          rate(StreamingMetric.TotalNumberOfEventsSeen, 'binlog events/s'),
          rate(StreamingMetric.NumberOfCommittedTransactions, 'transactions/s'),
          rate(StreamingMetric.NumberOfEventsFiltered, 'filtered/s'),
        ],
        right: [this.stream.metricIncomingRecords({ period: Duration.minutes(1), statistic: 'Sum' })],
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
        left: [m(StreamingMetric.QueueRemainingCapacity, 'Minimum'), this.metricRunningTaskCount()],
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
          this.stream.metricPutRecordsThrottledRecords({ period: Duration.minutes(1), statistic: 'Sum' }),
          this.stream.metricPutRecordsFailedRecords({ period: Duration.minutes(1), statistic: 'Sum' }),
        ],
        right: [
          this.stream.metricGetRecordsIteratorAgeMilliseconds({ period: Duration.minutes(1), statistic: 'Maximum' }),
        ],
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
    if (this.alarms.length > 0)
      d.addWidgets(new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 24 }));
    return d;
  }
}
