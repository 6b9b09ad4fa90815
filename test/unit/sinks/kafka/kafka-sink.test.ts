/**
 * KafkaSink against a fake producer, for what a single local broker does not produce: authorisation failures,
 * refused producer ids, partitioning against a 100-partition topic, the client's error trees. Delivery against a
 * real Apache Kafka broker (TLS, SASL, restarts) is in test/integration/kafka-sink.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AuthenticationError, MultipleErrors, NetworkError, ProtocolError, UserError } from '@platformatic/kafka';
import { SinkError } from '../../../../src/common/errors.js';
import { parseKafkaSinkConfig } from '../../../../src/config/kafka-sink.js';
import type { SinkRecord } from '../../../../src/model/sink-record.js';
import { type KafkaProducerLike, KafkaSink, type KafkaTopicCreator } from '../../../../src/sinks/kafka/kafka-sink.js';

type Sent = { topic: string; partition?: number; key?: Buffer; value?: Buffer | null }[];

function fakeProducer(partitions: Record<string, number>, overrides: Partial<KafkaProducerLike> = {}) {
  const sends: Sent[] = [];
  const producer: KafkaProducerLike = {
    async send(o) {
      sends.push(o.messages.map((m) => ({ ...m })));
      return {};
    },
    async metadata({ topics }) {
      return { topics: new Map(topics.map((t) => [t, { partitionsCount: partitions[t] ?? 1 }])) };
    },
    async initIdempotentProducer() {
      throw new ProtocolError('CLUSTER_AUTHORIZATION_FAILED');
    },
    async close() {},
    ...overrides,
  };
  return { producer, sends };
}

function sinkWith(producer: KafkaProducerLike, props: Record<string, string> = {}, admin?: KafkaTopicCreator) {
  const settings = parseKafkaSinkConfig({ type: 'kafka', bootstrapServers: ['k:9092'], properties: props });
  return new KafkaSink({ settings, createProducer: () => producer, ...(admin ? { createAdmin: () => admin } : {}) });
}

const rec = (topic: string, id: number | null, value: string | null): SinkRecord => ({
  topic,
  key: id === null ? null : JSON.stringify({ id }),
  value,
  table: 'db.t',
  sizeBytes: 0,
});

describe('KafkaSink (fake producer)', () => {
  it('partitions like Kafka (murmur2, positive mask) and splits a partition into ordered rounds of batch.size', async () => {
    const { producer, sends } = fakeProducer({ t: 100 });
    const sink = sinkWith(producer, { 'batch.size': '1024' });
    await sink.start();
    const big = 'x'.repeat(600);
    // Key "21": Kafka's murmur2 test vector -973932308 → (masked) 1173551340 % 100 = 40.
    await sink.send([
      { topic: 't', key: '21', value: big, sizeBytes: 0 },
      { topic: 't', key: '21', value: `${big}2`, sizeBytes: 0 },
      { topic: 't', key: '21', value: null, sizeBytes: 0 },
    ]);
    assert.equal(sends.length, 2, 'two record batches for one partition go in two sequential rounds');
    assert.deepEqual(
      sends.flat().map((m) => [m.partition, m.value?.length ?? null]),
      [
        [40, 600],
        [40, 601],
        [40, null],
      ],
    );
    assert.equal(sink.isIdempotent, false);
    assert.equal(sink.stats.tombstones, 1);
  });

  it('keeps keyless records of a table on one partition', async () => {
    const { producer, sends } = fakeProducer({ t: 8 });
    const sink = sinkWith(producer);
    await sink.start();
    await sink.send([rec('t', null, '1'), rec('t', null, '2'), rec('t', null, '3')]);
    assert.equal(new Set(sends.flat().map((m) => m.partition)).size, 1);
  });

  it('reports authorisation failures as non-retriable with the fix', async () => {
    const { producer } = fakeProducer(
      { t: 1 },
      {
        async send() {
          throw new ProtocolError('TOPIC_AUTHORIZATION_FAILED');
        },
      },
    );
    const sink = sinkWith(producer);
    await sink.start();
    await assert.rejects(sink.send([rec('t', 1, '{}')]), (err: unknown) => {
      assert.ok(err instanceof SinkError);
      assert.equal(err.retriable, false);
      assert.match(err.message, /not allowed to write \(topics "t"\); grant WRITE/);
      return true;
    });
  });

  // The protocol error, and the client's own shape of it for a metadata request (what a real broker yields).
  for (const missing of [
    () => new ProtocolError('UNKNOWN_TOPIC_OR_PARTITION'),
    () => new UserError('Unknown topic t.'),
  ]) {
    it(`creates a missing topic as compacted when topic.creation.enable=true (${missing().message})`, async () => {
      let created = false;
      const { producer, sends } = fakeProducer(
        { t: 3 },
        {
          async metadata({ topics }) {
            if (!created && topics.length) throw missing();
            return { topics: new Map(topics.map((t) => [t, { partitionsCount: 3 }])) };
          },
        },
      );
      const calls: unknown[] = [];
      const admin: KafkaTopicCreator = {
        async createTopics(o) {
          calls.push(o);
          created = true;
          return [];
        },
        async close() {},
      };
      const sink = sinkWith(
        producer,
        { 'topic.creation.enable': 'true', 'topic.creation.default.partitions': '3' },
        admin,
      );
      await sink.start();
      await sink.send([rec('t', 1, '{}')]);
      assert.deepEqual(calls, [
        { topics: ['t'], partitions: 3, replicas: -1, configs: [{ name: 'cleanup.policy', value: 'compact' }] },
      ]);
      assert.equal(sends.length, 1);
      assert.equal(sink.stats.topicsCreated, 1);
    });
  }

  it('without topic creation, a missing topic is a retriable error naming the setting', async () => {
    const { producer } = fakeProducer(
      {},
      {
        async metadata({ topics }) {
          if (topics.length) throw new ProtocolError('UNKNOWN_TOPIC_OR_PARTITION');
          return { topics: new Map() };
        },
      },
    );
    const sink = sinkWith(producer);
    await sink.start();
    await assert.rejects(sink.send([rec('t', 1, '{}')]), (err: unknown) => {
      assert.ok(err instanceof SinkError);
      assert.equal(err.retriable, true);
      assert.match(err.message, /topic.creation.enable=true/);
      return true;
    });
  });

  it('enable.idempotence=true fails start-up when the cluster refuses a producer id; oversize records fail early', async () => {
    const { producer, sends } = fakeProducer({ t: 1 });
    await assert.rejects(sinkWith(producer, { 'enable.idempotence': 'true' }).start(), /IDEMPOTENT_WRITE/);
    const sink = sinkWith(producer, { 'max.request.size': '1024' });
    await sink.start();
    await assert.rejects(sink.send([rec('t', 1, 'x'.repeat(2000))]), /over sink\.kafka\.max\.request\.size=1024/);
    assert.equal(sends.length, 0);
  });

  /** The client's shape of a failed connection: "Cannot connect to any broker" > network error > cause. */
  const cannotConnect = (cause: Error) =>
    new MultipleErrors('Cannot connect to any broker.', [new NetworkError('Connection to k:9092 failed.', { cause })]);

  it('bad SASL credentials inside a connection failure are an authentication error, not retriable', async () => {
    const auth = new AuthenticationError('SASL authentication failed.', {
      cause: new MultipleErrors('Received response with error', [new ProtocolError('SASL_AUTHENTICATION_FAILED')]),
    });
    const { producer } = fakeProducer({}, { initIdempotentProducer: async () => Promise.reject(cannotConnect(auth)) });
    const err = await sinkWith(producer)
      .start()
      .then(
        () => null,
        (e: unknown) => e,
      );
    assert.ok(err instanceof SinkError);
    assert.match(err.message, /authentication with k:9092 failed; check sink\.kafka\.sasl\.\* credentials/);
    assert.equal(err.retriable, false);
  });

  it('an untrusted broker certificate names ssl.ca.location and is not retriable', async () => {
    const tls = Object.assign(new Error('self-signed certificate in certificate chain'), {
      code: 'SELF_SIGNED_CERT_IN_CHAIN',
    });
    const { producer } = fakeProducer({}, { initIdempotentProducer: async () => Promise.reject(cannotConnect(tls)) });
    const err = await sinkWith(producer)
      .start()
      .then(
        () => null,
        (e: unknown) => e,
      );
    assert.ok(err instanceof SinkError);
    assert.match(err.message, /SELF_SIGNED_CERT_IN_CHAIN.*sink\.kafka\.ssl\.ca\.location/);
    assert.equal(err.retriable, false);
  });

  it('idempotence=auto falls back only when the cluster refuses producer ids, not when it is unreachable', async () => {
    let producers = 0;
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const { producer } = fakeProducer(
      {},
      { initIdempotentProducer: async () => Promise.reject(cannotConnect(refused)) },
    );
    const settings = parseKafkaSinkConfig({ type: 'kafka', bootstrapServers: ['k:9092'], properties: {} });
    const options: number[] = [];
    const kinds: boolean[] = [];
    const sink = new KafkaSink({
      settings,
      retry: { maxRetries: 5, initialDelayMs: 1, maxDelayMs: 1 },
      createProducer: (o) => {
        producers++;
        options.push(Number(o.retries));
        kinds.push(o.idempotent === true);
        return producer;
      },
    });
    const err = await sink.start().then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(err instanceof SinkError);
    assert.match(err.message, /cannot reach the Kafka brokers k:9092/);
    assert.equal(err.retriable, true);
    // The bounded connection check, then the idempotent producer; no third, non-idempotent fallback.
    assert.deepEqual(kinds, [false, true], 'no silent fallback to a non-idempotent producer');
    assert.equal(producers, 2);
    // retries <= 1 would make the client's idempotent producer retry forever.
    const low = parseKafkaSinkConfig({ type: 'kafka', bootstrapServers: ['k:9092'], properties: { retries: '0' } });
    await new KafkaSink({
      settings: low,
      createProducer: (o) => {
        options.push(Number(o.retries));
        return fakeProducer({}).producer;
      },
    })
      .start()
      .catch(() => {});
    // Start-up check bounded at 8, delivery under the task's policy (5); sink.kafka.retries=0 wins over both
    // (the fake refuses producer ids, so then comes the non-idempotent fallback), and the metadata client never
    // retries (the Publisher's retries are its only layer).
    assert.deepEqual(options, [8, 5, 0, 2, 0, 0]);
  });
});
