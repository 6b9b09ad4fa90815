/**
 * The capture service: one ECS Fargate task (`node bin/cdc.js run`, configured by `CDC_*` environment variables)
 * reading the source's binlog (or VTGate's VStream), its log group, security group and least-privilege task role.
 */
import {
  aws_cloudwatch as cloudwatch,
  Duration,
  aws_ec2 as ec2,
  aws_ecs as ecs,
  type aws_iam as iam,
  type aws_kinesis as kinesis,
  aws_logs as logs,
  type RemovalPolicy,
  Stack,
  Validations,
} from 'aws-cdk-lib';
import { Platform } from 'aws-cdk-lib/aws-ecr-assets';
import type { Construct } from 'constructs';
import { captureEnvironment } from './capture-environment.js';
import type { CdcClaimCheck } from './claim-check.js';
import {
  CDC_PIPELINE_DEFAULTS,
  type CdcDatabaseProps,
  type CdcPipelineProps,
  type CdcSourceProps,
  type ChangeStreamLayout,
  REPO_ROOT,
} from './props.js';
import type { PipelinePart } from './scope.js';
import type { CdcSignals } from './signals.js';
import type { CdcStateTables } from './state-tables.js';

/** VTGate's gRPC port, the default `database.port` of a Vitess source. */
const VTGATE_PORT = 15991;

export interface CdcCaptureServiceProps
  extends Pick<
    CdcPipelineProps,
    | 'vpc'
    | 'taskSubnets'
    | 'database'
    | 'properties'
    | 'image'
    | 'cpuArchitecture'
    | 'cpu'
    | 'memoryLimitMiB'
    | 'cluster'
    | 'logRetention'
    | 'metricsPort'
    | 'notificationStream'
  > {
  readonly connectorName: string;
  readonly topicPrefix: string;
  readonly source: CdcSourceProps;
  readonly stream: kinesis.IStream;
  /** `sink.kinesis.payload` (the consumers are configured for the same). */
  readonly changeStreamLayout: ChangeStreamLayout;
  readonly tables: CdcStateTables;
  readonly removalPolicy: RemovalPolicy;
  /** Values over the stream's limit go to this bucket first (docs/large-records.md). */
  readonly claimCheck: CdcClaimCheck | null;
  /** The Kinesis signal stream the task reads (null without `signals`). */
  readonly signals: CdcSignals | null;
}

export class CdcCaptureService implements PipelinePart {
  readonly cluster: ecs.ICluster;
  readonly taskDefinition: ecs.FargateTaskDefinition;
  readonly container: ecs.ContainerDefinition;
  readonly service: ecs.FargateService;
  readonly securityGroup: ec2.SecurityGroup;
  readonly logGroup: logs.LogGroup;

