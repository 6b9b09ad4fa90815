/**
 * The MySQL-family change source (Debezium's ChangeEventSourceCoordinator for one connector): decides from the
 * snapshot mode and the stored offset whether to snapshot, rebuilds the schema (from history or the server),
 * then streams the binlog from the offset. Everything it produces goes through `ctx.emit` onto the queue.
 */

import type { Connection as CallbackConnection } from 'mysql2';
import type { Connection as PromiseConnection } from 'mysql2/promise';
import { CdcError, errorMessage } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { CdcConfig } from '../../config/types.js';
import { HeartbeatDispatcher } from '../../engine/heartbeat-dispatcher.js';
import { decideStart } from '../../engine/start-decision.js';
import { SERVER_GENERATION_HEADER, snapshotIdPrefix } from '../../events/event-id.js';
import { BinlogPosition, type PositionLike } from '../../model/binlog-position.js';
import { CaptureMetrics, type CaptureMetricsView } from '../../model/capture-metrics.js';
import type { ChangeSource, SourceContext } from '../../model/change-source.js';
import { SchemaHistoryMetrics } from '../../model/schema-history-metrics.js';
import type { SinkRecord } from '../../model/sink-record.js';
import type { SourceOffset } from '../../model/source-offset.js';
import type { DatabaseDef, TableDef } from '../../model/table-def.js';
import {
  IncrementalSnapshotNotifications,
  InitialSnapshotNotifications,
  type NotificationService,
} from '../../notifications/index.js';
import {
  createSignalChannels,
  parseSignal,
  type SignalChannel,
  type SignalRecord,
  signalPositions,
} from '../../signals/index.js';
import type { SchemaHistory, SchemaHistoryEntry } from '../../stores/schema-history.js';
import { BinlogDecoder, type ColumnHint, type TableMapEvent } from './binlog/decoder.js';
import { BinlogReplicationClient, ResilientBinlogStream } from './binlog/replication/index.js';
import { readBinlogStatus } from './binlog-status.js';
import { assertNotRdsProxy } from './rds-endpoint.js';
import { createRecordFactory, eventOptionsFromConfig } from './record-factory.js';
import { MAX_DUMP_POSITION, POSITION_LOST_FIX, planResume, type ResumeFacts, type ResumePlan } from './resume-plan.js';
import { CaptureRunway } from './retention/capture-runway.js';
import { loadSchema, trackerOptionsFor } from './schema/schema-loader.js';
import { SchemaTracker, type SchemaTrackerOptions } from './schema/schema-tracker.js';
import { checkTableMap, type TableMapInfo } from './schema/table-map-check.js';
import { readServerIdentity, type ServerIdentity } from './server-identity.js';
import { readServerInfo, type ServerInfo } from './server-info.js';
import { runBlockingSnapshot } from './snapshot/blocking-snapshot.js';
import {
  ChunkedSnapshotRunner,
  type ChunkTableState,
  estimateRows,
  pendingChunkTables,
  tablesWithoutPrimaryKey,
} from './snapshot/chunked-snapshot.js';
import { runConsistentSnapshot } from './snapshot/consistent-snapshot.js';
import { SnapshotRowIds } from './snapshot/row-ids.js';
import { readServerCharsetVariables, snapshotSchemaStatements } from './snapshot/schema-events.js';
import { BinlogStreamer, type BinlogStreamerOptions } from './streaming/binlog-streamer.js';
import type { RecordFactory, SchemaPort, SourceInfo } from './streaming/ports.js';
import { createTableFilter, type TableFilter } from './table-filter.js';

export interface MySqlSourceOptions {
  config: CdcConfig;
  history: SchemaHistory;
  /** A new promise-API connection to the source database (queries, snapshot). */
  connect(): Promise<PromiseConnection>;
  logger: Logger;
  /** Debezium's notification channels (notification.enabled.channels); absent = off. */
  notifications?: NotificationService | null;
}

export class MySqlSource implements ChangeSource {
  private readonly historyMetrics = new SchemaHistoryMetrics();
  /** Written here and by the snapshot runners; read by metrics/ and the CLI through {@link metrics}. */
  private readonly m = new CaptureMetrics({ schemaHistory: this.historyMetrics });
  private chunked: ChunkedSnapshotRunner | null = null;
  private readonly filter: TableFilter;
  private streamer: BinlogStreamer | null = null;
  private statusConn: PromiseConnection | null = null;
  private readonly runway: CaptureRunway;
  /** The binlog file of the position a restart would resume from (stored offset, snapshot start, stream). */
  private runwayFile: () => string | null = () => null;

  constructor(private readonly options: MySqlSourceOptions) {
    this.filter = createTableFilter(options.config.filters);
    this.runway = new CaptureRunway({ connect: options.connect, logger: options.logger });
    this.m.retentionRunwayFrom(() => this.runway.seconds);
    this.initialNotes = options.notifications
      ? new InitialSnapshotNotifications(options.notifications, { connectorName: options.config.topicPrefix })
      : null;
  }

  private readonly initialNotes: InitialSnapshotNotifications | null;

  get metrics(): CaptureMetricsView {
    return this.m;
  }

  /** Caught up: streaming, and our last handled event ends where the server's binlog ends. */
  async isCaughtUp(): Promise<boolean> {
    if (this.m.phase === 'stopped') return true;
    if (this.m.phase !== 'streaming' || !this.streamer) return false;
    if (this.chunked?.running || this.blockingQueue.length > 0 || this.blockingRunning) return false;
    this.statusConn ??= await this.options.connect();
    const r = await readBinlogStatus(this.statusConn);
    if (!r) return true;
    const ours = this.streamer.lastEventEnd;
    return BinlogPosition.compare(ours, r) >= 0;
  }

