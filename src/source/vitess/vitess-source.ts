/**
 * The Vitess change source: one VStream from VTGate for a keyspace (all shards or `vitess.shard`), turned into
 * Debezium Vitess connector records on the engine's queue. The position is the VGTID; it is checkpointed after
 * every transaction (COMMIT) and every VGTID event outside one (copy-phase batches, DDL), so a restart re-reads at
 * most the transaction that was in flight. The copy phase (snapshot.mode=initial) is VStream's own: shards start
 * with an empty GTID, VTGate copies the tables and then streams from the copy's position; its progress (the last
 * primary key per table) is part of the VGTID, so an interrupted copy resumes where it stopped.
 *
 * Resharding: VTGate follows a reshard by itself and reports the new shards in its VGTID events; with
 * vitess.stop_on_reshard it ends the stream with a JOURNAL event instead, and the source restarts the stream from
 * the journal's shard GTIDs in place of the participating shards.
 */
import type * as grpc from '@grpc/grpc-js';
import { ConfigError } from '../../common/config-error.js';
import { CdcError, errorMessage } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { CdcConfig, VitessConfig } from '../../config/types.js';
import { mayRetry, retryDelayMs, retryPolicyFrom } from '../../engine/retry.js';
import { jsonStringBody } from '../../events/event-id.js';
import { HeartbeatBuilder } from '../../events/heartbeat.js';
import { DEFAULT_SOURCE_VERSION } from '../../events/options.js';
import { CaptureMetrics, type CaptureMetricsView } from '../../model/capture-metrics.js';
import type { ChangeSource, SourceContext } from '../../model/change-source.js';
import type { SinkRecord } from '../../model/sink-record.js';
import type { SourceOffset } from '../../model/source-offset.js';
import { createTableFilter, type TableFilter } from '../mysql/table-filter.js';
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
import { splitRow, type VEvent, VtgateClient, type VtgateClientOptions } from './vtgate-client.js';

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

