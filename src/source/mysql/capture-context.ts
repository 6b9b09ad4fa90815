/**
 * What the MySQL snapshot and stream runners share, in one explicit object: the server being read (identity and
 * generation, which every offset and history position is stamped with), the schema (tracker) and the binlog
 * decoder compiled from it, the schema history recorder that owns the history sequence, and the record factory.
 * Schema changes go through the context, which makes the decoder drop the table decoders it compiled from the old
 * definitions.
 */
import type { Connection as PromiseConnection } from 'mysql2/promise';
import { CdcError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { CdcConfig } from '../../config/types.js';
import { SERVER_GENERATION_HEADER } from '../../events/event-id.js';
import type { PositionLike } from '../../model/binlog-position.js';
import type { CaptureMetrics } from '../../model/capture-metrics.js';
import type { QueueItem } from '../../model/queue-item.js';
import type { SchemaHistoryMetrics } from '../../model/schema-history-metrics.js';
import type { SinkRecord } from '../../model/sink-record.js';
import type { SourceOffset } from '../../model/source-offset.js';
import type { DatabaseDef, TableDef } from '../../model/table-def.js';
import type { SchemaHistory } from '../../stores/schema-history.js';
import { BinlogDecoder, type ColumnHint } from './binlog/decoder.js';
import type { BinlogEvent } from './binlog/events.js';
import { HistoryRecorder } from './history-recorder.js';
import { createRecordFactory, eventOptionsFromConfig } from './record-factory.js';
import { POSITION_LOST_FIX } from './resume-plan.js';
import { loadSchema, trackerOptionsFor } from './schema/schema-loader.js';
import { SchemaTracker, type SchemaTrackerOptions } from './schema/schema-tracker.js';
import type { ServerIdentity } from './server-identity.js';
import type { ServerInfo } from './server-info.js';
import type { AppliedDdlResult, RecordFactory, SchemaPort } from './streaming/ports.js';
import type { TableFilter } from './table-filter.js';

/** The server a capture reads, shared by every context of the capture (a failover moves it on). */
export class CaptureServer {
  /** Offsets and history positions of this capture belong to this server generation (0: the first). */
  generation: number;
  /** Reconnects (and restarts) position the dump by GTID set rather than file/position. */
  resumeByGtid = false;
  /** MySQL: the GTID set grown from an offset without one is partial and must not be stored. */
  partialGtids = false;

  constructor(
    public identity: ServerIdentity,
    readonly info: ServerInfo,
    generation: number,
  ) {
    this.generation = generation;
  }

  /** A record read after a failover names its server generation (a header), for consumers ordering by position. */
  stampRecord(record: SinkRecord): SinkRecord {
    const value = String(this.generation);
    const headers = { ...record.headers, [SERVER_GENERATION_HEADER]: value };
    return { ...record, headers, sizeBytes: record.sizeBytes + SERVER_GENERATION_HEADER.length + value.length };
  }

  /** The offset as stored: with the server identity and generation, without a partial GTID set. */
  stamp(offset: SourceOffset): SourceOffset {
    const out: SourceOffset = { ...offset, server_identity: this.identity.key };
    if (this.generation > 0) out.server_generation = this.generation;
    else delete out.server_generation;
    if (this.partialGtids) delete out.gtids;
    return out;
  }

  /**
   * A reconnect reached server `key` (an Aurora failover moves the writer endpoint). By GTID that is safe: later
   * positions belong to a new generation. By file/position it is not: throws with the fix.
   */
  switchTo(key: string | undefined, logger: Logger): void {
    if (!key || key === this.identity.key) return;
    if (!this.resumeByGtid) {
      throw new CdcError(
        'BINLOG_POSITION_LOST',
        `the binlog stream reconnected to another server (${key}; the capture started on ${this.identity.key}) and resumes by binlog file/position, which means nothing there. Enable GTIDs (gtid_mode=ON, enforce_gtid_consistency=ON) so the position carries across servers. ${POSITION_LOST_FIX}`,
      );
    }
    logger.warn('the binlog stream reconnected to another server; resumed by GTID set', {
      from: this.identity.key,
      to: key,
    });
    this.identity = { ...this.identity, key };
    this.generation++;
  }
}

export interface MySqlCaptureContextOptions {
  config: CdcConfig;
  logger: Logger;
  /** A new promise-API connection to the source database. */
  connect(): Promise<PromiseConnection>;
  filter: TableFilter;
  server: CaptureServer;
  history: HistoryRecorder;
  records: RecordFactory;
  /** The capture's metrics: the runners write them, metrics/ reads them. */
  metrics: CaptureMetrics;
  historyMetrics: SchemaHistoryMetrics;
}

export class MySqlCaptureContext {
  readonly config: CdcConfig;
  readonly logger: Logger;
  readonly connect: () => Promise<PromiseConnection>;
  readonly filter: TableFilter;
  readonly server: CaptureServer;
  readonly history: HistoryRecorder;
  readonly records: RecordFactory;
  readonly metrics: CaptureMetrics;
  readonly historyMetrics: SchemaHistoryMetrics;
  readonly trackerOptions: SchemaTrackerOptions;
  /** Where a restart would resume from now (the retention watch follows its binlog file). */
  position: () => PositionLike | null = () => null;
  private tracker: SchemaTracker;
  private readonly decoder: BinlogDecoder;

  constructor(
    options: MySqlCaptureContextOptions,
    private readonly decodeSignalTable = true,
  ) {
    this.config = options.config;
    this.logger = options.logger;
    this.connect = options.connect;
    this.filter = options.filter;
    this.server = options.server;
    this.history = options.history;
    this.records = options.records;
    this.metrics = options.metrics;
    this.historyMetrics = options.historyMetrics;
    this.trackerOptions = {
      ...trackerOptionsFor(options.server.info),
      skipUnparseableDdl: options.config.schemaHistory.skipUnparseableDdl,
      logger: options.logger,
    };
    this.tracker = new SchemaTracker(this.trackerOptions);
    const signalTable = options.config.filters.signalDataCollection;
    this.decoder = new BinlogDecoder({
      columnHints: (db, table, count) => hintsFor(this.tracker.getTable(db, table), count),
      includeColumns: (db, table) =>
        this.filter(db, table) || (this.decodeSignalTable && `${db}.${table}` === signalTable),
    });
  }

  /** Builds the context of a capture from its configuration and the server it reads. */
  static create(o: {
    config: CdcConfig;
    logger: Logger;
    connect(): Promise<PromiseConnection>;
    filter: TableFilter;
    history: SchemaHistory;
    server: CaptureServer;
    metrics: CaptureMetrics;
    historyMetrics: SchemaHistoryMetrics;
  }): MySqlCaptureContext {
    const records = createRecordFactory(o.config, eventOptionsFromConfig(o.config, 'mysql'));
    const history = new HistoryRecorder(o.history, () => o.server.generation, o.historyMetrics);
    return new MySqlCaptureContext({ ...o, history, records });
  }

  /**
   * A context over another schema that shares this one's server, history and records, with its own decoder: a
   * replay decodes the binlog with the schema of its own start. Its decoder skips the signalling table.
   */
  withSchema(tracker: SchemaTracker): MySqlCaptureContext {
    const other = new MySqlCaptureContext(
      {
        config: this.config,
        logger: this.logger,
        connect: this.connect,
        filter: this.filter,
        server: this.server,
        history: this.history,
        records: this.records,
        metrics: this.metrics,
        historyMetrics: this.historyMetrics,
      },
      false,
    );
    other.useSchema(tracker);
    return other;
  }

  get schema(): SchemaTracker {
    return this.tracker;
  }

  /** Captures from `tracker` on (a new snapshot's, or one recovered from history); compiled decoders are dropped. */
  useSchema(tracker: SchemaTracker): void {
    this.tracker = tracker;
    this.decoder.invalidateTableCache();
  }

  putDatabase(db: DatabaseDef): void {
    this.tracker.putDatabase(db);
  }

  /** A table definition read from the server replaces the schema's; its compiled decoder is dropped. */
  putTable(table: TableDef): void {
    this.tracker.putTable(table);
    this.decoder.invalidateTableCache();
  }

  getTable(db: string, table: string): TableDef | undefined {
    return this.tracker.getTable(db, table);
  }

  /** Applies a DDL to the schema (warnings are logged) and drops the decoders compiled from the old definitions. */
  applyDdl(
    ddl: string,
    db: string,
    pos: { file: string; pos: number },
    session?: { ansiQuotes?: boolean },
  ): AppliedDdlResult {
    const applied = this.tracker.applyDdl(ddl, db, pos, session);
    for (const w of applied.warnings) this.logger.warn(w, { position: `${pos.file}:${pos.pos}` });
    this.decoder.invalidateTableCache();
    return applied;
  }

  decode(raw: Buffer): BinlogEvent {
    return this.decoder.decode(raw);
  }

  /** The schema as the streamer sees it: every change goes through this context. */
  schemaPort(): SchemaPort {
    return {
      getTable: (db, t) => this.getTable(db, t),
      applyDdl: (ddl, db, pos, session) => this.applyDdl(ddl, db, pos, session),
      isSequence: (db, table) => this.isSequence(db, table),
      reload: (ids) => this.reload(ids),
    };
  }

  /**
   * Offsets stamped with the server they belong to on their way to `emit`, and so is every record read after a
   * failover (a header), for consumers that order changes by position.
   */
  stamping(emit: (item: QueueItem) => Promise<void>): (item: QueueItem) => Promise<void> {
    const server = this.server;
    return (item) => {
      if (item.record && server.generation > 0) item = { ...item, record: server.stampRecord(item.record) };
      return emit(item.offset ? { ...item, offset: server.stamp(item.offset) } : item);
    };
  }

  /** True when the server says db.table is a SEQUENCE (MariaDB logs NEXTVAL as a row change of it). */
  private async isSequence(db: string, table: string): Promise<boolean> {
    const conn = await this.connect();
    try {
      const [rows] = await conn.query(
        'SELECT TABLE_TYPE AS type FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?',
        [db, table],
      );
      return (rows as Array<{ type: string }>).some((r) => r.type === 'SEQUENCE');
    } finally {
      await conn.end().catch(() => {});
    }
  }

  /** Re-reads tables from the server after a DDL the parser could not model exactly. */
  private async reload(ids: string[]): ReturnType<NonNullable<SchemaPort['reload']>> {
    const conn = await this.connect();
    try {
      const wanted = new Set(ids);
      const loaded = await loadSchema(conn, { tableFilter: (d, t) => wanted.has(`${d}.${t}`) });
      for (const t of loaded.tables) this.putTable(t);
      this.logger.warn('re-read table definitions from the server after a DDL the parser could not model', { ids });
      return loaded.tables.map((t) => ({ type: 'CREATE' as const, id: `${t.database}.${t.name}`, table: t }));
    } finally {
      await conn.end().catch(() => {});
    }
  }
}

/** Column facts for servers that log no TABLE_MAP metadata (binlog_row_metadata=MINIMAL/none on old servers). */
function hintsFor(table: TableDef | undefined, count: number): Array<ColumnHint | undefined> | undefined {
  if (!table || table.columns.length !== count) return undefined;
  return table.columns.map((c) => ({
    unsigned: c.unsigned,
    ...(c.charset ? { charset: c.charset } : {}),
    binary: c.charset === 'binary' || /blob|binary/.test(c.dataType),
    json: c.dataType === 'json',
  }));
}
