/**
 * The Vitess runners on the engine's interfaces. The stream runner holds one VStream from VTGate at a time (the
 * whole keyspace or `vitess.shard`) and turns its events into Debezium Vitess connector records; it reconnects
 * from its VGTID under the one retry policy. The snapshot is VStream's own copy phase, at the start of the stream
 * (shards start with an empty GTID), so the snapshot runner only names where that stream starts.
 */
import type * as grpc from '@grpc/grpc-js';
import { CdcError, errorMessage } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { CdcConfig, VitessConfig } from '../../config/types.js';
import type { SnapshotRunner, StreamRun, StreamRunner } from '../../engine/capture-runners.js';
import { HeartbeatDispatcher } from '../../engine/heartbeat-dispatcher.js';
import { mayRetry, retryDelayMs, retryPolicyFrom } from '../../engine/retry.js';
import { jsonStringBody } from '../../events/event-id.js';
import { HeartbeatBuilder } from '../../events/heartbeat.js';
import type { CaptureMetrics } from '../../model/capture-metrics.js';
import type { QueueItem } from '../../model/queue-item.js';
import type { SinkRecord } from '../../model/sink-record.js';
import type { SourceOffset } from '../../model/source-offset.js';
import type { TableFilter } from '../mysql/table-filter.js';
import {
  CURRENT_GTID,
  inCopyPhase,
  type ProtoShardGtid,
  parseVgtid,
  type Vgtid,
  vgtidFromProto,
  vgtidJson,
  vgtidToProto,
} from './vgtid.js';
import {
  schemaChangeRecord,
  type VitessEventOptions,
  type VitessSourceInfo,
  VitessTableEvents,
} from './vitess-events.js';
import { splitRow, type VEvent, type VtgateClient } from './vtgate-client.js';

/** `file` of a Vitess offset: the position lives in `vgtid`, `pos` counts checkpoints (keeps offsets ordered). */
export const VITESS_OFFSET_FILE = 'vitess';

/** gRPC status codes that retrying cannot fix. */
const FATAL_CODES = new Set([
  3 /* INVALID_ARGUMENT */, 5 /* NOT_FOUND */, 7 /* PERMISSION_DENIED */, 16 /* UNAUTHENTICATED */,
  12 /* UNIMPLEMENTED */,
]);

export class VitessStreamError extends CdcError {
  constructor(message: string, options: { cause?: unknown; retriable?: boolean } = {}) {
    super('CONNECTION_FAILED', message, options);
  }
}

/** Where a first start begins: the copy phase (empty GTIDs), a configured VGTID, or the current position. */
export function initialVgtid(config: CdcConfig): Vgtid {
  const v = config.vitess as VitessConfig;
  const shards = v.shards ?? [''];
  if (config.snapshot.mode === 'initial')
    return shards.map((shard) => ({ keyspace: v.keyspace, shard, gtid: '', table_p_ks: [] }));
  if (v.vgtid !== CURRENT_GTID) return parseVgtid(v.vgtid, 'vitess.vgtid');
  return shards.map((shard) => ({ keyspace: v.keyspace, shard, gtid: CURRENT_GTID, table_p_ks: [] }));
}

/** The offset a first start streams from (no checkpoint counted yet). */
function initialOffset(config: CdcConfig): SourceOffset {
  return { file: VITESS_OFFSET_FILE, pos: 0, vgtid: vgtidJson(initialVgtid(config)) };
}

/** The VGTID after a JOURNAL: the participating shards are replaced by the journal's new shard positions. */
export function applyJournal(
  current: Vgtid,
  journal: { participants: { keyspace: string; shard: string }[]; shard_gtids: ProtoShardGtid[] },
): Vgtid {
  const gone = (s: { keyspace: string; shard: string }) =>
    journal.participants.some((p) => p.keyspace === s.keyspace && p.shard === s.shard);
  return [...current.filter((s) => !gone(s)), ...vgtidFromProto(journal.shard_gtids)];
}

/** VStream copies the tables itself at the start of the stream: the snapshot is where that stream starts. */
export class VStreamCopyRunner implements SnapshotRunner {
  constructor(private readonly config: CdcConfig) {}

  async run(): Promise<SourceOffset> {
    return initialOffset(this.config);
  }
}

