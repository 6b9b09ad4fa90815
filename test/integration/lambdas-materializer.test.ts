/**
 * materializer against kinesalite + dynalite: change events are written to a stream, read back, and delivered to
 * the handler in batches with duplicates, replays and out-of-order redelivery; the table must converge to the
 * final source state. The DLQ is a recording fake (no SQS emulator).
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { CreateTableCommand, type DynamoDBClient, GetItemCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { fromItem } from '../../lambdas/lib/dynamo-values.js';
import { createMaterializer } from '../../lambdas/materializer.js';
import type { SinkRecord } from '../../src/model/sink-record.js';
import { ClaimChecker } from '../../src/sinks/claim-check/claim-checker.js';
import { ClaimCheckResolver } from '../../src/sinks/claim-check/resolver.js';
import type { ClaimCheckStore } from '../../src/sinks/claim-check/s3-store.js';
import { KinesisSink } from '../../src/sinks/kinesis/kinesis-sink.js';
import { createStream, dynamoClient, kinesisClient, type ReadRecord, readAllRecords } from '../harness/aws.js';
import { useDynalite, useKinesalite } from '../harness/fixtures.js';
import {
  type Change,
  changeRecord,
  kinesisEvent,
  quietTools,
  RecordingDlq,
  tombstoneRecord,
  withEventId,
} from './support/lambda-events.js';

const kinesalite = useKinesalite();
const dynalite = useDynalite();

let n = 0;
async function publish(
  records: SinkRecord[],
  payload: 'value' | 'record',
  aggregation = false,
  oneByOne = false,
): Promise<ReadRecord[]> {
  const client = kinesisClient(kinesalite().endpoint);
  const stream = `it.shop.orders-${++n}`;
  await createStream(client, stream, 1);
  const sink = new KinesisSink({ client, streamName: stream, payload, aggregation });
  // One record per send keeps the stream in exactly this order (a batch keeps only per-key order).
  if (oneByOne) for (const r of records) await sink.send([r]);
  else await sink.send(records);
  return readAllRecords(client, stream);
}

async function createTable(dynamo: DynamoDBClient, name: string) {
  await dynamo.send(
    new CreateTableCommand({
      TableName: name,
      AttributeDefinitions: [{ AttributeName: '__key', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: '__key', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
}

/** Live rows of a materialised table, columns only, sorted by id. */
async function liveRows(dynamo: DynamoDBClient, table: string): Promise<Record<string, unknown>[]> {
  const out = await dynamo.send(new ScanCommand({ TableName: table, ConsistentRead: true }));
  return (out.Items ?? [])
    .map(fromItem)
    .filter((i) => i.__deleted === false)
    .map((i) => Object.fromEntries(Object.entries(i).filter(([k]) => !k.startsWith('__'))))
    .sort((a, b) => Number(a.id) - Number(b.id));
}

// A history over three keys: snapshot, updates (two in one transaction: same pos/row), deletes, a re-insert.
const history: Change[] = [
  { op: 'r', id: 1, after: { id: 1, qty: 1 }, pos: 100 },
  { op: 'r', id: 2, after: { id: 2, qty: 2 }, pos: 100 },
  { op: 'r', id: 3, after: { id: 3, qty: 3 }, pos: 100 },
  { op: 'u', id: 1, before: { id: 1, qty: 1 }, after: { id: 1, qty: 10 }, pos: 100 },
  { op: 'u', id: 1, before: { id: 1, qty: 10 }, after: { id: 1, qty: 11 }, pos: 300 },
  { op: 'u', id: 1, before: { id: 1, qty: 11 }, after: { id: 1, qty: 12 }, pos: 300 },
  { op: 'd', id: 2, before: { id: 2, qty: 2 }, pos: 400 },
  { op: 'u', id: 3, before: { id: 3, qty: 3 }, after: { id: 3, qty: 30 }, pos: 50, file: 'mysql-bin.000002' },
  { op: 'd', id: 3, before: { id: 3, qty: 30 }, pos: 60, file: 'mysql-bin.000002' },
  { op: 'c', id: 3, after: { id: 3, qty: 33, note: 'back' }, pos: 70, file: 'mysql-bin.000002' },
];
const finalState = [
  { id: 1, qty: 12 },
  { id: 3, qty: 33, note: 'back' },
];