  async run(ctx: SourceContext): Promise<void> {
    const { config, logger } = this.options;
    assertNotRdsProxy(config.database.hostname);
    const conn = await this.options.connect();
    let server: ServerInfo;
    let identity: ServerIdentity;
    try {
      server = await readServerInfo(conn);
      identity = await readServerIdentity(conn);
    } finally {
      await conn.end().catch(() => {});
    }
    this.identity = identity;
    this.m.streaming.gtidMode(identity.gtidMode);
    this.generation = ctx.offset?.server_generation ?? 0;
    const storedFile = ctx.offset?.file ?? null;
    this.runwayFile = () => (this.m.phase === 'stopped' ? null : storedFile);
    this.runway.start(() => this.runwayFile());
    void this.runway.measure();
    await this.options.notifications?.sinkChannel()?.attach((record) => ctx.emit({ record, offset: null }));
    if (ctx.offset?.server_identity !== undefined && ctx.offset.server_identity !== identity.key) {
      // Another server's binlog: its file names and positions are not comparable with the stored ones.
      this.generation++;
      logger.warn('the stored offset was written on another server', {
        stored: ctx.offset.server_identity,
        server: identity.key,
      });
    }
    // Every offset and schema-history position says which server (generation) it belongs to, and so does every
    // record read after a failover (a header), for consumers that order changes by position.
    const rawEmit = ctx.emit;
    ctx = {
      ...ctx,
      emit: (item) => {
        if (item.record && this.generation > 0) item = { ...item, record: this.stampRecord(item.record) };
        return rawEmit(item.offset ? { ...item, offset: this.stamp(item.offset) } : item);
      },
    };
    const events = eventOptionsFromConfig(config, 'mysql');
    const records = createRecordFactory(config, events);
    const history = this.options.history;
    await history.initializeStorage();
    const entries = await history.recover();
    let seq = entries.reduce((m, e) => Math.max(m, e.seq), 0);
    for (const e of entries) {
      const last = this.lastHistoryPosition;
      if (!last || BinlogPosition.compare(e.position, last) > 0)
        this.lastHistoryPosition = {
          file: e.position.file,
          pos: e.position.pos,
          ...(e.position.server_generation ? { server_generation: e.position.server_generation } : {}),
        };
    }
    // DDLs at or before the newest history entry are not recorded again (BinlogPosition orders generations first).
    // History can be a generation ahead of the stored offset (a failover whose offset was never committed): back on
    // the offset's server, its positions do not compare with that history's, so they become the next generation.
    const historyGeneration = this.lastHistoryPosition?.server_generation ?? 0;
    if (historyGeneration > this.generation) this.generation = historyGeneration + 1;
    const trackerOptions = {
      ...trackerOptionsFor(server),
      skipUnparseableDdl: config.schemaHistory.skipUnparseableDdl,
      logger,
    };

    let offset = ctx.offset;
    const mode = config.snapshot.mode;
    let tracker: SchemaTracker;
    const plan: ResumePlan | null = offset ? planResume(await this.resumeFacts(offset, identity)) : null;
    const start = decideStart({
      mode,
      chunkedConfigured: config.snapshot.chunked,
      offset,
      positionLost: plan?.kind === 'lost',
      historyEmpty: entries.length === 0,
    });
    if (offset && start.kind === 'snapshot' && start.becausePositionLost) {
      logger.warn(
        'the stored binlog position is lost: taking a new snapshot (snapshot.mode=when_needed). Rows deleted since ' +
          'that position get no delete events; consumers keep them until they reconcile against the new snapshot',
        {
          position: `${offset.file}:${offset.pos}`,
          ...(offset.gtids ? { gtids: offset.gtids } : {}),
          reason: `${offset.file} is no longer listed by SHOW BINARY LOGS (purged: binlog retention or PURGE BINARY LOGS)`,
        },
      );
    }
    if (start.kind === 'fail') {
      // Only a stored offset can be lost.
      const lost = offset as SourceOffset;
      const reason = plan?.kind === 'lost' ? plan.reason : 'unknown';
      throw new CdcError(
        'BINLOG_POSITION_LOST',
        `the stored offset ${lost.file}:${lost.pos} cannot be resumed on this server: ${reason}. ${POSITION_LOST_FIX}; ` +
          'increase binlog retention so a stopped connector does not lose its position',
      );
    }

    if (start.kind === 'snapshot') {
      this.m.enter('snapshot');
      const { includeData, chunked } = start;
      tracker = new SchemaTracker(trackerOptions);
      if (start.chunkedIgnored)
        logger.info('snapshot.chunked needs streaming to reconcile chunks; initial_only uses the consistent snapshot');
      // A snapshot interrupted earlier left its start position in the offset: the binlog between that position
      // and the new snapshot's is replayed first, so rows the interrupted snapshot published and that were
      // deleted or changed since get their events (else consumers keep stale rows).
      const interrupted =
        start.replayInterrupted && offset ? { from: offset, entries, trackerOptions, flavor: server.flavor } : null;
      const result = await this.snapshot(
        ctx,
        records,
        tracker,
        includeData,
        seq,
        (s) => {
          seq = s;
        },
        chunked,
        interrupted,
      ).catch((err: unknown) => {
        this.m.snapshot.aborted();
        this.runway.stop();
        this.initialNotes?.aborted();
        throw err;
      });
      offset = result;
      if (start.stopAfter) {
        this.m.enter('stopped');
        this.runway.stop();
        logger.info('initial_only snapshot finished; not streaming');
        return;
      }
    } else {
      this.initialNotes?.skipped();
      if (start.schema === 'server' || offset === null) {
        // snapshot.mode=never on first start, or history lost: take the schema as it is now.
        logger.warn('no schema history: reading the current schema from the server', { mode });
        tracker = new SchemaTracker(trackerOptions);
        const loaded = await this.loadCurrentSchema(tracker);
        seq = await this.recordSchemaSnapshot(loaded, offset, seq);
        if (offset === null) offset = await this.currentPosition();
      } else {
        const upTo = entries.filter((e) => BinlogPosition.compare(e.position, offset!) <= 0);
        this.historyMetrics.recoveryStarted();
        tracker = SchemaTracker.fromHistory(upTo, trackerOptions);
        this.historyMetrics.recoveredFrom(upTo.length, upTo.at(-1)?.ddl ?? null);
        logger.info('schema recovered from history', { entries: upTo.length, tables: tracker.tables().length });
      }
    }

    if (ctx.signal.aborted) return;
    const restarted = offset === ctx.offset;
    this.resumeByGtid = restarted ? plan?.kind === 'gtid' : !!offset?.gtids && identity.gtidMode;
    if (plan?.kind === 'file' && !offset!.gtids && identity.flavor === 'mariadb') {
      // An offset from before GTIDs were tracked: MariaDB computes the GTID position of any file/position.
      const gtids = await this.gtidsAt(offset!.file, offset!.pos);
      if (gtids) offset = { ...offset!, gtids };
    }
    // MySQL: a GTID set grown from an offset without one is partial; storing it would make it look resumable.
    this.partialGtids = identity.flavor === 'mysql' && !offset!.gtids;
    if (this.partialGtids && identity.gtidMode) {
      logger.warn(
        'the stored offset has no GTID set: resuming by file/position, and offsets carry no GTIDs until the next snapshot (a failover then needs snapshot.mode=when_needed)',
      );
    }
    await this.stream_(ctx, offset!, tracker, records, seq, server);
  }

