/**
 * transform-router against kinesalite: events are built from records actually written to (and read back from) a
 * source stream, plain and KPL-aggregated. kinesalite cannot fail single PutRecords entries, so the partial-failure
 * tests inject per-entry errors with an SDK middleware on the router's client — that is the only fake here, along
 * with the DLQ (a recording fake: there is no SQS emulator).
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { KinesisClient, PutRecordsInput, PutRecordsOutput } from '@aws-sdk/client-kinesis';
import { createTransformRouter, transformRouterFromEnv } from '../../lambdas/transform-router.js';
import { KinesisSink } from '../../src/sinks/kinesis/kinesis-sink.js';
import { buildChain, parseTransformsConfig } from '../../src/transforms/index.js';
import { createStream, kinesisClient, type ReadRecord, readAllRecords } from '../harness/aws.js';
import { useKinesalite } from '../harness/fixtures.js';
import {
  changeRecord,
  kinesisEvent,
  quietTools,
  RecordingDlq,
  tombstoneRecord,
  withEventId,
} from './support/lambda-events.js';

const kinesalite = useKinesalite();
const chain = () =>
  buildChain(
    parseTransformsConfig({
      transforms: 'insert,unwrap',
      'transforms.insert.type': 'read-to-insert',
      'transforms.unwrap.type': 'unwrap',
      'transforms.unwrap.add.fields': 'op',
    }),
  );

let streamNo = 0;
async function source(
  records: Parameters<KinesisSink['send']>[0],
  aggregation = false,
  payload: 'value' | 'record' = 'value',
): Promise<ReadRecord[]> {
  const admin = kinesisClient(kinesalite().endpoint);
  const name = `src-${++streamNo}`;
  await createStream(admin, name, 1);
  const sink = new KinesisSink({ client: admin, streamName: name, aggregation, payload });
  await sink.send(records);
  return readAllRecords(admin, name);
}

async function destination(): Promise<string> {
  const name = `dst-${++streamNo}`;
  await createStream(kinesisClient(kinesalite().endpoint), name, 1);
  return name;
}

const values = async (stream: string) =>
  (await readAllRecords(kinesisClient(kinesalite().endpoint), stream)).map((r) => ({
    key: r.partitionKey,
    value: r.data.length ? JSON.parse(r.data.toString('utf8')) : null,
  }));

/** Fail PutRecords entries whose data matches `match` with `code`, while `active()` says so. */
function injectEntryFailure(client: KinesisClient, match: string, code: string, active: () => boolean) {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      if (context.commandName !== 'PutRecordsCommand' || !active()) return result;
      const input = args.input as PutRecordsInput;
      const output = result.output as PutRecordsOutput;
      // The entry really was written by kinesalite; report it failed anyway, as Kinesis may (at-least-once).
      input.Records?.forEach((e, i) => {
        if (
          Buffer.from(e.Data ?? [])
            .toString('utf8')
            .includes(match) &&
          output.Records?.[i]
        ) {
          output.Records[i] = { ErrorCode: code, ErrorMessage: 'injected' };
          output.FailedRecordCount = (output.FailedRecordCount ?? 0) + 1;
        }
      });
      return result;
    },
    // Low priority: inside the router's delivery observer, so it sees the injected result like a real one.
    { step: 'initialize', priority: 'low', name: 'injectFailure', override: true },
  );
}