export interface VStreamRunnerOptions {
  config: CdcConfig;
  logger: Logger;
  client: VtgateClient;
  eventOptions: VitessEventOptions;
  filter: TableFilter;
  emit(item: QueueItem): Promise<void>;
  signal: AbortSignal;
  /** The source's metrics (streaming; the copy phase as the snapshot). */
  metrics: CaptureMetrics;
}

type StreamEnd = 'aborted' | 'ended' | 'resharded';

export class VStreamRunner implements StreamRunner {
  private readonly v: VitessConfig;
  private readonly tables = new Map<string, VitessTableEvents | null>();
  private readonly heartbeats: HeartbeatDispatcher;
  private vgtid: Vgtid = [];
  private seq = 0;
  private copying = false;
  private pending: VEvent[] = [];
  private inTransaction = false;
  private enter: (phase: 'snapshot' | 'streaming') => void = () => {};

  constructor(private readonly options: VStreamRunnerOptions) {
    const { config } = options;
    this.v = config.vitess as VitessConfig;
    const builder = new HeartbeatBuilder({
      topicPrefix: config.topicPrefix,
      schemasEnable: config.events.valueSchemasEnable,
      heartbeatTopicPrefix: config.topics.heartbeatPrefix,
    });
    this.heartbeats = new HeartbeatDispatcher({
      intervalMs: config.engine.heartbeatIntervalMs,
      actionQuery: null,
      runActionQuery: async () => {},
      heartbeat: (tsMs) => builder.build(tsMs),
      emit: (item) => options.emit(item),
      logger: options.logger,
    });
  }

  /** The VGTID of the last event handled. */
  get position(): Vgtid {
    return this.vgtid;
  }

  /** Nothing read but not yet emitted. */
  get drained(): boolean {
    return this.pending.length === 0;
  }

  async recover(offset: SourceOffset | null): Promise<SourceOffset> {
    return offset ?? initialOffset(this.options.config);
  }

  async run(run: StreamRun): Promise<void> {
    const { config, logger, signal, metrics } = this.options;
    this.vgtid = parseVgtid(run.from.vgtid as string, 'the stored offset');
    this.seq = run.from.pos;
    this.copying = inCopyPhase(this.vgtid);
    if (run.enter) this.enter = run.enter;
    this.enter(this.copying ? 'snapshot' : 'streaming');
    if (this.copying) metrics.snapshot.started();
    logger.info('starting VStream', {
      keyspace: this.v.keyspace,
      tabletType: this.v.tabletType,
      vgtid: vgtidJson(this.vgtid),
      copy: this.copying,
    });
    const client = this.options.client;
    // The one retry policy (errors.max.retries, errors.retry.delay.*), applied to reconnecting the stream.
    const policy = retryPolicyFrom(config.engine.errors);
    let failures = 0;
    try {
      while (!signal.aborted) {
        let end: StreamEnd;
        try {
          end = await this.stream();
          failures = 0;
        } catch (err) {
          if (signal.aborted) break;
          const code = (err as { code?: number }).code;
          if (err instanceof CdcError || (code !== undefined && FATAL_CODES.has(code))) {
            throw err instanceof CdcError
              ? err
              : new VitessStreamError(`VStream from VTGate ${client.target} failed: ${errorMessage(err)}`, {
                  cause: err,
                });
          }
          if (!mayRetry(policy, failures))
            throw new VitessStreamError(
              `VStream from VTGate ${client.target} failed ${failures + 1} times, last: ${errorMessage(err)}; check that VTGate is reachable (database.hostname/database.port) or raise errors.max.retries`,
              { cause: err, retriable: true },
            );
          const delay = retryDelayMs(policy, failures);
          failures++;
          metrics.streaming.disconnected();
          logger.warn('VStream interrupted, reconnecting', {
            error: errorMessage(err),
            attempt: failures,
            delayMs: delay,
          });
          await sleep(delay, signal);
          continue;
        }
        if (end === 'aborted') break;
        if (end === 'ended') {
          // VTGate closed the stream without an error (e.g. a tablet change): resume from our position.
          logger.info('VStream ended by VTGate, reopening', { vgtid: vgtidJson(this.vgtid) });
          await sleep(retryDelayMs(policy, 0), signal);
        }
      }
    } finally {
      // A copy phase that did not finish is an aborted snapshot.
      if (this.copying) metrics.snapshot.aborted();
      metrics.streaming.connection(false);
    }
  }