  private async stream_(
    ctx: SourceContext,
    start: SourceOffset,
    tracker: SchemaTracker,
    records: RecordFactory,
    seq: number,
    server: ServerInfo,
  ): Promise<void> {
    const { config, logger } = this.options;
    this.m.enter('streaming');
    // Chunked snapshots (initial with snapshot.chunked, resumed, or requested by signal) run beside the stream;
    // every offset emitted from here on carries their progress.
    const chunked = this.startChunkedRunner(ctx, start, tracker, records, () => streamer.resumeOffset ?? start);
    this.runwayFile = () => (this.m.phase === 'stopped' ? null : (streamer.resumeOffset ?? start).file);
    const rawCtx = ctx;
    ctx = {
      ...ctx,
      emit: (item) =>
        rawCtx.emit(item.offset ? { ...item, offset: this.withSignalPositions(chunked.decorate(item.offset)) } : item),
    };
    // Signals from channels other than the signalling table (file, Kinesis); their read positions ride on offsets.
    this.signalChannels = createSignalChannels(config.signals, logger, start.signal_offsets ?? null);
    let current: { file: string; pos: number } = { file: start.file, pos: start.pos };
    const schema: SchemaPort = {
      getTable: (db, t) => tracker.getTable(db, t),
      applyDdl: (ddl, db, pos, session) => {
        const applied = tracker.applyDdl(ddl, db, pos, session);
        for (const w of applied.warnings) logger.warn(w, { position: `${pos.file}:${pos.pos}` });
        decoder.invalidateTableCache();
        return applied;
      },
      isSequence: async (db, table) => {
        const conn = await this.options.connect();
        try {
          const [rows] = await conn.query(
            'SELECT TABLE_TYPE AS type FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?',
            [db, table],
          );
          return (rows as Array<{ type: string }>).some((r) => r.type === 'SEQUENCE');
        } finally {
          await conn.end().catch(() => {});
        }
      },
      reload: async (ids) => {
        const conn = await this.options.connect();
        try {
          const wanted = new Set(ids);
          const loaded = await loadSchema(conn, { tableFilter: (d, t) => wanted.has(`${d}.${t}`) });
          for (const t of loaded.tables) tracker.putTable(t);
          logger.warn('re-read table definitions from the server after a DDL the parser could not model', { ids });
          return loaded.tables.map((t) => ({ type: 'CREATE' as const, id: `${t.database}.${t.name}`, table: t }));
        } finally {
          await conn.end().catch(() => {});
        }
      },
    };
    const decoder = new BinlogDecoder({
      columnHints: (db, table, count) => hintsFor(tracker.getTable(db, table), count),
      includeColumns: (db, table) => this.filter(db, table) || `${db}.${table}` === config.filters.signalDataCollection,
    });
    const streamerOptions: BinlogStreamerOptions = {
      decode: (raw) => {
        const event = decoder.decode(raw);
        chunked.observe(event, current);
        return event;
      },
      schema,
      history: this.history(),
      records,
      tableFilter: this.filter,
      skippedOperations: config.events.skippedOperations,
      includeSchemaChanges: config.events.includeSchemaChanges,
      includeQuery: config.events.includeQuery,
      eventDeserializationFailureHandlingMode: config.engine.eventDeserializationFailureHandlingMode,
      flavor: server.flavor === 'mariadb' ? 'mariadb' : 'mysql',
      logger,
      historyRecordedUpTo: this.lastHistoryPosition,
      serverGeneration: () => this.generation,
      checkTableMap: (def, map) => checkTableMap(def, tableMapInfo(map)).map((m) => m.message),
      inconsistentSchemaHandlingMode: config.engine.inconsistentSchemaHandlingMode,
      onEvent: (event) => {
        this.m.streaming.eventRead(event.header.timestamp * 1000, event.type);
      },
    };
    const streamer = new BinlogStreamer(streamerOptions, start, seq);
    this.streamer = streamer;
    const stream = new ResilientBinlogStream({
      // The replication client drives mysql2's callback connection underneath the promise wrapper.
      connection: async () =>
        ((await this.options.connect()) as unknown as { connection: CallbackConnection }).connection,
      serverId: config.database.serverId,
      resumePosition: () => {
        const o = streamer.resumeOffset ?? start;
        if (this.resumeByGtid && o.gtids) return { gtidSet: o.gtids };
        if (o.pos > MAX_DUMP_POSITION) {
          throw new CdcError(
            'BINLOG_POSITION_LOST',
            `cannot resume at ${o.file}:${o.pos}: the position is past 4 GiB, beyond COM_BINLOG_DUMP's 32-bit start position. Only a GTID resume can start there: enable gtid_mode=ON (MySQL), and keep transactions below max_binlog_size so binlog files stay under 4 GiB`,
          );
        }
        return { file: o.file, pos: o.pos };
      },
      heartbeatIntervalMs: Math.min(30_000, Math.max(1000, config.engine.heartbeatIntervalMs || 30_000)),
      maxAttempts: config.engine.errors.maxRetries < 0 ? Number.POSITIVE_INFINITY : config.engine.errors.maxRetries,
      initialDelayMs: config.engine.errors.retryDelayInitialMs,
      maxDelayMs: config.engine.errors.retryDelayMaxMs,
      logger,
    });
    const onAbort = () => void stream.stop();
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    const heartbeats = new HeartbeatDispatcher({
      intervalMs: config.engine.heartbeatIntervalMs,
      actionQuery: config.engine.heartbeatActionQuery,
      runActionQuery: (sql) => this.runHeartbeatAction(sql),
      heartbeat: (tsMs) => records.heartbeat(tsMs),
      emit: (item) => ctx.emit(item),
      logger,
    });
    const emit = heartbeats.track((item) => ctx.emit(item));
    // Heartbeats carry the last commit-boundary offset, so offsets advance while captured tables are idle.
    heartbeats.start(
      { offset: () => streamer.resumeOffset, inTransaction: () => streamer.tracker.inTransaction },
      ctx.signal,
    );
    // A blocking snapshot runs at a transaction boundary with the stream loop held (chunk flushes wait too).
    const blocking = () =>
      this.runPendingBlocking(
        ctx,
        tracker,
        records,
        emit,
        () => streamer.tracker.inTransaction,
        () => (streamer.lastEventEnd.file ? streamer.lastEventEnd : { file: start.file, pos: start.pos }),
      );
    this.kickBlocking = () => chunked.exclusive(blocking);
    for (const channel of this.signalChannels) channel.start((s) => this.handleSignal(s));
    logger.info('streaming from the binlog', { file: start.file, pos: start.pos, gtids: start.gtids });
    this.historyMetrics.running();
    const appliedAtStart = this.historyMetrics.ChangesApplied;
    try {
      for await (const ev of stream) {
        if (ctx.signal.aborted) break;
        if (ev.artificial) this.checkStreamServer(stream.session?.serverKey);
        await chunked.exclusive(async () => {
          current = { file: ev.file, pos: ev.position };
          await streamer.handle(ev, emit);
          await chunked.afterEvent(
            ev.artificial || !ev.nextPosition ? null : { file: ev.file, pos: ev.nextPosition },
            streamer.tracker.gtidSet,
          );
          if (this.blockingQueue.length > 0) await blocking();
        });
        if (chunked.failure) throw chunked.failure;
        const st = this.m.streaming;
        st.counted(
          streamer.eventsSeen,
          streamer.eventsFiltered,
          streamer.committedTransactions,
          streamer.eventsSkipped,
        );
        st.lastTransactionId(streamer.tracker.lastCommittedGtid);
        st.position(streamer.lastEventEnd.file, streamer.lastEventEnd.pos, streamer.resumeOffset?.gtids ?? undefined);
        st.connection(stream.state.connected, stream.state.disconnects);
        this.historyMetrics.changesApplied(appliedAtStart + (streamer.historySequence - seq));
      }
    } finally {
      heartbeats.stop();
      if (chunked.running) this.m.snapshot.aborted();
      chunked.stop();
      for (const channel of this.signalChannels) await channel.stop().catch(() => {});
      this.signalChannels = [];
      this.kickBlocking = null;
      ctx.signal.removeEventListener('abort', onAbort);
      await stream.stop().catch(() => {});
      await this.statusConn?.end().catch(() => {});
      this.statusConn = null;
      await this.heartbeatConn?.end().catch(() => {});
      this.heartbeatConn = null;
      this.m.enter('stopped');
      this.historyMetrics.stopped();
      this.runway.stop();
    }
  }

