/** Follows every shard of a Kinesis stream from the start and hands each record to a callback (demo live view). */
import {
  GetRecordsCommand,
  GetShardIteratorCommand,
  type KinesisClient,
  ListShardsCommand,
} from '@aws-sdk/client-kinesis';

export interface TailedRecord {
  partitionKey: string;
  data: Buffer;
  shardId: string;
  arrivedAt: number;
}

export function tailStream(
  client: KinesisClient,
  stream: string,
  onRecord: (r: TailedRecord) => void,
  signal: AbortSignal,
): Promise<void> {
  return (async () => {
    const shards = (await client.send(new ListShardsCommand({ StreamName: stream }))).Shards ?? [];
    const iterators = new Map<string, string | undefined>();
    for (const s of shards) {
      const it = await client.send(
        new GetShardIteratorCommand({ StreamName: stream, ShardId: s.ShardId, ShardIteratorType: 'TRIM_HORIZON' }),
      );
      iterators.set(s.ShardId!, it.ShardIterator);
    }
    while (!signal.aborted) {
      let got = 0;
      for (const [shardId, iterator] of iterators) {
        if (!iterator) continue;
        const res = await client.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
        iterators.set(shardId, res.NextShardIterator);
        for (const r of res.Records ?? []) {
          got++;
          onRecord({
            partitionKey: r.PartitionKey ?? '',
            data: Buffer.from(r.Data ?? new Uint8Array()),
            shardId,
            arrivedAt: Date.now(),
          });
        }
      }
      if (got === 0) await new Promise((r) => setTimeout(r, 200));
    }
  })();
}
