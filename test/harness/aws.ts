/**
 * In-process, in-memory AWS stand-ins: kinesalite (Kinesis) and dynalite (DynamoDB) on free ports, plus
 * correctly configured SDK v3 clients and small stream helpers. Free of node:test so `cdc demo` can import it.
 *
 * Known gaps (see /work/shared/ENVIRONMENT-NOTES.md): kinesalite has no on-demand streams, SubscribeToShard,
 * throttling or partial PutRecords failures; dynalite has no transactions, PartiQL or TTL.
 */
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo, Socket } from 'node:net';
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import {
  CreateStreamCommand,
  DescribeStreamSummaryCommand,
  GetRecordsCommand,
  GetShardIteratorCommand,
  KinesisClient,
  type KinesisClientConfig,
  ListShardsCommand,
  type Shard,
} from '@aws-sdk/client-kinesis';
import { NodeHttpHandler } from '@smithy/node-http-handler';

export const STAND_IN_REGION = 'us-east-1';
export const STAND_IN_CREDENTIALS = { accessKeyId: 'test', secretAccessKey: 'test' } as const;

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
  const kinesalite = require('kinesalite') as ServerFactory;
  return listen(
    kinesalite({ createStreamMs: 0, deleteStreamMs: 0, updateStreamMs: 0, shardLimit: opts.shardLimit ?? 100 }),
  );
}

/** Starts dynalite in memory; tables become ACTIVE immediately. */
export async function startDynalite(): Promise<AwsStandIn> {
  const dynalite = require('dynalite') as ServerFactory;
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

async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let delay = 10; ; delay = Math.min(delay * 2, 500)) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, delay));
  }
}

/** Creates a provisioned stream and waits until it is ACTIVE. */
export async function createStream(client: KinesisClient, name: string, shards = 1, timeoutMs = 30_000) {
  await client.send(new CreateStreamCommand({ StreamName: name, ShardCount: shards }));
  await waitFor(`stream ${name} to become ACTIVE`, timeoutMs, async () => {
    const r = await client.send(new DescribeStreamSummaryCommand({ StreamName: name }));
    return r.StreamDescriptionSummary?.StreamStatus === 'ACTIVE' ? true : undefined;
  });
}

export interface ReadRecord {
  shardId: string;
  sequenceNumber: string;
  partitionKey: string;
  data: Buffer;
  arrivedAt?: Date;
}

export async function listAllShards(client: KinesisClient, stream: string): Promise<Shard[]> {
  const shards: Shard[] = [];
  let token: string | undefined;
  do {
    const r = await client.send(
      token ? new ListShardsCommand({ NextToken: token }) : new ListShardsCommand({ StreamName: stream }),
    );
    shards.push(...(r.Shards ?? []));
    token = r.NextToken;
  } while (token);
  return shards;
}

/**
 * Reads every shard from TRIM_HORIZON until caught up (an empty batch with MillisBehindLatest 0, or a closed
 * shard's end). Records come grouped by shard (shard order as listed), in sequence order within a shard.
 */
export async function readAllRecords(client: KinesisClient, stream: string): Promise<ReadRecord[]> {
  const out: ReadRecord[] = [];
  for (const shard of await listAllShards(client, stream)) {
    const shardId = shard.ShardId!;
    const it = await client.send(
      new GetShardIteratorCommand({ StreamName: stream, ShardId: shardId, ShardIteratorType: 'TRIM_HORIZON' }),
    );
    let iterator = it.ShardIterator;
    while (iterator) {
      const r = await client.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 10_000 }));
      for (const rec of r.Records ?? []) {
        out.push({
          shardId,
          sequenceNumber: rec.SequenceNumber!,
          partitionKey: rec.PartitionKey!,
          data: Buffer.from(rec.Data ?? new Uint8Array()),
          ...(rec.ApproximateArrivalTimestamp ? { arrivedAt: rec.ApproximateArrivalTimestamp } : {}),
        });
      }
      if ((r.Records?.length ?? 0) === 0 && (r.MillisBehindLatest ?? 0) === 0) break;
      iterator = r.NextShardIterator;
    }
  }
  return out;
}