  private signalChannels: SignalChannel[] = [];
  /** Blocking snapshot requests waiting for the stream loop to pause. */
  private readonly blockingQueue: Array<{ id: string; tables: readonly string[] }> = [];
  private blockingRunning = false;
  /** Runs pending blocking snapshots now if the stream is between transactions (set while streaming). */
  private kickBlocking: (() => Promise<void>) | null = null;

  private withSignalPositions(offset: SourceOffset): SourceOffset {
    const positions = signalPositions(this.signalChannels);
    return positions ? { ...offset, signal_offsets: positions as Record<string, Record<string, string>> } : offset;
  }

  /** Acts on one signal from any channel; a bad signal is logged, never fatal. */
  private async handleSignal(signal: SignalRecord): Promise<void> {
    const { logger } = this.options;
    const parsed = parseSignal(signal);
    if (parsed.action === 'ignore') {
      logger.info('ignoring signal', { id: signal.id, channel: signal.channel, reason: parsed.reason });
      return;
    }
    const { kind, tables } = parsed.request;
    logger.info('execute-snapshot signal received', { id: signal.id, channel: signal.channel, kind, tables });
    if (kind === 'incremental') {
      this.chunked?.request([...tables], 'incremental', signal.id);
      return;
    }
    this.blockingQueue.push({ id: signal.id, tables });
    // Signalling-table rows arrive inside the stream loop, which runs the snapshot after the transaction.
    if (signal.channel !== 'source') await this.kickBlocking?.();
  }

