/**
 * Records over 1 MiB end to end: `cdc run` on a private MariaDB (max_allowed_packet 64M) with a 16 MiB LONGBLOB and
 * a 3 MB JSON row, kinesalite, and an S3-compatible stand-in (s3rver, driven by the real SDK v3 S3 client).
 *
 * 1. A stream raised to 10 MiB records: the 3 MB JSON row goes as one Kinesis record; the 16 MiB LONGBLOB (about
 *    22 MB of JSON) goes to S3 and the stream carries the pointer. The transform router (in process) resolves both,
 *    flattens them (ExtractNewRecordState) and claim-checks them again onto a 1 MiB output stream; resolving those,
 *    the consumer gets the rows back byte-equal.
 *    The fakes, because kinesalite predates larger records: DescribeStreamSummary's `MaxRecordSizeInKiB` for that
 *    stream is added by an SDK middleware, and kinesalite's 1 MiB Data check is lifted (test/harness/large-records.ts).
 * 2. A 1 MiB stream with a low claim-check threshold: the materializer (in process) resolves the pointers and writes
 *    the rows to DynamoDB byte-equal (rows stay under DynamoDB's 400 KB item limit, which no claim-check lifts).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import { CreateTableCommand, GetItemCommand } from '@aws-sdk/client-dynamodb';
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import { createMaterializer } from '../../lambdas/materializer.js';
import { createTransformRouter } from '../../lambdas/transform-router.js';
import { startCapture } from '../../src/cli/commands/run.js';
import { createLogger } from '../../src/common/logger.js';
import { parseConfig } from '../../src/config/index.js';
import { ClaimChecker } from '../../src/sinks/claim-check/claim-checker.js';
import { CLAIM_CHECK_FIELD, claimCheckPointerOf } from '../../src/sinks/claim-check/envelope.js';
import { ClaimCheckResolver } from '../../src/sinks/claim-check/resolver.js';
import { S3ClaimCheckStore } from '../../src/sinks/claim-check/s3-store.js';
import { buildChain, parseTransformsConfig } from '../../src/transforms/index.js';
import { createStream, dynamoClient, kinesisClient, type ReadRecord, readAllRecords } from '../harness/aws.js';
import { useDynalite, useKinesalite, useMariaDb } from '../harness/fixtures.js';
import {
  fakeMaxRecordSize,
  raiseKinesaliteRecordLimit,
  type S3StandIn,
  startS3StandIn,
} from '../harness/large-records.js';
import type { MariaDbServer } from '../harness/mariadb.js';
import { waitFor } from '../harness/wait.js';
import { captureProperties, setStandInCredentials } from './support/kinesis-e2e.js';
import { kinesisEvent, quietTools } from './support/lambda-events.js';

const MiB = 1024 * 1024;
const BUCKET = 'cdc-claim-checks';
const mariadb = useMariaDb({ options: { 'max-allowed-packet': '64M' } });
const kinesalite = useKinesalite();
const dynalite = useDynalite();
let s3: S3StandIn | undefined;
let adminClient: KinesisClient | undefined;
const admin = () => {
  adminClient ??= kinesisClient(kinesalite().endpoint);
  return adminClient;
};

before(async () => {
  setStandInCredentials();
  s3 = await startS3StandIn();
  await s3.createBucket(BUCKET);
  // kinesalite's own 1 MiB Data check, lifted for the stream this file raises (see the module comment).
  raiseKinesaliteRecordLimit(10 * MiB);
});
after(async () => {
  adminClient?.destroy();
  await s3?.stop();
});

/** A JSON document of about `bytes` bytes (MariaDB keeps JSON text as written). */
function jsonDoc(bytes: number, seed: number): string {
  const items: { i: number; s: string }[] = [];
  for (let n = 2; n < bytes; n += 60) items.push({ i: items.length + seed, s: `v${seed}-${'y'.repeat(40)}` });
  return JSON.stringify({ items });
}

