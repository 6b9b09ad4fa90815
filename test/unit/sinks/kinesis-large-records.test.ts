/**
 * Kinesis large records (stream limit from DescribeStreamSummary's MaxRecordSizeInKiB, 10 MiB requests) and the S3
 * claim-check, against an in-memory Kinesis client that enforces the service's documented limits (record limit of
 * the stream, 10 MiB per request, 500 entries) and an in-memory claim-check store that logs its calls.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import {
  DescribeStreamSummaryCommand,
  type KinesisClient,
  PutRecordsCommand,
  type PutRecordsRequestEntry,
} from '@aws-sdk/client-kinesis';
import { SinkError } from '../../../src/common/errors.js';
import { parseKafkaSinkConfig } from '../../../src/config/kafka-sink.js';
import { recordSize, type SinkRecord } from '../../../src/model/sink-record.js';
import { ClaimChecker } from '../../../src/sinks/claim-check/claim-checker.js';
import {
  CLAIM_CHECK_FIELD,
  CLAIM_CHECK_HEADER,
  CLAIM_CHECK_SCHEMA_NAME,
  ClaimCheckError,
  type ClaimCheckPointer,
  claimCheckPointerOf,
} from '../../../src/sinks/claim-check/envelope.js';
import { ClaimCheckResolver } from '../../../src/sinks/claim-check/resolver.js';
import type { ClaimCheckStore } from '../../../src/sinks/claim-check/s3-store.js';
import { type KafkaProducerLike, KafkaSink } from '../../../src/sinks/kafka/kafka-sink.js';
import { KinesisSink } from '../../../src/sinks/kinesis/kinesis-sink.js';

const MiB = 1024 * 1024;

/** Kinesis with a configurable per-stream record limit; refuses what the real service refuses. */
class LimitedKinesis {
  readonly requests: { stream: string; entries: PutRecordsRequestEntry[]; bytes: number }[] = [];
  readonly log: string[];
  describes = 0;
  constructor(
    private readonly limitKiB: number | undefined,
    log: string[] = [],
  ) {
    this.log = log;
  }
  async send(cmd: unknown): Promise<unknown> {
    if (cmd instanceof DescribeStreamSummaryCommand) {
      this.describes++;
      return {
        StreamDescriptionSummary: {
          StreamStatus: 'ACTIVE',
          ...(this.limitKiB !== undefined ? { MaxRecordSizeInKiB: this.limitKiB } : {}),
        },
      };
    }
    if (!(cmd instanceof PutRecordsCommand)) throw new Error('unexpected command');
    const entries = cmd.input.Records ?? [];
    const size = (e: PutRecordsRequestEntry) => (e.Data?.length ?? 0) + Buffer.byteLength(e.PartitionKey ?? '');
    const bytes = entries.reduce((n, e) => n + size(e), 0);
    const limit = (this.limitKiB ?? 1024) * 1024;
    if (entries.length > 500 || bytes > 10 * MiB || entries.some((e) => size(e) > limit))
      throw Object.assign(new Error(`request of ${bytes} bytes over the limits`), { name: 'ValidationException' });
    this.requests.push({ stream: cmd.input.StreamName ?? '', entries, bytes });
    this.log.push(`put ${entries.length}`);
    return { Records: entries.map((_, i) => ({ SequenceNumber: String(i), ShardId: 'shardId-000000000000' })) };
  }
  destroy(): void {}
}

class MemoryStore implements ClaimCheckStore {
  readonly objects = new Map<string, Buffer>();
  failWith: Error | undefined;
  constructor(readonly log: string[] = []) {}
  async put(bucket: string, key: string, body: Buffer, sha256: string): Promise<void> {
    await new Promise((r) => setImmediate(r));
    if (this.failWith) throw this.failWith;
    assert.equal(createHash('sha256').update(body).digest('hex'), sha256);
    this.objects.set(`${bucket}/${key}`, Buffer.from(body));
    this.log.push(`s3 ${key}`);
  }
  async get(bucket: string, key: string): Promise<Buffer> {
    const b = this.objects.get(`${bucket}/${key}`);
    if (!b) throw new ClaimCheckError(`no such key ${key}`, { permanent: true });
    return b;
  }
  close(): void {}
}

