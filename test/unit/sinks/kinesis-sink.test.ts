import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  DescribeStreamSummaryCommand,
  type KinesisClient,
  ListShardsCommand,
  PutRecordsCommand,
  type PutRecordsRequestEntry,
  type PutRecordsResultEntry,
} from '@aws-sdk/client-kinesis';
import { SinkError } from '../../../src/common/errors.js';
import { createLogger, silentLogger } from '../../../src/common/logger.js';
import { CaptureTask } from '../../../src/engine/capture-task.js';
import { maxAttempts } from '../../../src/engine/retry.js';
import { CaptureMetrics } from '../../../src/model/capture-metrics.js';
import type { SinkRecord } from '../../../src/model/sink-record.js';
import { backoffDelay, isRetriableRequestError } from '../../../src/sinks/kinesis/backoff.js';
import { KinesisSink } from '../../../src/sinks/kinesis/kinesis-sink.js';
import { deaggregate, partitionKeyHash } from '../../../src/sinks/kinesis/kpl-aggregation.js';
import { truncateJson } from '../../../src/sinks/kinesis/oversize.js';
import { partitionKeyFor, StreamRouter, sanitizeStreamName } from '../../../src/sinks/kinesis/routing.js';

type Failure = (entry: PutRecordsRequestEntry, call: number) => PutRecordsResultEntry | undefined;

/**
 * In-memory stand-in for the Kinesis client (unit tests: no network). Stores accepted records per stream in arrival
 * order, can fail entries or whole calls, and answers ListShards with `shards` equal hash ranges.
 */
class FakeKinesis {
  readonly accepted = new Map<string, PutRecordsRequestEntry[]>();
  readonly requests: Array<{ stream: string; entries: PutRecordsRequestEntry[] }> = [];
  calls = 0;
  maxConcurrent = 0;
  private active = 0;
  failEntry: Failure | undefined;
  failCall: ((call: number) => Error | undefined) | undefined;
  constructor(private readonly shards = 1) {}

  shardOf(hash: bigint): string {
    const width = 2n ** 128n / BigInt(this.shards);
    return `shardId-${String(Number(hash / width)).padStart(12, '0')}`;
  }

  async send(cmd: unknown): Promise<unknown> {
    if (cmd instanceof DescribeStreamSummaryCommand) {
      if (cmd.input.StreamName === 'missing') throw Object.assign(new Error('not found'), notFound());
      return { StreamDescriptionSummary: { StreamStatus: 'ACTIVE' } };
    }
    if (cmd instanceof ListShardsCommand) {
      const width = 2n ** 128n / BigInt(this.shards);
      return {
        Shards: Array.from({ length: this.shards }, (_, i) => ({
          ShardId: this.shardOf(BigInt(i) * width),
          HashKeyRange: {
            StartingHashKey: (BigInt(i) * width).toString(),
            EndingHashKey: (i === this.shards - 1 ? 2n ** 128n - 1n : BigInt(i + 1) * width - 1n).toString(),
          },
          SequenceNumberRange: { StartingSequenceNumber: '1' },
        })),
      };
    }
    if (!(cmd instanceof PutRecordsCommand)) throw new Error('unexpected command');
    const call = ++this.calls;
    this.active++;
    this.maxConcurrent = Math.max(this.maxConcurrent, this.active);
    await new Promise((r) => setImmediate(r));
    this.active--;
    const stream = cmd.input.StreamName!;
    const entries = cmd.input.Records!;
    this.requests.push({ stream, entries });
    const callErr = this.failCall?.(call);
    if (callErr) throw callErr;
    if (stream === 'missing') throw Object.assign(new Error('Stream missing not found'), notFound());
    const list = this.accepted.get(stream) ?? [];
    this.accepted.set(stream, list);
    return {
      Records: entries.map((e) => {
        const f = this.failEntry?.(e, call);
        if (f) return f;
        list.push(e);
        const hash = e.ExplicitHashKey ? BigInt(e.ExplicitHashKey) : partitionKeyHash(e.PartitionKey!);
        return { SequenceNumber: String(list.length), ShardId: this.shardOf(hash) };
      }),
    };
  }
  destroy(): void {}
  asClient(): KinesisClient {
    return this as unknown as KinesisClient;
  }
}

