import {
  DescribeStreamSummaryCommand,
  KinesisClient,
  type KinesisClientConfig,
  PutRecordsCommand,
  type PutRecordsRequestEntry,
} from '@aws-sdk/client-kinesis';
import { errorMessage, SinkError } from '../../common/errors.js';
import { type Logger, silentLogger } from '../../common/logger.js';
import { recordLine } from '../../model/record-line.js';
import type { SinkRecord } from '../../model/sink-record.js';
import type { ClaimChecker } from '../claim-check/claim-checker.js';
import { type DeliveryStatus, DeliveryTracker } from '../delivery-status.js';
import type { Sink } from '../sink.js';
import { backoffDelay, isRetriableEntryError, isRetriableRequestError, type RetryOptions } from './backoff.js';
import { AggregateBuilder, partitionKeyHash } from './kpl-aggregation.js';
import { truncateJsonReport } from './oversize.js';
import { partitionKeyFor, StreamRouter, type StreamRoutingOptions } from './routing.js';
import { ShardMap } from './shard-map.js';

const MiB = 1024 * 1024;

export interface KinesisSinkOptions extends StreamRoutingOptions {
  /** Injected client (tests, custom credentials). When absent one is built from `clientConfig`. */
  client?: KinesisClient;
  /** Config for the client built when `client` is absent (region, endpoint, credentials, requestHandler...). */
  clientConfig?: KinesisClientConfig;
  /**
   * PutRecords requests in flight at once (across streams and shards).
   * @default 4
   */
  maxInFlight?: number;
  /** @default 500 (the PutRecords maximum) */
  maxRecordsPerRequest?: number;
  /**
   * Request size limit counting data and partition keys.
   * @default 10 MiB for a stream whose record limit is above 1 MiB (the PutRecords maximum), else 5 MiB
   */
  maxRequestBytes?: number;
  /**
   * Per-record limit counting data and partition key, for every stream.
   * @default each stream's own: `MaxRecordSizeInKiB` from DescribeStreamSummary (up to 10 MiB once raised with
   * UpdateMaxRecordSize), 1 MiB when the stream does not report one
   */
  maxRecordBytes?: number;
  /**
   * Records over the limit: 'fail' rejects the batch (non-retriable SinkError naming the record); 'truncate'
   * replaces the largest string values of the JSON value with a marker object (see `truncateJson`) until it fits;
   * 'claim-check' writes the value to S3 first and publishes a pointer in its place (see claim-check/envelope.ts).
   * @default 'fail'
   */
  oversizeHandling?: 'fail' | 'truncate' | 'claim-check';
  /** Required with oversizeHandling 'claim-check'. */
  claimCheck?: ClaimChecker;
  /**
   * With 'claim-check': records whose Kinesis size (data + partition key) is over this go to S3 even when the
   * stream would take them (a 10 MiB record uses a shard's write capacity for 10 s).
   * @default the stream's record limit
   */
  claimCheckThresholdBytes?: number;
  /**
   * What goes in the Kinesis data blob. 'value': the value JSON text, as Debezium Server's Kinesis sink does (key in
   * the partition key, headers dropped). 'record': the file sink's line `{"topic","key","value","headers"}`, which keeps
   * key and headers.
   * @default 'value'
   */
  payload?: 'value' | 'record';
  /** Tombstones (null value) in 'value' payload mode: 'empty' sends an empty blob, 'skip' drops them. @default 'empty' */
  tombstones?: 'empty' | 'skip';
  /**
   * KPL aggregation: pack records that land on the same shard (predicted from ListShards hash key ranges) into
   * aggregated records of at most `maxBytes`, sent with an explicit hash key inside that shard. Consumers must
   * deaggregate (KCL, aws-kinesis-agg, or `deaggregate` in kpl-aggregation.ts).
   * @default false
   */
  aggregation?: boolean | { maxBytes?: number };
  retry?: RetryOptions;
  /** Period of the "still failing" log line during an outage. @default 30000 */
  outageSummaryIntervalMs?: number;
  /** How long a shard map is trusted before it is re-read (it is also re-read when a put lands elsewhere). @default 60000 */
  shardMapTtlMs?: number;
  logger?: Logger;
  /** Random source for backoff jitter (tests). @default Math.random */
  random?: () => number;
}