function envelope(id: number, doc: string): string {
  return JSON.stringify({
    before: null,
    after: { id, doc },
    source: { db: 'shop', table: 'docs', file: 'mysql-bin.000003', pos: 4000 + id, row: 0 },
    op: 'c',
    ts_ms: 1,
    transaction: null,
  });
}

function record(id: number, bytes: number, headers?: Record<string, string>): SinkRecord {
  const key = JSON.stringify({ id });
  const value = envelope(id, 'x'.repeat(bytes));
  return {
    topic: 'it.shop.docs',
    key,
    value,
    table: 'shop.docs',
    sizeBytes: recordSize(key, value, headers),
    ...(headers ? { headers } : {}),
  };
}

function sink(kinesis: LimitedKinesis, extra: Partial<ConstructorParameters<typeof KinesisSink>[0]> = {}) {
  return new KinesisSink({
    streamName: 'docs',
    client: kinesis as unknown as KinesisClient,
    retry: { maxAttempts: 1, baseDelayMs: 1 },
    ...extra,
  });
}

describe('Kinesis large records', () => {
  test('a stream raised to 10 MiB takes a 3 MiB record whole; requests stay within 10 MiB', async () => {
    const kinesis = new LimitedKinesis(10240);
    const s = sink(kinesis);
    await s.start();
    const records = Array.from({ length: 7 }, (_, i) => record(i, 3 * MiB));
    await s.send(records);
    const sent = kinesis.requests.flatMap((r) => r.entries);
    assert.equal(sent.length, 7);
    assert.deepEqual(
      sent.map((e) => Buffer.from(e.Data ?? []).toString('utf8')),
      records.map((r) => r.value),
    );
    assert.ok(kinesis.requests.every((r) => r.bytes <= 10 * MiB));
    // Three 3 MiB records fit a 10 MiB request: 3 + 3 + 1.
    assert.deepEqual(
      kinesis.requests.map((r) => r.entries.length),
      [3, 3, 1],
    );
    assert.equal(kinesis.describes, 1);
  });

  test('without MaxRecordSizeInKiB the limit is 1 MiB and requests 5 MiB; fail names the fixes', async () => {
    const kinesis = new LimitedKinesis(undefined);
    const s = sink(kinesis);
    await s.start();
    await s.send(Array.from({ length: 12 }, (_, i) => record(i, 900 * 1024)));
    assert.ok(kinesis.requests.every((r) => r.bytes <= 5 * MiB));
    assert.equal(kinesis.requests.length, 3, '5 + 5 + 2 records of 900 KiB');
    await assert.rejects(s.send([record(99, 2 * MiB)]), (err: unknown) => {
      assert.ok(err instanceof SinkError);
      assert.match(err.message, /over the Kinesis record limit of 1048576 bytes/);
      assert.match(err.message, /claim-check/);
      assert.match(err.message, /maximum record size/);
      return true;
    });
  });

  test('a configured limit wins over the stream and needs no DescribeStreamSummary for routed streams', async () => {
    const kinesis = new LimitedKinesis(10240);
    const s = sink(kinesis, { streamName: undefined, streamNameTemplate: '{table}', maxRecordBytes: 2 * MiB });
    await assert.rejects(s.send([record(1, 3 * MiB)]), /record limit of 2097152 bytes/);
    assert.equal(kinesis.describes, 0);
  });
});