  private async runPendingBlocking(
    ctx: SourceContext,
    tracker: SchemaTracker,
    records: RecordFactory,
    emit: SourceContext['emit'],
    inTransaction: () => boolean,
    at: () => { file: string; pos: number },
  ): Promise<void> {
    const { config, logger } = this.options;
    while (this.blockingQueue.length > 0 && !inTransaction() && !ctx.signal.aborted) {
      const req = this.blockingQueue.shift()!;
      const defs: TableDef[] = [];
      for (const id of req.tables) {
        const dot = id.indexOf('.');
        const [db, name] = [id.slice(0, dot), id.slice(dot + 1)];
        const def = this.filter(db, name) ? tracker.getTable(db, name) : undefined;
        if (def) defs.push(def);
        else
          logger.warn('blocking snapshot requested for a table that is not captured or unknown; ignored', {
            table: id,
          });
      }
      if (defs.length === 0) continue;
      const pausedAt = at();
      logger.info('blocking snapshot: streaming paused', {
        id: req.id,
        tables: defs.map((d) => `${d.database}.${d.name}`),
        position: `${pausedAt.file}:${pausedAt.pos}`,
      });
      this.blockingRunning = true;
      this.m.snapshot.blockingStarted();
      try {
        const r = await runBlockingSnapshot({
          connect: this.options.connect,
          tables: defs,
          records,
          emit,
          at: pausedAt,
          selectOverrides: config.snapshot.selectStatementOverrides,
          ...(config.snapshot.fetchSize ? { fetchSize: config.snapshot.fetchSize } : {}),
          logger,
          signal: ctx.signal,
        });
        logger.info('blocking snapshot completed; streaming resumes', { id: req.id, rows: r.rows, ms: r.ms });
      } catch (err) {
        if (ctx.signal.aborted) return;
        // As Debezium does: a failed blocking snapshot is reported and streaming resumes.
        logger.warn('blocking snapshot failed; streaming resumes', { id: req.id, error: errorMessage(err) });
      } finally {
        this.blockingRunning = false;
        this.m.snapshot.blockingEnded();
        this.m.streaming.activity();
      }
    }
  }
  /** Binlog position of the newest schema-history entry at start (DDLs up to it are not recorded again). */
  private lastHistoryPosition: PositionLike | null = null;

  private startChunkedRunner(
    ctx: SourceContext,
    start: SourceOffset,
    tracker: SchemaTracker,
    records: RecordFactory,
    checkpoint: () => SourceOffset,
  ): ChunkedSnapshotRunner {
    const { config, logger } = this.options;
    const runner = new ChunkedSnapshotRunner(
      {
        connect: this.options.connect,
        logger,
        chunkSize: config.snapshot.chunkSize,
        maxThreads: config.snapshot.maxThreads,
        ...(config.snapshot.fetchSize ? { fetchSize: config.snapshot.fetchSize } : {}),
        records,
        tableDef: (db, t) => tracker.getTable(db, t),
        emit: (item) => ctx.emit(item),
        checkpoint,
        streamStart: { file: start.file, pos: start.pos },
        streamStartGtids: start.gtids ?? null,
        readOnly: config.snapshot.readOnly,
        signalTable: config.signals.channels.has('source') ? config.filters.signalDataCollection : null,
        onSignal: (s) => void this.handleSignal(s),
        tableFilter: this.filter,
        metrics: this.m.snapshot,
        notifications: this.options.notifications
          ? new IncrementalSnapshotNotifications(this.options.notifications, { connectorName: config.topicPrefix })
          : null,
        onActivity: () => {
          this.m.streaming.activity();
          this.m.snapshot.chunkedActivity();
        },
        signal: ctx.signal,
      },
      pendingChunkTables(start),
    );
    if (runner.running) this.m.snapshot.chunkedResumed();
    this.chunked = runner;
    return runner;
  }

  private heartbeatConn: PromiseConnection | null = null;

  private async runHeartbeatAction(sql: string): Promise<void> {
    try {
      this.heartbeatConn ??= await this.options.connect();
      await this.heartbeatConn.query(sql);
    } catch (err) {
      // A broken connection is replaced at the next beat; the dispatcher logs the failure.
      await this.heartbeatConn?.end().catch(() => {});
      this.heartbeatConn = null;
      throw err;
    }
  }

  private async resumeFacts(offset: SourceOffset, server: ServerIdentity): Promise<ResumeFacts> {
    const conn = await this.options.connect();
    try {
      const [rows] = await conn.query('SHOW BINARY LOGS');
      const logs = (rows as Array<{ Log_name: string }>).map((r) => r.Log_name);
      const oldest = server.flavor === 'mariadb' && logs.length > 0 ? await gtidsAtOn(conn, logs[0], 4) : null;
      return { offset, server, fileExists: logs.includes(offset.file), oldestGtidPos: oldest };
    } catch (err) {
      this.options.logger.warn('cannot list binary logs to check the stored offset', { error: errorMessage(err) });
      return { offset, server, fileExists: true };
    } finally {
      await conn.end().catch(() => {});
    }
  }

  private async binlogFileExists(file: string): Promise<boolean> {
    const conn = await this.options.connect();
    try {
      const [rows] = await conn.query('SHOW BINARY LOGS');
      return (rows as Array<{ Log_name: string }>).some((r) => r.Log_name === file);
    } catch (err) {
      this.options.logger.warn('cannot list binary logs to check the stored offset', { error: errorMessage(err) });
      return true;
    } finally {
      await conn.end().catch(() => {});
    }
  }

  /** The server's current position with the GTID set at exactly that point (MySQL prints it with the position). */
  private async currentPosition(): Promise<SourceOffset> {
    const conn = await this.options.connect();
    try {
      const r = await readBinlogStatus(conn);
      if (!r) throw new CdcError('PREFLIGHT_FAILED', 'binary logging is off on the source: enable log_bin');
      const gtids = this.identity?.flavor === 'mariadb' ? await gtidsAtOn(conn, r.file, r.pos) : r.executedGtids;
      return { file: r.file, pos: r.pos, ...(gtids ? { gtids } : {}) };
    } finally {
      await conn.end().catch(() => {});
    }
  }

  private async gtidsAt(file: string, pos: number): Promise<string | null> {
    const conn = await this.options.connect();
    try {
      return await gtidsAtOn(conn, file, pos);
    } catch (err) {
      this.options.logger.warn('cannot derive the GTID position of the stored offset', { error: errorMessage(err) });
      return null;
    } finally {
      await conn.end().catch(() => {});
    }
  }

  /** The server this capture reads from; offsets carry it (see resume-plan.ts). */
  private identity: ServerIdentity | null = null;
  private generation = 0;
  /** Reconnects (and restarts) position the dump by GTID set rather than file/position. */
  private resumeByGtid = false;
  private partialGtids = false;

