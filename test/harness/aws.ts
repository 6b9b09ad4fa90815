/**
 * The AWS stand-ins of the tests: the package's own kinesalite/dynalite starters and clients
 * (src/embedded/aws-stand-ins.ts, shared with `cdc demo`), plus stream readers the tests use.
 */
import {
  GetRecordsCommand,
  GetShardIteratorCommand,
  type KinesisClient,
  ListShardsCommand,
  type Shard,
} from '@aws-sdk/client-kinesis';

export * from '../../src/embedded/aws-stand-ins.js';

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
