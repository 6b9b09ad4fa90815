/**
 * One retry layer for the Kafka sink (issue 13 item 16): the real @platformatic/kafka client resends a failed
 * request under the task's policy (errors.max.retries), and the Publisher does not retry what the client gave up
 * on, so attempts never multiply. The "cluster" is a local TCP server that drops every connection, counting them.
 * The client makes each attempt of an operation with a fresh connection that it also retries with the same bound,
 * so N retries open (N+1)^2 connections; the Publisher retrying on top made it (N+1)^3 (and sink.kafka.retries=8
 * under the unlimited default never ended). Fake only the start-up check and the metadata client (a broker that is
 * up), so that the failing request is a produce request.
 */
import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import { Producer } from '@platformatic/kafka';
import { SinkError } from '../../../../src/common/errors.js';
import { silentLogger } from '../../../../src/common/logger.js';
import { parseKafkaSinkConfig } from '../../../../src/config/kafka-sink.js';
import { ChangeQueue } from '../../../../src/engine/change-queue.js';
import { Publisher } from '../../../../src/engine/publisher.js';
import type { QueueItem } from '../../../../src/model/queue-item.js';
import type { SourceOffset } from '../../../../src/model/source-offset.js';
import { type KafkaProducerLike, KafkaSink } from '../../../../src/sinks/kafka/kafka-sink.js';

async function droppingServer(): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  let n = 0;
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    n++;
    sockets.add(s);
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    connections: () => n,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

const upProbe: KafkaProducerLike = {
  send: async () => ({}),
  metadata: async () => ({ topics: new Map() }),
  initIdempotentProducer: async () => ({}),
  close: async () => {},
};

describe('KafkaSink retries: one layer, the task policy', () => {
  it('errors.max.retries=2 gives 3 client attempts in all, the failure is final, and the outage is visible', async () => {
    const server = await droppingServer();
    try {
      const settings = parseKafkaSinkConfig({
        type: 'kafka',
        bootstrapServers: [`127.0.0.1:${server.port}`],
        properties: { 'enable.idempotence': 'false' },
      });
      const policy = { maxRetries: 2, initialDelayMs: 1, maxDelayMs: 5 };
      let built = 0;
      const sink = new KafkaSink({
        settings,
        retry: policy,
        // start() builds its connection check, the producer, then the metadata client: only the producer is real
        // (the other two report a broker that is up), so the failure is the produce request's own.
        createProducer: (o) => (built++ === 1 ? (new Producer(o) as unknown as KafkaProducerLike) : upProbe),
      });
      await sink.start();
      const queue = new ChangeQueue<QueueItem>({ maxItems: 10, maxBytes: 1 << 20 });
      const commits: SourceOffset[] = [];
      const publisher = new Publisher({
        queue,
        sink,
        offsetStore: {
          load: async () => null,
          commit: async (o) => {
            commits.push(o);
          },
          probe: async () => {},
          close: async () => {},
        },
        logger: silentLogger,
        maxBatchSize: 10,
        retry: policy,
      });
      const running = publisher.run().then(
        () => null,
        (e: unknown) => e,
      );
      const value = '{"op":"c"}';
      await queue.put(
        { record: { topic: 't', key: '{"id":1}', value, sizeBytes: 20 }, offset: { file: 'b.1', pos: 4 } },
        20,
      );
      const err = await running;
      await sink.close();
      assert.ok(err instanceof SinkError, String(err));
      assert.equal(err.retriesExhausted, true, 'the client used the policy up: final for the Publisher');
      assert.equal(server.connections(), 9, '(1 + errors.max.retries=2)^2 client connections, no Publisher retries');
      assert.equal(sink.deliveryStatus().failedAttempts >= 2, true, 'client retries are reported as an outage');
      assert.deepEqual(commits, [], 'nothing committed');
    } finally {
      await server.close();
    }
  });
});