  private stamp(offset: SourceOffset): SourceOffset {
    const out: SourceOffset = { ...offset, server_identity: this.identity?.key };
    if (this.generation > 0) out.server_generation = this.generation;
    else delete out.server_generation;
    if (this.partialGtids) delete out.gtids;
    if (out.server_identity === undefined) delete out.server_identity;
    return out;
  }

  private stampRecord(record: SinkRecord): SinkRecord {
    const value = String(this.generation);
    const headers = { ...record.headers, [SERVER_GENERATION_HEADER]: value };
    return { ...record, headers, sizeBytes: record.sizeBytes + SERVER_GENERATION_HEADER.length + value.length };
  }

  /** Schema history whose positions carry the server generation, like offsets. */
  private history(): SchemaHistory {
    const inner = this.options.history;
    return {
      initializeStorage: () => inner.initializeStorage(),
      exists: () => inner.exists(),
      recover: (upTo) => inner.recover(upTo),
      close: () => inner.close(),
      record: (entry) =>
        inner
          .record(
            this.generation > 0
              ? { ...entry, position: { ...entry.position, server_generation: this.generation } }
              : entry,
          )
          .then(() => this.historyMetrics.recorded(entry.ddl)),
    };
  }

  /**
   * A reconnect may reach another server (an Aurora failover moves the writer endpoint). By GTID that is safe:
   * later positions belong to a new generation. By file/position it is not: stop with the fix.
   */
  private checkStreamServer(key: string | undefined): void {
    if (!key || !this.identity || key === this.identity.key) return;
    if (!this.resumeByGtid) {
      throw new CdcError(
        'BINLOG_POSITION_LOST',
        `the binlog stream reconnected to another server (${key}; the capture started on ${this.identity.key}) and resumes by binlog file/position, which means nothing there. Enable GTIDs (gtid_mode=ON, enforce_gtid_consistency=ON) so the position carries across servers. ${POSITION_LOST_FIX}`,
      );
    }
    this.options.logger.warn('the binlog stream reconnected to another server; resumed by GTID set', {
      from: this.identity.key,
      to: key,
    });
    this.identity = { ...this.identity, key };
    this.generation++;
  }

  private async loadCurrentSchema(tracker: SchemaTracker): Promise<{ tables: TableDef[]; ddl: Map<string, string> }> {
    const conn = await this.options.connect();
    try {
      const loaded = await loadSchema(conn, { tableFilter: this.filter, includeCreateStatements: true });
      for (const d of loaded.databases) tracker.putDatabase(d);
      for (const t of loaded.tables) tracker.putTable(t);
      return { tables: loaded.tables, ddl: loaded.createStatements };
    } finally {
      await conn.end().catch(() => {});
    }
  }

  private async recordSchemaSnapshot(
    loaded: { tables: TableDef[]; ddl: Map<string, string> },
    at: SourceOffset | null,
    seq: number,
  ): Promise<number> {
    const position = at ?? (await this.currentPosition());
    for (const t of loaded.tables) {
      const id = `${t.database}.${t.name}`;
      const entry: SchemaHistoryEntry = {
        seq: ++seq,
        position: { file: position.file, pos: position.pos, gtids: position.gtids },
        ts_ms: Date.now(),
        databaseName: t.database,
        ddl: loaded.ddl.get(id) ?? '',
        tableChanges: [{ type: 'CREATE', id, table: t }],
      };
      await this.history().record(entry);
    }
    return seq;
  }

  /**
   * Which tables the consistent snapshot reads rows of, under which lock: everything (plain mode), or with
   * snapshot.chunked only the tables without a primary key (then locking per snapshot.locking.mode, logged),
   * else no lock at all — the chunked snapshot reads the rest while streaming.
   */
  private async planSnapshot(chunked: boolean) {
    const { config, logger } = this.options;
    const include = config.snapshot.includeCollections;
    const included = (t: TableDef) => include === null || include.some((re) => re.test(`${t.database}.${t.name}`));
    if (!chunked) {
      return { lockingMode: config.snapshot.lockingMode, includeTableData: included, included };
    }
    const conn = await this.options.connect();
    let noPk: string[];
    try {
      noPk = await tablesWithoutPrimaryKey(conn, this.filter);
    } finally {
      await conn.end().catch(() => {});
    }
    if (noPk.length > 0) {
      logger.warn(
        'tables without a primary key cannot be snapshotted in chunks: they are read by the consistent snapshot (with its locks, snapshot.locking.mode) before streaming starts',
        { tables: noPk, lockingMode: config.snapshot.lockingMode },
      );
    }
    return {
      lockingMode: noPk.length > 0 ? config.snapshot.lockingMode : ('none' as const),
      includeTableData: (t: TableDef) => t.primaryKey.length === 0 && included(t),
      included,
    };
  }

  /** Rows of the snapshot still to read, by information_schema's estimates. */
  private estimatedRowsLeft(): number {
    let n = 0;
    for (const t of this.m.snapshot.tables.values()) if (!t.done) n += Math.max(0, t.estimatedRows - t.rowsScanned);
    return n;
  }

  private async estimate(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    const conn = await this.options.connect();
    try {
      for (const id of ids) {
        const dot = id.indexOf('.');
        this.m.snapshot.tableEstimated(id, await estimateRows(conn, id.slice(0, dot), id.slice(dot + 1)));
      }
    } finally {
      await conn.end().catch(() => {});
    }
  }

