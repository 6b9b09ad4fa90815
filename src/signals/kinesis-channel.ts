/**
 * A Kinesis stream as a signal channel (the AWS counterpart of Debezium's Kafka channel): each record is one JSON
 * signal. Shards are polled every `signal.poll.interval.ms`; the sequence number of the last signal acted on per
 * shard rides in the offsets (`signal_offsets.kinesis`), so a restarted capture neither repeats nor skips a
 * signal. Without a stored position a shard is read from LATEST: signals sent before the first start are ignored.
 */
import type { GetRecordsCommandOutput, KinesisClient, ShardIteratorType } from '@aws-sdk/client-kinesis';
import { errorMessage } from '../common/errors.js';
import { type KinesisSdk, kinesisSdk } from '../common/kinesis-sdk.js';
import type { Logger } from '../common/logger.js';
import type { SignalChannel } from './channel.js';
import { type SignalRecord, signalFromJson } from './signal.js';

export interface KinesisSignalChannelOptions {
  /** A client, or how to make one at the first poll (so the SDK loads only when the channel is used). */
  client: KinesisClient | (() => Promise<KinesisClient>);
  streamName: string;
  pollIntervalMs: number;
  logger: Logger;
  /** Per shard id: the sequence number of the last signal acted on (from the stored offset). */
  resume?: Readonly<Record<string, string>> | null;
}

interface ShardState {
  iterator: string | null;
  /** Closed (merged/split) and read to its end. */
  done: boolean;
}

export class KinesisSignalChannel implements SignalChannel {
  readonly name = 'kinesis';
  private readonly done = new Map<string, string>();
  private readonly shards = new Map<string, ShardState>();
  /** Shards that appeared after the first poll (children of a reshard): read from their start. */
  private readonly fromStart = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private polling: Promise<void> = Promise.resolve();
  private stopped = false;
  private first = true;
  private aws: { client: KinesisClient; sdk: KinesisSdk } | null = null;

  constructor(private readonly opts: KinesisSignalChannelOptions) {
    for (const [shard, seq] of Object.entries(opts.resume ?? {})) this.done.set(shard, seq);
  }

  start(deliver: (signal: SignalRecord) => Promise<void>): void {
    const tick = () => {
      this.polling = this.poll(deliver)
        .catch((err: unknown) => {
          this.opts.logger.warn('reading the signal stream failed; retrying', {
            stream: this.opts.streamName,
            error: errorMessage(err),
          });
        })
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(tick, this.opts.pollIntervalMs);
        });
    };
    tick();
  }

  position(): Record<string, string> | null {
    return this.done.size === 0 ? null : Object.fromEntries(this.done);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.polling;
  }

  private async connect(): Promise<{ client: KinesisClient; sdk: KinesisSdk }> {
    if (!this.aws) {
      const c = this.opts.client;
      const [client, sdk] = await Promise.all([typeof c === 'function' ? c() : c, kinesisSdk()]);
      this.aws = { client, sdk };
    }
    return this.aws;
  }

  private async poll(deliver: (signal: SignalRecord) => Promise<void>): Promise<void> {
    const { client, sdk } = await this.connect();
    await this.refreshShards(client, sdk);
    for (const [shardId, state] of this.shards) {
      if (this.stopped) return;
      if (state.done) continue;
      state.iterator ??= await this.iterator(client, sdk, shardId);
      let out: GetRecordsCommandOutput;
      try {
        out = await client.send(new sdk.GetRecordsCommand({ ShardIterator: state.iterator, Limit: 100 }));
      } catch (err) {
        // An expired iterator (or any failure) is re-created from the last position at the next poll.
        state.iterator = null;
        throw err;
      }
      state.iterator = out.NextShardIterator ?? null;
      if (!out.NextShardIterator) state.done = true;
      for (const r of out.Records ?? []) {
        const text = Buffer.from(r.Data ?? new Uint8Array()).toString('utf8');
        const signal = signalFromJson(text, this.name);
        if (signal) await deliver(signal);
        else this.opts.logger.warn('skipped a signal record that is not a JSON signal', { shard: shardId });
        if (r.SequenceNumber) this.done.set(shardId, r.SequenceNumber);
      }
    }
  }

  /** Shards known at the first poll start at LATEST (or after the stored position); later ones from the start. */
  private async refreshShards(client: KinesisClient, sdk: KinesisSdk): Promise<void> {
    let token: string | undefined;
    do {
      const out = await client.send(
        new sdk.ListShardsCommand(token ? { NextToken: token } : { StreamName: this.opts.streamName }),
      );
      for (const s of out.Shards ?? []) {
        if (!s.ShardId || this.shards.has(s.ShardId)) continue;
        this.shards.set(s.ShardId, { iterator: null, done: false });
        if (!this.first && !this.done.has(s.ShardId)) this.fromStart.add(s.ShardId);
      }
      token = out.NextToken;
    } while (token);
    this.first = false;
  }

  private async iterator(client: KinesisClient, sdk: KinesisSdk, shardId: string): Promise<string> {
    const seq = this.done.get(shardId);
    const type: ShardIteratorType = seq
      ? 'AFTER_SEQUENCE_NUMBER'
      : this.fromStart.has(shardId)
        ? 'TRIM_HORIZON'
        : 'LATEST';
    const out = await client.send(
      new sdk.GetShardIteratorCommand({
        StreamName: this.opts.streamName,
        ShardId: shardId,
        ShardIteratorType: type,
        ...(seq ? { StartingSequenceNumber: seq } : {}),
      }),
    );
    if (!out.ShardIterator) throw new Error(`no shard iterator for ${shardId}`);
    return out.ShardIterator;
  }
}
