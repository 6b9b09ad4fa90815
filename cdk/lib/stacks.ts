/**
 * Deployable stacks around CdcPipeline: one for an existing database (configured by context), one demo that also
 * creates an Aurora Serverless v2 MySQL cluster with the binlog settings CDC needs.
 */
import {
  CfnOutput,
  Duration,
  aws_ec2 as ec2,
  aws_ecs as ecs,
  RemovalPolicy,
  aws_rds as rds,
  Stack,
  type StackProps,
  aws_secretsmanager as secretsmanager,
  Validations,
} from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { type CdcAlarmProps, CdcPipeline, type CdcPipelineProps, type ChangeStreamLayout } from './cdc-pipeline.js';

/** Consumer settings passed through to CdcPipeline. */
export type ConsumerOverrides = Pick<CdcPipelineProps, 'transformRouter' | 'materializer'>;

/** Where the capture image comes from: `asset` builds the repository's Dockerfile at deploy; else an image URI. */
export type ImageSource = 'asset' | string;

export function containerImage(source: ImageSource | undefined): ecs.ContainerImage | undefined {
  return !source || source === 'asset' ? undefined : ecs.ContainerImage.fromRegistry(source);
}

/** The parameters Aurora MySQL 3 needs for CDC (cluster parameter group). */
export const AURORA_BINLOG_PARAMETERS: Readonly<Record<string, string>> = {
  binlog_format: 'ROW',
  binlog_row_image: 'FULL',
  binlog_row_metadata: 'FULL',
  'gtid-mode': 'ON',
  enforce_gtid_consistency: 'ON',
};

export interface CdcPipelineStackProps extends StackProps, ConsumerOverrides {
  /** Existing VPC (looked up). */
  readonly vpcId: string;
  /** Secrets Manager secret (RDS layout) with the CDC user's credentials. */
  readonly databaseSecretArn: string;
  /** Writer endpoint of the source database. */
  readonly databaseHost: string;
  /** @default 3306 */
  readonly databasePort?: number;
  /** Security group of the database: ingress from the task is added. @default - none added */
  readonly databaseSecurityGroupId?: string;
  /** @default 'cdc' */
  readonly connectorName?: string;
  /** @default 'asset' */
  readonly image?: ImageSource;
  /** Extra connector properties. @default {} */
  readonly properties?: Record<string, string>;
  /** The change stream's record layout (`CdcPipelineProps.changeStreamLayout`). @default 'record' */
  readonly changeStreamLayout?: ChangeStreamLayout;
  /** Provisioned shards. @default - on-demand */
  readonly shardCount?: number;
  /** @default - no subscription */
  readonly alarmEmail?: string;
  /** An S3 claim-check bucket for records over the stream's limit (docs/large-records.md). @default false */
  readonly claimCheck?: boolean;
  /** A Kinesis stream for ad-hoc snapshot signals (docs/snapshots.md "Signals"). @default false */
  readonly signals?: boolean;
}

/** Secrets Manager complete ARNs end in `-` + 6 characters; partial ones (from the name) do not. */
export function importSecret(scope: Construct, id: string, arn: string): secretsmanager.ISecret {
  return /-[A-Za-z0-9]{6}$/.test(arn)
    ? secretsmanager.Secret.fromSecretCompleteArn(scope, id, arn)
    : secretsmanager.Secret.fromSecretPartialArn(scope, id, arn);
}

/** Capture from an existing database. */
export class CdcPipelineStack extends Stack {
  readonly pipeline: CdcPipeline;

  constructor(scope: Construct, id: string, props: CdcPipelineStackProps) {
    super(scope, id, props);
    const vpc = ec2.Vpc.fromLookup(this, 'Vpc', { vpcId: props.vpcId });
    const alarms: CdcAlarmProps = props.alarmEmail ? { email: props.alarmEmail } : {};
    this.pipeline = new CdcPipeline(this, 'Pipeline', {
      vpc,
      ...(props.connectorName ? { connectorName: props.connectorName } : {}),
      database: {
        host: props.databaseHost,
        ...(props.databasePort ? { port: props.databasePort } : {}),
        secret: importSecret(this, 'DatabaseSecret', props.databaseSecretArn),
        ...(props.databaseSecurityGroupId
          ? {
              securityGroup: ec2.SecurityGroup.fromSecurityGroupId(this, 'DatabaseSg', props.databaseSecurityGroupId, {
                mutable: true,
              }),
            }
          : {}),
      },
      ...optionalImage(props.image),
      ...(props.properties ? { properties: props.properties } : {}),
      ...(props.changeStreamLayout ? { changeStreamLayout: props.changeStreamLayout } : {}),
      ...(props.shardCount !== undefined ? { stream: { shardCount: props.shardCount } } : {}),
      ...(props.claimCheck ? { claimCheck: {} } : {}),
      ...(props.signals ? { signals: {} } : {}),
      alarms,
      ...consumers(props),
    });
    outputs(this, this.pipeline);
  }
}

