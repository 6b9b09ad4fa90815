/**
 * In-process, in-memory AWS stand-ins for `cdc demo` and the tests (test/harness/aws.ts re-exports these):
 * kinesalite (Kinesis) and dynalite (DynamoDB) on free ports, SDK v3 clients configured for them, and stream
 * creation.
 *
 * kinesalite and dynalite are development dependencies (the production image omits them): starting one without it
 * installed is an EmbeddedStandInError saying so. Known gaps (see /work/shared/ENVIRONMENT-NOTES.md): kinesalite
 * has no on-demand streams, SubscribeToShard, throttling or partial PutRecords failures; dynalite has no
 * transactions, PartiQL or TTL.
 */
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo, Socket } from 'node:net';
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import {
  CreateStreamCommand,
  DescribeStreamSummaryCommand,
  KinesisClient,
  type KinesisClientConfig,
} from '@aws-sdk/client-kinesis';
import { NodeHttpHandler } from '@smithy/node-http-handler';

export const STAND_IN_REGION = 'us-east-1';
export const STAND_IN_CREDENTIALS = { accessKeyId: 'test', secretAccessKey: 'test' } as const;

export class EmbeddedStandInError extends Error {
  override name = 'EmbeddedStandInError';
}

export interface AwsStandIn {
  endpoint: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  /** An outage: every connection is reset until `resume()`; the in-memory state is kept. */
  pause(): Promise<void>;
  /** Ends the outage: the same endpoint, streams and tables. */
  resume(): Promise<void>;
  stop(): Promise<void>;
}

type ServerFactory = (options: Record<string, unknown>) => Server;
const require = createRequire(import.meta.url);

/** The stand-in's server factory, or a typed error when the development dependency is not installed. */
function serverFactory(name: 'kinesalite' | 'dynalite'): ServerFactory {
  try {
    return require(name) as ServerFactory;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw err;
    throw new EmbeddedStandInError(
      `${name} is not installed: the in-memory ${name === 'kinesalite' ? 'Kinesis' : 'DynamoDB'} of cdc demo is a development dependency. Run the demo from a checkout after npm ci (the production image omits development dependencies).`,
      { cause: err },
    );
  }
}

async function listen(server: Server): Promise<AwsStandIn> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // Port 0: the kernel picks a free port atomically, so there is nothing to retry.
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  let stopping: Promise<void> | undefined;
  let paused = false;
  server.prependListener('connection', (socket: Socket) => {
    if (paused) socket.destroy();
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    region: STAND_IN_REGION,
    credentials: { ...STAND_IN_CREDENTIALS },
    // Closing the server would drop kinesalite's in-memory streams, so an outage resets every connection instead.
    pause() {
      paused = true;
      server.closeAllConnections();
      return Promise.resolve();
    },
    resume() {
      paused = false;
      return Promise.resolve();
    },
    stop() {
      stopping ??= new Promise<void>((resolve, reject) => {
        // SDK clients keep sockets alive; without this, close() waits for them to time out.
        server.closeAllConnections();
        server.close((err?: Error) => (err ? reject(err) : resolve()));
      });
      return stopping;
    },
  };
}

export interface KinesaliteOptions {
  /** Max shards across all streams (default 100). */
  shardLimit?: number;
}

/** Starts kinesalite in memory; streams become ACTIVE immediately. */
export async function startKinesalite(opts: KinesaliteOptions = {}): Promise<AwsStandIn> {
  const kinesalite = serverFactory('kinesalite');
  return listen(
    kinesalite({ createStreamMs: 0, deleteStreamMs: 0, updateStreamMs: 0, shardLimit: opts.shardLimit ?? 100 }),
  );
}

/** Starts dynalite in memory; tables become ACTIVE immediately. */
export async function startDynalite(): Promise<AwsStandIn> {
  const dynalite = serverFactory('dynalite');
  return listen(dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 }));
}

/** Kinesis client for a stand-in. kinesalite speaks HTTP/1.1 only; the SDK's default HTTP/2 handler fails. */
export function kinesisClient(endpoint: string, extra: Partial<KinesisClientConfig> = {}): KinesisClient {
  return new KinesisClient({
    endpoint,
    region: STAND_IN_REGION,
    credentials: { ...STAND_IN_CREDENTIALS },
    requestHandler: new NodeHttpHandler(),
    ...extra,
  });
}

export function dynamoClient(endpoint: string, extra: Partial<DynamoDBClientConfig> = {}): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: STAND_IN_REGION,
    credentials: { ...STAND_IN_CREDENTIALS },
    requestHandler: new NodeHttpHandler(),
    ...extra,
  });
}

/** Creates a provisioned stream and waits until it is ACTIVE. */
export async function createStream(client: KinesisClient, name: string, shards = 1, timeoutMs = 30_000) {
  await client.send(new CreateStreamCommand({ StreamName: name, ShardCount: shards }));
  const deadline = Date.now() + timeoutMs;
  for (let delay = 10; ; delay = Math.min(delay * 2, 500)) {
    const r = await client.send(new DescribeStreamSummaryCommand({ StreamName: name }));
    if (r.StreamDescriptionSummary?.StreamStatus === 'ACTIVE') return;
    if (Date.now() > deadline)
      throw new EmbeddedStandInError(`timed out after ${timeoutMs} ms waiting for stream ${name} to become ACTIVE`);
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}