/** Counters since construction; cheap enough to keep always. */
export interface KinesisSinkStats {
  /** SinkRecords accepted by Kinesis (dropped ones excluded). */
  userRecords: number;
  /** Kinesis records written (aggregates count once). */
  kinesisRecords: number;
  requests: number;
  /** Entries re-sent after a per-entry or whole-request failure. */
  retriedEntries: number;
  throttled: number;
  dropped: number;
  truncated: number;
  /** Records whose value went to S3 (claim-check). */
  claimChecked: number;
}

/**
 * One Kinesis record to put: a plain record or a KPL aggregate, with the ordering keys (`stream\0partitionKey`) of
 * every user record inside it.
 */
interface Unit {
  seq: number;
  stream: string;
  partitionKey: string;
  explicitHashKey: string | undefined;
  data: Buffer;
  /** data + partition key bytes: what Kinesis counts against record and request limits. */
  bytes: number;
  userRecords: number;
  keys: string[];
  predictedShard: string | undefined;
  /** Earlier units sharing a key that are not yet acknowledged. */
  waiting: number;
  /** Later units waiting for this one (null until one does: most units have none). */
  dependents: Unit[] | null;
  attempts: number;
  notBefore: number;
  state: 'blocked' | 'ready' | 'inflight' | 'done';
}

/**
 * Kinesis Data Streams sink.
 *
 * Ordering design (per key, not per shard): Kinesis does not promise that a failed entry stops later entries of the
 * same request, so two records of one key must never be outstanding at the same time. Each unit (plain record or
 * aggregate) waits for every earlier unit that shares a partition key with it; a request therefore holds at most one
 * outstanding unit per key, and a failed or throttled unit blocks exactly the later units of its own keys while other
 * keys keep flowing through up to `maxInFlight` concurrent requests. We chose keys over shards because it needs no
 * shard map (so it is correct during resharding too) and never stalls a whole shard for one hot key's retry.
 * The cost: a hot key moves one record per round trip without aggregation; with aggregation its consecutive records
 * share one aggregate, so it moves up to an aggregate's worth per round trip.
 */
export class KinesisSink implements Sink {
  readonly name = 'kinesis';
  readonly stats: KinesisSinkStats = {
    userRecords: 0,
    kinesisRecords: 0,
    requests: 0,
    retriedEntries: 0,
    throttled: 0,
    dropped: 0,
    truncated: 0,
    claimChecked: 0,
  };
  private readonly client: KinesisClient;
  private readonly ownsClient: boolean;
  private readonly router: StreamRouter;
  private readonly log: Logger;
  private readonly shardMaps = new Map<string, ShardMap>();
  private readonly staleShardMaps = new Set<string>();
  /** Record limit per stream (data + partition key), from the option or DescribeStreamSummary. */
  private readonly recordLimits = new Map<string, number>();
  private readonly describing = new Map<string, Promise<number>>();
  private readonly aggregationMaxBytes: number | null;
  /** @internal Outage visibility: first failure, rate-limited summaries, recovery (logs, metrics, /health). */
  readonly delivery: DeliveryTracker;

  constructor(private readonly options: KinesisSinkOptions) {
    this.ownsClient = !options.client;
    this.client = options.client ?? new KinesisClient(options.clientConfig ?? {});
    try {
      this.router = new StreamRouter(options);
    } catch (err) {
      throw new SinkError(`kinesis sink: ${errorMessage(err)}`, { cause: err });
    }
    this.log = (options.logger ?? silentLogger).child({ sink: 'kinesis' });
    this.delivery = new DeliveryTracker({
      sink: 'kinesis',
      logger: this.log,
      ...(options.outageSummaryIntervalMs !== undefined ? { summaryIntervalMs: options.outageSummaryIntervalMs } : {}),
    });
    if (options.oversizeHandling === 'claim-check' && !options.claimCheck)
      throw new SinkError(
        'kinesis sink: oversizeHandling claim-check needs a claim-check store (sink.claim.check.bucket)',
      );
    // Aggregates stay within 1 MiB unless told otherwise: consumers (KCL) and retries handle them best that way.
    const aggCap = options.maxRecordBytes ?? MiB;
    const agg = options.aggregation;
    this.aggregationMaxBytes = agg
      ? Math.min(typeof agg === 'object' ? (agg.maxBytes ?? aggCap) : aggCap, aggCap)
      : null;
  }

