/**
 * CdcPipeline's `changeStreamLayout` (docs/delivery.md "The change stream's layout"): the task's
 * `sink.kinesis.payload` and the `CDC_INPUT_FORMAT` of the consumers reading the change stream come from one
 * value, so the stable event ids reach the router and the materialiser by default, and a `value` stream (Debezium
 * Server's layout) is read as such. Each handler is built from the environment CdcPipeline gives it and fed the
 * record the task's own sink would write, to show the two sides really agree.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  App,
  aws_ec2 as ec2,
  aws_ecs as ecs,
  aws_kinesis as kinesis,
  Stack,
  aws_secretsmanager as secretsmanager,
} from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { KinesisStreamRecord } from 'aws-lambda';
import { CdcPipeline, type CdcPipelineProps, REPO_ROOT } from '../../../cdk/lib/cdc-pipeline.js';
import { eventIdOf } from '../../../lambdas/lib/event-ids.js';
import { decodeEvent, type InputFormat } from '../../../lambdas/lib/kinesis-input.js';
import { loadConfig } from '../../../src/config/index.js';
import { recordLine } from '../../../src/model/record-line.js';
import { recordSize, type SinkRecord } from '../../../src/model/sink-record.js';

process.env.CDK_VALIDATION = 'false';
const ENTRY = join(REPO_ROOT, 'test/unit/cdk/fixture-handler.ts');
type Resource = { Type: string; Properties: Record<string, unknown> };

interface Synth {
  pipeline: CdcPipeline;
  /** The task's connector configuration, loaded from its container environment as the task would. */
  taskPayload: 'value' | 'record';
  /** `CDC_INPUT_FORMAT` by consumer id prefix (undefined: not set). */
  inputFormat: Record<'CdcTransformRouter' | 'CdcMaterializer', string | undefined>;
}

function synth(extra: Partial<CdcPipelineProps>): Synth {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'T', { env: { account: '123456789012', region: 'eu-west-1' } });
  const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 });
  const secret = secretsmanager.Secret.fromSecretCompleteArn(
    stack,
    'Secret',
    'arn:aws:secretsmanager:eu-west-1:123456789012:secret:cdc-db-AbCdEf',
  );
  const pipeline = new CdcPipeline(stack, 'Cdc', {
    vpc,
    database: { host: 'writer.example.internal', secret },
    image: ecs.ContainerImage.fromRegistry('public.ecr.aws/example/cdc:latest'),
    transformRouter: { entry: ENTRY },
    materializer: { entry: ENTRY },
    alarms: false,
    dashboard: false,
    ...extra,
  });
  const resources = Template.fromStack(stack).toJSON().Resources as Record<string, Resource>;
  const [td] = Object.values(resources).filter((r) => r.Type === 'AWS::ECS::TaskDefinition');
  const [c] = td.Properties.ContainerDefinitions as Array<{ Environment: Array<{ Name: string; Value: unknown }> }>;
  const vars: Record<string, string> = {};
  for (const { Name, Value } of c.Environment)
    vars[Name] = typeof Value === 'string' ? Value : `resolved-${Name.toLowerCase().replace(/_/g, '-')}`;
  const fnVars = (prefix: string) => {
    const entry = Object.entries(resources).find(
      ([id, r]) => r.Type === 'AWS::Lambda::Function' && id.startsWith(prefix),
    );
    assert.ok(entry, `a function ${prefix}`);
    return (entry[1].Properties.Environment as { Variables: Record<string, unknown> }).Variables;
  };
  const format = (prefix: string) => {
    const v = fnVars(prefix).CDC_INPUT_FORMAT;
    return v === undefined ? undefined : String(v);
  };
  const sink = loadConfig({ env: vars }).sink;
  assert.equal(sink.type, 'kinesis');
  return {
    pipeline,
    taskPayload: sink.type === 'kinesis' ? sink.payload : 'value',
    inputFormat: { CdcTransformRouter: format('CdcTransformRouter'), CdcMaterializer: format('CdcMaterializer') },
  };
}

/** A change event with its stable event id, as the capture builds it. */
const change: SinkRecord = (() => {
  const key = '{"id":7}';
  const value = JSON.stringify({
    before: null,
    after: { id: 7, qty: 1 },
    source: { connector: 'mysql', name: 'cdc', db: 'shop', table: 'orders', file: 'mysql-bin.000003', pos: 4, row: 0 },
    op: 'c',
    ts_ms: 1,
    transaction: null,
  });
  const headers = { '__cdc.id': JSON.stringify('0-1-42/0/0/0') };
  return {
    topic: 'cdc.shop.orders',
    key,
    value,
    headers,
    table: 'shop.orders',
    sizeBytes: recordSize(key, value, headers),
  };
})();

