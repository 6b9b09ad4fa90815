/**
 * Stable event ids reaching the CDK app's consumers (docs/delivery.md "The change stream's layout"), end to end on
 * kinesalite and dynalite: the task's `sink.kinesis.payload` and the Lambdas' environment are taken from a synthesised
 * CdcPipeline, the handlers are built from that environment (`*FromEnv`), and the capture (`startCapture`, the
 * code of `cdc run`) publishes a snapshot and streamed changes, then publishes the streamed ones again from the
 * offset before them — what a crash between the stream's acknowledgement and the offset write re-delivers.
 *
 * Default layout (`record`): the router drops every repeat by its id and the materialiser skips them, even while
 * the repeats are only half delivered. `value` layout (Debezium Server's): no ids, the repeats pass the router and
 * the materialiser briefly re-applies an older change of a transaction that changed one row twice, then converges.
 */
import assert from 'node:assert/strict';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { CreateTableCommand, GetItemCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { App, aws_ec2 as ec2, aws_ecs as ecs, Stack, aws_secretsmanager as secretsmanager } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { CdcPipeline, type ChangeStreamLayout, REPO_ROOT } from '../../cdk/lib/cdc-pipeline.js';
import { fromItem } from '../../lambdas/lib/dynamo-values.js';
import { materializerFromEnv } from '../../lambdas/materializer.js';
import { transformRouterFromEnv } from '../../lambdas/transform-router.js';
import { createStream, dynamoClient, kinesisClient, type ReadRecord, readAllRecords } from '../harness/aws.js';
import { useDynalite, useKinesalite, useMariaDb } from '../harness/fixtures.js';
import { captureEnv } from './support/capture.js';
import { kinesisEvent } from './support/lambda-events.js';

const mariadb = useMariaDb();
const kinesalite = useKinesalite();
const dynalite = useDynalite();

type Vars = Record<string, string | undefined>;

/** What CdcPipeline deploys: the task's payload layout and the two consumers' environments. */
function deployed(layout: ChangeStreamLayout | undefined): { payload: string; router: Vars; materializer: Vars } {
  process.env.CDK_VALIDATION = 'false';
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'E2e', { env: { account: '123456789012', region: 'us-east-1' } });
  const entry = join(REPO_ROOT, 'test/unit/cdk/fixture-handler.ts');
  new CdcPipeline(stack, 'Cdc', {
    vpc: new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 }),
    database: {
      host: 'db.internal',
      secret: secretsmanager.Secret.fromSecretCompleteArn(
        stack,
        'S',
        'arn:aws:secretsmanager:us-east-1:1:secret:x-AbCdEf',
      ),
    },
    image: ecs.ContainerImage.fromRegistry('x'),
    transformRouter: { entry },
    materializer: { entry },
    alarms: false,
    dashboard: false,
    ...(layout ? { changeStreamLayout: layout } : {}),
  });
  const resources = Object.entries(
    Template.fromStack(stack).toJSON().Resources as Record<
      string,
      { Type: string; Properties: Record<string, unknown> }
    >,
  );
  const td = resources.find(([, r]) => r.Type === 'AWS::ECS::TaskDefinition')![1];
  const [c] = td.Properties.ContainerDefinitions as Array<{ Environment: Array<{ Name: string; Value: unknown }> }>;
  const payload = c.Environment.find((e) => e.Name === 'CDC_SINK_KINESIS_PAYLOAD')?.Value;
  assert.equal(typeof payload, 'string');
  // Plain values only: tokens (stream names, queue URLs) are replaced by the stand-ins' below.
  const fnEnv = (prefix: string): Vars => {
    const fn = resources.find(([id, r]) => r.Type === 'AWS::Lambda::Function' && id.startsWith(prefix))![1];
    const vars = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    return Object.fromEntries(Object.entries(vars).filter(([, v]) => typeof v === 'string')) as Vars;
  };
  return { payload: payload as string, router: fnEnv('CdcTransformRouter'), materializer: fnEnv('CdcMaterializer') };
}

