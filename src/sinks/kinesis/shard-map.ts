import { type KinesisClient, ListShardsCommand, type Shard } from '@aws-sdk/client-kinesis';
import { partitionKeyHash } from './kpl-aggregation.js';

interface Range {
  start: bigint;
  end: bigint;
  shardId: string;
}

/**
 * Open shards of one stream and their hash key ranges (from ListShards), to predict which shard a partition key
 * lands on. Used by aggregation: records of one shard are packed together and sent with an explicit hash key inside
 * that shard's range, exactly as the KPL does.
 */
export class ShardMap {
  private ranges: Range[] = [];
  loadedAt = 0;

  constructor(
    private readonly client: KinesisClient,
    readonly streamName: string,
  ) {}

  async refresh(): Promise<void> {
    const shards: Shard[] = [];
    let token: string | undefined;
    do {
      const out = await this.client.send(
        token ? new ListShardsCommand({ NextToken: token }) : new ListShardsCommand({ StreamName: this.streamName }),
      );
      shards.push(...(out.Shards ?? []));
      token = out.NextToken;
    } while (token);
    this.ranges = ShardMap.openRanges(shards);
    this.loadedAt = Date.now();
  }

  static openRanges(shards: Shard[]): Range[] {
    return shards
      .filter((s) => s.SequenceNumberRange?.EndingSequenceNumber === undefined && s.HashKeyRange && s.ShardId)
      .map((s) => ({
        start: BigInt(s.HashKeyRange!.StartingHashKey!),
        end: BigInt(s.HashKeyRange!.EndingHashKey!),
        shardId: s.ShardId!,
      }))
      .sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  }

  get size(): number {
    return this.ranges.length;
  }

  /** Shard owning `hash`, or undefined when the map has no range for it (stale or empty map). */
  shardFor(hash: bigint): string | undefined {
    let lo = 0;
    let hi = this.ranges.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const r = this.ranges[mid];
      if (hash < r.start) hi = mid - 1;
      else if (hash > r.end) lo = mid + 1;
      else return r.shardId;
    }
    return undefined;
  }

  shardForKey(partitionKey: string): string | undefined {
    return this.shardFor(partitionKeyHash(partitionKey));
  }
}