function notFound() {
  return { name: 'ResourceNotFoundException', $metadata: { httpStatusCode: 400 } };
}

function rec(i: number, key: number | null, opts: Partial<SinkRecord> = {}): SinkRecord {
  const keyText = key === null ? null : `{"id":${key}}`;
  const value = `{"op":"u","after":{"id":${key},"seq":${i}}}`;
  return { topic: 'app.shop.orders', table: 'shop.orders', key: keyText, value, sizeBytes: value.length, ...opts };
}

/** Sequence numbers seen per partition key, in acceptance order (deaggregating when needed). */
function perKey(entries: PutRecordsRequestEntry[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const e of entries) {
    for (const u of deaggregate({ partitionKey: e.PartitionKey!, data: e.Data! })) {
      const seq = (JSON.parse(u.data.toString()) as { after: { seq: number } }).after.seq;
      const l = out.get(u.partitionKey) ?? [];
      l.push(seq);
      out.set(u.partitionKey, l);
    }
  }
  return out;
}

function assertPerKeyOrder(entries: PutRecordsRequestEntry[], expectedTotal: number) {
  const m = perKey(entries);
  let total = 0;
  for (const [k, seqs] of m) {
    total += seqs.length;
    assert.deepEqual(
      seqs,
      [...seqs].sort((a, b) => a - b),
      `order broken for key ${k}`,
    );
    assert.equal(new Set(seqs).size, seqs.length, `duplicate for key ${k}`);
  }
  assert.equal(total, expectedTotal);
}

describe('routing and partition keys', () => {
  test('partition key is the key text; long keys hash; null keys use table then topic', () => {
    assert.equal(partitionKeyFor(rec(1, 7)), '{"id":7}');
    const long = `{"k":"${'x'.repeat(300)}"}`;
    const pk = partitionKeyFor(rec(1, 1, { key: long }));
    assert.match(pk, /^[0-9a-f]{64}$/);
    assert.equal(pk, partitionKeyFor(rec(2, 1, { key: long })));
    assert.equal(partitionKeyFor(rec(1, null)), 'shop.orders');
    assert.equal(partitionKeyFor({ topic: 'app', key: null, value: '{}', sizeBytes: 2 }), 'app');
  });

  test('stream names: fixed, templates, sanitising, non-table records, router', () => {
    assert.equal(new StreamRouter({ streamName: 's1' }).route(rec(1, 1)), 's1');
    const t = new StreamRouter({ streamNameTemplate: 'cdc-{prefix}-{db}-{table}' });
    assert.equal(t.route(rec(1, 1)), 'cdc-app-shop-orders');
    assert.equal(t.route(rec(1, 1, { topic: 'app.shop.ördérs', table: 'shop.ördérs' })), 'cdc-app-shop-_rd_rs');
    assert.equal(new StreamRouter({}).route(rec(1, 1)), 'app.shop.orders');
    const schemaChange: SinkRecord = { topic: 'app', key: '{}', value: '{}', sizeBytes: 4 };
    assert.equal(t.route(schemaChange), 'app');
    assert.equal(new StreamRouter({ nonTableRecords: 'drop' }).route(schemaChange), null);
    assert.equal(new StreamRouter({ nonTableRecords: { stream: 'meta' } }).route(schemaChange), 'meta');
    assert.equal(new StreamRouter({ router: (r) => (r.table ? 'x' : null) }).route(schemaChange), null);
    const long = sanitizeStreamName('a'.repeat(200));
    assert.equal(long.length, 128);
    assert.notEqual(long, sanitizeStreamName(`${'a'.repeat(199)}b`));
    assert.throws(() => new KinesisSink({ streamName: 'bad name!' }), SinkError);
  });
});