  /** Check that the fixed destination streams exist and are writable-ish (ACTIVE/UPDATING). */
  async start(): Promise<void> {
    const streams = new Set<string>();
    if (this.router.fixedStream) streams.add(this.router.fixedStream);
    const nt = this.options.nonTableRecords;
    if (!this.options.router && typeof nt === 'object') streams.add(nt.stream);
    for (const stream of streams) {
      try {
        const out = await this.client.send(new DescribeStreamSummaryCommand({ StreamName: stream }));
        const status = out.StreamDescriptionSummary?.StreamStatus;
        if (status !== 'ACTIVE' && status !== 'UPDATING') {
          throw new SinkError(`Kinesis stream "${stream}" is ${status}; wait until it is ACTIVE or recreate it`, {
            retriable: status === 'CREATING',
          });
        }
        this.noteRecordLimit(stream, out.StreamDescriptionSummary?.MaxRecordSizeInKiB);
      } catch (err) {
        if (err instanceof SinkError) throw err;
        throw translateError(err, stream, 'DescribeStreamSummary');
      }
      this.log.info('kinesis stream limits', {
        stream,
        maxRecordBytes: this.recordLimits.get(stream),
        maxRequestBytes: this.requestLimit(stream),
      });
      if (this.aggregationMaxBytes !== null) await this.shardMap(stream);
    }
  }

  async send(records: SinkRecord[]): Promise<void> {
    if (records.length === 0) return;
    const units = await this.buildUnits(records);
    if (units.length === 0) return;
    this.delivery.pending(Date.now());
    try {
      await new Dispatch(this, units).run();
    } finally {
      this.delivery.settled();
    }
  }

  deliveryStatus(): DeliveryStatus {
    return this.delivery.status();
  }

  async close(): Promise<void> {
    if (this.ownsClient) this.client.destroy();
    this.options.claimCheck?.close();
  }

  // --- internals used by Dispatch -------------------------------------------------------------------------------

  /** @internal */
  get opts(): KinesisSinkOptions {
    return this.options;
  }

  /** @internal */
  putRecords(stream: string, entries: PutRecordsRequestEntry[]) {
    this.stats.requests++;
    return this.client.send(new PutRecordsCommand({ StreamName: stream, Records: entries }));
  }

  /** @internal Request size limit of a stream whose record limit is known (after `recordLimit`). */
  requestLimit(stream: string): number {
    if (this.options.maxRequestBytes !== undefined) return this.options.maxRequestBytes;
    return (this.recordLimits.get(stream) ?? MiB) > MiB ? 10 * MiB : 5 * MiB;
  }

  private noteRecordLimit(stream: string, kib: number | undefined): void {
    this.recordLimits.set(stream, this.options.maxRecordBytes ?? (kib && kib > 0 ? kib * 1024 : MiB));
  }

  /** The stream's record limit; described once per stream (template-routed streams on first use). */
  private recordLimit(stream: string): Promise<number> | number {
    const known = this.recordLimits.get(stream);
    if (known !== undefined) return known;
    if (this.options.maxRecordBytes !== undefined) {
      this.noteRecordLimit(stream, undefined);
      return this.options.maxRecordBytes;
    }
    let pending = this.describing.get(stream);
    if (!pending) {
      pending = this.client.send(new DescribeStreamSummaryCommand({ StreamName: stream })).then(
        (out) => {
          this.noteRecordLimit(stream, out.StreamDescriptionSummary?.MaxRecordSizeInKiB);
          return this.recordLimits.get(stream) ?? MiB;
        },
        (err: unknown) => {
          throw translateError(err, stream, 'DescribeStreamSummary');
        },
      );
      // One call per stream even when several records ask at once; a failure is retried by the next batch.
      this.describing.set(stream, pending);
      pending.finally(() => this.describing.delete(stream)).catch(() => {});
    }
    return pending;
  }

  /** @internal A put landed on another shard than predicted: re-read the map before the next batch. */
  markShardMapStale(stream: string): void {
    this.staleShardMaps.add(stream);
  }

  /** @internal */
  get logger(): Logger {
    return this.log;
  }