  constructor(
    readonly scope: Construct,
    props: CdcCaptureServiceProps,
  ) {
    const D = CDC_PIPELINE_DEFAULTS;
    const db = props.database;
    this.cluster =
      props.cluster ??
      new ecs.Cluster(scope, 'Cluster', { vpc: props.vpc, containerInsightsV2: ecs.ContainerInsights.ENABLED });
    this.logGroup = new logs.LogGroup(scope, 'CaptureLogs', {
      retention: props.logRetention ?? D.logRetention,
      removalPolicy: props.removalPolicy,
    });
    const arch = props.cpuArchitecture ?? ecs.CpuArchitecture.X86_64;
    this.taskDefinition = new ecs.FargateTaskDefinition(scope, 'TaskDefinition', {
      cpu: props.cpu ?? D.cpu,
      memoryLimitMiB: props.memoryLimitMiB ?? D.memoryLimitMiB,
      runtimePlatform: { cpuArchitecture: arch, operatingSystemFamily: ecs.OperatingSystemFamily.LINUX },
    });
    const metricsPort = props.metricsPort ?? D.metricsPort;
    const endpoint = databaseEndpoint(db, props.source.kind === 'vitess' ? VTGATE_PORT : D.databasePort);

    this.container = this.taskDefinition.addContainer('capture', {
      image:
        props.image ??
        ecs.ContainerImage.fromAsset(REPO_ROOT, {
          platform: arch === ecs.CpuArchitecture.ARM64 ? Platform.LINUX_ARM64 : Platform.LINUX_AMD64,
        }),
      command: ['run'],
      environment: captureEnvironment(this.connectorProperties(props, endpoint, metricsPort)),
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
    this.securityGroup = new ec2.SecurityGroup(scope, 'TaskSecurityGroup', {
      vpc: props.vpc,
      description: `serverless-cdc ${props.connectorName} capture task`,
      allowAllOutbound: true,
    });
    this.service = new ecs.FargateService(scope, 'Service', {
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
    grantCapture(this.taskDefinition.taskRole, db, props.stream, props.tables);
    props.claimCheck?.grantWrite(this.taskDefinition.taskRole);
    if (props.notificationStream) {
      props.notificationStream.grant(this.taskDefinition.taskRole, 'kinesis:PutRecord');
      props.notificationStream.encryptionKey?.grant(this.taskDefinition.taskRole, 'kms:GenerateDataKey');
    }
    props.signals?.grantRead(this.taskDefinition.taskRole);
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

  /** The connector configuration of the task, by catalog property name (later entries win). */
  private connectorProperties(
    props: CdcCaptureServiceProps,
    endpoint: { host: string; port: string },
    metricsPort: number,
  ): Record<string, string> {
    const D = CDC_PIPELINE_DEFAULTS;
    const db = props.database;
    const source = props.source;
    const p: Record<string, string> = { ...props.properties };
    p.name = props.connectorName;
    p['topic.prefix'] = props.topicPrefix;
    p['database.hostname'] = endpoint.host;
    p['database.port'] = endpoint.port;
    if (source.kind === 'vitess') {
      p['connector.class'] = 'io.debezium.connector.vitess.VitessConnector';
      p['vitess.keyspace'] = source.keyspace;
      if (source.shards) p['vitess.shard'] = source.shards.join(',');
      if (source.tabletType) p['vitess.tablet.type'] = source.tabletType;
    } else p['database.ssl.mode'] = db.sslMode ?? D.sslMode;
    p['sink.type'] = 'kinesis';
    p['sink.kinesis.stream.name'] = props.stream.streamName;
    p['sink.kinesis.payload'] = props.changeStreamLayout;
    p['offset.storage'] = 'dynamodb';
    p['offset.storage.dynamodb.table'] = props.tables.offsets.tableName;
    p['schema.history.internal'] = 'dynamodb';
    p['schema.history.internal.dynamodb.table'] = props.tables.schemaHistory.tableName;
    p['lease.enabled'] = 'true';
    p['lease.dynamodb.table'] = props.tables.lease.tableName;
    p['metrics.emf.enabled'] = 'true';
    p['metrics.http.port'] = String(metricsPort);
    p['log.format'] = 'json';
    p['aws.region'] = Stack.of(this.scope).region;
    if (props.claimCheck) Object.assign(p, props.claimCheck.connectorProperties());
    if (props.notificationStream) {
      const channels = (p['notification.enabled.channels'] ?? 'log')
        .split(',')
        .map((c) => c.trim())
        .filter(Boolean);
      p['notification.enabled.channels'] = [...new Set([...channels, 'kinesis'])].join(',');
      p['notification.kinesis.stream.name'] = props.notificationStream.streamName;
    }
    if (props.signals) Object.assign(p, props.signals.connectorProperties(p['signal.enabled.channels']));
    // The task reads the secret itself (not as ECS secrets) so it can read it again after a rotation: on an
    // access-denied error it re-reads the secret once and reconnects, without a restart.
    if (db.iamAuth) {
      // Signs in as iamAuthUser with 15-minute IAM tokens (TLS required): no password anywhere.
      p['database.iam.authentication'] = 'true';
      p['database.user'] = db.iamAuthUser ?? D.iamAuthUser;
    } else p['database.secret.arn'] = db.secret.secretArn;
    return p;
  }
}

function databaseEndpoint(db: CdcDatabaseProps, defaultPort: number): { host: string; port: string } {
  if (db.cluster) return { host: db.cluster.clusterEndpoint.hostname, port: String(db.cluster.clusterEndpoint.port) };
  if (db.instance) return { host: db.instance.dbInstanceEndpointAddress, port: db.instance.dbInstanceEndpointPort };
  return { host: db.host!, port: String(db.port ?? defaultPort) };
}

/** Exactly the calls the task makes (see src/sinks/kinesis, src/stores/dynamodb). */
function grantCapture(role: iam.IRole, db: CdcDatabaseProps, stream: kinesis.IStream, tables: CdcStateTables): void {
  stream.grant(role, 'kinesis:PutRecord', 'kinesis:PutRecords', 'kinesis:ListShards', 'kinesis:DescribeStreamSummary');
  stream.encryptionKey?.grant(role, 'kms:GenerateDataKey');
  tables.offsets.grant(role, 'dynamodb:GetItem', 'dynamodb:UpdateItem');
  tables.schemaHistory.grant(role, 'dynamodb:Query', 'dynamodb:GetItem', 'dynamodb:PutItem');
  tables.lease.grant(role, 'dynamodb:UpdateItem');
  if (!db.iamAuth) db.secret.grantRead(role);
  if (db.iamAuth) {
    const user = db.iamAuthUser ?? CDC_PIPELINE_DEFAULTS.iamAuthUser;
    if (db.cluster) db.cluster.grantConnect(role, user);
    else if (db.instance) db.instance.grantConnect(role, user);
    else throw new Error('CdcPipeline: database.iamAuth needs database.cluster or database.instance');
  }
}