describe('S3 claim-check', () => {
  test('over the limit: the value is written to S3 before the pointer is published, and resolves byte-equal', async () => {
    const log: string[] = [];
    const kinesis = new LimitedKinesis(undefined, log);
    const store = new MemoryStore(log);
    const checker = new ClaimChecker({ store, bucket: 'cc-bucket', prefix: 'p/' });
    const s = sink(kinesis, { oversizeHandling: 'claim-check', claimCheck: checker });
    await s.start();
    const big = record(1, 3 * MiB, { '__debezium.context': '"x"' });
    const small = record(2, 100);
    await s.send([big, small]);
    assert.deepEqual(log, [`s3 p/it.shop.docs/${createHash('sha256').update(big.value!).digest('hex')}.json`, 'put 2']);
    const [published, plain] = kinesis.requests[0].entries.map((e) => JSON.parse(Buffer.from(e.Data ?? []).toString()));
    assert.equal(plain.after.id, 2, 'records under the limit are untouched');
    assert.equal(published.before, null);
    assert.equal(published.after, null);
    assert.equal(published.op, 'c');
    assert.deepEqual(published.source, JSON.parse(big.value!).source);
    const pointer = claimCheckPointerOf(published) as ClaimCheckPointer;
    assert.equal(pointer.bucket, 'cc-bucket');
    assert.equal(pointer.size, Buffer.byteLength(big.value!));
    const text = await new ClaimCheckResolver(store).valueText(pointer);
    assert.equal(text, big.value, 'byte-equal');
    assert.equal(s.stats.claimChecked, 1);
    // Replays write the same content-addressed key.
    await s.send([big]);
    assert.equal(store.objects.size, 1);
  });

  test('record payload keeps the pointer header; schemas-enabled values get the pointer field in the schema', async () => {
    const kinesis = new LimitedKinesis(undefined);
    const store = new MemoryStore();
    const s = sink(kinesis, {
      payload: 'record',
      oversizeHandling: 'claim-check',
      claimCheck: new ClaimChecker({ store, bucket: 'b1' }),
    });
    const r = record(1, 2 * MiB);
    const schema = { type: 'struct', name: 'it.shop.docs.Envelope', fields: [{ field: 'before' }, { field: 'after' }] };
    const wrapped = { ...r, value: `{"schema":${JSON.stringify(schema)},"payload":${r.value}}` };
    await s.send([wrapped]);
    const line = JSON.parse(Buffer.from(kinesis.requests[0].entries[0].Data ?? []).toString());
    assert.equal(line.value.payload.after, null);
    // Record lines carry header values as JSON.
    assert.deepEqual(line.headers[CLAIM_CHECK_HEADER], line.value.payload[CLAIM_CHECK_FIELD]);
    const fields = line.value.schema.fields as { field: string; name?: string }[];
    assert.deepEqual(
      fields.map((f) => f.field),
      ['before', 'after', CLAIM_CHECK_FIELD],
    );
    assert.equal(fields[2].name, CLAIM_CHECK_SCHEMA_NAME);
    const text = await new ClaimCheckResolver(store).valueText(claimCheckPointerOf(line.value.payload)!);
    assert.equal(text, wrapped.value);
  });

  test('a threshold below the stream limit claim-checks records the stream would take', async () => {
    const kinesis = new LimitedKinesis(10240);
    const store = new MemoryStore();
    const s = sink(kinesis, {
      oversizeHandling: 'claim-check',
      claimCheck: new ClaimChecker({ store, bucket: 'b1' }),
      claimCheckThresholdBytes: 2 * MiB,
    });
    await s.send([record(1, 1 * MiB + 5), record(2, 3 * MiB)]);
    assert.equal(store.objects.size, 1);
    const sizes = kinesis.requests[0].entries.map((e) => e.Data?.length ?? 0);
    assert.ok(sizes[0] > MiB, 'the 1 MiB record went whole (the stream takes up to 10 MiB)');
    assert.ok(sizes[1] < 2048, 'the 3 MiB record went as a pointer');
  });

  test('an S3 failure fails the batch before anything is published (retriable), naming the topic', async () => {
    const log: string[] = [];
    const kinesis = new LimitedKinesis(undefined, log);
    const store = new MemoryStore(log);
    store.failWith = new ClaimCheckError(
      'claim-check bucket "b1" does not exist; create it or fix sink.claim.check.bucket',
      {
        permanent: false,
      },
    );
    const s = sink(kinesis, { oversizeHandling: 'claim-check', claimCheck: new ClaimChecker({ store, bucket: 'b1' }) });
    await assert.rejects(s.send([record(1, 10), record(2, 2 * MiB), record(3, 10)]), (err: unknown) => {
      assert.ok(err instanceof SinkError);
      assert.equal(err.retriable, true);
      assert.match(err.message, /topic "it\.shop\.docs"/);
      assert.match(err.message, /sink\.claim\.check\.bucket/);
      return true;
    });
    assert.deepEqual(log, [], 'no PutRecords before the payload is durable');
  });

  test('claim-check mode without a store is refused at construction', () => {
    assert.throws(
      () => sink(new LimitedKinesis(undefined), { oversizeHandling: 'claim-check' }),
      /sink\.claim\.check\.bucket/,
    );
  });

  test('the resolver refuses an object that does not match its pointer, and malformed pointers', async () => {
    const store = new MemoryStore();
    await store.put('b', 'k', Buffer.from('{"a":1}'), createHash('sha256').update('{"a":1}').digest('hex'));
    const resolver = new ClaimCheckResolver(store);
    const pointer = {
      bucket: 'b',
      key: 'k',
      size: 7,
      sha256: createHash('sha256').update('{"a":2}').digest('hex'),
      content: 'value' as const,
    };
    await assert.rejects(
      resolver.valueText(pointer),
      (err: unknown) => err instanceof ClaimCheckError && err.permanent && /does not match/.test(err.message),
    );
    assert.throws(() => claimCheckPointerOf({ [CLAIM_CHECK_FIELD]: { bucket: 'b' } }), /malformed/);
    assert.equal(claimCheckPointerOf({ after: {} }), null);
  });
});