/** Runs `cdc run` until the stream holds `rows` row events; `during` runs once the snapshot completed (binlog changes). */
async function capture(
  server: MariaDbServer,
  db: string,
  stream: string,
  extra: Record<string, string>,
  client: KinesisClient,
  rows: number,
  during: () => Promise<void>,
) {
  const config = parseConfig(
    captureProperties(server, db, { kinesis: kinesalite().endpoint, dynamodb: dynalite().endpoint }, stream, {
      'lease.enabled': 'false',
      'offset.storage.dynamodb.table': `offsets_${db}`,
      'schema.history.internal.dynamodb.table': `history_${db}`,
      'sink.kinesis.oversize.handling': 'claim-check',
      'sink.claim.check.bucket': BUCKET,
      'sink.claim.check.endpoint': s3!.endpoint,
      'max.batch.size': '16',
      ...extra,
    }),
  );
  const lines: { msg?: string; recordBytes?: number }[] = [];
  const logger = createLogger({
    level: 'info',
    format: 'json',
    stream: new Writable({
      write(chunk, _enc, cb) {
        for (const l of String(chunk).split('\n')) if (l) lines.push(JSON.parse(l) as { msg?: string });
        if (process.env.CDC_TEST_DEBUG) process.stderr.write(chunk);
        cb();
      },
    }),
  });
  const handle = startCapture(config, logger, { overrides: { kinesisClient: client } });
  try {
    await waitFor('the snapshot to complete', () => lines.some((l) => l.msg === 'snapshot completed'), 60_000);
    await during();
    await waitFor(
      `${rows} row events on ${stream}`,
      async () =>
        (await readAllRecords(admin(), stream)).filter(
          (r) => r.data.length > 0 && /"op":"[rc]"/.test(r.data.toString()),
        ).length >= rows,
      120_000,
      250,
    );
  } finally {
    handle.stop();
    await handle.done.catch(() => {});
  }
  return lines;
}

const decode = (r: ReadRecord) => JSON.parse(r.data.toString('utf8')) as Record<string, unknown>;

test('16 MiB LONGBLOB and 3 MB JSON: large Kinesis record, S3 claim-check, transform router resolves byte-equal', async (t) => {
  const server = mariadb();
  const db = await server.createDatabase('large');
  await server.query(`CREATE TABLE ${db}.docs (id INT PRIMARY KEY, payload LONGBLOB, doc JSON)`);
  const blob1 = randomBytes(16 * MiB);
  const blob3 = randomBytes(16 * MiB);
  const doc2 = jsonDoc(3_000_000, 2);
  await server.query(`INSERT INTO ${db}.docs VALUES (1, ?, '{"small":true}')`, [blob1]);
  const stream = `large-${db}`;
  const out = `flat-${db}`;
  await createStream(admin(), stream, 1);
  await createStream(admin(), out, 1);
  const client = kinesisClient(kinesalite().endpoint);
  fakeMaxRecordSize(client, { [stream]: 10240 });
  const lines = await capture(server, db, stream, {}, client, 3, async () => {
    await server.query(`INSERT INTO ${db}.docs VALUES (2, NULL, ?)`, [doc2]);
    await server.query(`INSERT INTO ${db}.docs VALUES (3, ?, NULL)`, [blob3]);
  });
  client.destroy();

  const records = await readAllRecords(admin(), stream);
  const rows = records.map(decode).filter((v) => v.op === 'r' || v.op === 'c');
  assert.equal(rows.length, 3);
  const byId = (id: number) => {
    const v = records.find((r) => r.partitionKey.includes(`"id":${id}`));
    assert.ok(v, `record of id ${id}`);
    return v;
  };
  const largest = Math.max(...records.map((r) => r.data.length + Buffer.byteLength(r.partitionKey)));
  // The 3 MB JSON row travelled whole: a Kinesis record over 1 MiB on the raised stream.
  const whole = decode(byId(2));
  assert.equal((whole.after as { doc: string }).doc, doc2);
  assert.ok(byId(2).data.length > 3_000_000);
  // The 16 MiB blobs travelled as pointers in a Debezium envelope.
  for (const id of [1, 3]) {
    const v = decode(byId(id));
    assert.equal(v.after, null);
    assert.equal(v.op, id === 1 ? 'r' : 'c');
    assert.ok(byId(id).data.length < 4096, `pointer record of id ${id} is small`);
    assert.ok(claimCheckPointerOf(v));
  }
  const claimed = lines.filter((l) => l.msg === 'claim-checked large record');
  assert.equal(claimed.length, 2);
  const largestObject = Math.max(...claimed.map((l) => l.recordBytes ?? 0));

  // Transform router in process: resolves the input pointers, flattens, claim-checks again onto a 1 MiB stream.
  const store = new S3ClaimCheckStore({ client: s3!.client() });
  const router = createTransformRouter({
    chain: buildChain(
      parseTransformsConfig({
        transforms: 'unwrap',
        'transforms.unwrap.type': 'io.debezium.transforms.ExtractNewRecordState',
      }),
    ),
    kinesis: kinesisClient(kinesalite().endpoint),
    routing: { streamName: out },
    claimCheckResolver: new ClaimCheckResolver(store),
    claimCheck: new ClaimChecker({ store, bucket: BUCKET, prefix: 'router/' }),
    ...quietTools(),
  });
  assert.deepEqual((await router(kinesisEvent(records, stream))).batchItemFailures, []);
  const resolver = new ClaimCheckResolver(store);
  const flat = new Map<number, Record<string, unknown>>();
  for (const r of await readAllRecords(admin(), out)) {
    if (r.data.length === 0) continue;
    let v = decode(r);
    assert.ok(r.data.length <= MiB);
    const pointer = claimCheckPointerOf(v);
    if (pointer) {
      assert.deepEqual(Object.keys(v), [CLAIM_CHECK_FIELD], 'a flattened row carries only the pointer');
      v = JSON.parse(await resolver.valueText(pointer)) as Record<string, unknown>;
    }
    if (typeof v.id === 'number') flat.set(v.id, v);
  }
  const [dbRows] = [
    (await server.query(`SELECT id, payload, CAST(doc AS CHAR) AS doc FROM ${db}.docs ORDER BY id`)) as {
      id: number;
      payload: Buffer | null;
      doc: string | null;
    }[],
  ];
  assert.equal(flat.size, 3);
  for (const row of dbRows) {
    const got = flat.get(row.id);
    assert.ok(got, `row ${row.id} reached the output stream`);
    const payload = got.payload === null ? null : Buffer.from(got.payload as string, 'base64');
    assert.ok(
      row.payload === null ? payload === null : payload?.equals(row.payload),
      `blob of row ${row.id} byte-equal`,
    );
    assert.equal(got.doc, row.doc, `JSON of row ${row.id} byte-equal`);
  }
  assert.ok(blob1.equals(dbRows[0].payload!) && blob3.equals(dbRows[2].payload!));
  t.diagnostic(`largest Kinesis record ${largest} bytes; largest claim-checked value ${largestObject} bytes (S3)`);
});