/** The Kinesis record the task's sink writes for `change` in `payload` (src/sinks/kinesis: data, partition key). */
function onTheStream(payload: 'value' | 'record'): KinesisStreamRecord {
  const data = payload === 'record' ? recordLine(change).slice(0, -1) : (change.value ?? '');
  return {
    kinesis: {
      kinesisSchemaVersion: '1.0',
      partitionKey: change.key!,
      sequenceNumber: '1',
      data: Buffer.from(data).toString('base64'),
      approximateArrivalTimestamp: 1,
    },
    eventSource: 'aws:kinesis',
    eventVersion: '1.0',
    eventID: 'shardId-000000000000:1',
    eventName: 'aws:kinesis:record',
    invokeIdentityArn: 'arn:aws:iam::123456789012:role/x',
    awsRegion: 'eu-west-1',
    eventSourceARN: 'arn:aws:kinesis:eu-west-1:123456789012:stream/cdc-changes',
  };
}

test('default: the task writes record lines and both consumers read them, so event ids reach them', () => {
  const s = synth({});
  assert.equal(s.pipeline.changeStreamLayout, 'record');
  assert.equal(s.taskPayload, 'record');
  // `auto`: record lines, and the value records an earlier deployment left on the stream (no dead letters on upgrade).
  assert.deepEqual(s.inputFormat, { CdcTransformRouter: 'auto', CdcMaterializer: 'auto' });
  const [leftOver] = decodeEvent([onTheStream('value')], s.inputFormat.CdcMaterializer as InputFormat);
  assert.equal(leftOver.error, undefined);
  assert.equal((leftOver.records[0].record.value as { op: string }).op, 'c');
  const [parent] = decodeEvent([onTheStream(s.taskPayload)], s.inputFormat.CdcMaterializer as InputFormat);
  assert.equal(parent.error, undefined);
  assert.equal(eventIdOf(parent.records[0].record), '0-1-42/0/0/0');
  assert.deepEqual(parent.records[0].record.key, { id: 7 });
  assert.equal(parent.records[0].record.topic, 'cdc.shop.orders');
});

test("changeStreamLayout 'value': Debezium Server's layout for the task, and the consumers read values (no ids)", () => {
  const s = synth({ changeStreamLayout: 'value' });
  assert.equal(s.taskPayload, 'value');
  assert.deepEqual(s.inputFormat, { CdcTransformRouter: 'value', CdcMaterializer: 'value' });
  const [parent] = decodeEvent([onTheStream(s.taskPayload)], s.inputFormat.CdcTransformRouter as InputFormat);
  assert.equal(parent.error, undefined);
  assert.equal(eventIdOf(parent.records[0].record), undefined, 'the value layout has no room for headers');
  assert.deepEqual(parent.records[0].record.key, { id: 7 });
  assert.equal((parent.records[0].record.value as { op: string }).op, 'c');
  // A value-layout consumer never takes a row for a record line (a flattened row may have such columns).
  const row = { ...onTheStream('value') };
  row.kinesis = { ...row.kinesis, data: Buffer.from('{"topic":"t","value":1,"id":7}').toString('base64') };
  assert.deepEqual(decodeEvent([row], 'value')[0].records[0].record.value, { topic: 't', value: 1, id: 7 });
});

test("properties['sink.kinesis.payload'] alone sets the layout for both sides; disagreeing with the prop fails the synth", () => {
  const s = synth({ properties: { 'sink.kinesis.payload': 'value' } });
  assert.equal(s.pipeline.changeStreamLayout, 'value');
  assert.equal(s.taskPayload, 'value');
  assert.deepEqual(s.inputFormat, { CdcTransformRouter: 'value', CdcMaterializer: 'value' });
  assert.throws(
    () => synth({ changeStreamLayout: 'record', properties: { 'sink.kinesis.payload': 'value' } }),
    /changeStreamLayout 'record' and properties\['sink.kinesis.payload'\]=value disagree; remove the property/,
  );
  assert.throws(
    () => synth({ properties: { 'sink.kinesis.payload': 'lines' } }),
    /properties\['sink.kinesis.payload'\]=lines is not record or value/,
  );
});

test('a consumer on another input stream detects the layout per record; its own environment wins', () => {
  const other = kinesis.Stream.fromStreamArn(
    new Stack(new App(), 'O'),
    'Other',
    'arn:aws:kinesis:eu-west-1:123456789012:stream/other',
  );
  const s = synth({
    materializer: { entry: ENTRY, inputStream: other },
    transformRouter: { entry: ENTRY, environment: { CDC_INPUT_FORMAT: 'record' } },
  });
  assert.deepEqual(s.inputFormat, { CdcTransformRouter: 'record', CdcMaterializer: undefined });
});