  /**
   * Emits the captured changes between an interrupted snapshot's position and the new one (`to`), decoded with
   * the schema the interrupted snapshot recorded. Records only: their offsets would claim a finished snapshot.
   * Returns the schema-history sequence after any DDL in the window.
   */
  private async replayWindow(
    ctx: SourceContext,
    interrupted: InterruptedSnapshot,
    to: { file: string; pos: number },
    records: RecordFactory,
    seq: number,
  ): Promise<number> {
    const { config, logger } = this.options;
    const from = interrupted.from;
    const reached = (file: string, pos: number) => file > to.file || (file === to.file && pos >= to.pos);
    if (reached(from.file, from.pos)) return seq;
    if (!(await this.binlogFileExists(from.file))) {
      logger.warn(
        'the interrupted snapshot started at a binlog position that was purged; rows it published and that changed since may be stale downstream',
        { from: `${from.file}:${from.pos}` },
      );
      return seq;
    }
    const tracker = SchemaTracker.fromHistory(
      interrupted.entries.filter((e) => BinlogPosition.compare(e.position, from) <= 0),
      interrupted.trackerOptions,
    );
    const decoder = new BinlogDecoder({
      columnHints: (db, table, count) => hintsFor(tracker.getTable(db, table), count),
      includeColumns: (db, table) => this.filter(db, table),
    });
    const streamer = new BinlogStreamer(
      {
        decode: (raw) => decoder.decode(raw),
        schema: {
          getTable: (db, t) => tracker.getTable(db, t),
          applyDdl: (ddl, db, pos, session) => {
            const applied = tracker.applyDdl(ddl, db, pos, session);
            decoder.invalidateTableCache();
            return applied;
          },
        },
        history: this.history(),
        records,
        tableFilter: this.filter,
        skippedOperations: config.events.skippedOperations,
        includeSchemaChanges: config.events.includeSchemaChanges,
        includeQuery: config.events.includeQuery,
        eventDeserializationFailureHandlingMode: config.engine.eventDeserializationFailureHandlingMode,
        flavor: interrupted.flavor === 'mariadb' ? 'mariadb' : 'mysql',
        logger,
        historyRecordedUpTo: this.lastHistoryPosition,
        serverGeneration: () => this.generation,
      },
      { file: from.file, pos: from.pos, ...(from.gtids ? { gtids: from.gtids } : {}) },
      seq,
    );
    const client = new BinlogReplicationClient({
      connection: async () =>
        ((await this.options.connect()) as unknown as { connection: CallbackConnection }).connection,
      serverId: config.database.serverId,
      start: { file: from.file, pos: from.pos },
      logger,
    });
    let emitted = 0;
    try {
      for await (const ev of client) {
        if (ctx.signal.aborted) break;
        if (!ev.artificial && reached(ev.file, ev.position)) break;
        await streamer.handle(ev, async (item) => {
          if (!item.record) return;
          emitted++;
          await ctx.emit({ record: item.record, offset: null });
        });
        if (!ev.artificial && ev.nextPosition > 0 && reached(ev.file, ev.nextPosition)) break;
      }
    } finally {
      await client.stop().catch(() => {});
    }
    logger.info('replayed the binlog between an interrupted snapshot and the new one', {
      from: `${from.file}:${from.pos}`,
      to: `${to.file}:${to.pos}`,
      records: emitted,
    });
    return streamer.historySequence;
  }