  /** One VStream call from the current VGTID, until it ends, fails, is aborted or hits a JOURNAL. */
  private async stream(): Promise<StreamEnd> {
    const { client, signal } = this.options;
    const streaming = this.options.metrics.streaming;
    const hbMs = this.options.config.engine.heartbeatIntervalMs;
    const call = client.vstream({
      tablet_type: this.v.tabletType,
      vgtid: { shard_gtids: vgtidToProto(this.vgtid) },
      filter: { rules: [{ match: '/.*', filter: '' }] },
      flags: {
        ...(hbMs > 0 ? { heartbeat_interval: Math.max(1, Math.ceil(hbMs / 1000)) } : {}),
        stop_on_reshard: this.v.stopOnReshard,
      },
    });
    const onAbort = () => call.cancel();
    signal.addEventListener('abort', onAbort, { once: true });
    this.pending = [];
    this.tables.clear();
    try {
      call.on('metadata', () => {
        streaming.connection(true);
      });
      for await (const response of call as AsyncIterable<{ events: VEvent[] }>) {
        streaming.connection(true);
        for (const event of response.events) {
          const end = await this.handle(event);
          if (end) {
            call.cancel();
            return end;
          }
        }
      }
      return signal.aborted ? 'aborted' : 'ended';
    } catch (err) {
      if (signal.aborted || (err as grpc.ServiceError).code === 1 /* CANCELLED */) {
        if (signal.aborted) return 'aborted';
      }
      throw err;
    } finally {
      streaming.connection(false);
      signal.removeEventListener('abort', onAbort);
    }
  }

  private async handle(e: VEvent): Promise<StreamEnd | null> {
    const { metrics, logger, emit } = this.options;
    metrics.streaming.eventSeen();
    switch (e.type) {
      case 'FIELD':
        this.defineTable(e);
        return null;
      case 'ROW':
      case 'DDL':
        this.pending.push(e);
        return null;
      case 'VGTID':
        if (e.vgtid) this.vgtid = vgtidFromProto(e.vgtid.shard_gtids);
        // Outside a transaction (copy batches, DDL) a VGTID is a position of its own.
        if (!this.inTransaction) await this.flush(e);
        return null;
      case 'BEGIN':
        this.inTransaction = true;
        return null;
      case 'COMMIT':
        this.inTransaction = false;
        metrics.streaming.transactionCommitted();
        await this.flush(e);
        return null;
      case 'COPY_COMPLETED':
        await this.flush(e);
        if (e.shard === '' || !inCopyPhase(this.vgtid)) {
          if (this.copying) {
            logger.info('VStream copy phase completed', { keyspace: this.v.keyspace });
            metrics.snapshot.completed();
          }
          this.copying = false;
          this.enter('streaming');
        }
        return null;
      case 'HEARTBEAT': {
        const ts = Number(e.timestamp);
        await this.heartbeats.serverBeat(ts > 0 ? ts * 1000 : 0, () => this.offset());
        return null;
      }
      case 'JOURNAL': {
        if (!e.journal) return null;
        await this.flush(e);
        const before = vgtidJson(this.vgtid);
        this.vgtid = applyJournal(this.vgtid, e.journal);
        logger.info('reshard journal: switching shards', {
          from: before,
          to: vgtidJson(this.vgtid),
          migration: e.journal.migration_type,
        });
        await emit({ record: null, offset: this.offset() });
        return 'resharded';
      }
      default:
        // GTID, OTHER, VERSION, LASTPK, SAVEPOINT, ROLLBACK: nothing to publish; positions come with VGTID events.
        return null;
    }
  }

  private defineTable(e: VEvent): void {
    const f = e.field_event;
    if (!f) return;
    const [keyspace, table] = splitTableName(f.table_name, f.keyspace || e.keyspace || this.v.keyspace);
    const key = `${keyspace}.${table}`;
    if (!this.options.filter(keyspace, table)) {
      this.tables.set(key, null);
      return;
    }
    const enumAsText = this.copying || (f as { enum_set_string_values?: boolean }).enum_set_string_values === true;
    this.tables.set(key, new VitessTableEvents(keyspace, table, f.fields, this.options.eventOptions, enumAsText));
  }