  private async shardMap(stream: string): Promise<ShardMap> {
    let map = this.shardMaps.get(stream);
    const ttl = this.options.shardMapTtlMs ?? 60_000;
    if (!map || this.staleShardMaps.has(stream) || Date.now() - map.loadedAt > ttl) {
      map ??= new ShardMap(this.client, stream);
      try {
        await map.refresh();
      } catch (err) {
        throw translateError(err, stream, 'ListShards');
      }
      this.staleShardMaps.delete(stream);
      this.shardMaps.set(stream, map);
    }
    return map;
  }

  /** Route, key, serialise and size-check records, then pack them into units in arrival order. */
  private async buildUnits(records: SinkRecord[]): Promise<Unit[]> {
    const units: Unit[] = [];
    const lastUnitOfKey = new Map<string, Unit>();
    const finalize = (u: Unit) => {
      u.seq = units.length;
      if (u.keys.length === 1) {
        // A plain record: one key, so at most one earlier unit to wait for (no de-duplication needed).
        const k = u.keys[0];
        const prev = lastUnitOfKey.get(k);
        if (prev) dependOn(u, prev);
        lastUnitOfKey.set(k, u);
      } else {
        const seen = new Set<Unit>();
        for (const k of u.keys) {
          const prev = lastUnitOfKey.get(k);
          if (prev && !seen.has(prev)) {
            seen.add(prev);
            dependOn(u, prev);
          }
          lastUnitOfKey.set(k, u);
        }
      }
      u.state = u.waiting === 0 ? 'ready' : 'blocked';
      units.push(u);
    };

    const aggMax = this.aggregationMaxBytes;
    const maps = new Map<string, ShardMap>();
    const open = new Map<
      string,
      { builder: AggregateBuilder; first: PendingRecord; keys: Set<string>; shard?: string }
    >();
    const flush = (group: string) => {
      const agg = open.get(group);
      if (!agg) return;
      open.delete(group);
      if (agg.builder.count === 1) {
        finalize(plainUnit(agg.first, agg.shard));
        return;
      }
      const data = agg.builder.build();
      finalize(
        newUnit(
          agg.first.stream,
          agg.first.partitionKey,
          // The first record's own hash: inside the predicted shard's range, as the KPL does.
          partitionKeyHash(agg.first.partitionKey).toString(10),
          data,
          data.length + agg.first.pkBytes,
          agg.builder.count,
          [...agg.keys],
          agg.shard,
        ),
      );
    };

    const prepared = await this.prepareAll(records);
    for (const p of prepared) {
      if (!p) continue;
      if (aggMax === null) {
        finalize(plainUnit(p));
        continue;
      }
      let map = maps.get(p.stream);
      if (!map) {
        map = await this.shardMap(p.stream);
        maps.set(p.stream, map);
      }
      const shard = map.shardForKey(p.partitionKey);
      const group = `${p.stream}\u0000${shard ?? p.partitionKey}`;
      const user = { partitionKey: p.partitionKey, data: p.data };
      let agg = open.get(group);
      if (agg && agg.builder.sizeWith(user) + agg.first.pkBytes > aggMax) {
        flush(group);
        agg = undefined;
      }
      if (!agg) {
        const builder = new AggregateBuilder();
        if (builder.sizeWith(user) + p.pkBytes > aggMax) {
          // Too big to aggregate: send it alone (the open aggregate of its group, if any, was flushed above).
          finalize(plainUnit(p, shard));
          continue;
        }
        agg = { builder, first: p, keys: new Set(), shard };
        open.set(group, agg);
      }
      agg.builder.add(user);
      agg.keys.add(p.orderKey);
    }
    // Groups never share a key (a key maps to one group), so the flush order between them is irrelevant.
    for (const group of [...open.keys()]) flush(group);
    return units;
  }

  /**
   * `prepare` for every record, in input order. Most records take the synchronous path (no promise per record);
   * the rest (first record of a stream whose limits are not known yet, records over a limit) take the full one.
   * Claim-check uploads happen here, before any PutRecords of this batch: a few at a time.
   */
  private async prepareAll(records: SinkRecord[]): Promise<(PendingRecord | null)[]> {
    const out = new Array<PendingRecord | null>(records.length);
    const slow: number[] = [];
    for (let i = 0; i < records.length; i++) {
      const p = this.prepareFast(records[i]);
      if (p === NEEDS_FULL_PREPARE) slow.push(i);
      else out[i] = p;
    }
    if (slow.length > 0) {
      await mapConcurrent(slow, 4, async (i) => {
        out[i] = await this.prepare(records[i]);
      });
    }
    return out;
  }

