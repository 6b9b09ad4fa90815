/**
 * A TCP relay in front of one of the real broker's PLAINTEXT listeners (the broker advertises the relay's port on
 * that listener, so clients stay on it after bootstrap). It forwards bytes unchanged and reads only the Kafka
 * framing (int32 size, then api key and correlation id in requests, correlation id in responses), to inject the
 * one fault a healthy local broker never shows: a request the broker executed whose response is lost. That is
 * what makes a producer resend a batch the broker already wrote (duplicates without idempotence).
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

const PRODUCE = 0;

export interface KafkaFaultProxy {
  port: number;
  /**
   * The next `n` Produce responses are swallowed and both sides of their connection closed, after the broker has
   * written the batch. Resolves when all `n` were dropped.
   */
  dropProduceResponses(n: number): Promise<void>;
  close(): Promise<void>;
}

/** Splits a byte stream into Kafka frames (int32 length prefix), calling `onFrame` with each whole frame. */
function framer(onFrame: (frame: Buffer) => void): (chunk: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0);
  return (chunk) => {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    while (pending.length >= 4) {
      const size = pending.readInt32BE(0);
      if (pending.length < 4 + size) break;
      onFrame(pending.subarray(0, 4 + size));
      pending = pending.subarray(4 + size);
    }
  };
}

export async function startKafkaFaultProxy(host: string, port: number, upstreamPort: number): Promise<KafkaFaultProxy> {
  let toDrop = 0;
  let dropped: { left: number; done: () => void } | null = null;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(upstreamPort, host);
    sockets.add(client);
    sockets.add(upstream);
    const produceIds = new Set<number>();
    const kill = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', kill);
    upstream.on('close', kill);
    client.on('error', kill);
    upstream.on('error', kill);
    client.on(
      'data',
      framer((frame) => {
        if (frame.readInt16BE(4) === PRODUCE) produceIds.add(frame.readInt32BE(8));
        upstream.write(frame);
      }),
    );
    upstream.on(
      'data',
      framer((frame) => {
        const correlationId = frame.readInt32BE(4);
        if (produceIds.delete(correlationId) && toDrop > 0) {
          toDrop--;
          kill();
          if (dropped && --dropped.left === 0) dropped.done();
          return;
        }
        client.write(frame);
      }),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return {
    port,
    dropProduceResponses(n) {
      toDrop = n;
      return new Promise<void>((done) => {
        dropped = { left: n, done };
      });
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
