/**
 * CdcPipeline with a Kinesis signal stream (docs/snapshots.md "Signals"): a one-shard stream encrypted with the
 * pipeline's key, a read-only grant for the task role (no PutRecord), connector properties that parse back, and
 * cdk-nag stays clean.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { App, aws_ec2 as ec2, aws_ecs as ecs, Stack, aws_secretsmanager as secretsmanager } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { CdcPipeline, REPO_ROOT } from '../../../cdk/lib/cdc-pipeline.js';
import { parseConfig } from '../../../src/config/index.js';
import { envName } from '../../../src/config/sources.js';

process.env.CDK_VALIDATION = 'false';
const ENTRY = join(REPO_ROOT, 'test/unit/cdk/fixture-handler.ts');
type Statement = { Effect: string; Action: string | string[]; Resource: unknown };

let app: App;
let stack: Stack;
let resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;

before(() => {
  app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  stack = new Stack(app, 'Test', { env: { account: '123456789012', region: 'eu-west-1' } });
  const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1, flowLogs: { all: {} } });
  const secret = secretsmanager.Secret.fromSecretCompleteArn(
    stack,
    'Secret',
    'arn:aws:secretsmanager:eu-west-1:123456789012:secret:cdc-db-AbCdEf',
  );
  new CdcPipeline(stack, 'Cdc', {
    vpc,
    connectorName: 'sig',
    database: { host: 'replica.example.internal', secret },
    image: ecs.ContainerImage.fromRegistry('public.ecr.aws/example/cdc:latest'),
    transformRouter: { entry: ENTRY },
    materializer: { entry: ENTRY },
    properties: { 'read.only': 'true' },
    signals: {},
  });
  resources = Template.fromStack(stack).toJSON().Resources;
});

const idOf = (re: RegExp) => {
  const id = Object.keys(resources).find((k) => re.test(k));
  assert.ok(id, `a resource matching ${re}`);
  return id;
};

test('the signal stream: one shard, KMS with the pipeline key', () => {
  const stream = resources[idOf(/^CdcSignalStream[0-9A-F]{8}$/)];
  assert.equal(stream.Type, 'AWS::Kinesis::Stream');
  assert.equal(stream.Properties.ShardCount, 1);
  assert.deepEqual(stream.Properties.StreamEncryption, {
    EncryptionType: 'KMS',
    KeyId: { 'Fn::GetAtt': [idOf(/^CdcKey[0-9A-F]{8}$/), 'Arn'] },
  });
});

test('the task role reads the signal stream and cannot write to it', () => {
  const role = idOf(/CdcTaskDefinitionTaskRole[0-9A-F]{8}$/);
  const signalStream = idOf(/^CdcSignalStream[0-9A-F]{8}$/);
  const onSignal = Object.values(resources)
    .filter((r) => r.Type === 'AWS::IAM::Policy' && JSON.stringify(r.Properties.Roles).includes(role))
    .flatMap((r) => (r.Properties.PolicyDocument as { Statement: Statement[] }).Statement)
    .filter((s) => JSON.stringify(s.Resource).includes(signalStream))
    .flatMap((s) => [s.Action].flat());
  for (const a of ['kinesis:GetRecords', 'kinesis:GetShardIterator', 'kinesis:ListShards'])
    assert.ok(onSignal.includes(a), `${a} in ${onSignal}`);
  assert.deepEqual(
    onSignal.filter((a) => /Put/.test(a)),
    [],
  );
});

test('the task is configured for it, and its properties parse back', () => {
  const task = Object.values(resources).find((r) => r.Type === 'AWS::ECS::TaskDefinition')!;
  const env = (task.Properties.ContainerDefinitions as { Environment: { Name: string; Value: unknown }[] }[])[0]
    .Environment;
  const vars = new Map(env.map((e) => [e.Name, e.Value]));
  assert.equal(vars.get(envName('signal.enabled.channels')), 'source,kinesis');
  assert.match(JSON.stringify(vars.get(envName('signal.kinesis.stream.name'))), /CdcSignalStream[0-9A-F]{8}/);
  const config = parseConfig({
    name: 'sig',
    'topic.prefix': 'sig',
    'database.hostname': 'h',
    'database.user': 'u',
    'read.only': String(vars.get(envName('read.only'))),
    'signal.enabled.channels': String(vars.get(envName('signal.enabled.channels'))),
    'signal.kinesis.stream.name': 'resolved-at-deploy',
  });
  assert.deepEqual([...config.signals.channels], ['source', 'kinesis']);
  assert.equal(config.snapshot.readOnly, true);
});

test('cdk-nag AwsSolutions: no unsuppressed findings with the signal stream', () => {
  const report = new AwsSolutionsChecks(app).validateScope(stack);
  assert.deepEqual(
    report.violations.map(
      (v) => `${v.severity} ${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`,
    ),
    [],
  );
});