describe('S3 claim-check on the Kafka sink', () => {
  test('records over max.request.size are claim-checked before anything is produced; the rest pass unchanged', async () => {
    const log: string[] = [];
    const sent: { value: string | null; headers: Record<string, string> }[] = [];
    const producer: KafkaProducerLike = {
      async send(o) {
        log.push(`produce ${o.messages.length}`);
        for (const m of o.messages) {
          const headers: Record<string, string> = {};
          for (const [k, v] of (m.headers as Map<Buffer, Buffer> | undefined) ?? [])
            headers[k.toString()] = v.toString();
          sent.push({ value: m.value === null || m.value === undefined ? null : String(m.value), headers });
        }
        return {};
      },
      async metadata({ topics }) {
        return { topics: new Map(topics.map((t) => [t, { partitionsCount: 1 }])) };
      },
      async initIdempotentProducer() {
        return {} as never;
      },
      async close() {},
    };
    const store = new MemoryStore(log);
    const settings = parseKafkaSinkConfig({ type: 'kafka', bootstrapServers: ['k:9092'], properties: {} });
    const sink = new KafkaSink({
      settings,
      createProducer: () => producer,
      claimCheck: new ClaimChecker({ store, bucket: 'kafka-claims' }),
    });
    await sink.start();
    const big = record(1, 2 * MiB);
    await sink.send([record(0, 10), big, record(2, 10)]);
    assert.equal(log[0].startsWith('s3 '), true, 'the upload comes first');
    assert.equal(log.at(-1)?.startsWith('produce'), true);
    assert.equal(sent.length, 3);
    const pointerValue = JSON.parse(sent[1].value!);
    assert.equal(pointerValue.after, null);
    const pointer = claimCheckPointerOf(pointerValue)!;
    assert.deepEqual(JSON.parse(sent[1].headers[CLAIM_CHECK_HEADER]), pointer);
    assert.equal(await new ClaimCheckResolver(store).valueText(pointer), big.value);
    assert.equal(JSON.parse(sent[0].value!).after.id, 0);
    await sink.close();
  });
});