  /**
   * The common case of `prepare` without a promise: the stream's record limit is known and the record fits it.
   * Anything else returns NEEDS_FULL_PREPARE before counting or logging anything, so `prepare` does it once.
   */
  private prepareFast(r: SinkRecord): PendingRecord | null | typeof NEEDS_FULL_PREPARE {
    const stream = this.router.route(r);
    const payloadMode = this.options.payload ?? 'value';
    if (stream === null || (r.value === null && payloadMode === 'value' && this.options.tombstones === 'skip')) {
      this.stats.dropped++;
      return null;
    }
    const limit = this.recordLimits.get(stream);
    if (limit === undefined) return NEEDS_FULL_PREPARE;
    const partitionKey = partitionKeyFor(r);
    // One UTF-8 encoding gives both the blob and its size (a pure-ASCII key's byte length is its length).
    const data = Buffer.from(payloadMode === 'record' ? recordLine(r).slice(0, -1) : (r.value ?? ''), 'utf8');
    const pkBytes = Buffer.byteLength(partitionKey, 'utf8');
    const bytes = data.length + pkBytes;
    if (bytes > limit) return NEEDS_FULL_PREPARE;
    if (
      this.options.oversizeHandling === 'claim-check' &&
      r.value !== null &&
      bytes > Math.min(limit, this.options.claimCheckThresholdBytes ?? limit)
    )
      return NEEDS_FULL_PREPARE;
    return { stream, partitionKey, pkBytes, orderKey: this.orderKey(stream, partitionKey), data };
  }

  /** Per-key ordering identity: the partition key within its stream (one fixed stream needs no prefix). */
  private orderKey(stream: string, partitionKey: string): string {
    return this.router.fixedStream !== undefined ? partitionKey : `${stream}\u0000${partitionKey}`;
  }

  private async prepare(original: SinkRecord): Promise<PendingRecord | null> {
    let r = original;
    const stream = this.router.route(r);
    const payloadMode = this.options.payload ?? 'value';
    if (stream === null || (r.value === null && payloadMode === 'value' && this.options.tombstones === 'skip')) {
      this.stats.dropped++;
      return null;
    }
    const limit = await this.recordLimit(stream);
    const partitionKey = partitionKeyFor(r);
    const pkBytes = Buffer.byteLength(partitionKey, 'utf8');
    const render = (value: string | null) =>
      payloadMode === 'record' ? recordLine({ ...r, value }).slice(0, -1) : (value ?? '');
    let text = render(r.value);
    let dataBytes = Buffer.byteLength(text, 'utf8');
    const claimCheck = this.options.oversizeHandling === 'claim-check' ? this.options.claimCheck : undefined;
    const threshold = Math.min(limit, this.options.claimCheckThresholdBytes ?? limit);
    if (claimCheck && r.value !== null && dataBytes + pkBytes > threshold) {
      const recordBytes = dataBytes + pkBytes;
      r = await claimCheck.check(r);
      text = render(r.value);
      dataBytes = Buffer.byteLength(text, 'utf8');
      this.stats.claimChecked++;
      this.log.info('claim-checked large record', {
        ...recordWhere(original),
        topic: r.topic,
        recordBytes,
        limitBytes: limit,
        bucket: claimCheck.bucket,
      });
    }
    if (dataBytes + pkBytes > limit) {
      // Sizes, table and binlog position only: the partition key is the row's primary key value.
      const where = recordWhere(r);
      const what =
        `record of ${where.table ?? `topic "${r.topic}"`}${where.position ? ` at ${where.position}` : ''} ` +
        `(${dataBytes} bytes of data + ${pkBytes} of partition key)`;
      if (claimCheck || (this.options.oversizeHandling ?? 'fail') === 'fail' || r.value === null) {
        throw new SinkError(
          `${what} is over the Kinesis record limit of ${limit} bytes` +
            (claimCheck
              ? ' even as a claim-check pointer (its key or headers are too large); leave columns out with column.exclude.list'
              : '; set sink.kinesis.oversize.handling=truncate (or claim-check: values to S3), raise the ' +
                "stream's maximum record size (up to 10 MiB), or leave the large columns out with column.exclude.list"),
        );
      }
      const overhead = Buffer.byteLength(render('null'), 'utf8') - 4;
      const result = truncateJsonReport(r.value, limit - pkBytes - overhead);
      if (result.json === null) {
        throw new SinkError(
          `${what} is still over ${limit} bytes after truncating its string values; leave the large ` +
            'columns out with column.exclude.list',
        );
      }
      this.stats.truncated++;
      this.log.warn('truncated oversize record', {
        ...where,
        topic: r.topic,
        recordBytes: dataBytes + pkBytes,
        limitBytes: limit,
        // The replaced values: column path (e.g. after.doc) and its size in UTF-8 bytes.
        columns: result.replaced.map((c) => ({ column: c.path, bytes: c.bytes })),
      });
      text = render(result.json);
      dataBytes = Buffer.byteLength(text, 'utf8');
    }
    return {
      stream,
      partitionKey,
      pkBytes,
      orderKey: this.orderKey(stream, partitionKey),
      data: Buffer.from(text, 'utf8'),
    };
  }
}