export interface CdcDemoStackProps extends StackProps, ConsumerOverrides {
  /** @default 'demo' */
  readonly connectorName?: string;
  /** @default 'asset' */
  readonly image?: ImageSource;
  /** @default - no subscription */
  readonly alarmEmail?: string;
}

/**
 * A self-contained demo: VPC, Aurora Serverless v2 MySQL with binlog parameters, and the pipeline. Everything is
 * destroyed with the stack (the pipeline's tables keep deletion protection; disable it before `cdk destroy`).
 */
export class CdcDemoStack extends Stack {
  readonly vpc: ec2.Vpc;
  readonly database: rds.DatabaseCluster;
  readonly parameterGroup: rds.ParameterGroup;
  readonly pipeline: CdcPipeline;

  constructor(scope: Construct, id: string, props: CdcDemoStackProps = {}) {
    super(scope, id, props);
    this.vpc = new ec2.Vpc(this, 'Vpc', {
      maxAzs: 2,
      natGateways: 1,
      subnetConfiguration: [
        { name: 'public', subnetType: ec2.SubnetType.PUBLIC },
        { name: 'private', subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS },
        { name: 'database', subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
      ],
      flowLogs: { rejected: { trafficType: ec2.FlowLogTrafficType.REJECT } },
    });
    const engine = rds.DatabaseClusterEngine.auroraMysql({ version: rds.AuroraMysqlEngineVersion.VER_3_10_3 });
    this.parameterGroup = new rds.ParameterGroup(this, 'BinlogParameters', {
      engine,
      description: 'serverless-cdc: row-based binlog with full images and metadata, GTIDs',
      parameters: { ...AURORA_BINLOG_PARAMETERS },
    });
    this.database = new rds.DatabaseCluster(this, 'Database', {
      engine,
      parameterGroup: this.parameterGroup,
      credentials: rds.Credentials.fromGeneratedSecret('cdcadmin'),
      writer: rds.ClusterInstance.serverlessV2('writer'),
      serverlessV2MinCapacity: 0.5,
      serverlessV2MaxCapacity: 2,
      vpc: this.vpc,
      vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
      storageEncrypted: true,
      iamAuthentication: true,
      backup: { retention: Duration.days(1) },
      cloudwatchLogsExports: ['error'],
      removalPolicy: RemovalPolicy.DESTROY,
      deletionProtection: false,
    });
    this.pipeline = new CdcPipeline(this, 'Pipeline', {
      vpc: this.vpc,
      connectorName: props.connectorName ?? 'demo',
      database: { cluster: this.database, secret: this.database.secret! },
      ...optionalImage(props.image),
      removalPolicy: RemovalPolicy.DESTROY,
      alarms: props.alarmEmail ? { email: props.alarmEmail } : {},
      ...consumers(props),
    });
    Validations.of(this.database).acknowledge(
      { id: 'AwsSolutions-RDS10', reason: 'Demo database: destroyed with the stack on purpose.' },
      {
        id: 'AwsSolutions-RDS11',
        reason: 'Demo database: the default port is fine inside a private, isolated subnet.',
      },
      {
        id: 'AwsSolutions-RDS14',
        reason: 'Backtrack is not needed by the demo (point-in-time restore from backups is).',
      },
    );
    Validations.of(this.database.node.findChild('Secret')).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Demo admin secret: rotation would need a rotation Lambda in the VPC; production stacks bring their own rotated CDC secret.',
    });
    outputs(this, this.pipeline);
    new CfnOutput(this, 'DatabaseEndpoint', { value: this.database.clusterEndpoint.hostname });
    new CfnOutput(this, 'DatabaseSecretArn', { value: this.database.secret!.secretArn });
  }
}

function optionalImage(source: ImageSource | undefined): Pick<CdcPipelineProps, 'image'> {
  const image = containerImage(source);
  return image ? { image } : {};
}

function consumers(p: ConsumerOverrides): ConsumerOverrides {
  return {
    ...(p.transformRouter !== undefined ? { transformRouter: p.transformRouter } : {}),
    ...(p.materializer !== undefined ? { materializer: p.materializer } : {}),
  };
}

function outputs(stack: Stack, p: CdcPipeline): void {
  new CfnOutput(stack, 'StreamName', { value: p.stream.streamName });
  new CfnOutput(stack, 'ServiceName', { value: p.service.serviceName });
  new CfnOutput(stack, 'LogGroup', { value: p.logGroup.logGroupName });
  if (p.dashboard) new CfnOutput(stack, 'Dashboard', { value: p.dashboard.dashboardName });
}
