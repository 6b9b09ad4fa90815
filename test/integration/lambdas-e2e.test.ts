/**
 * End to end: MariaDB → capture (KinesisSink on kinesalite) → transform-router (ReadToInsertEvent + unwrap) → a
 * second stream; and → materializer → a DynamoDB table equal to the MariaDB table. The Lambda handlers are invoked
 * with events built from the records the capture really wrote.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { CreateTableCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { fromItem } from '../../lambdas/lib/dynamo-values.js';
import { createMaterializer } from '../../lambdas/materializer.js';
import { createTransformRouter } from '../../lambdas/transform-router.js';
import { startCapture } from '../../src/cli/commands/run.js';
import { silentLogger } from '../../src/common/logger.js';
import { parseConfig } from '../../src/config/index.js';
import { buildChain, parseTransformsConfig } from '../../src/transforms/index.js';
import { createStream, dynamoClient, kinesisClient, readAllRecords } from '../harness/aws.js';
import { useDynalite, useKinesalite, useMariaDb } from '../harness/fixtures.js';
import { kinesisEvent, quietTools } from './support/lambda-events.js';

const mariadb = useMariaDb();
const kinesalite = useKinesalite();
const dynalite = useDynalite();

test('capture → transform-router → stream, and → materializer → DynamoDB equal to the source table', async () => {
  process.env.AWS_ACCESS_KEY_ID = 'test';
  process.env.AWS_SECRET_ACCESS_KEY = 'test';
  const db = await mariadb().createDatabase('e2e');
  await mariadb().query(
    `CREATE TABLE ${db}.orders (id INT PRIMARY KEY, qty INT NOT NULL, note VARCHAR(20) NULL);
     INSERT INTO ${db}.orders VALUES (1, 1, 'one'), (2, 2, NULL), (3, 3, 'three');`,
  );
  const kinesis = kinesisClient(kinesalite().endpoint);
  await createStream(kinesis, 'cdc-events', 2);
  await createStream(kinesis, 'cdc-flat', 1);
  const dir = mkdtempSync(join(tmpdir(), 'cdc-lambda-e2e-'));
  const config = parseConfig({
    name: `e2e-${db}`,
    'topic.prefix': 'it',
    'database.hostname': mariadb().host,
    'database.port': String(mariadb().port),
    'database.user': mariadb().admin.user,
    'database.password': mariadb().admin.password,
    'database.server.id': String(9000 + Math.floor(Math.random() * 900)),
    'database.include.list': db,
    'database.ssl.mode': 'disabled',
    'sink.type': 'kinesis',
    'sink.kinesis.stream.name': 'cdc-events',
    'sink.kinesis.endpoint': kinesalite().endpoint,
    'sink.kinesis.aggregation': 'true',
    'aws.region': 'us-east-1',
    'offset.storage.file.filename': join(dir, 'offsets.json'),
    'schema.history.internal.file.filename': join(dir, 'history.jsonl'),
    'offset.flush.interval.ms': '100',
  });
  const capture = () => startCapture(config, silentLogger, { untilIdleMs: 400 }).done;
  await capture(); // snapshot
  await mariadb().query(
    `UPDATE ${db}.orders SET qty = 10 WHERE id = 1;
     DELETE FROM ${db}.orders WHERE id = 2;
     START TRANSACTION; UPDATE ${db}.orders SET qty = 30 WHERE id = 3; UPDATE ${db}.orders SET note = NULL WHERE id = 3; COMMIT;
     INSERT INTO ${db}.orders VALUES (4, 4, 'four');
     INSERT INTO ${db}.orders VALUES (2, 22, 'again');`,
  );
  await capture(); // streaming from the stored offset

  const captured = await readAllRecords(kinesis, 'cdc-events');
  const tools = quietTools();

  // transform-router: snapshot reads become inserts, envelopes become rows.
  const router = createTransformRouter({
    chain: buildChain(
      parseTransformsConfig({
        transforms: 'insert,unwrap',
        'transforms.insert.type': 'io.debezium.connector.mysql.transforms.ReadToInsertEvent',
        'transforms.unwrap.type': 'io.debezium.transforms.ExtractNewRecordState',
        'transforms.unwrap.add.fields': 'op,table',
      }),
    ),
    kinesis: kinesisClient(kinesalite().endpoint),
    routing: { streamName: 'cdc-flat' },
    ...tools,
  });
  for (const shard of new Set(captured.map((r) => r.shardId))) {
    const res = await router(
      kinesisEvent(
        captured.filter((r) => r.shardId === shard),
        'cdc-events',
      ),
    );
    assert.deepEqual(res.batchItemFailures, []);
  }
  const flat = (await readAllRecords(kinesis, 'cdc-flat'))
    .filter((r) => r.data.length > 0)
    .map((r) => JSON.parse(r.data.toString('utf8')) as Record<string, unknown>)
    .filter((v) => v.__table === 'orders');
  assert.ok(
    flat.every((v) => v.__op === 'c' || v.__op === 'u'),
    'reads became creates, deletes were dropped',
  );
  const lastById = new Map(flat.map((v) => [v.id, v]));
  const source = await mariadb().query<Record<string, unknown>[]>(`SELECT * FROM ${db}.orders ORDER BY id`);
  assert.deepEqual(
    [...lastById.values()].map(({ __op: _o, __table: _t, ...row }) => row).sort((a, b) => Number(a.id) - Number(b.id)),
    source.map((r) => ({ ...r })),
  );

  // materializer: deliver everything, then a replay of the first half (duplicates, out of order).
  const dynamo = dynamoClient(dynalite().endpoint);
  await dynamo.send(
    new CreateTableCommand({
      TableName: `${db}.orders`,
      AttributeDefinitions: [{ AttributeName: '__key', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: '__key', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  const materializer = createMaterializer({ dynamo, ...tools });
  const all = kinesisEvent(captured, 'cdc-events');
  assert.deepEqual((await materializer(all)).batchItemFailures, []);
  assert.deepEqual(
    (await materializer({ Records: all.Records.slice(0, Math.ceil(all.Records.length / 2)) })).batchItemFailures,
    [],
  );
  const items = (await dynamo.send(new ScanCommand({ TableName: `${db}.orders`, ConsistentRead: true }))).Items ?? [];
  const live = items
    .map(fromItem)
    .filter((i) => i.__deleted === false)
    .map((i) => Object.fromEntries(Object.entries(i).filter(([k]) => !k.startsWith('__'))))
    .sort((a, b) => Number(a.id) - Number(b.id));
  assert.deepEqual(
    live,
    source.map((r) => ({ ...r })),
  );
  assert.deepEqual(
    source.map((r) => r.id),
    [1, 2, 3, 4],
  );
});