interface PendingRecord {
  stream: string;
  partitionKey: string;
  pkBytes: number;
  orderKey: string;
  data: Buffer;
}

/** Returned by `prepareFast` for a record that needs the full (async) `prepare`. */
const NEEDS_FULL_PREPARE = Symbol('needs full prepare');

/** Every unit is built here, with all fields in one order (one object shape for the hot paths). */
function newUnit(
  stream: string,
  partitionKey: string,
  explicitHashKey: string | undefined,
  data: Buffer,
  bytes: number,
  userRecords: number,
  keys: string[],
  predictedShard: string | undefined,
): Unit {
  return {
    seq: 0,
    stream,
    partitionKey,
    explicitHashKey,
    data,
    bytes,
    userRecords,
    keys,
    predictedShard,
    waiting: 0,
    dependents: null,
    attempts: 0,
    notBefore: 0,
    state: 'blocked',
  };
}

function plainUnit(p: PendingRecord, predictedShard?: string): Unit {
  return newUnit(
    p.stream,
    p.partitionKey,
    undefined,
    p.data,
    p.data.length + p.pkBytes,
    1,
    [p.orderKey],
    predictedShard,
  );
}

/** `u` waits for the earlier unit `prev` (they share a key). */
function dependOn(u: Unit, prev: Unit): void {
  if (prev.dependents) prev.dependents.push(u);
  else prev.dependents = [u];
  u.waiting++;
}

/** Drives one `send()`: dispatches ready units in requests, handles results and retries, settles when all are done. */
class Dispatch {
  private remaining: number;
  private inFlight = 0;
  /** Queued units with a retry backoff (notBefore set): only then does `pump` look for the next wake-up. */
  private backedOff = 0;
  private readonly ready = new Map<string, Unit[]>();
  private timer: NodeJS.Timeout | undefined;
  private fatal: Error | undefined;
  private settle!: { resolve: () => void; reject: (err: Error) => void };
  private readonly maxInFlight: number;
  private readonly maxRecords: number;
  private readonly maxAttempts: number;

  constructor(
    private readonly sink: KinesisSink,
    units: Unit[],
  ) {
    const o = sink.opts;
    this.maxInFlight = Math.max(1, o.maxInFlight ?? 4);
    this.maxRecords = Math.min(500, Math.max(1, o.maxRecordsPerRequest ?? 500));
    this.maxAttempts = o.retry?.maxAttempts ?? 30;
    this.remaining = units.length;
    for (const u of units) if (u.state === 'ready') this.enqueue(u);
  }