describe('backoff and error classification', () => {
  test('full jitter stays within the exponential ceiling', () => {
    assert.equal(
      backoffDelay(0, { baseDelayMs: 100 }, () => 0.999),
      99,
    );
    assert.equal(
      backoffDelay(3, { baseDelayMs: 100 }, () => 0.5),
      400,
    );
    assert.equal(
      backoffDelay(20, { baseDelayMs: 100, maxDelayMs: 5000 }, () => 0.999),
      4995,
    );
    assert.equal(
      backoffDelay(5, {}, () => 0),
      0,
    );
  });

  test('throttling, 5xx and network errors retry; 4xx client errors do not', () => {
    const e = (name: string, status?: number, code?: string) =>
      Object.assign(new Error(name), { name, code, $metadata: status ? { httpStatusCode: status } : undefined });
    assert.ok(isRetriableRequestError(e('ProvisionedThroughputExceededException', 400)));
    assert.ok(isRetriableRequestError(e('KMSThrottlingException', 400)));
    assert.ok(isRetriableRequestError(e('InternalFailure', 500)));
    assert.ok(isRetriableRequestError(e('SomethingNew', 503)));
    assert.ok(isRetriableRequestError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })));
    assert.ok(!isRetriableRequestError(e('ResourceNotFoundException', 400)));
    assert.ok(!isRetriableRequestError(e('AccessDeniedException', 400)));
    assert.ok(!isRetriableRequestError(e('ValidationException', 400)));
    assert.ok(!isRetriableRequestError(new TypeError('bug')));
  });
});