describe('materializer', () => {
  let tools: ReturnType<typeof quietTools>;
  before(() => {
    tools = quietTools();
  });

  test('converges to the source state despite duplicates, replays and out-of-order batches', async () => {
    const dynamo = dynamoClient(dynalite().endpoint);
    await createTable(dynamo, 'shop.orders');
    const records = await publish(
      history.flatMap((c) => (c.op === 'd' ? [changeRecord(c), tombstoneRecord(c.id)] : [changeRecord(c)])),
      'value',
    );
    const handler = createMaterializer({ dynamo, ...tools });
    const event = (rs: ReadRecord[]) => kinesisEvent(rs, 'it.shop.orders');
    const half = Math.floor(records.length / 2);
    // Later half first, then the first half (out of order across batches), then everything again, then a batch
    // with each record twice in reverse order.
    for (const batch of [records.slice(half), records.slice(0, half), records, [...records, ...records].reverse()]) {
      const res = await handler(event(batch));
      assert.deepEqual(res.batchItemFailures, []);
    }
    assert.deepEqual(await liveRows(dynamo, 'shop.orders'), finalState);
    // The deleted row's old snapshot read, redelivered on its own, does not resurrect it.
    const oldRead = records.find(
      (r) => r.data.toString().includes('"qty":2') && r.data.toString().includes('"op":"r"'),
    );
    assert.ok(oldRead);
    await handler(event([oldRead]));
    assert.deepEqual(await liveRows(dynamo, 'shop.orders'), finalState);
  });

  test('with stable event ids, a re-delivered stretch is never applied twice and never lets an older change back', async () => {
    const dynamo = dynamoClient(dynalite().endpoint);
    await createTable(dynamo, 'm4.shop.orders');
    const handler = createMaterializer({ dynamo, tableNameTemplate: 'm4.{db}.{table}', ...tools });
    const snap = (n: number) => `file=mysql-bin.000001,pos=100/snapshot/shop.orders/${n}`;
    // [change, id origin]: the cases that broke the "highest (file, pos, row) per key" rule.
    const changes: [Change, string][] = [
      [{ op: 'r', id: 1, after: { id: 1, qty: 1 }, pos: 100 }, snap(0)],
      [{ op: 'r', id: 2, after: { id: 2, qty: 2 }, pos: 100 }, snap(1)],
      // The first streamed change shares (file, pos, row) with the snapshot rows.
      [{ op: 'u', id: 1, before: { id: 1, qty: 1 }, after: { id: 1, qty: 5 }, pos: 100 }, '0-1-5/0/0'],
      // One transaction: two updates of one row (same pos and row), a delete and a re-insert of another.
      [{ op: 'u', id: 1, before: { id: 1, qty: 5 }, after: { id: 1, qty: 6 }, pos: 500 }, '0-1-6/0/0'],
      [{ op: 'u', id: 1, before: { id: 1, qty: 6 }, after: { id: 1, qty: 7 }, pos: 500 }, '0-1-6/1/0'],
      [{ op: 'd', id: 2, before: { id: 2, qty: 2 }, pos: 500 }, '0-1-6/2/0'],
      [{ op: 'c', id: 2, after: { id: 2, qty: 9 }, pos: 500 }, '0-1-6/3/0'],
    ];
    const records = changes.flatMap(([c, id]) =>
      c.op === 'd'
        ? [withEventId(changeRecord(c), `${id}/0`), withEventId(tombstoneRecord(c.id), `${id}/1`)]
        : [withEventId(changeRecord(c), `${id}/0`)],
    );
    // The source's state after each record, folded the obvious way.
    const states: Record<string, unknown>[][] = [];
    const state = new Map<number, Record<string, unknown>>();
    for (const r of records) {
      const v = r.value === null ? null : JSON.parse(r.value);
      if (v?.op === 'd') state.delete(v.before.id);
      else if (v) state.set(v.after.id, v.after);
      states.push([...state.values()].sort((a, b) => Number(a.id) - Number(b.id)));
    }
    // A capture crash re-publishes everything after the last committed offset: each record again, with a new
    // Kinesis sequence number. Records arrive one per batch, in stream order.
    const stream = await publish([...records, ...records.slice(2)], 'record', false, true);
    const event = (rs: ReadRecord[]) => kinesisEvent(rs, 'x');
    for (let i = 0; i < stream.length; i++) {
      assert.deepEqual((await handler(event([stream[i]]))).batchItemFailures, []);
      const want = states[Math.min(i, records.length - 1)];
      assert.deepEqual(await liveRows(dynamo, 'm4.shop.orders'), want, `after stream record ${i}`);
    }
    assert.deepEqual(states.at(-1), [
      { id: 1, qty: 7 },
      { id: 2, qty: 9 },
    ]);
  });

  test('record-format and aggregated input; tombstones without a delete event delete at the stored position', async () => {
    const dynamo = dynamoClient(dynalite().endpoint);
    await createTable(dynamo, 'm2.shop.orders');
    const handler = createMaterializer({ dynamo, tableNameTemplate: 'm2.{db}.{table}', ...tools });
    const records = await publish(
      [...history.slice(0, 3).map((c) => changeRecord(c)), tombstoneRecord(2)],
      'record',
      true,
    );
    assert.ok(records.length < 4, 'aggregated');
    assert.deepEqual((await handler(kinesisEvent(records, 'x'))).batchItemFailures, []);
    assert.deepEqual(await liveRows(dynamo, 'm2.shop.orders'), [
      { id: 1, qty: 1 },
      { id: 3, qty: 3 },
    ]);
    // Redelivering the whole aggregated batch (tombstone included) changes nothing.
    assert.deepEqual((await handler(kinesisEvent(records, 'x'))).batchItemFailures, []);
    assert.deepEqual(
      (await liveRows(dynamo, 'm2.shop.orders')).map((r) => r.id),
      [1, 3],
    );
  });

  test('poison records go to the DLQ; write failures are reported for retry; others are written', async () => {
    const dynamo = dynamoClient(dynalite().endpoint);
    await createTable(dynamo, 'm3.shop.orders');
    const dlq = new RecordingDlq();
    const handler = createMaterializer({ dynamo, tableNameTemplate: 'm3.{db}.{table}', dlq, ...tools });
    const bad = changeRecord({ op: 'c', id: 9, after: { id: 9, __key: 'x' }, pos: 1 });
    const missingTable = changeRecord({ op: 'c', id: 8, after: { id: 8 }, pos: 1 }, 'it.other.t');
    const otherDb = { ...missingTable, value: (missingTable.value ?? '').replace('"db":"shop"', '"db":"nope"') };
    const records = await publish([changeRecord(history[0]), bad, otherDb], 'value');
    const res = await handler(kinesisEvent(records, 'it.shop.orders'));
    assert.deepEqual(res.batchItemFailures, [{ itemIdentifier: records[2].sequenceNumber }]);
    assert.equal(dlq.letters.length, 1);
    assert.match(dlq.letters[0].reason, /__key use the reserved "__" prefix/);
    assert.deepEqual(await liveRows(dynamo, 'm3.shop.orders'), [{ id: 1, qty: 1 }]);
  });
  test("rows over DynamoDB's 400 KB item limit: a placeholder at their position and a letter naming table and sizes", async () => {
    const dynamo = dynamoClient(dynalite().endpoint);
    await createTable(dynamo, 'm5.shop.orders');
    const objects = new Map<string, Buffer>();
    const store: ClaimCheckStore = {
      put: async (_bucket, key, body) => void objects.set(key, body),
      get: async (_bucket, key) => objects.get(key) ?? Buffer.alloc(0),
      close: () => {},
    };
    const dlq = new RecordingDlq();
    const handler = createMaterializer({
      dynamo,
      tableNameTemplate: 'm5.{db}.{table}',
      dlq,
      claimCheckResolver: new ClaimCheckResolver(store),
      ...tools,
    });
    const big = 'x'.repeat(450_000);
    const claimChecked = await new ClaimChecker({ store, bucket: 'claims' }).check(
      changeRecord({ op: 'c', id: 3, after: { id: 3, note: big }, pos: 30 }),
    );
    const records = await publish(
      [
        changeRecord({ op: 'c', id: 1, after: { id: 1, note: 'small' }, pos: 10 }),
        changeRecord({ op: 'c', id: 2, after: { id: 2, note: big }, pos: 20 }),
        claimChecked,
      ],
      'value',
    );
    assert.deepEqual((await handler(kinesisEvent(records, 'it.shop.orders'))).batchItemFailures, []);
    const item = async (id: number) =>
      fromItem(
        (
          await dynamo.send(
            new GetItemCommand({ TableName: 'm5.shop.orders', Key: { __key: { S: JSON.stringify({ id }) } } }),
          )
        ).Item ?? {},
      );
    assert.equal((await item(1)).note, 'small');
    // A placeholder keeps the position (so no older row comes back) and says what is missing; the letter why.
    const placeholder = await item(2);
    assert.equal(placeholder.__oversize, true);
    assert.equal(placeholder.note, undefined);
    assert.ok(Number(placeholder.__size) > 400 * 1024, `size ${placeholder.__size}`);
    assert.equal(dlq.letters.length, 2);
    const [reason, claimReason] = dlq.letters.map((l) => l.reason).sort();
    assert.match(reason, /shop\.orders at mysql-bin\.000001:20 is \d+ bytes as a DynamoDB item/);
    assert.match(reason, /over DynamoDB's 409600-byte item limit/);
    assert.match(reason, /column\.exclude\.list, column\.truncate\.to\.<N>\.chars/);
    assert.ok(reason.length < 1000 && !reason.includes('xxxx'), 'no row values in the reason');
    // Claim-checked on the stream: the placeholder also keeps the pointer to the whole change event.
    assert.match(claimReason, /mysql-bin\.000001:30 .* S3 pointer of the full change \(__claim_check/);
    const claimed = await item(3);
    assert.equal(claimed.__oversize, true);
    assert.equal(claimed.note, undefined);
    const pointer = claimed.__claim_check as { bucket: string; key: string; size: number; sha256: string };
    assert.equal(pointer.bucket, 'claims');
    assert.equal(JSON.parse(objects.get(pointer.key)!.toString()).after.note, big);

    // An older change of key 2 redelivered stays out; a newer one that fits replaces the placeholder.
    const later = await publish(
      [
        changeRecord({ op: 'c', id: 2, after: { id: 2, note: 'older' }, pos: 5 }),
        changeRecord({ op: 'u', id: 2, before: { id: 2 }, after: { id: 2, note: 'fits now' }, pos: 40 }),
      ],
      'value',
      false,
      true,
    );
    const first = await handler(kinesisEvent(later.slice(0, 1), 'it.shop.orders'));
    assert.deepEqual(first.batchItemFailures, []);
    assert.equal((await item(2)).__oversize, true, 'the older change does not replace the placeholder');
    assert.deepEqual((await handler(kinesisEvent(later.slice(1), 'it.shop.orders'))).batchItemFailures, []);
    const now = await item(2);
    assert.equal(now.note, 'fits now');
    assert.equal(now.__oversize, undefined);
    assert.equal(dlq.letters.length, 2, 'nothing else was dead-lettered');
  });
});