test('a re-delivered change is dropped by its id in the app default layout; the value layout lets it through', {
  timeout: 180_000,
}, async () => {
  for (const [k, v] of Object.entries({
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_REGION: 'us-east-1',
    POWERTOOLS_METRICS_DISABLED: 'true',
    POWERTOOLS_LOG_LEVEL: 'SILENT',
  }))
    process.env[k] = v;
  const server = mariadb();
  const db = await server.createDatabase('ids_e2e');
  await server.query(
    `CREATE TABLE ${db}.orders (id INT PRIMARY KEY, qty INT NOT NULL);
     INSERT INTO ${db}.orders VALUES (1, 1), (2, 2), (3, 3);`,
  );
  const kinesis = kinesisClient(kinesalite().endpoint);
  const dynamo = dynamoClient(dynalite().endpoint);
  const layouts = [
    { name: 'default', app: deployed(undefined) },
    { name: 'value', app: deployed('value') },
  ];
  assert.equal(layouts[0].app.payload, 'record', "the app's default layout carries the ids");
  assert.equal(layouts[1].app.payload, 'value');

  const runs = [];
  for (const l of layouts) {
    const stream = `ids-${l.name}`;
    await createStream(kinesis, stream, 1);
    await createStream(kinesis, `${stream}-out`, 1);
    const env = captureEnv(server, db, {
      name: `ids-${l.name}-${db}`,
      'sink.type': 'kinesis',
      'sink.file.path': '',
      'sink.kinesis.stream.name': stream,
      'sink.kinesis.endpoint': kinesalite().endpoint,
      'sink.kinesis.payload': l.app.payload,
      'aws.region': 'us-east-1',
    });
    await env.runUntilIdle(); // snapshot
    copyFileSync(join(env.dir, 'offsets.json'), join(env.dir, 'offsets.snapshot.json'));
    runs.push({ ...l, stream, env });
  }
  // Two updates of one row in one transaction, a delete and re-insert of another, a new row.
  await server.query(
    `UPDATE ${db}.orders SET qty = 10 WHERE id = 1;
     START TRANSACTION; UPDATE ${db}.orders SET qty = 30 WHERE id = 3; UPDATE ${db}.orders SET qty = 31 WHERE id = 3; COMMIT;
     DELETE FROM ${db}.orders WHERE id = 2;
     INSERT INTO ${db}.orders VALUES (2, 22), (4, 4);`,
  );
  const source = (await server.query<Record<string, unknown>[]>(`SELECT * FROM ${db}.orders ORDER BY id`)).map((r) => ({
    ...r,
  }));

  const figures: Record<string, { published: number; bytes: number; routed: number; row3QtyMidway: unknown }> = {};
  for (const r of runs) {
    await r.env.runUntilIdle(); // streams the changes
    // The crash: the offset store still holds the snapshot's offset, so the changes are published again.
    copyFileSync(join(r.env.dir, 'offsets.snapshot.json'), join(r.env.dir, 'offsets.json'));
    await r.env.runUntilIdle();
    const captured = await readAllRecords(kinesis, r.stream);
    const isChange = (rec: ReadRecord) => {
      const text = rec.data.toString('utf8');
      return text.includes('"op":"c"') || text.includes('"op":"u"') || text.includes('"op":"d"');
    };
    const changes = captured.filter(isChange);
    assert.equal(changes.length, 12, `${r.name}: 6 streamed changes, each published twice`);

    // Transform router, as deployed (no transforms configured: envelopes pass through), one batch per shard.
    const router = transformRouterFromEnv({
      ...r.app.router,
      CDC_OUTPUT_STREAM: `${r.stream}-out`,
      CDC_AWS_ENDPOINT: kinesalite().endpoint,
    });
    assert.deepEqual((await router(kinesisEvent(captured, r.stream))).batchItemFailures, []);
    const routed = (await readAllRecords(kinesis, `${r.stream}-out`)).filter(isChange);

    // Materialiser, as deployed: first everything up to the repeat of the transaction's first update of row 3,
    // then the rest. Both updates share the transaction's position: only the id tells them apart.
    const table = `${db}.orders`;
    const template = `{db}.{table}.${r.name}`;
    await dynamo.send(
      new CreateTableCommand({
        TableName: `${table}.${r.name}`,
        AttributeDefinitions: [{ AttributeName: '__key', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: '__key', KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    const materializer = materializerFromEnv({
      ...r.app.materializer,
      CDC_TABLE_NAME_TEMPLATE: template,
      CDC_AWS_ENDPOINT: dynalite().endpoint,
    });
    const firstUpdates = captured.flatMap((rec, i) =>
      rec.data.toString('utf8').includes('"after":{"id":3,"qty":30}') ? [i] : [],
    );
    assert.equal(firstUpdates.length, 2, `${r.name}: the update and its repeat`);
    const cut = firstUpdates[1] + 1;
    assert.deepEqual((await materializer(kinesisEvent(captured.slice(0, cut), r.stream))).batchItemFailures, []);
    const row3 = await dynamo.send(
      new GetItemCommand({ TableName: `${table}.${r.name}`, Key: { __key: { S: '{"id":3}' } }, ConsistentRead: true }),
    );
    const midway = fromItem(row3.Item ?? {});
    assert.deepEqual((await materializer(kinesisEvent(captured.slice(cut), r.stream))).batchItemFailures, []);
    const items = (await dynamo.send(new ScanCommand({ TableName: `${table}.${r.name}`, ConsistentRead: true }))).Items;
    const live = (items ?? [])
      .map(fromItem)
      .filter((i) => i.__deleted === false)
      .map((i) => ({ id: i.id, qty: i.qty }))
      .sort((a, b) => Number(a.id) - Number(b.id));
    assert.deepEqual(live, source, `${r.name}: the materialised table converges on the source table`);
    const bytes = Math.round(changes.reduce((n, rec) => n + rec.data.length, 0) / changes.length);
    figures[r.name] = { published: changes.length, bytes, routed: routed.length, row3QtyMidway: midway.qty };
  }
  const shown = JSON.stringify(figures);
  // Default layout: every repeat dropped by its id, and the repeated first update was stale (row 3 kept 31).
  assert.equal(figures.default.routed, 6, shown);
  assert.equal(figures.default.row3QtyMidway, 31, shown);
  // Value layout: no ids, so the router passes the repeats on, and the older update was applied again.
  assert.equal(figures.value.routed, 12, shown);
  assert.equal(figures.value.row3QtyMidway, 30, shown);
  // The ids' cost: topic, key and headers beside the value.
  assert.ok(figures.default.bytes > figures.value.bytes, shown);
});
