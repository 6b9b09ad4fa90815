/**
 * Stand-ins for large records: an S3-compatible server (s3rver, an npm devDependency, in process, objects in a temp
 * folder) driven by the real AWS SDK v3 S3 client, and what kinesalite needs to carry records over 1 MiB.
 *
 * kinesalite predates Kinesis' larger records (up to 10 MiB per record once UpdateMaxRecordSize raised a stream's
 * limit): its DescribeStreamSummary has no `MaxRecordSizeInKiB` and it validates `Data` at 1 MiB. So
 * `fakeMaxRecordSize` adds that one response field, for the streams the test says were raised, through an SDK
 * middleware, and `raiseKinesaliteRecordLimit` lifts kinesalite's Data check (process-wide: on the other streams the
 * sink itself keeps to the 1 MiB they report, which tests can assert on what they read back). kinesalite still refuses
 * request bodies over 7 MiB (base64), so records up to about 5 MiB can go through it whole.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeStreamSummaryCommand, type KinesisClient } from '@aws-sdk/client-kinesis';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { STAND_IN_CREDENTIALS, STAND_IN_REGION } from './aws.js';

const require = createRequire(import.meta.url);

export interface S3StandIn {
  endpoint: string;
  /** A real SDK v3 client for it (path-style, HTTP/1.1). */
  client(): S3Client;
  createBucket(name: string): Promise<void>;
  stop(): Promise<void>;
}

interface S3rverInstance {
  run(): Promise<{ address: string; port: number }>;
  close(): Promise<void>;
}

/** Starts s3rver on a free port with its objects in a temp folder (removed by stop()). */
export async function startS3StandIn(): Promise<S3StandIn> {
  let S3rver: new (opts: Record<string, unknown>) => S3rverInstance;
  try {
    S3rver = require('s3rver') as typeof S3rver;
  } catch (err) {
    throw new Error(
      `the S3 stand-in s3rver is not installed (a devDependency): run npm ci (${(err as Error).message})`,
    );
  }
  // s3rver checks signatures against its own key pairs (S3RVER/S3RVER only): add the stand-in credentials that
  // clients built from the default chain use (the other stand-ins take any).
  const account = require('s3rver/lib/models/account.js') as {
    DUMMY_ACCOUNT: { createKeyPair(id: string, secret: string): void };
  };
  account.DUMMY_ACCOUNT.createKeyPair(STAND_IN_CREDENTIALS.accessKeyId, STAND_IN_CREDENTIALS.secretAccessKey);
  const directory = mkdtempSync(join(tmpdir(), 'cdc-s3-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const clients: S3Client[] = [];
  const client = () => {
    const c = new S3Client({
      endpoint,
      region: STAND_IN_REGION,
      forcePathStyle: true,
      credentials: { ...STAND_IN_CREDENTIALS },
      requestHandler: new NodeHttpHandler(),
    });
    clients.push(c);
    return c;
  };
  let stopping: Promise<void> | undefined;
  return {
    endpoint,
    client,
    async createBucket(name) {
      const c = client();
      await c.send(new CreateBucketCommand({ Bucket: name }));
    },
    stop() {
      stopping ??= (async () => {
        for (const c of clients) c.destroy();
        await server.close();
        rmSync(directory, { recursive: true, force: true });
      })();
      return stopping;
    },
  };
}

/** The one fake: DescribeStreamSummary answers `MaxRecordSizeInKiB` for these streams, as raised streams do. */
export function fakeMaxRecordSize(client: KinesisClient, kibByStream: Record<string, number>): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const out = await next(args);
      if (context.commandName !== DescribeStreamSummaryCommand.name) return out;
      const stream = (args.input as { StreamName?: string }).StreamName ?? '';
      const summary = (out.output as { StreamDescriptionSummary?: Record<string, unknown> }).StreamDescriptionSummary;
      if (summary && kibByStream[stream] !== undefined) summary.MaxRecordSizeInKiB = kibByStream[stream];
      return out;
    },
    { step: 'initialize', name: 'fakeMaxRecordSizeInKiB' },
  );
}

/** Lift kinesalite's per-record Data validation (1 MiB) to `bytes`, in this process. */
export function raiseKinesaliteRecordLimit(bytes: number): void {
  const putRecords = require('kinesalite/validations/putRecords.js') as {
    types: { Records: { children: { children: { Data: { lengthLessThanOrEqual: number } } } } };
  };
  putRecords.types.Records.children.children.Data.lengthLessThanOrEqual = bytes;
}