  /** `<keyspace>/<shard>@<shard's GTID position>`, JSON-string-safe: the origin of a transaction's ids. */
  private transactionOrigin(keyspace: string, shard: string): string {
    const gtid = this.vgtid.find((s) => s.shard === shard && s.keyspace === keyspace)?.gtid ?? '';
    return jsonStringBody(`${keyspace}/${shard}@${gtid}`);
  }

  private sourceInfo(e: VEvent, shard: string, vgtidText: string): VitessSourceInfo {
    const ts = Number(e.timestamp);
    const tsMs = ts > 0 ? ts * 1000 : Date.now();
    const read = this.copying && this.v.copyPhaseReadEvents;
    return { tsMs, snapshot: read ? 'true' : 'false', shard, vgtid: vgtidText };
  }

  /** Emit what is pending with the position it reached, then checkpoint that position. */
  private async flush(at: VEvent): Promise<void> {
    const { emit, metrics, config, eventOptions } = this.options;
    const events = this.pending;
    this.pending = [];
    const vgtidText = vgtidJson(this.vgtid);
    const readOp = this.copying && this.v.copyPhaseReadEvents;
    // Stable ids (event-id.ts): the shard's GTID position after the transaction names it, then the row event's
    // index in it (every row event counts, captured or not) and the row's; copy-phase rows are named by their key.
    let rowEvents = 0;
    let ddls = 0;
    for (const e of events) {
      if (e.type === 'DDL') {
        metrics.streaming.eventRead(0, 'DDL');
        // The next FIELD event redefines tables the DDL changed.
        this.tables.clear();
        if (config.events.includeSchemaChanges)
          await emit({
            record: schemaChangeRecord(eventOptions, e.keyspace || this.v.keyspace, e.statement, {
              ...this.sourceInfo(e, e.shard, vgtidText),
              id: `${this.transactionOrigin(e.keyspace || this.v.keyspace, e.shard)}/ddl/${ddls++}`,
            }),
            offset: null,
          });
        continue;
      }
      const r = e.row_event;
      if (!r) continue;
      const rowEvent = rowEvents++;
      const [keyspace, table] = splitTableName(r.table_name, r.keyspace || e.keyspace || this.v.keyspace);
      const builder = this.tables.get(`${keyspace}.${table}`);
      if (builder === undefined)
        throw new CdcError(
          'SCHEMA_INCONSISTENT',
          `VStream sent rows of ${keyspace}.${table} (shard ${r.shard}) before its FIELD event; restart the connector`,
        );
      if (builder === null) {
        metrics.streaming.eventFiltered();
        continue;
      }
      const source = this.sourceInfo(e, r.shard || e.shard, vgtidText);
      metrics.streaming.eventRead(source.tsMs, 'ROW');
      const scanned = this.copying ? `${keyspace}.${table}` : '';
      const origin = this.transactionOrigin(keyspace, r.shard || e.shard);
      if (this.copying) {
        source.id = `${origin}/copy/${jsonStringBody(table)}/`;
        source.idByKey = true;
      }
      const idPrefix = `${origin}/${rowEvent}/`;
      let rowIndex = 0;
      for (const change of r.row_changes) {
        if (!this.copying) source.id = idPrefix + rowIndex++;
        const before = change.before ? splitRow(change.before) : null;
        const after = change.after ? splitRow(change.after) : null;
        if (this.copying) metrics.snapshot.rowsScanned(scanned, 1);
        const records: SinkRecord[] = builder.change(before, after, source, readOp);
        for (const record of records) await emit({ record, offset: null });
      }
    }
    if (at.type === 'VGTID' || at.type === 'COMMIT' || at.type === 'COPY_COMPLETED')
      await emit({ record: null, offset: this.offset() });
  }

  private offset(): SourceOffset {
    this.seq++;
    const text = vgtidJson(this.vgtid);
    this.options.metrics.streaming.position(VITESS_OFFSET_FILE, this.seq, text);
    return { file: VITESS_OFFSET_FILE, pos: this.seq, vgtid: text };
  }
}

/** `ks.table` (VTGate prefixes the keyspace) or a bare table name. */
export function splitTableName(name: string, keyspace: string): [string, string] {
  const dot = name.indexOf('.');
  return dot < 0 ? [keyspace, name] : [name.slice(0, dot), name.slice(dot + 1)];
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
