/**
 * Two `cdc run` processes (same connector name, lease enabled, Kinesis sink, DynamoDB stores) started together: only
 * the lease holder publishes; the other waits without reaching the publishing code. kill -9 of the holder: the other
 * takes over within the lease timeout with a larger fencing token, and the consumer still rebuilds the table exactly.
 * kinesalite and dynalite run in this test process.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import { createStream, dynamoClient, kinesisClient } from '../harness/aws.js';
import { useDynalite, useKinesalite, useMariaDb } from '../harness/fixtures.js';
import { waitFor } from '../harness/wait.js';
import {
  analyse,
  CaptureChild,
  ChangeWriter,
  captureProperties,
  StreamConsumer,
  seedTable,
  setStandInCredentials,
  stateDiff,
  TABLE,
  tableState,
  writeProperties,
} from './support/kinesis-e2e.js';

const db = useMariaDb();
const kinesalite = useKinesalite();
const dynalite = useDynalite();
let kinesis: KinesisClient | undefined;
let dynamo: DynamoDBClient | undefined;
before(() => setStandInCredentials());
after(() => {
  kinesis?.destroy();
  dynamo?.destroy();
});

const LEASE_MS = 3000;
const RENEW_MS = 500;
const MAX_BATCH = 500;

test('two tasks, one lease: only the holder publishes; after kill -9 the other takes over in time, nothing lost', async (t) => {
  kinesis = kinesisClient(kinesalite().endpoint);
  dynamo = dynamoClient(dynalite().endpoint);
  const server = db();
  const name = await server.createDatabase('e2el');
  const rows = 3000;
  await seedTable(server, name, rows);
  const stream = `e2e-${name}`;
  const connector = `e2e-${name}`;
  await createStream(kinesis, stream, 2);
  const config = writeProperties(
    captureProperties(server, name, { kinesis: kinesalite().endpoint, dynamodb: dynalite().endpoint }, stream, {
      'max.batch.size': String(MAX_BATCH),
      'max.queue.size': String(MAX_BATCH * 4),
      'offset.flush.interval.ms': '0',
      'lease.duration.ms': String(LEASE_MS),
      'lease.renew.interval.ms': String(RENEW_MS),
    }),
  );
  const leaseItem = async () => {
    const out = await dynamo!.send(
      new GetItemCommand({ TableName: 'cdc_lease', Key: { lease: { S: connector } }, ConsistentRead: true }),
    );
    return { owner: out.Item?.owner?.S ?? '', token: Number(out.Item?.fencingToken?.N ?? 0) };
  };
  const offsetToken = async () => {
    const out = await dynamo!.send(
      new GetItemCommand({ TableName: 'cdc_offsets', Key: { connector: { S: connector } }, ConsistentRead: true }),
    );
    return Number(out.Item?.fencingToken?.N ?? 0);
  };

  const consumer = new StreamConsumer(kinesis, stream);
  const writer = await ChangeWriter.open(server, name, rows, 4242);
  const a = new CaptureChild(config, 'A');
  const b = new CaptureChild(config, 'B');
  try {
    await waitFor(
      'one task to acquire the lease',
      () => !!(a.log('lease acquired') || b.log('lease acquired')),
      20_000,
    );
    const [leader, follower] = a.log('lease acquired') ? [a, b] : [b, a];
    await follower.waitForLog('waiting for the publishing lease', 10_000);
    writer.start(200);
    await consumer.waitForCount(rows + 1000, 30_000, 'snapshot and streaming from the leader');

    // While the leader lives: the lease item names it, and the follower never got past waiting for the lease
    // (it has not loaded offsets or started its sink, which both happen only after acquisition).
    const held = await leaseItem();
    assert.ok(held.owner.includes(`:${leader.pid}:`), `lease owner ${held.owner} is the leader (pid ${leader.pid})`);
    assert.equal(follower.log('lease acquired'), undefined);
    assert.equal(follower.log('starting capture'), undefined);
    assert.ok(follower.alive);

    const killedAt = Date.now();
    await leader.kill9();
    const takeover = await follower.waitForLog('lease acquired', LEASE_MS + 10_000);
    const takeoverMs = Date.parse(takeover.time) - killedAt;
    t.diagnostic(`follower took over ${takeoverMs} ms after kill -9 (lease ${LEASE_MS} ms, renewal ${RENEW_MS} ms)`);
    assert.ok(takeoverMs <= LEASE_MS + RENEW_MS + 1500, `takeover after ${takeoverMs} ms`);
    assert.ok(takeoverMs > 0);
    await follower.waitForLog('starting capture', 10_000);
    const taken = await leaseItem();
    assert.ok(taken.owner.includes(`:${follower.pid}:`), `lease owner ${taken.owner} is the follower`);
    assert.ok(taken.token > held.token, `fencing token ${taken.token} > ${held.token}`);

    // The follower streams on; then the writer stops and the follower catches up.
    const n = consumer.events.length;
    await consumer.waitForCount(n + 500, 30_000, 'events published by the follower');
    await writer.stop();
    await consumer.waitForId(await writer.marker(), 30_000);
    assert.equal(await offsetToken(), taken.token, 'offsets are committed under the new fencing token');
    await follower.kill9();
  } finally {
    await a.kill9();
    await b.kill9();
    await writer.close().catch(() => {});
  }
  await consumer.drain(200);
  const result = analyse(consumer.events, TABLE);
  const expected = await tableState(server, name, TABLE);
  t.diagnostic(
    `events ${result.dataEvents}, duplicates ${result.duplicates}, rows ${expected.size}, writer ops ${writer.ops}`,
  );
  assert.deepEqual(stateDiff(expected, result.state).slice(0, 10), []);
  assert.equal(result.state.size, expected.size);
  assert.deepEqual(result.orderViolations.slice(0, 10), []);
  assert.ok(result.duplicates <= MAX_BATCH, `duplicates after the takeover: ${result.duplicates}`);
});
