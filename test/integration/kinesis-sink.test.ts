import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import { SinkError } from '../../src/common/errors.js';
import type { SinkRecord } from '../../src/model/sink-record.js';
import { KinesisSink } from '../../src/sinks/kinesis/kinesis-sink.js';
import { deaggregate } from '../../src/sinks/kinesis/kpl-aggregation.js';
import { createStream, kinesisClient, type ReadRecord, readAllRecords } from '../harness/aws.js';
import { useKinesalite } from '../harness/fixtures.js';
// The only fake here: injected partial PutRecords failures and throttling (no emulator produces them).
import { injectFaults } from './support/kinesis-faults.js';

let admin: KinesisClient;

function rec(seq: number, id: number, table = 'shop.orders'): SinkRecord {
  const value = JSON.stringify({ op: 'u', after: { id, seq, note: 'n'.repeat(200) }, source: { table } });
  return { topic: `app.${table}`, table, key: `{"id":${id}}`, value, sizeBytes: value.length };
}

/** Everything on the stream, deaggregated, in per-shard sequence order. */
async function readUser(stream: string): Promise<Array<{ shardId: string; partitionKey: string; seq: number }>> {
  const raw: ReadRecord[] = await readAllRecords(admin, stream);
  return raw.flatMap((r) =>
    deaggregate({ partitionKey: r.partitionKey, data: r.data }).map((u) => ({
      shardId: r.shardId,
      partitionKey: u.partitionKey,
      seq: (JSON.parse(u.data.toString()) as { after: { seq: number } }).after.seq,
    })),
  );
}

function assertComplete(read: Array<{ shardId: string; partitionKey: string; seq: number }>, sent: SinkRecord[]) {
  assert.equal(read.length, sent.length, 'every record exactly once');
  assert.deepEqual(
    read.map((r) => r.seq).sort((a, b) => a - b),
    sent.map((_, i) => i),
  );
  const byKey = new Map<string, { shard: string; seqs: number[] }>();
  for (const r of read) {
    const e = byKey.get(r.partitionKey) ?? { shard: r.shardId, seqs: [] };
    assert.equal(e.shard, r.shardId, `key ${r.partitionKey} spread over shards`);
    e.seqs.push(r.seq);
    byKey.set(r.partitionKey, e);
  }
  for (const [k, { seqs }] of byKey) {
    assert.deepEqual(
      seqs,
      [...seqs].sort((a, b) => a - b),
      `per-key order broken for ${k}`,
    );
  }
}

describe('KinesisSink against kinesalite', () => {
  const kinesalite = useKinesalite();
  before(() => {
    admin = kinesisClient(kinesalite().endpoint);
  });
  after(() => admin.destroy());

  test('multi-shard stream: several batches arrive complete and in per-key order', async () => {
    await createStream(admin, 'orders-plain', 4);
    const client = kinesisClient(kinesalite().endpoint);
    const sink = new KinesisSink({ client, streamName: 'orders-plain', maxInFlight: 4 });
    await sink.start();
    const sent = Array.from({ length: 3000 }, (_, i) => rec(i, i % 257));
    for (let i = 0; i < sent.length; i += 1000) await sink.send(sent.slice(i, i + 1000));
    await sink.close();
    client.destroy();
    const read = await readUser('orders-plain');
    assertComplete(read, sent);
    assert.equal(new Set(read.map((r) => r.shardId)).size, 4, 'keys spread over all 4 shards');
  });

  test('injected partial failures and throttling: nothing lost, per-key order holds', async () => {
    await createStream(admin, 'orders-faults', 3);
    const client = kinesisClient(kinesalite().endpoint);
    const faults = injectFaults(client, 7, 4);
    const sink = new KinesisSink({
      client,
      streamName: 'orders-faults',
      maxInFlight: 4,
      retry: { baseDelayMs: 2, maxDelayMs: 20 },
    });
    const sent = Array.from({ length: 2000 }, (_, i) => rec(i, i % 50));
    for (let i = 0; i < sent.length; i += 500) await sink.send(sent.slice(i, i + 500));
    client.destroy();
    assert.ok(faults.failedEntries > 100, `only ${faults.failedEntries} injected entry failures`);
    assert.ok(faults.throttledCalls > 5, `only ${faults.throttledCalls} injected throttles`);
    assertComplete(await readUser('orders-faults'), sent);
  });

  test('aggregation with injected faults: deaggregated stream equals what was sent, in per-key order', async () => {
    await createStream(admin, 'orders-agg', 4);
    const client = kinesisClient(kinesalite().endpoint);
    const faults = injectFaults(client, 3, 5);
    const sink = new KinesisSink({
      client,
      streamName: 'orders-agg',
      aggregation: { maxBytes: 64 * 1024 },
      retry: { baseDelayMs: 2, maxDelayMs: 20 },
    });
    await sink.start();
    const sent = Array.from({ length: 3000 }, (_, i) => rec(i, i % 400));
    for (let i = 0; i < sent.length; i += 1000) await sink.send(sent.slice(i, i + 1000));
    client.destroy();
    assert.ok(faults.failedEntries > 0);
    const raw = await readAllRecords(admin, 'orders-agg');
    assert.ok(raw.length * 5 <= sent.length, `${raw.length} Kinesis records for ${sent.length} events`);
    assertComplete(await readUser('orders-agg'), sent);
  });

  test('template routing to per-table streams; a missing stream fails with an actionable SinkError', async () => {
    await createStream(admin, 'cdc-shop-orders', 1);
    await createStream(admin, 'cdc-shop-items', 2);
    const client = kinesisClient(kinesalite().endpoint);
    const sink = new KinesisSink({ client, streamNameTemplate: 'cdc-{db}-{table}', nonTableRecords: 'drop' });
    const sent = Array.from({ length: 300 }, (_, i) => rec(i, i % 30, i % 2 ? 'shop.orders' : 'shop.items'));
    await sink.send([...sent, { topic: 'app', key: null, value: '{"ddl":"x"}', sizeBytes: 11 }]);
    const orders = await readUser('cdc-shop-orders');
    const items = await readUser('cdc-shop-items');
    assert.equal(orders.length, 150);
    assert.equal(items.length, 150);
    assert.equal(sink.stats.dropped, 1);
    await assert.rejects(sink.send([rec(1, 1, 'shop.nope')]), (err: Error) => {
      assert.ok(err instanceof SinkError && !err.retriable);
      assert.match(err.message, /stream "cdc-shop-nope" does not exist/);
      return true;
    });
    client.destroy();
  });
});
