/**
 * CdcPipeline on one synthesised template (bundling and CloudFormation validation skipped; the full synth with
 * Lambda bundling is in app-synth.test.ts). Metric names are compared with the constants the task emits.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import {
  App,
  Duration,
  aws_ec2 as ec2,
  aws_ecs as ecs,
  aws_kinesis as kinesis,
  Stack,
  aws_secretsmanager as secretsmanager,
  aws_sns as sns,
} from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { CdcPipeline, REPO_ROOT } from '../../../cdk/lib/cdc-pipeline.js';
import { materializerFromEnv } from '../../../lambdas/materializer.js';
import { transformRouterFromEnv } from '../../../lambdas/transform-router.js';
import { loadConfig } from '../../../src/config/index.js';
import { findProperty } from '../../../src/config/properties.js';
import { envName, envToConfig } from '../../../src/config/sources.js';
import {
  ALL_METRIC_NAMES,
  CONNECTOR_DIMENSION,
  CONSUMER_METRIC_NAMES,
  METRICS_NAMESPACE,
  RetentionMetric,
  SnapshotMetric,
  StreamingMetric,
} from '../../../src/metrics/names.js';

process.env.CDK_VALIDATION = 'false';
const ENTRY = join(REPO_ROOT, 'test/unit/cdk/fixture-handler.ts');
const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:cdc-db-AbCdEf';
const env = { account: '123456789012', region: 'eu-west-1' };

type Json = Record<string, unknown>;
type Resource = { Type: string; Properties: Json };

function newStack(): { app: App; stack: Stack; vpc: ec2.Vpc; secret: secretsmanager.ISecret } {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Test', { env });
  const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1, flowLogs: { all: {} } });
  const secret = secretsmanager.Secret.fromSecretCompleteArn(stack, 'Secret', SECRET_ARN);
  return { app, stack, vpc, secret };
}

let stack: Stack;
let app: App;
let pipeline: CdcPipeline;
let template: Template;
let resources: Record<string, Resource>;
const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);

before(() => {
  const s = newStack();
  ({ app, stack } = s);
  const dbSg = new ec2.SecurityGroup(stack, 'DbSg', { vpc: s.vpc });
  pipeline = new CdcPipeline(stack, 'Cdc', {
    vpc: s.vpc,
    connectorName: 'orders',
    database: { host: 'writer.example.internal', port: 3307, securityGroup: dbSg, secret: s.secret },
    properties: { 'table.include.list': 'shop.orders' },
    image: ecs.ContainerImage.fromRegistry('public.ecr.aws/example/cdc:latest'),
    transformRouter: { entry: ENTRY },
    materializer: { entry: ENTRY, batchSize: 50 },
  });
  template = Template.fromStack(stack);
  resources = template.toJSON().Resources;
});

describe('stateful resources', () => {
  test('Kinesis stream: on-demand, KMS customer key, 24 h retention', () => {
    // The change stream and the transform router's output stream.
    template.resourceCountIs('AWS::Kinesis::Stream', 2);
    template.allResourcesProperties('AWS::Kinesis::Stream', {
      StreamModeDetails: { StreamMode: 'ON_DEMAND' },
      RetentionPeriodHours: 24,
      StreamEncryption: { EncryptionType: 'KMS', KeyId: { 'Fn::GetAtt': [Match.stringLikeRegexp('CdcKey'), 'Arn'] } },
    });
    template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
    template.hasResource('AWS::Kinesis::Stream', { DeletionPolicy: 'Retain' });
  });

  test('DynamoDB tables match the stores key schemas, on-demand, PITR, deletion protection', () => {
    const tables = ofType('AWS::DynamoDB::Table').map(([, r]) => r.Properties);
    assert.equal(tables.length, 3);
    const keys = tables.map((t) => JSON.stringify([t.KeySchema, t.AttributeDefinitions])).sort();
    const expected = [
      [[{ AttributeName: 'connector', KeyType: 'HASH' }], [{ AttributeName: 'connector', AttributeType: 'S' }]],
      [
        [
          { AttributeName: 'connector', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        [
          { AttributeName: 'connector', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
        ],
      ],
      [[{ AttributeName: 'lease', KeyType: 'HASH' }], [{ AttributeName: 'lease', AttributeType: 'S' }]],
    ];
    assert.deepEqual(keys, expected.map((k) => JSON.stringify(k)).sort());
    for (const t of tables) {
      assert.equal(t.BillingMode, 'PAY_PER_REQUEST');
      assert.deepEqual(t.PointInTimeRecoverySpecification, { PointInTimeRecoveryEnabled: true });
      assert.equal(t.DeletionProtectionEnabled, true);
      assert.deepEqual(t.SSESpecification, { SSEEnabled: true });
    }
  });

  test('provisioned mode with a shard count; existing stream plus stream settings is an error', () => {
    const s = newStack();
    new CdcPipeline(s.stack, 'P', {
      vpc: s.vpc,
      database: { host: 'h', secret: s.secret },
      image: ecs.ContainerImage.fromRegistry('x'),
      stream: { shardCount: 4, retention: Duration.days(7) },
      transformRouter: false,
      materializer: false,
      alarms: false,
      dashboard: false,
    });
    const t = Template.fromStack(s.stack);
    t.hasResourceProperties('AWS::Kinesis::Stream', {
      StreamModeDetails: { StreamMode: 'PROVISIONED' },
      ShardCount: 4,
      RetentionPeriodHours: 168,
    });
    t.resourceCountIs('AWS::Lambda::Function', 0);
    t.resourceCountIs('AWS::CloudWatch::Alarm', 0);
    const s2 = newStack();
    const existing = kinesis.Stream.fromStreamArn(s2.stack, 'S', 'arn:aws:kinesis:eu-west-1:123456789012:stream/x');
    assert.throws(
      () =>
        new CdcPipeline(s2.stack, 'P', {
          vpc: s2.vpc,
          database: { host: 'h', secret: s2.secret },
          stream: { stream: existing, shardCount: 2 },
        }),
      /existing stream/,
    );
    assert.throws(
      () => new CdcPipeline(s2.stack, 'Q', { vpc: s2.vpc, database: { secret: s2.secret } }),
      /exactly one of database.cluster, database.instance, database.host/,
    );
    assert.throws(
      () =>
        new CdcPipeline(s2.stack, 'R', {
          vpc: s2.vpc,
          database: { host: 'h', secret: s2.secret },
          alarms: { topic: new sns.Topic(s2.stack, 'T'), email: 'ops@example.com' },
          transformRouter: false,
          materializer: false,
        }),
      /alarms.email subscribes a created topic/,
    );
  });
});

describe('capture service', () => {
  test('one Fargate task, no overlap on deploy, private subnets, circuit breaker', () => {
    template.hasResourceProperties('AWS::ECS::Service', {
      DesiredCount: 1,
      LaunchType: 'FARGATE',
      DeploymentConfiguration: {
        MinimumHealthyPercent: 0,
        MaximumPercent: 100,
        DeploymentCircuitBreaker: { Enable: true, Rollback: true },
      },
      NetworkConfiguration: {
        AwsvpcConfiguration: {
          AssignPublicIp: 'DISABLED',
          Subnets: [
            { Ref: Match.stringLikeRegexp('VpcPrivateSubnet1') },
            { Ref: Match.stringLikeRegexp('VpcPrivateSubnet2') },
          ],
        },
      },
    });
    template.hasResourceProperties('AWS::ECS::Cluster', {
      ClusterSettings: [{ Name: 'containerInsights', Value: 'enabled' }],
    });
    template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
  });

  test('container: run command, the secret ARN (read by the task, re-read on rotation), /health check, CPU and memory', () => {
    const [[, td]] = ofType('AWS::ECS::TaskDefinition');
    assert.equal(td.Properties.Cpu, '512');
    assert.equal(td.Properties.Memory, '1024');
    const [c] = td.Properties.ContainerDefinitions as Json[];
    assert.deepEqual(c.Command, ['run']);
    assert.equal(c.Secrets, undefined, 'no credentials in the task definition');
    const env = c.Environment as Array<{ Name: string; Value: unknown }>;
    assert.deepEqual(
      env.find((e) => e.Name === 'CDC_DATABASE_SECRET_ARN'),
      { Name: 'CDC_DATABASE_SECRET_ARN', Value: SECRET_ARN },
    );
    const hc = c.HealthCheck as { Command: string[]; StartPeriod: number };
    assert.equal(hc.Command[0], 'CMD-SHELL');
    assert.match(hc.Command[1], /fetch\('http:\/\/127\.0\.0\.1:8080\/health'\)/);
    assert.equal(hc.StartPeriod, 120);
    assert.equal((c.LogConfiguration as Json).LogDriver, 'awslogs');
  });

  test('the container environment is a valid connector configuration for the app', () => {
    const [[, td]] = ofType('AWS::ECS::TaskDefinition');
    const [c] = td.Properties.ContainerDefinitions as Json[];
    const vars: Record<string, string> = {};
    for (const { Name, Value } of c.Environment as Array<{ Name: string; Value: unknown }>)
      vars[Name] = typeof Value === 'string' ? Value : `resolved-${Name.toLowerCase().replace(/_/g, '-')}`;
    const config = loadConfig({ env: vars });
    assert.equal(config.name, 'orders');
    assert.equal(config.database.hostname, 'writer.example.internal');
    assert.equal(config.database.port, 3307);
    assert.equal(config.database.ssl.mode, 'required');
    assert.equal(config.sink.type, 'kinesis');
    assert.equal(config.offsets.type, 'dynamodb');
    assert.equal(config.schemaHistory.type, 'dynamodb');
    assert.equal(config.lease.enabled, true);
    assert.equal(config.metrics.emfEnabled, true);
    assert.equal(config.metrics.httpPort, 8080);
    assert.equal(config.raw['table.include.list'], 'shop.orders');
  });

  test('every CDC_ variable of the container is one the config loader reads, under the catalog name', () => {
    const [[, td]] = ofType('AWS::ECS::TaskDefinition');
    const [c] = td.Properties.ContainerDefinitions as Json[];
    const vars: Record<string, string> = {};
    for (const { Name, Value } of c.Environment as Array<{ Name: string; Value: unknown }>)
      vars[Name] = typeof Value === 'string' ? Value : 'resolved';
    const names = Object.keys(vars);
    assert.ok(names.length >= 15 && names.every((n) => n.startsWith('CDC_')), names.join(' '));
    const { values, problems } = envToConfig(vars);
    assert.deepEqual(problems, []);
    const keys = Object.keys(values);
    assert.equal(keys.length, names.length, 'one property per variable');
    for (const key of keys) assert.ok(findProperty(key), `${key} is in the catalog`);
    assert.deepEqual(keys.map(envName).sort(), names.sort());
  });

  test('a property the catalog does not know, or one that cannot travel as a variable, fails the synth', () => {
    const s = newStack();
    const make = (id: string, properties: Record<string, string>) =>
      new CdcPipeline(s.stack, id, {
        vpc: s.vpc,
        database: { host: 'h', secret: s.secret },
        image: ecs.ContainerImage.fromRegistry('x'),
        properties,
        transformRouter: false,
        materializer: false,
      });
    assert.throws(
      () => make('A', { 'table.include.lst': 'x' }),
      /properties\['table.include.lst'\] is not a connector property/,
    );
    // A Kafka producer setting with a dash would read back with a dot (sink.kafka.client.id).
    assert.throws(
      () => make('B', { 'sink.kafka.client-id': 'x' }),
      /CDC_SINK_KAFKA_CLIENT_ID reads back as another property/,
    );
    make('C', { 'sink.kafka.client.id': 'x', transforms: 'unwrap', 'transforms.unwrap.type': 'x' });
  });

  test('source kind vitess: the environment is a Vitess connector configuration on VTGate (port 15991)', () => {
    const s = newStack();
    const vtgateSg = new ec2.SecurityGroup(s.stack, 'VtgateSg', { vpc: s.vpc });
    new CdcPipeline(s.stack, 'Vt', {
      vpc: s.vpc,
      connectorName: 'vt',
      database: { host: 'vtgate.example.internal', securityGroup: vtgateSg, secret: s.secret },
      source: { kind: 'vitess', keyspace: 'commerce', shards: ['-80', '80-'], tabletType: 'REPLICA' },
      image: ecs.ContainerImage.fromRegistry('public.ecr.aws/example/cdc:latest'),
      transformRouter: false,
      materializer: false,
    });
    const t = Template.fromStack(s.stack);
    const tds = Object.values(t.toJSON().Resources as Record<string, Resource>).filter(
      (r) => r.Type === 'AWS::ECS::TaskDefinition',
    );
    const [c] = tds[0].Properties.ContainerDefinitions as Json[];
    const vars: Record<string, string> = {};
    for (const { Name, Value } of c.Environment as Array<{ Name: string; Value: unknown }>)
      vars[Name] = typeof Value === 'string' ? Value : `resolved-${Name.toLowerCase().replace(/_/g, '-')}`;
    const config = loadConfig({ env: vars });
    assert.equal(config.vitess?.keyspace, 'commerce');
    assert.deepEqual(config.vitess?.shards, ['-80', '80-']);
    assert.equal(config.vitess?.tabletType, 'REPLICA');
    assert.equal(config.database.hostname, 'vtgate.example.internal');
    assert.equal(config.database.port, 15991);
    t.hasResourceProperties('AWS::EC2::SecurityGroupIngress', { IpProtocol: 'tcp', FromPort: 15991, ToPort: 15991 });
    assert.throws(
      () =>
        new CdcPipeline(newStack().stack, 'Bad', {
          vpc: s.vpc,
          database: { host: 'h', secret: s.secret, iamAuth: true },
          source: { kind: 'vitess', keyspace: 'k' },
        }),
      /source.kind 'vitess' needs database.host \(VTGate\)/,
    );
  });

  test('database security group admits the task on the database port', () => {
    template.hasResourceProperties('AWS::EC2::SecurityGroupIngress', {
      IpProtocol: 'tcp',
      FromPort: 3307,
      ToPort: 3307,
      SourceSecurityGroupId: { 'Fn::GetAtt': [Match.stringLikeRegexp('CdcTaskSecurityGroup'), 'GroupId'] },
    });
  });
});

describe('consumers', () => {
  test('Kinesis event source mappings: batch size, bisect, retries, partial batch responses, SQS on-failure', () => {
    const esms = ofType('AWS::Lambda::EventSourceMapping').map(([, r]) => r.Properties);
    assert.equal(esms.length, 2);
    for (const e of esms) {
      assert.equal(e.BisectBatchOnFunctionError, true);
      assert.equal(e.MaximumRetryAttempts, 3);
      assert.deepEqual(e.FunctionResponseTypes, ['ReportBatchItemFailures']);
      assert.equal(e.StartingPosition, 'TRIM_HORIZON');
      // Both consume the change stream (the materialiser needs Debezium envelopes).
      assert.deepEqual(e.EventSourceArn, { 'Fn::GetAtt': [streamId('CdcStream'), 'Arn'] });
      const dest = (e.DestinationConfig as { OnFailure: { Destination: { 'Fn::GetAtt': [string, string] } } })
        .OnFailure;
      assert.equal(resources[dest.Destination['Fn::GetAtt'][0]].Type, 'AWS::SQS::Queue');
    }
    assert.deepEqual(esms.map((e) => e.BatchSize).sort(), [100, 50]);
    template.hasResourceProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true, MessageRetentionPeriod: 1209600 });
    template.hasResourceProperties('AWS::Lambda::Function', { Runtime: 'nodejs24.x', Architectures: ['arm64'] });
  });

  test('materialiser: table name template, record DLQ, DynamoDB writes scoped to the template', () => {
    const [[, m]] = ofType('AWS::Lambda::Function').filter(([id]) => id.startsWith('CdcMaterializer'));
    const vars = (m.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    assert.equal(vars.CDC_TABLE_NAME_TEMPLATE, '{db}.{table}');
    assert.equal(resources[(vars.CDC_DLQ_URL as { Ref: string }).Ref].Type, 'AWS::SQS::Queue');
    const roleId = (m.Properties.Role as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0];
    const policy = JSON.stringify(
      ofType('AWS::IAM::Policy').filter(([, r]) => JSON.stringify(r.Properties.Roles).includes(roleId)),
    );
    assert.match(policy, /"Action":\["dynamodb:GetItem","dynamodb:PutItem"\].*?:table\/\*\.\*"/);
  });

  test('transform router: output stream, record DLQ and their grants', () => {
    const [[, router]] = ofType('AWS::Lambda::Function').filter(([id]) => id.startsWith('CdcTransformRouter'));
    const vars = (router.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    assert.deepEqual(vars.CDC_OUTPUT_STREAM, { Ref: streamId('CdcRoutedStream') });
    assert.equal(resources[(vars.CDC_DLQ_URL as { Ref: string }).Ref].Type, 'AWS::SQS::Queue');
    assert.equal(vars.CDC_CONNECTOR_NAME, 'orders');
    const roleId = ((router.Properties.Role as { 'Fn::GetAtt': string[] })['Fn::GetAtt'] ?? [])[0];
    const policy = JSON.stringify(
      ofType('AWS::IAM::Policy').filter(([, r]) => JSON.stringify(r.Properties.Roles).includes(roleId)),
    );
    assert.match(policy, new RegExp(`"kinesis:PutRecords".*?"${streamId('CdcRoutedStream')}","Arn"`));
    assert.match(policy, /sqs:SendMessage/);
  });
});

test('every CDC_ variable CdcPipeline sets on a consumer is one its handler reads', () => {
  const readers: Record<string, (env: Record<string, string | undefined>) => unknown> = {
    CdcTransformRouter: transformRouterFromEnv,
    CdcMaterializer: materializerFromEnv,
  };
  for (const [prefix, fromEnv] of Object.entries(readers)) {
    const [[, fn]] = ofType('AWS::Lambda::Function').filter(([id]) => id.startsWith(prefix));
    const vars = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    const set = Object.keys(vars);
    const read = new Set<string>();
    // Direct reads only: no keys to enumerate, so a reader that scans the environment sees nothing. Values the
    // template resolves are passed as they are (an enum such as CDC_INPUT_FORMAT must parse).
    const env = new Proxy({} as Record<string, string | undefined>, {
      get: (_t, name) => {
        if (typeof name === 'string') read.add(name);
        if (typeof name !== 'string' || !set.includes(name)) return undefined;
        return typeof vars[name] === 'string' ? (vars[name] as string) : 'value-1';
      },
      ownKeys: () => [],
    });
    fromEnv(env);
    const own = set.filter((n) => n.startsWith('CDC_'));
    assert.ok(own.length >= 3, `${prefix}: ${set.join(' ')}`);
    for (const name of own) assert.ok(read.has(name), `${prefix} sets ${name}, which its handler never reads`);
    // The rest belong to the runtime and Powertools, which read process.env themselves.
    for (const name of set.filter((n) => !n.startsWith('CDC_')))
      assert.ok(['POWERTOOLS_SERVICE_NAME', 'NODE_OPTIONS'].includes(name), `${prefix} sets ${name}`);
  }
});

function streamId(prefix: string): string {
  const ids = Object.keys(resources).filter(
    (k) => resources[k].Type === 'AWS::Kinesis::Stream' && new RegExp(`^${prefix}[0-9A-F]{8}$`).test(k),
  );
  assert.equal(ids.length, 1);
  return ids[0];
}

describe('IAM', () => {
  const policies = () =>
    ofType('AWS::IAM::Policy').map(([id, r]) => ({
      id,
      statements: (
        r.Properties.PolicyDocument as { Statement: Array<{ Action: string | string[]; Resource: unknown }> }
      ).Statement,
    }));

  test("no Resource '*' except the actions AWS only grants on '*'", () => {
    const allowedOnStar = new Set(['ecr:GetAuthorizationToken']);
    for (const p of policies())
      for (const st of p.statements) {
        const res = Array.isArray(st.Resource) ? st.Resource : [st.Resource];
        if (res.includes('*')) {
          const actions = Array.isArray(st.Action) ? st.Action : [st.Action];
          for (const a of actions) assert.ok(allowedOnStar.has(a), `${p.id}: ${a} on '*'`);
        }
      }
  });

  test('task role: exactly the calls the app makes, on the stream, tables and database secret only', () => {
    const roleId = Object.keys(resources).find((k) => /CdcTaskDefinitionTaskRole[0-9A-F]{8}$/.test(k))!;
    const policy = ofType('AWS::IAM::Policy').find(([, r]) => JSON.stringify(r.Properties.Roles).includes(roleId))![1];
    const statements = (
      policy.Properties.PolicyDocument as { Statement: Array<{ Action: string[]; Resource: unknown }> }
    ).Statement;
    const byAction = new Map<string, string>();
    for (const st of statements) {
      const actions = Array.isArray(st.Action) ? st.Action : [st.Action];
      for (const a of actions) byAction.set(a, JSON.stringify(st.Resource));
    }
    assert.deepEqual([...byAction.keys()].sort(), [
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
      'kinesis:DescribeStreamSummary',
      'kinesis:ListShards',
      'kinesis:PutRecord',
      'kinesis:PutRecords',
      'kms:GenerateDataKey',
      'secretsmanager:DescribeSecret',
      'secretsmanager:GetSecretValue',
    ]);
    assert.equal(byAction.get('secretsmanager:GetSecretValue'), JSON.stringify(SECRET_ARN));
    assert.match(byAction.get('kinesis:PutRecords')!, /CdcStream[0-9A-F]{8}","Arn"/);
    assert.match(byAction.get('kms:GenerateDataKey')!, /CdcKey[0-9A-F]{8}","Arn"/);
    assert.match(byAction.get('dynamodb:Query')!, /CdcSchemaHistoryTable/);
  });

  test('notificationStream: the kinesis notification channel is configured and may PutRecord on that stream only', () => {
    const s = newStack();
    const notes = new kinesis.Stream(s.stack, 'Notes', { encryption: kinesis.StreamEncryption.MANAGED });
    new CdcPipeline(s.stack, 'P', {
      vpc: s.vpc,
      database: { host: 'h', secret: s.secret },
      image: ecs.ContainerImage.fromRegistry('x'),
      properties: { 'notification.enabled.channels': 'log,sink', 'notification.sink.topic.name': 'cdc.notes' },
      notificationStream: notes,
      transformRouter: false,
      materializer: false,
      alarms: false,
      dashboard: false,
    });
    const t = Template.fromStack(s.stack);
    const res = t.toJSON().Resources as Record<string, Resource>;
    const [td] = Object.values(res).filter((r) => r.Type === 'AWS::ECS::TaskDefinition');
    const [c] = td!.Properties.ContainerDefinitions as Json[];
    const vars: Record<string, string> = {};
    for (const { Name, Value } of c!.Environment as Array<{ Name: string; Value: unknown }>)
      vars[Name] = typeof Value === 'string' ? Value : `resolved-${Name.toLowerCase().replace(/_/g, '-')}`;
    const config = loadConfig({ env: vars });
    assert.deepEqual(config.notifications.channels, ['log', 'sink', 'kinesis']);
    assert.equal(config.notifications.sinkTopic, 'cdc.notes');
    assert.ok(config.notifications.kinesis?.streamName);
    const notesId = Object.keys(res).find((k) => /^Notes[0-9A-F]{8}$/.test(k))!;
    const grants = Object.values(res)
      .filter((r) => r.Type === 'AWS::IAM::Policy')
      .flatMap(
        (r) => (r.Properties.PolicyDocument as { Statement: Array<{ Action: unknown; Resource: unknown }> }).Statement,
      )
      .filter((st) => JSON.stringify(st.Resource).includes(notesId));
    assert.deepEqual(
      grants.map((st) => st.Action),
      ['kinesis:PutRecord'],
    );
  });

  test('only the database secret is readable, by any role', () => {
    const secretStatements = policies()
      .flatMap((p) => p.statements)
      .filter((st) => JSON.stringify(st.Action).includes('secretsmanager:'));
    assert.ok(secretStatements.length > 0);
    for (const st of secretStatements) assert.equal(st.Resource, SECRET_ARN);
  });
});

describe('alarms and dashboard', () => {
  const alarms = () => ofType('AWS::CloudWatch::Alarm').map(([id, r]) => ({ id, ...r.Properties }) as Json);

  test('every alarm on a task metric uses a published metric name and exactly the Connector dimension', () => {
    const own = alarms().filter((a) => a.Namespace === METRICS_NAMESPACE);
    assert.deepEqual(own.map((a) => a.MetricName).sort(), [
      StreamingMetric.MilliSecondsBehindSource,
      StreamingMetric.MilliSecondsSinceLastEvent,
      RetentionMetric.RetentionRunwaySeconds,
    ]);
    for (const a of own) {
      assert.ok(ALL_METRIC_NAMES.includes(a.MetricName as never));
      assert.deepEqual(a.Dimensions, [{ Name: CONNECTOR_DIMENSION, Value: 'orders' }]);
    }
    const lag = own.find((a) => a.MetricName === StreamingMetric.MilliSecondsBehindSource)!;
    assert.equal(lag.Threshold, 300_000);
    assert.equal(lag.Statistic, 'Maximum');
    const idle = own.find((a) => a.MetricName === StreamingMetric.MilliSecondsSinceLastEvent)!;
    assert.equal(idle.Threshold, 900_000);
    assert.equal(idle.TreatMissingData, 'breaching');
    const runway = own.find((a) => a.MetricName === RetentionMetric.RetentionRunwaySeconds)!;
    assert.equal(runway.Threshold, 6 * 3600);
    assert.equal(runway.ComparisonOperator, 'LessThanThreshold');
    assert.equal(runway.Statistic, 'Minimum');
    assert.equal(runway.TreatMissingData, 'notBreaching');
  });

  test('the full alarm set, all wired to the SNS topic', () => {
    const all = alarms();
    const names = all.map((a) => (a.id as string).replace(/^Cdc/, '').replace(/[0-9A-F]{8}$/, '')).sort();
    assert.deepEqual(names, [
      'KinesisWriteThrottleAlarm',
      'LeaseTableThrottleAlarm',
      'MaterializerDlqAlarm',
      'MaterializerErrorsAlarm',
      'MaterializerIteratorAgeAlarm',
      'NoEventsAlarm',
      'OffsetsTableThrottleAlarm',
      'ReplicationLagAlarm',
      'RetentionRunwayAlarm',
      'RoutedKinesisWriteThrottleAlarm',
      'SchemaHistoryTableThrottleAlarm',
      'TaskNotRunningAlarm',
      'TransformRouterDlqAlarm',
      'TransformRouterErrorsAlarm',
      'TransformRouterIteratorAgeAlarm',
    ]);
    const topicId = ofType('AWS::SNS::Topic')[0][0];
    for (const a of all) assert.deepEqual(a.AlarmActions, [{ Ref: topicId }], a.id as string);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'ECS/ContainerInsights',
      MetricName: 'RunningTaskCount',
      ComparisonOperator: 'LessThanThreshold',
      Threshold: 1,
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Kinesis',
      MetricName: 'PutRecords.ThrottledRecords',
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { Namespace: 'AWS/Lambda', MetricName: 'IteratorAge' });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
    });
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: Match.anyValue() });
  });

  test("consumer metrics on the dashboard select this pipeline's consumer: Connector and the function's service name", () => {
    const [[, dash]] = ofType('AWS::CloudWatch::Dashboard');
    const body = JSON.parse(JSON.stringify(stack.resolve(dash.Properties.DashboardBody))) as {
      'Fn::Join': [string, unknown[]];
    };
    const text = body['Fn::Join'][1].map((x) => (typeof x === 'string' ? x : '"?"')).join('');
    const services = new Set(
      ofType('AWS::Lambda::Function').map(
        ([, f]) =>
          (f.Properties.Environment as { Variables: Record<string, string> }).Variables.POWERTOOLS_SERVICE_NAME,
      ),
    );
    const seen = [...text.matchAll(/\["ServerlessCDC","(\w+)","Connector","([^"]+)","service","([^"]+)"/g)];
    assert.ok(seen.length >= 4, text.slice(0, 400));
    for (const [, name, connector, service] of seen) {
      assert.ok(CONSUMER_METRIC_NAMES.includes(name as never), name);
      assert.equal(connector, 'orders');
      assert.ok(services.has(service), `${service} is a consumer's POWERTOOLS_SERVICE_NAME`);
    }
    assert.deepEqual(new Set(seen.map((m) => m[3])), services, 'both consumers are on the dashboard');
  });

  test('dashboard widgets reference only published metric names', () => {
    const [[, dash]] = ofType('AWS::CloudWatch::Dashboard');
    const body = JSON.stringify(stack.resolve(dash.Properties.DashboardBody));
    const used = new Set<string>();
    for (const m of body.matchAll(new RegExp(`\\\\"${METRICS_NAMESPACE}\\\\",\\\\"(\\w+)\\\\"`, 'g'))) used.add(m[1]);
    for (const name of used)
      assert.ok(ALL_METRIC_NAMES.includes(name as never) || CONSUMER_METRIC_NAMES.includes(name as never), name);
    for (const name of [
      StreamingMetric.MilliSecondsBehindSource,
      StreamingMetric.TotalNumberOfEventsSeen,
      SnapshotMetric.RowsScanned,
      SnapshotMetric.RemainingTableCount,
      StreamingMetric.QueueRemainingCapacity,
      RetentionMetric.RetentionRunwaySeconds,
    ])
      assert.ok(used.has(name), `dashboard shows ${name}`);
    assert.match(body, /PutRecords\.ThrottledRecords/);
    assert.match(body, /IteratorAge/);
  });
});

test('cdk-nag AwsSolutions: no unsuppressed errors or warnings, every acknowledgement has a reason', () => {
  const report = new AwsSolutionsChecks(app).validateScope(stack);
  assert.deepEqual(
    report.violations.map(
      (v) => `${v.severity} ${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`,
    ),
    [],
  );
  const acks = pipeline.node
    .findAll()
    .flatMap((c) => c.node.metadata.filter((m) => m.type === 'aws:cdk:acknowledged-rules'))
    .flatMap((m) => Object.entries(m.data as Record<string, string>));
  assert.ok(acks.length >= 3);
  for (const [id, reason] of acks) assert.ok(reason.length > 30, `${id} has a written reason`);
});
