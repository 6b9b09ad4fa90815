/**
 * CDK app: `npx cdk synth|deploy` (cdk.json runs this through tsx).
 *
 * - `CdcPipeline`: capture from an existing database, configured by context:
 *   `-c vpcId=vpc-... -c databaseSecretArn=arn:... -c databaseHost=writer.endpoint [-c databasePort=3306]
 *    [-c databaseSecurityGroupId=sg-...] [-c connectorName=orders] [-c shardCount=2] [-c alarmEmail=ops@...]
 *    [-c properties='{"table.include.list":"shop.orders"}'] [-c image=<uri>|asset] [-c claimCheck=true] [-c signals=true]
 *    [-c changeStreamLayout=record|value]`.
 *   Only defined when vpcId, databaseSecretArn and databaseHost are all given.
 * - `CdcDemo`: VPC + Aurora Serverless v2 MySQL with binlog parameters + the pipeline (always defined).
 *
 * cdk-nag's AwsSolutions pack runs as a validation plugin on every synth (`-c nag=false` to skip it).
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { CdcDemoStack, CdcPipelineStack } from '../lib/stacks.js';

export function buildApp(app: App = new App()): App {
  const ctx = (k: string): string | undefined => {
    const v = app.node.tryGetContext(k);
    return v === undefined || v === null || v === '' ? undefined : String(v);
  };
  if (ctx('nag') !== 'false') Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  const env = { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION };
  const image = ctx('image');
  const alarmEmail = ctx('alarmEmail');
  const vpcId = ctx('vpcId');
  const databaseSecretArn = ctx('databaseSecretArn');
  const databaseHost = ctx('databaseHost');
  const given = [vpcId, databaseSecretArn, databaseHost].filter(Boolean).length;
  if (given > 0 && given < 3)
    throw new Error('the CdcPipeline stack needs all of -c vpcId=... -c databaseSecretArn=... -c databaseHost=...');
  if (vpcId && databaseSecretArn && databaseHost) {
    const port = ctx('databasePort');
    const shards = ctx('shardCount');
    const props = ctx('properties');
    const sg = ctx('databaseSecurityGroupId');
    const name = ctx('connectorName');
    const claimCheck = ctx('claimCheck');
    const signals = ctx('signals');
    const layout = ctx('changeStreamLayout');
    if (layout !== undefined && layout !== 'record' && layout !== 'value')
      throw new Error(`-c changeStreamLayout=${layout}: use record (event ids reach the consumers) or value`);
    new CdcPipelineStack(app, 'CdcPipeline', {
      env,
      vpcId,
      databaseSecretArn,
      databaseHost,
      ...(port ? { databasePort: Number(port) } : {}),
      ...(sg ? { databaseSecurityGroupId: sg } : {}),
      ...(name ? { connectorName: name } : {}),
      ...(shards ? { shardCount: Number(shards) } : {}),
      ...(props ? { properties: JSON.parse(props) as Record<string, string> } : {}),
      ...(image ? { image } : {}),
      ...(alarmEmail ? { alarmEmail } : {}),
      ...(claimCheck === 'true' ? { claimCheck: true } : {}),
      ...(signals === 'true' ? { signals: true } : {}),
      ...(layout ? { changeStreamLayout: layout } : {}),
    });
  }
  new CdcDemoStack(app, 'CdcDemo', {
    env,
    ...(image ? { image } : {}),
    ...(alarmEmail ? { alarmEmail } : {}),
  });
  return app;
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('cdk/bin/app.ts')) {
  buildApp().synth();
}
