/**
 * The one full synthesis of the CDK app: both stacks, the Dockerfile image asset (copied, not built: no Docker
 * engine needed), the Lambda consumers bundled with the local esbuild, and cdk-nag AwsSolutions running as a
 * validation plugin (synthesis fails on any unacknowledged finding).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { App } from 'aws-cdk-lib';
import type { CloudAssembly } from 'aws-cdk-lib/cx-api';
import { buildApp } from '../../../cdk/bin/app.js';
import { AURORA_BINLOG_PARAMETERS } from '../../../cdk/lib/stacks.js';

process.env.CDK_VALIDATION = 'false';
const outdir = mkdtempSync(join(tmpdir(), 'cdk-synth-'));
let assembly: CloudAssembly;
type Template = { Resources: Record<string, { Type: string; Properties: Record<string, unknown> }> };
const ofType = (t: Template, type: string) => Object.entries(t.Resources).filter(([, r]) => r.Type === type);

before(() => {
  process.env.CDK_DEFAULT_ACCOUNT = '123456789012';
  process.env.CDK_DEFAULT_REGION = 'eu-west-1';
  const app = new App({
    outdir,
    context: {
      vpcId: 'vpc-0abc',
      databaseSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:cdc-AbCdEf',
      databaseHost: 'orders.cluster-x.eu-west-1.rds.amazonaws.com',
      databaseSecurityGroupId: 'sg-0123',
      connectorName: 'orders',
      properties: '{"table.include.list":"shop\\\\.orders"}',
    },
  });
  assembly = buildApp(app).synth();
});
after(() => rmSync(outdir, { recursive: true, force: true }));

test('both stacks synthesise with bundled Lambda code and the Dockerfile image asset', () => {
  const names = assembly.stacks.map((s) => s.stackName).sort();
  assert.deepEqual(names, ['CdcDemo', 'CdcPipeline']);
  for (const stack of assembly.stacks) {
    const t = stack.template as Template;
    const fns = ofType(t, 'AWS::Lambda::Function');
    assert.equal(fns.length, 2, `${stack.stackName}: transform router + materialiser`);
    const manifest = JSON.parse(readFileSync(join(outdir, `${stack.stackName}.assets.json`), 'utf8')) as {
      files: Record<string, { source: { path: string; packaging: string } }>;
      dockerImages: Record<string, { source: { directory: string; platform?: string } }>;
    };
    const bundles = Object.values(manifest.files)
      .filter((f) => f.source.packaging === 'zip')
      .map((f) => join(outdir, f.source.path));
    assert.equal(bundles.length, 2, `${stack.stackName}: two Lambda bundles`);
    for (const dir of bundles) {
      const code = readFileSync(join(dir, 'index.mjs'), 'utf8');
      assert.match(code, /createRequire/, 'ESM bundle with the require shim');
      assert.ok(code.length > 10_000, 'dependencies are bundled');
    }
    const images = Object.values(manifest.dockerImages);
    assert.equal(images.length, 1, `${stack.stackName}: one container image asset`);
    assert.equal(images[0].source.platform, 'linux/amd64');
    const ctx = join(outdir, images[0].source.directory);
    assert.ok(existsSync(join(ctx, 'Dockerfile')));
    assert.ok(existsSync(join(ctx, 'src/cli/main.ts')));
    assert.ok(!existsSync(join(ctx, 'node_modules')), '.dockerignore keeps node_modules out of the context');
    // The demo's servers are in src/embedded: no test/ at all in the context.
    assert.ok(!existsSync(join(ctx, 'test')), '.dockerignore keeps test/ out of the context');
    assert.ok(existsSync(join(ctx, 'src/embedded/mariadb.ts')));
  }
  assert.ok(readdirSync(outdir).some((f) => f.endsWith('.template.json')));
});

test('demo stack: Aurora Serverless v2 MySQL with binlog parameters, reachable from the task only', () => {
  const t = assembly.getStackByName('CdcDemo').template as Template;
  const [[, pg]] = ofType(t, 'AWS::RDS::DBClusterParameterGroup');
  assert.deepEqual(pg.Properties.Parameters, AURORA_BINLOG_PARAMETERS);
  assert.equal(AURORA_BINLOG_PARAMETERS.binlog_format, 'ROW');
  assert.equal(AURORA_BINLOG_PARAMETERS['gtid-mode'], 'ON');
  const [[clusterId, cluster]] = ofType(t, 'AWS::RDS::DBCluster');
  assert.equal(cluster.Properties.Engine, 'aurora-mysql');
  assert.equal(cluster.Properties.StorageEncrypted, true);
  assert.deepEqual(cluster.Properties.ServerlessV2ScalingConfiguration, { MinCapacity: 0.5, MaxCapacity: 2 });
  const [[, instance]] = ofType(t, 'AWS::RDS::DBInstance');
  assert.equal(instance.Properties.DBInstanceClass, 'db.serverless');
  const ingress = ofType(t, 'AWS::EC2::SecurityGroupIngress').map(([, r]) => r.Properties);
  assert.ok(
    ingress.some(
      (r) =>
        JSON.stringify(r.SourceSecurityGroupId).includes('PipelineTaskSecurityGroup') &&
        JSON.stringify(r.FromPort).includes(clusterId),
    ),
    'the cluster security group admits the capture task on the cluster port',
  );
  const td = ofType(t, 'AWS::ECS::TaskDefinition')[0][1];
  const env = (td.Properties.ContainerDefinitions as Array<{ Environment: Array<{ Name: string; Value: unknown }> }>)[0]
    .Environment;
  const host = env.find((e) => e.Name === 'CDC_DATABASE_HOSTNAME')!.Value;
  assert.deepEqual(host, { 'Fn::GetAtt': [clusterId, 'Endpoint.Address'] });
});

test('existing-database stack: configured from context', () => {
  const t = assembly.getStackByName('CdcPipeline').template as Template;
  const td = ofType(t, 'AWS::ECS::TaskDefinition')[0][1];
  const env = Object.fromEntries(
    (
      td.Properties.ContainerDefinitions as Array<{ Environment: Array<{ Name: string; Value: unknown }> }>
    )[0].Environment.map((e) => [e.Name, e.Value]),
  );
  assert.equal(env.CDC_DATABASE_HOSTNAME, 'orders.cluster-x.eu-west-1.rds.amazonaws.com');
  assert.equal(env.CDC_NAME, 'orders');
  assert.equal(env.CDC_TABLE_INCLUDE_LIST, 'shop\\.orders');
  const ingress = ofType(t, 'AWS::EC2::SecurityGroupIngress').map(([, r]) => r.Properties);
  assert.ok(ingress.some((r) => r.GroupId === 'sg-0123' && r.FromPort === 3306));
});
