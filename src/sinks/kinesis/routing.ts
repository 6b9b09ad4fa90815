import { createHash } from 'node:crypto';
import type { SinkRecord } from '../../model/sink-record.js';

/** Kinesis partition keys are 1..256 Unicode characters. */
export const MAX_PARTITION_KEY_LENGTH = 256;

/**
 * Partition key of a record: the key's JSON text, so the same row always lands on the same shard. Keys too long for
 * Kinesis become their SHA-256 hex (still deterministic); keyless records use the table id, else the topic.
 */
export function partitionKeyFor(record: SinkRecord): string {
  const raw = record.key || record.table || record.topic;
  // `.length` counts UTF-16 units, which is >= the code point count Kinesis limits: hashing earlier is safe.
  return raw.length > MAX_PARTITION_KEY_LENGTH ? createHash('sha256').update(raw, 'utf8').digest('hex') : raw;
}

/** Kinesis stream names: 1..128 of `[a-zA-Z0-9_.-]`. */
const MAX_STREAM_NAME = 128;

/**
 * Make `name` a valid stream name: invalid characters become `_`; names that are too long are cut and get a short
 * hash suffix so two long names that share a prefix do not collide.
 */
export function sanitizeStreamName(name: string): string {
  let s = name.replace(/[^a-zA-Z0-9_.-]/g, '_');
  if (s.length === 0) s = '_';
  if (s.length > MAX_STREAM_NAME) {
    const h = createHash('sha256').update(name, 'utf8').digest('hex').slice(0, 8);
    s = `${s.slice(0, MAX_STREAM_NAME - 9)}-${h}`;
  }
  return s;
}

/** What to do with records that belong to no table (schema changes, transaction metadata, heartbeats). */
export type NonTableRouting = 'topic' | 'drop' | { stream: string };

export interface StreamRoutingOptions {
  /** One stream for every record. Takes precedence over `streamNameTemplate`. */
  streamName?: string;
  /**
   * Stream name template; placeholders `{topic}`, `{prefix}`, `{db}`, `{table}`. `{prefix}` is the topic without its
   * trailing `.<db>.<table>`. The result is sanitised to Kinesis naming rules.
   * @default '{topic}' (Debezium Server's default: the stream is named after the topic)
   */
  streamNameTemplate?: string;
  /** Custom router; return null to drop the record. Takes precedence over the other options. */
  router?: (record: SinkRecord) => string | null;
  /**
   * Records without `table`: 'topic' routes them to a stream named after their topic (sanitised), `{stream}` to a
   * fixed stream, 'drop' discards them. Ignored when `streamName` or `router` is set.
   * @default 'topic'
   */
  nonTableRecords?: NonTableRouting;
}

/** Resolve each record's stream, caching per (topic, table) because templates are evaluated per record otherwise. */
export class StreamRouter {
  private readonly cache = new Map<string, string | null>();

  constructor(private readonly options: StreamRoutingOptions) {
    if (options.streamName !== undefined && !/^[a-zA-Z0-9_.-]{1,128}$/.test(options.streamName)) {
      throw new Error(`streamName "${options.streamName}" is not a valid Kinesis stream name ([a-zA-Z0-9_.-]{1,128})`);
    }
  }

  /** The only stream when routing is fixed, else undefined. */
  get fixedStream(): string | undefined {
    return this.options.router ? undefined : this.options.streamName;
  }

  route(record: SinkRecord): string | null {
    if (this.options.router) return this.options.router(record);
    if (this.options.streamName !== undefined) return this.options.streamName;
    const cacheKey = `${record.topic}\u0000${record.table ?? ''}`;
    const hit = this.cache.get(cacheKey);
    if (hit !== undefined) return hit;
    const stream = this.compute(record);
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(cacheKey, stream);
    return stream;
  }

  private compute(record: SinkRecord): string | null {
    if (!record.table) {
      const nt = this.options.nonTableRecords ?? 'topic';
      if (nt === 'drop') return null;
      if (nt === 'topic') return sanitizeStreamName(record.topic);
      return nt.stream;
    }
    const dot = record.table.indexOf('.');
    const db = dot >= 0 ? record.table.slice(0, dot) : '';
    const table = dot >= 0 ? record.table.slice(dot + 1) : record.table;
    const suffix = `.${record.table}`;
    const prefix = record.topic.endsWith(suffix) ? record.topic.slice(0, -suffix.length) : record.topic;
    const template = this.options.streamNameTemplate ?? '{topic}';
    const name = template.replace(/\{(topic|prefix|db|table)\}/g, (_m, p: string) =>
      p === 'topic' ? record.topic : p === 'prefix' ? prefix : p === 'db' ? db : table,
    );
    return sanitizeStreamName(name);
  }
}