describe('KinesisSink with a fake client', () => {
  test('batches respect 500 records and the request byte limit; everything arrives in key order', async () => {
    const fake = new FakeKinesis();
    const sink = new KinesisSink({ client: fake.asClient(), streamName: 's', maxRequestBytes: 20_000 });
    await sink.start();
    const records = Array.from({ length: 2000 }, (_, i) => rec(i, i % 1500));
    await sink.send(records);
    assert.ok(fake.requests.every((r) => r.entries.length <= 500));
    for (const r of fake.requests) {
      const bytes = r.entries.reduce((n, e) => n + e.Data!.length + Buffer.byteLength(e.PartitionKey!), 0);
      assert.ok(bytes <= 20_000, `request of ${bytes} bytes`);
      assert.equal(
        new Set(r.entries.map((e) => e.PartitionKey)).size,
        r.entries.length,
        'one record per key per request',
      );
    }
    assertPerKeyOrder(fake.accepted.get('s')!, 2000);
    assert.equal(sink.stats.userRecords, 2000);
  });

  test('partial failures and throttling never reorder a key or lose a record', async () => {
    const fake = new FakeKinesis();
    let n = 0;
    fake.failEntry = () =>
      ++n % 3 === 0
        ? { ErrorCode: n % 2 ? 'ProvisionedThroughputExceededException' : 'InternalFailure', ErrorMessage: 'injected' }
        : undefined;
    fake.failCall = (call) =>
      call % 5 === 0
        ? Object.assign(new Error('Rate exceeded'), {
            name: 'ProvisionedThroughputExceededException',
            $metadata: { httpStatusCode: 400 },
          })
        : undefined;
    const sink = new KinesisSink({
      client: fake.asClient(),
      streamName: 's',
      maxInFlight: 3,
      retry: { baseDelayMs: 1, maxDelayMs: 4 },
    });
    const records = Array.from({ length: 600 }, (_, i) => rec(i, i % 20));
    await sink.send(records);
    assertPerKeyOrder(fake.accepted.get('s')!, 600);
    assert.ok(sink.stats.retriedEntries > 100);
    assert.ok(sink.stats.throttled > 0);
    assert.ok(fake.maxConcurrent <= 3);
  });

  test('non-retriable errors reject with a SinkError naming the stream and the fix', async () => {
    const fake = new FakeKinesis();
    const sink = new KinesisSink({ client: fake.asClient(), streamNameTemplate: '{table}' });
    await assert.rejects(sink.send([rec(1, 1, { table: 'db.missing', topic: 'p.db.missing' })]), (err: Error) => {
      assert.ok(err instanceof SinkError);
      assert.equal(err.retriable, false);
      assert.match(err.message, /stream "missing" does not exist.*create it/);
      return true;
    });
    const fixed = new KinesisSink({ client: fake.asClient(), streamName: 'missing' });
    await assert.rejects(fixed.start(), /does not exist/);
  });

  test('gives up after maxAttempts with an exhausted SinkError naming errors.max.retries', async () => {
    const fake = new FakeKinesis();
    fake.failEntry = () => ({ ErrorCode: 'ProvisionedThroughputExceededException', ErrorMessage: 'slow down' });
    const sink = new KinesisSink({
      client: fake.asClient(),
      streamName: 's',
      retry: { maxAttempts: 3, baseDelayMs: 1 },
    });
    // Exhausted: the retry policy was applied here, so the Publisher must not retry the batch on top of it; still
    // transient (a Lambda reports the record back to its event source for a later try).
    await assert.rejects(
      sink.send([rec(1, 1)]),
      (err: Error) =>
        err instanceof SinkError && err.retriesExhausted && err.retriable && /errors\.max\.retries/.test(err.message),
    );
    assert.equal(fake.calls, 3);
  });

  test('one retry layer: with errors.max.retries=2 the task makes 3 PutRecords attempts, not 3 x publisher retries', async () => {
    const fake = new FakeKinesis();
    fake.failEntry = () => ({ ErrorCode: 'InternalFailure', ErrorMessage: 'boom' });
    const policy = { maxRetries: 2, initialDelayMs: 1, maxDelayMs: 2 };
    const sink = new KinesisSink({
      client: fake.asClient(),
      streamName: 's',
      retry: { maxAttempts: maxAttempts(policy), baseDelayMs: 1, maxDelayMs: 2 },
    });
    const task = new CaptureTask({
      source: {
        metrics: new CaptureMetrics(),
        run: async (ctx) => ctx.emit({ record: rec(1, 1), offset: { file: 'b.1', pos: 4 } }),
      },
      sink,
      offsetStore: { load: async () => null, commit: async () => {}, probe: async () => {}, close: async () => {} },
      logger: silentLogger,
      maxBatchSize: 10,
      maxQueueSize: 10,
      maxQueueSizeInBytes: 1 << 20,
      retry: policy,
    });
    await assert.rejects(task.run(), /after 3 attempts/);
    assert.equal(fake.calls, 3);
  });

  test('oversize: the error and the truncation log carry sizes, table and position, never the key or values', async () => {
    const secret = 'alice.secret@example.com';
    const value = JSON.stringify({
      op: 'c',
      after: { email: secret, doc: 'y'.repeat(5000) },
      source: { db: 'shop', table: 'users', file: 'mysql-bin.000007', pos: 1234, row: 2 },
    });
    const big: SinkRecord = {
      topic: 'app.shop.users',
      table: 'shop.users',
      key: JSON.stringify({ email: secret }),
      value,
      sizeBytes: value.length,
    };
    const fake = new FakeKinesis();
    const failing = new KinesisSink({ client: fake.asClient(), streamName: 's', maxRecordBytes: 2000 });
    await assert.rejects(failing.send([big]), (err: Error) => {
      assert.doesNotMatch(err.message, /alice/);
      assert.match(err.message, /shop\.users at mysql-bin\.000007:1234 row 2/);
      assert.match(err.message, /sink\.kinesis\.oversize\.handling=truncate/);
      return true;
    });
    const lines: string[] = [];
    const logger = createLogger({
      level: 'warn',
      format: 'json',
      stream: { write: (l: string) => lines.push(l) } as never,
    });
    const truncating = new KinesisSink({
      client: fake.asClient(),
      streamName: 's',
      maxRecordBytes: 2000,
      oversizeHandling: 'truncate',
      logger,
    });
    await truncating.send([big]);
    const entry = JSON.parse(lines.find((l) => l.includes('truncated oversize record'))!);
    assert.deepEqual(entry.columns, [{ column: 'after.doc', bytes: 5000 }]);
    assert.equal(entry.table, 'shop.users');
    assert.equal(entry.position, 'mysql-bin.000007:1234 row 2');
    assert.ok(!lines.join('').includes('alice'));
  });

  test('oversize records fail by default and are truncated on request', async () => {
    const fake = new FakeKinesis();
    const big = rec(1, 1, { value: JSON.stringify({ op: 'c', after: { id: 1, doc: 'y'.repeat(5000), n: 'short' } }) });
    const failing = new KinesisSink({ client: fake.asClient(), streamName: 's', maxRecordBytes: 2000 });
    await assert.rejects(failing.send([big]), /over the Kinesis record limit of 2000 bytes/);
    const truncating = new KinesisSink({
      client: fake.asClient(),
      streamName: 's',
      maxRecordBytes: 2000,
      oversizeHandling: 'truncate',
    });
    await truncating.send([big]);
    const sent = fake.accepted.get('s')![0];
    assert.ok(sent.Data!.length + Buffer.byteLength(sent.PartitionKey!) <= 2000);
    const v = JSON.parse(Buffer.from(sent.Data!).toString()) as {
      after: { doc: { __cdc_truncated: boolean }; n: string };
    };
    assert.equal(v.after.doc.__cdc_truncated, true);
    assert.equal(v.after.n, 'short');
    assert.equal(truncating.stats.truncated, 1);
  });

  test('tombstones and payload modes', async () => {
    const fake = new FakeKinesis();
    const tomb = rec(1, 1, { value: null, headers: { h: '"v"' } });
    await new KinesisSink({ client: fake.asClient(), streamName: 'a' }).send([tomb]);
    assert.equal(fake.accepted.get('a')![0].Data!.length, 0);
    const skip = new KinesisSink({ client: fake.asClient(), streamName: 'b', tombstones: 'skip' });
    await skip.send([tomb]);
    assert.equal(fake.accepted.get('b'), undefined);
    assert.equal(skip.stats.dropped, 1);
    await new KinesisSink({ client: fake.asClient(), streamName: 'c', payload: 'record' }).send([tomb]);
    assert.deepEqual(JSON.parse(Buffer.from(fake.accepted.get('c')![0].Data!).toString()), {
      topic: 'app.shop.orders',
      key: { id: 1 },
      value: null,
      headers: { h: 'v' },
    });
  });

  test('aggregation packs records per shard, keeps key order, and cuts Kinesis records by far', async () => {
    const fake = new FakeKinesis(4);
    const sink = new KinesisSink({ client: fake.asClient(), streamName: 's', aggregation: { maxBytes: 50_000 } });
    await sink.start();
    const records = Array.from({ length: 1000 }, (_, i) => rec(i, i % 97));
    await sink.send(records);
    const entries = fake.accepted.get('s')!;
    assertPerKeyOrder(entries, 1000);
    assert.ok(entries.length <= 20, `${entries.length} Kinesis records`);
    for (const e of entries) {
      assert.ok(e.Data!.length + Buffer.byteLength(e.PartitionKey!) <= 50_000);
      // Every user record in an aggregate belongs to the shard the aggregate is sent to.
      const shard = fake.shardOf(BigInt(e.ExplicitHashKey ?? partitionKeyHash(e.PartitionKey!)));
      for (const u of deaggregate({ partitionKey: e.PartitionKey!, data: e.Data! })) {
        assert.equal(fake.shardOf(partitionKeyHash(u.partitionKey)), shard);
      }
    }
    assert.equal(sink.stats.userRecords, 1000);
    assert.equal(sink.stats.kinesisRecords, entries.length);
  });

  test('aggregation with partial failures: order and completeness hold', async () => {
    const fake = new FakeKinesis(3);
    let n = 0;
    fake.failEntry = () => (++n % 2 === 0 ? { ErrorCode: 'InternalFailure', ErrorMessage: 'injected' } : undefined);
    const sink = new KinesisSink({
      client: fake.asClient(),
      streamName: 's',
      aggregation: { maxBytes: 3000 },
      retry: { baseDelayMs: 1, maxDelayMs: 2 },
    });
    await sink.send(Array.from({ length: 500 }, (_, i) => rec(i, i % 7)));
    assertPerKeyOrder(fake.accepted.get('s')!, 500);
  });
});

test('truncateJson replaces the largest strings first and keeps the rest', () => {
  const doc = JSON.stringify({ a: 'x'.repeat(1000), b: 'y'.repeat(500), c: 'z', n: 42 });
  const out = truncateJson(doc, 900)!;
  const v = JSON.parse(out) as { a: { __cdc_truncated: boolean; original_bytes: number }; b: string; n: number };
  assert.ok(Buffer.byteLength(out) <= 900);
  assert.equal(v.a.__cdc_truncated, true);
  assert.equal(v.a.original_bytes, 1000);
  assert.equal(v.b, 'y'.repeat(500));
  assert.equal(v.n, 42);
  assert.equal(truncateJson(JSON.stringify({ n: Array(500).fill(1) }), 100), null);
});