test('1 MiB stream with a claim-check threshold: the materializer resolves pointers into DynamoDB byte-equal', async (t) => {
  const server = mariadb();
  const db = await server.createDatabase('claims');
  await server.query(`CREATE TABLE ${db}.docs (id INT PRIMARY KEY, doc JSON)`);
  const docs = new Map([
    [1, jsonDoc(200_000, 1)],
    [2, jsonDoc(300_000, 2)],
    [3, '{"small": 3}'],
  ]);
  await server.query(`INSERT INTO ${db}.docs VALUES (1, ?)`, [docs.get(1)]);
  const stream = `claims-${db}`;
  await createStream(admin(), stream, 1);
  const client = kinesisClient(kinesalite().endpoint);
  await capture(server, db, stream, { 'sink.claim.check.threshold.bytes': String(64 * 1024) }, client, 3, async () => {
    await server.query(`INSERT INTO ${db}.docs VALUES (2, ?), (3, ?)`, [docs.get(2), docs.get(3)]);
  });
  client.destroy();
  const records = await readAllRecords(admin(), stream);
  const pointers = records.filter((r) => r.data.length > 0 && claimCheckPointerOf(decode(r)) !== null);
  assert.equal(pointers.length, 2, 'the two rows over 64 KiB went to S3');

  const dynamo = dynamoClient(dynalite().endpoint);
  const table = `${db}.docs`;
  await dynamo.send(
    new CreateTableCommand({
      TableName: table,
      KeySchema: [{ AttributeName: '__key', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: '__key', AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  const resolver = new ClaimCheckResolver(new S3ClaimCheckStore({ client: s3!.client() }));
  const materializer = createMaterializer({ dynamo, claimCheckResolver: resolver, ...quietTools() });
  assert.deepEqual((await materializer(kinesisEvent(records, stream))).batchItemFailures, []);
  assert.equal(resolver.fetched, 2);
  for (const [id, doc] of docs) {
    const got = await dynamo.send(
      new GetItemCommand({ TableName: table, Key: { __key: { S: JSON.stringify({ id }) } }, ConsistentRead: true }),
    );
    assert.equal(got.Item?.doc?.S, doc, `row ${id} byte-equal`);
  }
  dynamo.destroy();
  t.diagnostic(`materialized ${docs.size} rows, ${resolver.fetched} resolved from S3`);
});
