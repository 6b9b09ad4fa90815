/**
 * CdcPipeline with the S3 claim-check (docs/large-records.md): the bucket's encryption, lifecycle, TLS-only policy
 * and public access block; the task, router and materialiser get exactly their S3/KMS calls under the prefix; the
 * capture's connector properties travel as CDC_* variables and parse back; cdk-nag stays clean.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, test } from 'node:test';
import {
  App,
  Duration,
  aws_ec2 as ec2,
  aws_ecs as ecs,
  Stack,
  aws_s3 as s3,
  aws_secretsmanager as secretsmanager,
} from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { CdcPipeline, REPO_ROOT } from '../../../cdk/lib/cdc-pipeline.js';
import { envName } from '../../../src/config/sources.js';

process.env.CDK_VALIDATION = 'false';
const ENTRY = join(REPO_ROOT, 'test/unit/cdk/fixture-handler.ts');
type Statement = { Effect: string; Action: string | string[]; Resource: unknown; Condition?: unknown };

let app: App;
let stack: Stack;
let template: Template;
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
  const dbSg = new ec2.SecurityGroup(stack, 'DbSg', { vpc });
  new CdcPipeline(stack, 'Cdc', {
    vpc,
    connectorName: 'docs',
    database: { host: 'writer.example.internal', securityGroup: dbSg, secret },
    image: ecs.ContainerImage.fromRegistry('public.ecr.aws/example/cdc:latest'),
    stream: { retention: Duration.days(7) },
    transformRouter: { entry: ENTRY },
    materializer: { entry: ENTRY },
    claimCheck: { thresholdBytes: 2 * 1024 * 1024 },
  });
  template = Template.fromStack(stack);
  resources = template.toJSON().Resources;
});

const idOf = (re: RegExp) => {
  const id = Object.keys(resources).find((k) => re.test(k));
  assert.ok(id, `a resource matching ${re}`);
  return id;
};

/** Every statement of the inline policies attached to the role whose logical id matches `re`. */
function statementsOf(re: RegExp): Statement[] {
  const role = idOf(re);
  return Object.values(resources)
    .filter((r) => r.Type === 'AWS::IAM::Policy' && JSON.stringify(r.Properties.Roles).includes(role))
    .flatMap((r) => (r.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
}

function s3Actions(re: RegExp): Record<string, string> {
  const out: Record<string, string> = {};
  for (const st of statementsOf(re))
    for (const a of [st.Action].flat())
      if (a.startsWith('s3:') || a.startsWith('kms:')) out[a] = JSON.stringify(st.Resource);
  return out;
}

test('the bucket: KMS with the pipeline key, bucket key, public access blocked, expiry after the DLQ retention', () => {
  const key = idOf(/^CdcKey[0-9A-F]{8}$/);
  template.hasResourceProperties('AWS::S3::Bucket', {
    BucketEncryption: {
      ServerSideEncryptionConfiguration: [
        {
          BucketKeyEnabled: true,
          ServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms', KMSMasterKeyID: { 'Fn::GetAtt': [key, 'Arn'] } },
        },
      ],
    },
    PublicAccessBlockConfiguration: {
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    },
    LifecycleConfiguration: {
      Rules: [Match.objectLike({ Prefix: 'cdc/claim-check/', ExpirationInDays: 15, Status: 'Enabled' })],
    },
  });
});

test('the bucket policy denies every request without TLS', () => {
  const policy = Object.values(resources).find((r) => r.Type === 'AWS::S3::BucketPolicy');
  assert.ok(policy);
  const st = (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement;
  assert.ok(
    st.some(
      (s) =>
        s.Effect === 'Deny' &&
        JSON.stringify(s.Condition) === JSON.stringify({ Bool: { 'aws:SecureTransport': 'false' } }),
    ),
  );
});

test('least privilege: task puts, router gets and puts, materializer gets, only under the prefix', () => {
  const task = s3Actions(/CdcTaskDefinitionTaskRole[0-9A-F]{8}$/);
  const router = s3Actions(/^CdcTransformRouterRole[0-9A-F]{8}$/);
  const materializer = s3Actions(/^CdcMaterializerRole[0-9A-F]{8}$/);
  assert.deepEqual(Object.keys(task).sort(), ['kms:GenerateDataKey', 's3:PutObject']);
  assert.deepEqual(Object.keys(router).sort(), [
    'kms:Decrypt',
    'kms:GenerateDataKey',
    's3:GetObject',
    's3:ListBucket',
    's3:PutObject',
  ]);
  assert.deepEqual(Object.keys(materializer).sort(), ['kms:Decrypt', 's3:GetObject', 's3:ListBucket']);
  for (const grants of [task, router, materializer]) {
    for (const [a, res] of Object.entries(grants))
      if (a.startsWith('s3:') && a !== 's3:ListBucket')
        assert.match(res, /CdcClaimCheckBucket[0-9A-F]{8}.*\/cdc\/claim-check\/\*/);
  }
  // Listing (so a missing object reads as NoSuchKey, not AccessDenied) is on the bucket, limited to the prefix.
  for (const re of [/^CdcTransformRouterRole[0-9A-F]{8}$/, /^CdcMaterializerRole[0-9A-F]{8}$/]) {
    const list = statementsOf(re).filter((st) => [st.Action].flat().includes('s3:ListBucket'));
    assert.equal(list.length, 1);
    assert.match(JSON.stringify(list[0].Resource), /CdcClaimCheckBucket[0-9A-F]{8}/);
    assert.doesNotMatch(JSON.stringify(list[0].Resource), /\/\*/);
    assert.deepEqual(list[0].Condition, { StringLike: { 's3:prefix': ['cdc/claim-check/*'] } });
  }
});

test('the task and the router are configured for it; the materializer needs only the pointer', () => {
  const task = Object.values(resources).find((r) => r.Type === 'AWS::ECS::TaskDefinition')!;
  const vars = new Map(
    (
      (task.Properties.ContainerDefinitions as { Environment: { Name: string; Value: unknown }[] }[])[0].Environment ??
      []
    ).map((e) => [e.Name, e.Value]),
  );
  assert.equal(vars.get(envName('sink.kinesis.oversize.handling')), 'claim-check');
  assert.equal(vars.get(envName('sink.claim.check.prefix')), 'cdc/claim-check/');
  assert.equal(vars.get(envName('sink.claim.check.threshold.bytes')), String(2 * 1024 * 1024));
  assert.match(JSON.stringify(vars.get(envName('sink.claim.check.bucket'))), /CdcClaimCheckBucket[0-9A-F]{8}/);
  const fnEnv = (re: RegExp) =>
    (resources[idOf(re)].Properties.Environment as { Variables: Record<string, unknown> }).Variables;
  const router = fnEnv(/^CdcTransformRouter[0-9A-F]{8}$/);
  assert.match(JSON.stringify(router.CDC_CLAIM_CHECK_BUCKET), /CdcClaimCheckBucket/);
  assert.equal(router.CDC_CLAIM_CHECK_PREFIX, 'cdc/claim-check/');
  assert.equal(fnEnv(/^CdcMaterializer[0-9A-F]{8}$/).CDC_CLAIM_CHECK_BUCKET, undefined);
});

test('an existing bucket with an expiration is refused, naming the prop', () => {
  const s = new Stack(new App(), 'Other');
  const vpc = new ec2.Vpc(s, 'Vpc', { maxAzs: 2 });
  const secret = secretsmanager.Secret.fromSecretNameV2(s, 'S', 'db');
  assert.throws(
    () =>
      new CdcPipeline(s, 'Cdc', {
        vpc,
        database: { host: 'h', secret },
        image: ecs.ContainerImage.fromRegistry('public.ecr.aws/example/cdc:latest'),
        transformRouter: false,
        materializer: false,
        claimCheck: { bucket: s3.Bucket.fromBucketName(s, 'B', 'existing'), expiration: Duration.days(3) },
      }),
    /claimCheck\.bucket is an existing bucket/,
  );
});

test('cdk-nag AwsSolutions: no unsuppressed findings with the claim-check', () => {
  const report = new AwsSolutionsChecks(app).validateScope(stack);
  assert.deepEqual(
    report.violations.map(
      (v) => `${v.severity} ${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`,
    ),
    [],
  );
});