  run(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.settle = { resolve, reject };
      this.pump();
    });
  }

  /** Each stream's ready units stay sorted by seq: new units arrive in order, retried/unblocked ones go in place. */
  private enqueue(u: Unit): void {
    u.state = 'ready';
    let q = this.ready.get(u.stream);
    if (!q) {
      q = [];
      this.ready.set(u.stream, q);
    }
    if (q.length === 0 || q[q.length - 1].seq < u.seq) {
      q.push(u);
      return;
    }
    let lo = 0;
    let hi = q.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (q[mid].seq < u.seq) lo = mid + 1;
      else hi = mid;
    }
    q.splice(lo, 0, u);
  }

  private pump(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.fatal) {
      if (this.inFlight === 0) this.settle.reject(this.fatal);
      return;
    }
    if (this.remaining === 0) {
      this.settle.resolve();
      return;
    }
    const now = Date.now();
    let nextWake = Number.POSITIVE_INFINITY;
    while (this.inFlight < this.maxInFlight) {
      // The stream whose oldest eligible unit is oldest goes first (queues are sorted by seq).
      let bestStream: string | undefined;
      let bestSeq = Number.POSITIVE_INFINITY;
      for (const [stream, q] of this.ready) {
        for (const u of q) {
          if (u.notBefore > now) continue;
          if (u.seq < bestSeq) {
            bestSeq = u.seq;
            bestStream = stream;
          }
          break;
        }
      }
      if (bestStream === undefined) break;
      const q = this.ready.get(bestStream)!;
      const batch: Unit[] = [];
      const kept: Unit[] = [];
      let bytes = 0;
      const maxBytes = this.sink.requestLimit(bestStream);
      let i = 0;
      for (; i < q.length && batch.length < this.maxRecords; i++) {
        const u = q[i];
        if (u.notBefore > now || (batch.length > 0 && bytes + u.bytes > maxBytes)) kept.push(u);
        else {
          batch.push(u);
          bytes += u.bytes;
        }
      }
      const rest = i === q.length ? kept : kept.length === 0 ? q.slice(i) : kept.concat(q.slice(i));
      if (rest.length) this.ready.set(bestStream, rest);
      else this.ready.delete(bestStream);
      this.dispatch(bestStream, batch);
    }
    // The earliest backed-off unit, for the timer (retries only: a queue without any is not scanned).
    if (this.backedOff > 0 && this.inFlight < this.maxInFlight) {
      for (const q of this.ready.values())
        for (const u of q) if (u.notBefore > now) nextWake = Math.min(nextWake, u.notBefore);
    }
    // Completions pump again; a timer is only needed for backed-off units while there is spare capacity.
    if (Number.isFinite(nextWake) && this.inFlight < this.maxInFlight) {
      this.timer = setTimeout(() => this.pump(), Math.max(0, nextWake - Date.now()));
    }
  }

  private dispatch(stream: string, batch: Unit[]): void {
    this.inFlight++;
    for (const u of batch) {
      u.state = 'inflight';
      u.attempts++;
      if (u.notBefore !== 0) {
        u.notBefore = 0;
        this.backedOff--;
      }
    }
    const entries: PutRecordsRequestEntry[] = batch.map((u) =>
      u.explicitHashKey === undefined
        ? { PartitionKey: u.partitionKey, Data: u.data }
        : { PartitionKey: u.partitionKey, ExplicitHashKey: u.explicitHashKey, Data: u.data },
    );
    this.sink.putRecords(stream, entries).then(
      (out) => {
        this.inFlight--;
        const results = out.Records ?? [];
        if (results.length !== batch.length) {
          this.fail(
            new SinkError(
              `Kinesis returned ${results.length} results for ${batch.length} records on stream "${stream}"`,
              { retriable: true },
            ),
          );
        } else {
          const failed = results.filter((r) => r.ErrorCode).length;
          if (failed < batch.length) this.sink.delivery.success();
          if (failed > 0) {
            const first = results.find((r) => r.ErrorCode);
            this.sink.delivery.failure(`${failed} of ${batch.length} entries failed (${first?.ErrorCode})`, { stream });
          }
          for (let i = 0; i < batch.length; i++) {
            const res = results[i];
            const u = batch[i];
            if (!res.ErrorCode) this.acknowledge(u, res.ShardId);
            else if (isRetriableEntryError(res.ErrorCode)) {
              if (res.ErrorCode === 'ProvisionedThroughputExceededException') this.sink.stats.throttled++;
              this.retry(u, `${res.ErrorCode}: ${res.ErrorMessage ?? ''}`);
            } else {
              this.fail(
                new SinkError(
                  `Kinesis rejected a record on stream "${stream}" with ${res.ErrorCode}: ${res.ErrorMessage ?? ''}`,
                ),
              );
            }
          }
        }
        this.pump();
      },
      (err: unknown) => {
        this.inFlight--;
        this.sink.delivery.failure(errorMessage(err), { stream, records: batch.length });
        if (isRetriableRequestError(err)) {
          if ((err as { name?: string }).name === 'ProvisionedThroughputExceededException') this.sink.stats.throttled++;
          for (const u of batch) this.retry(u, errorMessage(err));
        } else {
          this.fail(translateError(err, stream, 'PutRecords'));
        }
        this.pump();
      },
    );
  }

  private acknowledge(u: Unit, shardId: string | undefined): void {
    u.state = 'done';
    this.remaining--;
    this.sink.stats.kinesisRecords++;
    this.sink.stats.userRecords += u.userRecords;
    if (u.predictedShard && shardId && u.predictedShard !== shardId) this.sink.markShardMapStale(u.stream);
    if (u.dependents) for (const d of u.dependents) if (--d.waiting === 0 && d.state === 'blocked') this.enqueue(d);
  }

  private retry(u: Unit, reason: string): void {
    if (u.attempts >= this.maxAttempts) {
      this.fail(
        new SinkError(
          `gave up on a record for Kinesis stream "${u.stream}" after ${u.attempts} attempts (last error: ${reason}); ` +
            'the stream may be under-provisioned: add shards or use on-demand capacity, or raise errors.max.retries',
          // Transient, but the retry policy was applied here already: the Publisher must not multiply the attempts.
          { retriable: true, retriesExhausted: true },
        ),
      );
      return;
    }
    this.sink.stats.retriedEntries++;
    u.notBefore = Date.now() + backoffDelay(u.attempts, this.sink.opts.retry, this.sink.opts.random);
    this.backedOff++;
    this.enqueue(u);
  }

  private fail(err: Error): void {
    if (!this.fatal) {
      this.fatal = err;
      this.sink.logger.error('kinesis send failed', { error: err });
    }
  }
}

