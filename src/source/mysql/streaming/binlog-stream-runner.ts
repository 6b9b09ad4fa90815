/**
 * The MySQL stream runner: follows the binlog from a position through the BinlogStreamer onto the queue, with the
 * chunked and blocking snapshots and signal channels beside it and heartbeats fed to the engine's dispatcher. A
 * bounded run (`until`) reads a window of the binlog and stops, without anything beside it (the replay after an
 * interrupted snapshot). Before streaming without a snapshot, `recover` rebuilds the schema at the position.
 */
import type { Connection as PromiseConnection } from 'mysql2/promise';
import { CdcError } from '../../../common/errors.js';
import { EventLoopTurns } from '../../../common/event-loop-turns.js';
import type { StreamRun, StreamRunner } from '../../../engine/capture-runners.js';
import { HeartbeatDispatcher } from '../../../engine/heartbeat-dispatcher.js';
import { BinlogPosition, type PositionLike } from '../../../model/binlog-position.js';
import type { QueueItem } from '../../../model/queue-item.js';
import type { SourceOffset } from '../../../model/source-offset.js';
import type { NotificationService } from '../../../notifications/index.js';
import type { SchemaHistoryEntry } from '../../../stores/schema-history.js';
import type { TableMapEvent } from '../binlog/decoder.js';
import { callbackConnection, ResilientBinlogStream } from '../binlog/replication/index.js';
import { currentPosition, gtidsAtStored } from '../binlog-files.js';
import type { MySqlCaptureContext } from '../capture-context.js';
import { MAX_DUMP_POSITION, type ResumePlan } from '../resume-plan.js';
import { loadSchema } from '../schema/schema-loader.js';
import { SchemaTracker } from '../schema/schema-tracker.js';
import { checkTableMap, type TableMapInfo } from '../schema/table-map-check.js';
import { BinlogStreamer, type BinlogStreamerOptions } from './binlog-streamer.js';
import { binlogWindowChangesSchema, loadSchemaAtOnePoint } from './schema-point.js';
import { StreamSnapshots } from './stream-snapshots.js';

export interface BinlogStreamRunnerOptions {
  context: MySqlCaptureContext;
  /** The queue (offsets already stamped with the server). */
  emit(item: QueueItem): Promise<void>;
  signal: AbortSignal;
  /** How the stored offset resumes on this server (null on a first start). */
  plan: ResumePlan | null;
  notifications: NotificationService | null;
}

export class BinlogStreamRunner implements StreamRunner {
  /** The unbounded run's streamer and snapshots (null before and after). */
  private live: { streamer: BinlogStreamer; snapshots: StreamSnapshots } | null = null;
  private heartbeatConn: PromiseConnection | null = null;

  constructor(private readonly options: BinlogStreamRunnerOptions) {}

  /** Where the last event handled ends (null when not streaming). */
  get lastEventEnd(): PositionLike | null {
    return this.live?.streamer.lastEventEnd ?? null;
  }

  /** A snapshot runs beside the stream or waits to. */
  get snapshotsBusy(): boolean {
    return this.live?.snapshots.busy ?? false;
  }

  async recover(offset: SourceOffset | null, schema: 'history' | 'server'): Promise<SourceOffset> {
    const c = this.options.context;
    const { config, logger, historyMetrics } = c;
    if (schema === 'server' || offset === null) {
      // snapshot.mode=never on first start, or history lost: take the schema as it is now.
      logger.warn('no schema history: reading the current schema from the server', { mode: config.snapshot.mode });
      c.useSchema(new SchemaTracker(c.trackerOptions));
      return await this.recordCurrentSchema(offset);
    }
    const upTo = c.history.recovered.filter((e) => BinlogPosition.compare(e.position, offset) <= 0);
    historyMetrics.recoveryStarted();
    c.useSchema(SchemaTracker.fromHistory(upTo, c.trackerOptions));
    historyMetrics.recoveredFrom(upTo.length, upTo.at(-1)?.ddl ?? null);
    logger.info('schema recovered from history', { entries: upTo.length, tables: c.schema.tables().length });
    return offset;
  }

  async run({ from, resumed = false, until, emit }: StreamRun): Promise<void> {
    if (until) return this.stream(from, { until, emit: emit ?? this.options.emit });
    return this.stream(await this.resumePoint(from, resumed), null);
  }