export function vtgateClientOptions(config: CdcConfig): VtgateClientOptions {
  const v = config.vitess as VitessConfig;
  return {
    host: config.database.hostname,
    port: config.database.port,
    user: config.database.user === '' ? null : config.database.user,
    password: config.database.password.isEmpty ? null : config.database.password.reveal(),
    tls: v.tls,
    headers: v.grpcHeaders,
    maxInboundMessageSize: v.maxInboundMessageSize,
    keepaliveIntervalMs: v.keepaliveIntervalMs,
  };
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

/** The VGTID after a JOURNAL: the participating shards are replaced by the journal's new shard positions. */
export function applyJournal(
  current: Vgtid,
  journal: { participants: { keyspace: string; shard: string }[]; shard_gtids: ProtoShardGtid[] },
): Vgtid {
  const gone = (s: { keyspace: string; shard: string }) =>
    journal.participants.some((p) => p.keyspace === s.keyspace && p.shard === s.shard);
  return [...current.filter((s) => !gone(s)), ...vgtidFromProto(journal.shard_gtids)];
}

export interface VitessSourceOptions {
  config: CdcConfig;
  logger: Logger;
  /** Tests inject a client; by default one is built from the config. */
  client?: VtgateClient;
}

type StreamEnd = 'aborted' | 'ended' | 'resharded';

export class VitessSource implements ChangeSource {
  /** Written here; read by metrics/ through {@link metrics} (no schema history: FIELD events describe tables). */
  private readonly m = new CaptureMetrics();
  private readonly v: VitessConfig;
  private readonly eventOptions: VitessEventOptions;
  private readonly filter: TableFilter;
  private readonly heartbeat: HeartbeatBuilder | null;
  private readonly tables = new Map<string, VitessTableEvents | null>();
  private vgtid: Vgtid = [];
  private seq = 0;
  private copying = false;
  private pending: VEvent[] = [];
  private lastHeartbeatAt = 0;
  private client: VtgateClient | null = null;

  constructor(private readonly options: VitessSourceOptions) {
    const { config } = options;
    if (!config.vitess) throw new Error('internal: VitessSource needs config.vitess');
    this.v = config.vitess;
    const ev = config.events;
    this.eventOptions = {
      topicPrefix: config.topicPrefix,
      topicDelimiter: config.topics.delimiter,
      sourceVersion: DEFAULT_SOURCE_VERSION,
      schemasEnable: ev.valueSchemasEnable,
      tombstonesOnDelete: ev.tombstonesOnDelete,
      skippedOperations: ev.skippedOperations,
      // schema.name.adjustment.mode is accepted and ignored (JSON output), as for the MySQL source.
      schemaNameAdjustmentMode: 'none',
      timePrecisionMode: vitessTimePrecisionMode(ev.timePrecisionMode),
      bigintUnsignedHandlingMode: ev.bigintUnsignedHandlingMode as VitessEventOptions['bigintUnsignedHandlingMode'],
      binaryHandlingMode: ev.binaryHandlingMode,
      includeUnknownDatatypes: this.v.includeUnknownDatatypes,
    };
    this.filter = createTableFilter(config.filters);
    this.m.streaming.position(VITESS_OFFSET_FILE, 0, null);
    this.heartbeat =
      config.engine.heartbeatIntervalMs > 0
        ? new HeartbeatBuilder({
            topicPrefix: config.topicPrefix,
            schemasEnable: ev.valueSchemasEnable,
            heartbeatTopicPrefix: config.topics.heartbeatPrefix,
          })
        : null;
  }

  get metrics(): CaptureMetricsView {
    return this.m;
  }

  /** Caught up: streaming (the copy phase is over), connected, and nothing read but not yet emitted. */
  async isCaughtUp(): Promise<boolean> {
    if (this.m.phase === 'stopped') return true;
    return this.m.phase === 'streaming' && this.m.streaming.Connected && this.pending.length === 0;
  }

  /** The VGTID of the last event handled (for tests and logs). */
  get position(): Vgtid {
    return this.vgtid;
  }

  async run(ctx: SourceContext): Promise<void> {
    const { config, logger } = this.options;
    const stored = ctx.offset;
    if (stored && stored.vgtid === undefined)
      throw new CdcError(
        'OFFSET_STORE',
        `the stored offset (${stored.file}:${stored.pos}) is a MySQL binlog offset, not a Vitess VGTID; use another offset.storage file/table or name for the Vitess connector`,
      );
    if (stored?.vgtid) {
      this.vgtid = parseVgtid(stored.vgtid, 'the stored offset');
      this.seq = stored.pos;
    } else this.vgtid = initialVgtid(config);
    this.copying = inCopyPhase(this.vgtid);
    this.m.enter(this.copying ? 'snapshot' : 'streaming');
    if (this.copying) this.m.snapshot.started();
    logger.info('starting VStream', {
      keyspace: this.v.keyspace,
      tabletType: this.v.tabletType,
      vgtid: vgtidJson(this.vgtid),
      copy: this.copying,
    });
    this.client = this.options.client ?? new VtgateClient(vtgateClientOptions(config));
    // The one retry policy (errors.max.retries, errors.retry.delay.*), applied to reconnecting the stream.
    const policy = retryPolicyFrom(config.engine.errors);
    let failures = 0;
    try {
      while (!ctx.signal.aborted) {
        let end: StreamEnd;
        try {
          end = await this.stream(ctx);
          failures = 0;
        } catch (err) {
          if (ctx.signal.aborted) break;
          const code = (err as { code?: number }).code;
          if (err instanceof CdcError || (code !== undefined && FATAL_CODES.has(code))) {
            throw err instanceof CdcError
              ? err
              : new VitessStreamError(`VStream from VTGate ${this.client.target} failed: ${errorMessage(err)}`, {
                  cause: err,
                });
          }
          if (!mayRetry(policy, failures))
            throw new VitessStreamError(
              `VStream from VTGate ${this.client.target} failed ${failures + 1} times, last: ${errorMessage(err)}; check that VTGate is reachable (database.hostname/database.port) or raise errors.max.retries`,
              { cause: err, retriable: true },
            );
          const delay = retryDelayMs(policy, failures);
          failures++;
          this.m.streaming.disconnected();
          logger.warn('VStream interrupted, reconnecting', {
            error: errorMessage(err),
            attempt: failures,
            delayMs: delay,
          });
          await sleep(delay, ctx.signal);
          continue;
        }
        if (end === 'aborted') break;
        if (end === 'ended') {
          // VTGate closed the stream without an error (e.g. a tablet change): resume from our position.
          logger.info('VStream ended by VTGate, reopening', { vgtid: vgtidJson(this.vgtid) });
          await sleep(retryDelayMs(policy, 0), ctx.signal);
        }
      }
    } finally {
      if (this.copying) this.m.snapshot.aborted();
      this.m.enter('stopped');
      this.m.streaming.connection(false);
      if (!this.options.client) this.client.close();
    }
  }

  /** One VStream call from the current VGTID, until it ends, fails, is aborted or hits a JOURNAL. */
  private async stream(ctx: SourceContext): Promise<StreamEnd> {
    const client = this.client as VtgateClient;
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
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    this.pending = [];
    this.tables.clear();
    try {
      call.on('metadata', () => {
        this.m.streaming.connection(true);
      });
      for await (const response of call as AsyncIterable<{ events: VEvent[] }>) {
        this.m.streaming.connection(true);
        for (const event of response.events) {
          const end = await this.handle(event, ctx);
          if (end) {
            call.cancel();
            return end;
          }
        }
      }
      return ctx.signal.aborted ? 'aborted' : 'ended';
    } catch (err) {
      if (ctx.signal.aborted || (err as grpc.ServiceError).code === 1 /* CANCELLED */) {
        if (ctx.signal.aborted) return 'aborted';
      }
      throw err;
    } finally {
      this.m.streaming.connection(false);
      ctx.signal.removeEventListener('abort', onAbort);
    }
  }

  private async handle(e: VEvent, ctx: SourceContext): Promise<StreamEnd | null> {
    this.m.streaming.eventSeen();
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
        if (!this.inTransaction) await this.flush(ctx, e);
        return null;
      case 'BEGIN':
        this.inTransaction = true;
        return null;
      case 'COMMIT':
        this.inTransaction = false;
        this.m.streaming.transactionCommitted();
        await this.flush(ctx, e);
        return null;
      case 'COPY_COMPLETED':
        await this.flush(ctx, e);
        if (e.shard === '' || !inCopyPhase(this.vgtid)) {
          if (this.copying) {
            this.options.logger.info('VStream copy phase completed', { keyspace: this.v.keyspace });
            this.m.snapshot.completed();
          }
          this.copying = false;
          this.m.enter('streaming');
        }
        return null;
      case 'HEARTBEAT':
        await this.onHeartbeat(ctx, e);
        return null;
      case 'JOURNAL': {
        if (!e.journal) return null;
        await this.flush(ctx, e);
        const before = vgtidJson(this.vgtid);
        this.vgtid = applyJournal(this.vgtid, e.journal);
        this.options.logger.info('reshard journal: switching shards', {
          from: before,
          to: vgtidJson(this.vgtid),
          migration: e.journal.migration_type,
        });
        await ctx.emit({ record: null, offset: this.offset() });
        return 'resharded';
      }
      default:
        // GTID, OTHER, VERSION, LASTPK, SAVEPOINT, ROLLBACK: nothing to publish; positions come with VGTID events.
        return null;
    }
  }

  private inTransaction = false;

  private defineTable(e: VEvent): void {
    const f = e.field_event;
    if (!f) return;
    const [keyspace, table] = splitTableName(f.table_name, f.keyspace || e.keyspace || this.v.keyspace);
    const key = `${keyspace}.${table}`;
    if (!this.filter(keyspace, table)) {
      this.tables.set(key, null);
      return;
    }
    const enumAsText = this.copying || (f as { enum_set_string_values?: boolean }).enum_set_string_values === true;
    this.tables.set(key, new VitessTableEvents(keyspace, table, f.fields, this.eventOptions, enumAsText));
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
  private async flush(ctx: SourceContext, at: VEvent): Promise<void> {
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
        this.m.streaming.eventRead(0, 'DDL');
        // The next FIELD event redefines tables the DDL changed.
        this.tables.clear();
        if (this.options.config.events.includeSchemaChanges)
          await ctx.emit({
            record: schemaChangeRecord(this.eventOptions, e.keyspace || this.v.keyspace, e.statement, {
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
        this.m.streaming.eventFiltered();
        continue;
      }
      const source = this.sourceInfo(e, r.shard || e.shard, vgtidText);
      this.m.streaming.eventRead(source.tsMs, 'ROW');
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
        if (this.copying) this.m.snapshot.rowsScanned(scanned, 1);
        const records: SinkRecord[] = builder.change(before, after, source, readOp);
        for (const record of records) await ctx.emit({ record, offset: null });
      }
    }
    if (at.type === 'VGTID' || at.type === 'COMMIT' || at.type === 'COPY_COMPLETED')
      await ctx.emit({ record: null, offset: this.offset() });
  }

  private async onHeartbeat(ctx: SourceContext, e: VEvent): Promise<void> {
    if (!this.heartbeat) return;
    const now = Date.now();
    if (now - this.lastHeartbeatAt < this.options.config.engine.heartbeatIntervalMs) return;
    this.lastHeartbeatAt = now;
    const ts = Number(e.timestamp);
    await ctx.emit({ record: this.heartbeat.build(ts > 0 ? ts * 1000 : now), offset: this.offset() });
  }

  private offset(): SourceOffset {
    this.seq++;
    const text = vgtidJson(this.vgtid);
    this.m.streaming.position(VITESS_OFFSET_FILE, this.seq, text);
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

/** isostring is implemented for the MySQL-family connector only. */
function vitessTimePrecisionMode(
  mode: CdcConfig['events']['timePrecisionMode'],
): 'adaptive_time_microseconds' | 'connect' {
  if (mode === 'isostring') {
    throw new ConfigError([
      {
        property: 'time.precision.mode',
        message: 'isostring is not supported by the Vitess connector',
        fix: 'set time.precision.mode=adaptive_time_microseconds or connect',
      },
    ]);
  }
  return mode;
}