  private async snapshot(
    ctx: SourceContext,
    records: RecordFactory,
    tracker: SchemaTracker,
    includeData: boolean,
    seqStart: number,
    setSeq: (s: number) => void,
    chunked = false,
    interrupted: InterruptedSnapshot | null = null,
  ): Promise<SourceOffset> {
    const { config, logger } = this.options;
    const history = this.history();
    let createStatements = new Map<string, string>();
    let databases: DatabaseDef[] = [];
    let serverVariables: Record<string, string> = {};
    let heldSchemaEvent: SchemaHistoryEntry | null = null;
    let progressTable: TableDef | null = null;
    let progressId = '';
    let schemaEvents = 0;
    const flushHeldSchemaEvent = async (marker: 'true' | 'last') => {
      const entry = heldSchemaEvent;
      heldSchemaEvent = null;
      const info = source(marker);
      info.id = `${snapshotIdPrefix('snapshot', position, 'ddl')}${schemaEvents++}`;
      const rec = entry ? records.schemaChange(entry, info) : null;
      if (rec) await ctx.emit({ record: rec, offset: null });
    };
    const snapPlan = await this.planSnapshot(chunked);
    const chunkPlan: Record<string, ChunkTableState> = {};
    let position: { file: string; pos: number; gtids: string | null } = { file: '', pos: 0, gtids: null };
    let seq = seqStart;
    const source = (marker: string, tsMs = Date.now()): SourceInfo => ({
      tsMs,
      snapshot: marker as SourceInfo['snapshot'],
      serverId: 0,
      gtid: null,
      file: position.file,
      pos: position.pos,
      row: 0,
      thread: null,
      query: null,
    });
    const snapshotRowIds = new SnapshotRowIds();
    this.m.snapshot.started();
    this.initialNotes?.started();
    let capturedTables: string[] = [];
    let dataTables: string[] = [];
    const result = await runConsistentSnapshot({
      connect: this.options.connect,
      tableFilter: this.filter,
      lockingMode: snapPlan.lockingMode,
      includeTableData: snapPlan.includeTableData,
      loadSchema: async (conn, tables) => {
        const wanted = new Set(tables.map((t) => `${t.db}.${t.table}`));
        const loaded = await loadSchema(conn, {
          tableFilter: (d, t) => wanted.has(`${d}.${t}`),
          databases: [...new Set(tables.map((t) => t.db))],
          includeCreateStatements: true,
        });
        createStatements = loaded.createStatements;
        databases = loaded.databases;
        serverVariables = await readServerCharsetVariables(conn);
        for (const d of loaded.databases) tracker.putDatabase(d);
        return loaded.tables;
      },
      ...(config.snapshot.fetchSize ? { fetchSize: config.snapshot.fetchSize } : {}),
      lockTimeoutMs: config.snapshot.lockTimeoutMs,
      delayMs: config.snapshot.delayMs,
      selectOverrides: new Map(config.snapshot.selectStatementOverrides),
      includeData,
      user: config.database.user,
      logger,
      signal: ctx.signal,
      emitter: {
        onSchema: async (tables, pos) => {
          position = pos;
          // Replayed DDLs are older than this snapshot's schema, so they go into history before it.
          if (interrupted) seq = await this.replayWindow(ctx, interrupted, pos, records, seq);
          for (const t of tables) tracker.putTable(t);
          // Debezium's table-structure phase, statement by statement (schema-events.ts).
          const statements = snapshotSchemaStatements({ serverVariables, databases, tables, createStatements });
          for (const st of statements) {
            const entry: SchemaHistoryEntry = {
              seq: ++seq,
              position: { file: pos.file, pos: pos.pos, gtids: pos.gtids ?? undefined },
              ts_ms: Date.now(),
              ...st,
            };
            await history.record(entry);
            if (config.events.includeSchemaChanges) {
              // The last snapshot record is marked 'last' (Debezium's postSnapshot): hold the newest schema event
              // back until a row follows it or the snapshot ends.
              await flushHeldSchemaEvent('true');
              heldSchemaEvent = entry;
            }
          }
          setSeq(seq);
          if (!chunked) {
            // The replayed window is queued before this checkpoint, so once it is committed a restart only needs to
            // replay from this snapshot's own position: each interrupted attempt costs one window, not all of them.
            // It follows the schema's history entries: a restart from it rebuilds the schema at this position from
            // them, so a crash while they are written must leave the previous checkpoint in place.
            await ctx.emit({
              record: null,
              offset: { file: pos.file, pos: pos.pos, ...(pos.gtids ? { gtids: pos.gtids } : {}), snapshot: true },
              flush: true,
            });
          }
          const withData = includeData ? tables.filter(snapPlan.includeTableData) : [];
          capturedTables = tables.map((t) => `${t.database}.${t.name}`);
          dataTables = withData.map((t) => `${t.database}.${t.name}`);
          this.m.snapshot.planned(capturedTables, withData.length);
          for (const t of tables) {
            if (chunked && t.primaryKey.length > 0 && snapPlan.included(t))
              chunkPlan[`${t.database}.${t.name}`] = { after: null, rows: 0, chunks: 0, kind: 'initial' };
          }
          await this.estimate(withData.map((t) => `${t.database}.${t.name}`));
          this.runwayFile = () => (this.m.phase === 'stopped' ? null : pos.file);
          if (includeData) await this.runway.beforeSnapshot(pos.file, this.estimatedRowsLeft());
          logger.info('snapshot position established', { file: pos.file, pos: pos.pos, tables: tables.length });
        },
        onRow: async (table, row, marker, tsMs) => {
          await flushHeldSchemaEvent('true');
          // Rows arrive table by table: the progress id is built once per table, not per row.
          if (table !== progressTable) {
            progressTable = table;
            progressId = `${table.database}.${table.name}`;
          }
          const snap = this.m.snapshot;
          snap.rowsScanned(progressId, 1);
          if (snap.totalRowsScanned % 10_000 === 0)
            this.runway.duringSnapshot(
              snap.totalRowsScanned,
              snap.SnapshotDurationInSeconds * 1000,
              this.estimatedRowsLeft(),
            );
          const info = source(marker, tsMs);
          info.id = snapshotRowIds.next(table, position);
          const out = records.forTable(table).read(row, info);
          for (const record of out) await ctx.emit({ record, offset: null });
        },
        onTableScanStart: (table) => this.initialNotes?.tableInProgress(`${table.database}.${table.name}`, dataTables),
        onTableScanned: (table, rows) =>
          this.initialNotes?.tableCompleted(`${table.database}.${table.name}`, rows, capturedTables, 'SUCCEEDED'),
        onTableDone: async (table) => {
          this.m.snapshot.tableScanned(`${table.database}.${table.name}`);
        },
      },
    });
    await flushHeldSchemaEvent('last');
    const done: SourceOffset = {
      file: result.position.file,
      pos: result.position.pos,
      ...(result.position.gtids ? { gtids: result.position.gtids } : {}),
      snapshot_completed: true,
      ...(Object.keys(chunkPlan).length > 0 ? { snapshot_chunks: chunkPlan } : {}),
    };
    const chunksFollow = Object.keys(chunkPlan).length > 0;
    this.m.snapshot.completed(chunksFollow);
    if (chunksFollow)
      logger.info('chunked snapshot planned; chunks are read while streaming', { tables: Object.keys(chunkPlan) });
    this.initialNotes?.completed();
    // Notification records (sink channel) are queued before the checkpoint that ends the snapshot.
    await this.options.notifications?.flush();
    // Committed as soon as it is delivered: a restart right after the snapshot must not take it again.
    await ctx.emit({ record: null, offset: done, flush: true });
    logger.info('snapshot completed', { rows: result.totalRows, ms: result.durationMs, lock: result.lockMode });
    return done;
  }
}

/** An initial snapshot that was interrupted: where it started, and what is needed to replay from there. */
interface InterruptedSnapshot {
  from: SourceOffset;
  entries: SchemaHistoryEntry[];
  trackerOptions: SchemaTrackerOptions;
  flavor: string;
}

/** MariaDB: the GTID position at exactly `file`:`pos` (the server reads that binlog file from its start). */
async function gtidsAtOn(conn: PromiseConnection, file: string, pos: number): Promise<string | null> {
  const [rows] = await conn.query('SELECT BINLOG_GTID_POS(?, ?) AS g', [file, pos]);
  const g = String((rows as Array<{ g: unknown }>)[0]?.g ?? '').replace(/\s+/g, '');
  return g === '' ? null : g;
}

/** The TABLE_MAP facts the schema cross-check compares (names, signedness, ENUM/SET values when logged). */
function tableMapInfo(map: TableMapEvent): TableMapInfo {
  const cols = map.columns;
  const info: TableMapInfo = { columnCount: map.columnCount, columnTypes: cols.map((c) => c.realType) };
  if (cols.every((c) => c.name !== undefined)) info.columnNames = cols.map((c) => c.name ?? '');
  if (cols.some((c) => c.unsigned !== undefined)) info.signedness = cols.map((c) => c.unsigned === true);
  if (cols.some((c) => c.enumValues)) info.enumValues = cols.map((c) => c.enumValues ?? null);
  if (cols.some((c) => c.setValues)) info.setValues = cols.map((c) => c.setValues ?? null);
  if (map.primaryKey) info.primaryKey = map.primaryKey.map((k) => k.column);
  return info;
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