  /** How reconnects resume (GTID or file/position), and the GTID set the first offsets carry. */
  private async resumePoint(from: SourceOffset, resumed: boolean): Promise<SourceOffset> {
    const { server, logger, connect } = this.options.context;
    const plan = this.options.plan;
    const identity = server.identity;
    let offset = from;
    server.resumeByGtid = resumed ? plan?.kind === 'gtid' : !!offset.gtids && identity.gtidMode;
    if (plan?.kind === 'file' && !offset.gtids && identity.flavor === 'mariadb') {
      // An offset from before GTIDs were tracked: MariaDB computes the GTID position of any file/position.
      const gtids = await gtidsAtStored(connect, offset.file, offset.pos, logger);
      if (gtids) offset = { ...offset, gtids };
    }
    // MySQL: a GTID set grown from an offset without one is partial; storing it would make it look resumable.
    server.partialGtids = identity.flavor === 'mysql' && !offset.gtids;
    if (server.partialGtids && identity.gtidMode) {
      logger.warn(
        'the stored offset has no GTID set: resuming by file/position, and offsets carry no GTIDs until the next snapshot (a failover then needs snapshot.mode=when_needed)',
      );
    }
    return offset;
  }

  private async stream(
    start: SourceOffset,
    bound: { until: PositionLike; emit(item: QueueItem): Promise<void> } | null,
  ): Promise<void> {
    const c = this.options.context;
    const { config, logger, metrics, historyMetrics } = c;
    const signal = this.options.signal;
    const live = bound === null;
    // Chunked snapshots (initial with snapshot.chunked, resumed, or requested by signal) run beside the stream;
    // every offset emitted from here on carries their progress.
    const snapshots = live
      ? new StreamSnapshots(c, {
          start,
          emit: this.options.emit,
          checkpoint: () => streamer.resumeOffset ?? start,
          signal,
          notifications: this.options.notifications,
        })
      : null;
    if (live) c.position = () => streamer.resumeOffset ?? start;
    const sink: (item: QueueItem) => Promise<void> = snapshots
      ? (item) => this.options.emit(item.offset ? { ...item, offset: snapshots.decorate(item.offset) } : item)
      : (bound as NonNullable<typeof bound>).emit;
    let current: { file: string; pos: number } = { file: start.file, pos: start.pos };
    const streamerOptions: BinlogStreamerOptions = {
      decode: (raw) => {
        const event = c.decode(raw);
        snapshots?.chunked.observe(event, current);
        return event;
      },
      schema: c.schemaPort(),
      history: c.history,
      records: c.records,
      tableFilter: c.filter,
      skippedOperations: config.events.skippedOperations,
      includeSchemaChanges: config.events.includeSchemaChanges,
      includeQuery: config.events.includeQuery,
      eventDeserializationFailureHandlingMode: config.engine.eventDeserializationFailureHandlingMode,
      flavor: c.server.info.flavor === 'mariadb' ? 'mariadb' : 'mysql',
      logger,
      historyRecordedUpTo: c.history.recordedUpTo,
      serverGeneration: () => c.server.generation,
      // Every TABLE_MAP is checked against the schema model, in the bounded replay too: its history can be as
      // wrong as a live run's (a DDL outside the binlog), and wrong columns would be published without a word.
      checkTableMap: (def, map) => checkTableMap(def, tableMapInfo(map)).map((m) => m.message),
      inconsistentSchemaHandlingMode: config.engine.inconsistentSchemaHandlingMode,
      ...(live ? { onEvent: (event) => metrics.streaming.eventRead(event.header.timestamp * 1000, event.type) } : {}),
    };
    const seqAtStart = c.history.sequence;
    const streamer = new BinlogStreamer(streamerOptions, start);
    if (snapshots) this.live = { streamer, snapshots };
    const stream = new ResilientBinlogStream({
      connection: callbackConnection(c.connect),
      serverId: config.database.serverId,
      resumePosition: () => {
        const o = streamer.resumeOffset ?? start;
        if (live && c.server.resumeByGtid && o.gtids) return { gtidSet: o.gtids };
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
    signal.addEventListener('abort', onAbort, { once: true });
    const heartbeats = live
      ? new HeartbeatDispatcher({
          intervalMs: config.engine.heartbeatIntervalMs,
          actionQuery: config.engine.heartbeatActionQuery,
          runActionQuery: (sql) => this.runHeartbeatAction(sql),
          heartbeat: (tsMs) => c.records.heartbeat(tsMs),
          emit: sink,
          logger,
        })
      : null;
    const emit = heartbeats ? heartbeats.track(sink) : sink;
    // Heartbeats carry the last commit-boundary offset, so offsets advance while captured tables are idle.
    heartbeats?.start(
      { offset: () => streamer.resumeOffset, inTransaction: () => streamer.tracker.inTransaction },
      signal,
    );
    // A blocking snapshot runs at a transaction boundary with the stream loop held (chunk flushes wait too).
    const blocking = async () =>
      snapshots?.runPendingBlocking(
        emit,
        () => streamer.tracker.inTransaction,
        () => (streamer.lastEventEnd.file ? streamer.lastEventEnd : { file: start.file, pos: start.pos }),
      );
    snapshots?.startSignals(blocking);
    const exclusive = snapshots
      ? (fn: () => Promise<void>) => snapshots.chunked.exclusive(fn)
      : (fn: () => Promise<void>) => fn();
    const until = bound ? BinlogPosition.of(bound.until.file, bound.until.pos) : null;
    const reached = (file: string, pos: number) => until !== null && BinlogPosition.of(file, pos).compareTo(until) >= 0;
    const appliedAtStart = historyMetrics.ChangesApplied;
    if (live) {
      logger.info('streaming from the binlog', { file: start.file, pos: start.pos, gtids: start.gtids });
      historyMetrics.running();
    }
    // A buffered backlog is handed over on microtasks alone: give timers and I/O (offset commits, the lease, sink
    // responses) a turn at least every 50 ms.
    const turns = new EventLoopTurns(50);
    try {
      for await (const ev of stream) {
        const turn = turns.due();
        if (turn) await turn;
        if (signal.aborted) break;
        if (!ev.artificial && reached(ev.file, ev.position)) break;
        if (live && ev.artificial) c.server.switchTo(stream.session?.serverKey, logger);
        await exclusive(async () => {
          current = { file: ev.file, pos: ev.position };
          await streamer.handle(ev, emit);
          await snapshots?.chunked.afterEvent(
            ev.artificial || !ev.nextPosition ? null : { file: ev.file, pos: ev.nextPosition },
            streamer.tracker.gtidSet,
          );
          if (snapshots?.blockingPending) await blocking();
        });
        if (snapshots?.chunked.failure) throw snapshots.chunked.failure;
        if (live) {
          const st = metrics.streaming;
          st.counted(
            streamer.eventsSeen,
            streamer.eventsFiltered,
            streamer.committedTransactions,
            streamer.eventsSkipped,
          );
          st.lastTransactionId(streamer.tracker.lastCommittedGtid);
          st.position(streamer.lastEventEnd.file, streamer.lastEventEnd.pos, streamer.resumeOffset?.gtids ?? undefined);
          st.connection(stream.connected, stream.disconnects);
          historyMetrics.changesApplied(appliedAtStart + (c.history.sequence - seqAtStart));
        }
        if (!ev.artificial && ev.nextPosition > 0 && reached(ev.file, ev.nextPosition)) break;
      }
    } finally {
      heartbeats?.stop();
      await snapshots?.stop();
      signal.removeEventListener('abort', onAbort);
      await stream.stop().catch(() => {});
      if (live) {
        await this.heartbeatConn?.end().catch(() => {});
        this.heartbeatConn = null;
        this.live = null;
        historyMetrics.stopped();
      }
    }
  }

  private async runHeartbeatAction(sql: string): Promise<void> {
    try {
      this.heartbeatConn ??= await this.options.context.connect();
      await this.heartbeatConn.query(sql);
    } catch (err) {
      // A broken connection is replaced at the next beat; the dispatcher logs the failure.
      await this.heartbeatConn?.end().catch(() => {});
      this.heartbeatConn = null;
      throw err;
    }
  }

  /**
   * Reads the server's current schema into the context and records it in history at `at`, or, on a first start,
   * at a position it is known to hold at, where the stream then starts (a DDL committed while the schema was read
   * would otherwise be missed or applied twice).
   */
  private async recordCurrentSchema(at: SourceOffset | null): Promise<SourceOffset> {
    const c = this.options.context;
    const read = async () => {
      const conn = await c.connect();
      try {
        return await loadSchema(conn, { tableFilter: c.filter, includeCreateStatements: true });
      } finally {
        await conn.end().catch(() => {});
      }
    };
    const { schema: loaded, position } = at
      ? { schema: await read(), position: at }
      : await loadSchemaAtOnePoint({
          position: () => currentPosition(c.connect, c.server.identity.flavor),
          load: read,
          windowChangesSchema: (from, to) =>
            binlogWindowChangesSchema(
              {
                connection: callbackConnection(c.connect),
                serverId: c.config.database.serverId,
                logger: c.logger,
                tableFilter: c.filter,
              },
              from,
              to,
            ),
          logger: c.logger,
        });
    for (const d of loaded.databases) c.putDatabase(d);
    for (const t of loaded.tables) c.putTable(t);
    for (const t of loaded.tables) {
      const id = `${t.database}.${t.name}`;
      const entry: SchemaHistoryEntry = {
        seq: c.history.next(),
        position: { file: position.file, pos: position.pos, gtids: position.gtids },
        ts_ms: Date.now(),
        databaseName: t.database,
        ddl: loaded.createStatements.get(id) ?? '',
        tableChanges: [{ type: 'CREATE', id, table: t }],
      };
      await c.history.record(entry);
    }
    return position;
  }
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