/** `fn` over `items` with at most `limit` calls in flight; results in input order. */
async function mapConcurrent<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) out[i] = await fn(items[i]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** Table and binlog position of a record, from its envelope's `source` (never a row value). */
function recordWhere(r: SinkRecord): { table?: string; position?: string } {
  const out: { table?: string; position?: string } = {};
  if (r.table) out.table = r.table;
  if (r.value === null) return out;
  try {
    const source = (JSON.parse(r.value) as { source?: Record<string, unknown> }).source;
    if (source && typeof source.file === 'string')
      out.position = `${source.file}:${String(source.pos)}${source.row !== undefined ? ` row ${String(source.row)}` : ''}`;
    if (!out.table && source && typeof source.db === 'string' && typeof source.table === 'string')
      out.table = `${source.db}.${source.table}`;
  } catch {
    // Not an envelope (transformed value): table only.
  }
  return out;
}

/** Turn an SDK error into a SinkError that says which stream and what to do. */
export function translateError(err: unknown, stream: string, operation: string): SinkError {
  const name = (err as { name?: string })?.name ?? 'Error';
  const msg = errorMessage(err);
  const retriable = isRetriableRequestError(err);
  let hint: string;
  switch (name) {
    case 'ResourceNotFoundException':
      hint = `Kinesis stream "${stream}" does not exist in this account/region; create it or fix the stream routing`;
      break;
    case 'AccessDeniedException':
    case 'UnrecognizedClientException':
    case 'InvalidSignatureException':
    case 'ExpiredTokenException':
    case 'MissingAuthenticationTokenException':
      hint = `not allowed to call kinesis:${operation} on stream "${stream}" (${name}); grant the task role kinesis:${operation} (and kms:GenerateDataKey for encrypted streams) or refresh the credentials`;
      break;
    case 'KMSAccessDeniedException':
    case 'KMSDisabledException':
    case 'KMSInvalidStateException':
    case 'KMSNotFoundException':
    case 'KMSOptInRequired':
      hint = `stream "${stream}" is encrypted with a KMS key that cannot be used (${name}); check the key state and the key policy for this role`;
      break;
    case 'ValidationException':
    case 'InvalidArgumentException':
    case 'SerializationException':
      hint = `Kinesis rejected ${operation} on stream "${stream}" as invalid (${name}); a record or request over the stream's limits is a bug here (records over the limit follow sink.kinesis.oversize.handling)`;
      break;
    default:
      hint = `${operation} on Kinesis stream "${stream}" failed (${name})`;
  }
  return new SinkError(`${hint}: ${msg}`, { cause: err, retriable });
}