describe('transform-router', () => {
  let tools: ReturnType<typeof quietTools>;
  before(() => {
    tools = quietTools();
  });

  const rows = [1, 2, 3, 4].map((id) => changeRecord({ op: 'r', id, after: { id, amount: id * 10 }, pos: 100 }));

  for (const aggregation of [false, true]) {
    test(`transforms and forwards every record in order (${aggregation ? 'KPL-aggregated' : 'plain'} input)`, async () => {
      const input = await source(
        [...rows, changeRecord({ op: 'd', id: 2, before: { id: 2, amount: 20 }, pos: 200 }), tombstoneRecord(2)],
        aggregation,
      );
      if (aggregation) assert.ok(input.length < 6, 'the input really is aggregated');
      const out = await destination();
      const handler = createTransformRouter({
        chain: chain(),
        kinesis: kinesisClient(kinesalite().endpoint),
        routing: { streamName: out },
        ...tools,
      });
      const res = await handler(kinesisEvent(input, 'it.shop.orders'));
      assert.deepEqual(res.batchItemFailures, []);
      assert.deepEqual(await values(out), [
        ...[1, 2, 3, 4].map((id) => ({ key: `{"id":${id}}`, value: { id, amount: id * 10, __op: 'c' } })),
        { key: '{"id":2}', value: null },
      ]);
    });
  }

  test('a record that keeps failing is reported with its sequence number; the retry delivers it', async () => {
    const input = await source(rows);
    const out = await destination();
    const client = kinesisClient(kinesalite().endpoint);
    let failing = true;
    injectEntryFailure(client, '"id":3', 'InternalFailure', () => failing);
    const dlq = new RecordingDlq();
    const handler = createTransformRouter({
      chain: chain(),
      kinesis: client,
      routing: { streamName: out },
      putMaxAttempts: 2,
      dlq,
      maxAttempts: 5,
      random: () => 0,
      ...tools,
    });
    const event = kinesisEvent(input, 'it.shop.orders');
    const res = await handler(event);
    assert.deepEqual(res.batchItemFailures, [{ itemIdentifier: input[2].sequenceNumber }]);
    assert.equal(dlq.letters.length, 0);
    // Lambda retries from the lowest reported record.
    failing = false;
    const again = await handler(kinesisEvent(input.slice(2), 'it.shop.orders'));
    assert.deepEqual(again.batchItemFailures, []);
    const ids = (await values(out)).map((v) => (v.value as { id: number }).id);
    // Every record arrived; id 3 appears once per injected "failure" Kinesis actually accepted, plus the retry.
    assert.deepEqual([...new Set(ids)].sort(), [1, 2, 3, 4]);
    assert.equal(ids.filter((i) => i === 4).length, 2, 'records after the failed one are redelivered (duplicates)');
  });

  test('drops repeats by event id: a capture re-delivery and its own retried batch, never a record not yet delivered', async () => {
    const withIds = rows.map((r, i) => withEventId(r, `file=mysql-bin.000001,pos=100/snapshot/shop.orders/${i}/0`));
    // A capture restart re-published records 2..4 after the originals (new sequence numbers, same ids); record
    // 5 has no id (a producer without ids) and always passes.
    const noId = changeRecord({ op: 'c', id: 5, after: { id: 5, amount: 50 }, pos: 300 });
    const input = await source([...withIds, ...withIds.slice(1), noId, noId], false, 'record');
    const out = await destination();
    const client = kinesisClient(kinesalite().endpoint);
    let failing = true;
    injectEntryFailure(client, '"id":3', 'InternalFailure', () => failing);
    const handler = createTransformRouter({
      chain: chain(),
      kinesis: client,
      routing: { streamName: out },
      putMaxAttempts: 1,
      maxAttempts: 5,
      random: () => 0,
      ...tools,
    });
    // The first copy of id 3 fails: it and everything after it are retried, so its id is not remembered.
    const res = await handler(kinesisEvent(input, 'it.shop.orders'));
    // Lambda restarts the shard from the lowest reported record.
    assert.equal(res.batchItemFailures[0]?.itemIdentifier, input[2].sequenceNumber);
    failing = false;
    assert.deepEqual((await handler(kinesisEvent(input.slice(2), 'it.shop.orders'))).batchItemFailures, []);
    // Lambda may deliver a batch again after a timeout: all repeats by now.
    assert.deepEqual((await handler(kinesisEvent(input, 'it.shop.orders'))).batchItemFailures, []);
    const ids = (await values(out)).map((v) => (v.value as { id: number }).id);
    // Each id'd record once; id 3 may also have been written by the "failed" attempt (Kinesis may do that):
    // at-least-once, never dropped. Records without an id pass every time (2 copies, delivered in 2+ batches).
    assert.deepEqual(
      ids.filter((i) => i !== 3 && i !== 5),
      [1, 2, 4],
    );
    assert.ok(ids.filter((i) => i === 5).length >= 4);
    assert.ok(ids.filter((i) => i === 3).length >= 1);
    const off = createTransformRouter({
      chain: chain(),
      kinesis: kinesisClient(kinesalite().endpoint),
      routing: { streamName: out },
      dedupIds: 0,
      ...tools,
    });
    const before = (await values(out)).length;
    await off(kinesisEvent(input.slice(0, 2), 'it.shop.orders'));
    assert.equal((await values(out)).length, before + 2, 'CDC_DEDUP_IDS=0 forwards everything');
  });

  test('poison records go to the DLQ with the reason; retriable failures after N attempts too', async () => {
    const input = await source(rows);
    const garbage: ReadRecord = { ...input[1], data: Buffer.from('{not json') };
    const out = await destination();
    const client = kinesisClient(kinesalite().endpoint);
    injectEntryFailure(client, '"id":4', 'ProvisionedThroughputExceededException', () => true);
    const dlq = new RecordingDlq();
    const handler = createTransformRouter({
      chain: chain(),
      kinesis: client,
      routing: { streamName: out },
      putMaxAttempts: 1,
      maxAttempts: 2,
      dlq,
      ...tools,
    });
    const event = kinesisEvent([input[0], garbage, input[2], input[3]], 'it.shop.orders');
    const first = await handler(event);
    assert.deepEqual(first.batchItemFailures, [{ itemIdentifier: input[3].sequenceNumber }]);
    assert.deepEqual(
      dlq.letters.map((l) => [l.sequenceNumber, l.attempts]),
      [[garbage.sequenceNumber, 1]],
    );
    assert.match(dlq.letters[0].reason, /cannot decode: invalid JSON/);
    assert.equal(Buffer.from(dlq.letters[0].data, 'base64').toString(), '{not json');
    const second = await handler(kinesisEvent([input[3]], 'it.shop.orders'));
    assert.deepEqual(second.batchItemFailures, []);
    assert.equal(dlq.letters.length, 2);
    assert.match(dlq.letters[1].reason, /delivery failed 2 times: .*ProvisionedThroughputExceeded/);
    assert.equal(dlq.letters[1].attempts, 2);
  });

  test('configuration from the environment: transforms and the required output stream', () => {
    assert.throws(
      () => transformRouterFromEnv({ CDC_TRANSFORMS: 'u', CDC_TRANSFORMS_U_TYPE: 'unwrap' }),
      /CDC_OUTPUT_STREAM/,
    );
    assert.throws(
      () => transformRouterFromEnv({ CDC_TRANSFORMS: 'u', CDC_TRANSFORMS_U_TYPE: 'unwarp', CDC_OUTPUT_STREAM: 'x' }),
      /did you mean unwrap/,
    );
    assert.equal(typeof transformRouterFromEnv({ CDC_OUTPUT_STREAM: 'x', AWS_REGION: 'us-east-1' }), 'function');
  });
});
