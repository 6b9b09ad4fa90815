/**
 * The MySQL snapshot runner: the consistent snapshot the start decision asks for (rows and schema, the schema only,
 * or the schema with a chunked plan that the stream runner reads), its table-structure records in schema history,
 * and the replay, as a bounded run of the stream runner, of the binlog between an interrupted snapshot's position
 * and the new one.
 */
import type { SnapshotRequest, SnapshotRunner, StreamRunner } from '../../../engine/capture-runners.js';
import { snapshotIdPrefix } from '../../../events/event-id.js';
import { BinlogPosition } from '../../../model/binlog-position.js';
import type { QueueItem } from '../../../model/queue-item.js';
import type { SourceOffset } from '../../../model/source-offset.js';
import type { DatabaseDef, TableDef } from '../../../model/table-def.js';
import type { InitialSnapshotNotifications, NotificationService } from '../../../notifications/index.js';
import type { SchemaHistoryEntry } from '../../../stores/schema-history.js';
import { callbackConnection } from '../binlog/replication/index.js';
import { binlogFileExists } from '../binlog-files.js';
import type { MySqlCaptureContext } from '../capture-context.js';
import type { CaptureRunway } from '../retention/capture-runway.js';
import { loadSchema } from '../schema/schema-loader.js';
import { SchemaTracker } from '../schema/schema-tracker.js';
import type { SourceInfo } from '../streaming/ports.js';
import { checkRecoveryWindow } from '../streaming/schema-point.js';
import { type ChunkTableState, estimateRows, tablesWithoutPrimaryKey } from './chunked-snapshot.js';
import { runConsistentSnapshot } from './consistent-snapshot.js';
import { SnapshotRowIds } from './row-ids.js';
import { readServerCharsetVariables, snapshotSchemaStatements } from './schema-events.js';

export interface InitialSnapshotRunnerOptions {
  context: MySqlCaptureContext;
  /** The queue (offsets already stamped with the server). */
  emit(item: QueueItem): Promise<void>;
  signal: AbortSignal;
  /** The stored offset (an interrupted snapshot's start when `snapshot: true`). */
  stored: SourceOffset | null;
  runway: CaptureRunway;
  notifications: NotificationService | null;
  initialNotes: InitialSnapshotNotifications | null;
  /** A stream runner over `context` (the replay decodes with the interrupted snapshot's schema). */
  streamOver(context: MySqlCaptureContext): StreamRunner;
}

export class InitialSnapshotRunner implements SnapshotRunner {
  constructor(private readonly options: InitialSnapshotRunnerOptions) {}

  skipped(): void {
    this.options.initialNotes?.skipped();
  }

  async run(request: SnapshotRequest): Promise<SourceOffset> {
    const { context: c, stored } = this.options;
    if (stored && request.becausePositionLost) {
      c.logger.warn(
        'the stored binlog position is lost: taking a new snapshot (snapshot.mode=when_needed). Rows deleted since ' +
          'that position get no delete events; consumers keep them until they reconcile against the new snapshot',
        {
          position: `${stored.file}:${stored.pos}`,
          ...(stored.gtids ? { gtids: stored.gtids } : {}),
          reason: `${stored.file} is no longer listed by SHOW BINARY LOGS (purged: binlog retention or PURGE BINARY LOGS)`,
        },
      );
    }
    c.useSchema(new SchemaTracker(c.trackerOptions));
    if (request.chunkedIgnored)
      c.logger.info('snapshot.chunked needs streaming to reconcile chunks; initial_only uses the consistent snapshot');
    // A snapshot interrupted earlier left its start position in the offset: the binlog between that position and
    // the new snapshot's is replayed first, so rows the interrupted snapshot published and that were deleted or
    // changed since get their events (else consumers keep stale rows).
    const interrupted = request.replayInterrupted && stored ? stored : null;
    // recovery: today's schema goes into history at the stored offset, where streaming resumes (Debezium's).
    const keep = request.keepOffset && stored ? stored : null;
    try {
      return await this.snapshot(request.includeData, request.chunked, interrupted, keep);
    } catch (err) {
      c.metrics.snapshot.aborted();
      this.options.runway.stop();
      this.options.initialNotes?.aborted();
      throw err;
    }
  }

  private async snapshot(
    includeData: boolean,
    chunked: boolean,
    interrupted: SourceOffset | null,
    keep: SourceOffset | null,
  ): Promise<SourceOffset> {
    const { context: c, emit, runway, initialNotes } = this.options;
    const { config, logger, metrics, records } = c;
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
      if (rec) await emit({ record: rec, offset: null });
    };
    const snapPlan = await this.planSnapshot(chunked);
    const chunkPlan: Record<string, ChunkTableState> = {};
    let position: { file: string; pos: number; gtids: string | null } = { file: '', pos: 0, gtids: null };
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
    const rowSource: SourceInfo = { ...source('true'), id: '' };
    const snapshotRowIds = new SnapshotRowIds();
    metrics.snapshot.started();
    initialNotes?.started();
    let capturedTables: string[] = [];
    let dataTables: string[] = [];
    const result = await runConsistentSnapshot({
      connect: c.connect,
      tableFilter: c.filter,
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
        for (const d of loaded.databases) c.putDatabase(d);
        return loaded.tables;
      },
      ...(config.snapshot.fetchSize ? { fetchSize: config.snapshot.fetchSize } : {}),
      lockTimeoutMs: config.snapshot.lockTimeoutMs,
      delayMs: config.snapshot.delayMs,
      selectOverrides: new Map(config.snapshot.selectStatementOverrides),
      includeData,
      user: config.database.user,
      logger,
      signal: this.options.signal,
      emitter: {
        onSchema: async (tables, read) => {
          // Under the snapshot's lock the schema holds at `read`; at a kept offset only if no captured table
          // changed in between, which the binlog window tells.
          if (keep) await this.checkRecoveryWindow(keep, read);
          const pos = keep ? { file: keep.file, pos: keep.pos, gtids: keep.gtids ?? null } : read;
          position = pos;
          // Replayed DDLs are older than this snapshot's schema, so they go into history before it.
          if (interrupted) await this.replayWindow(interrupted, pos);
          for (const t of tables) c.putTable(t);
          // Debezium's table-structure phase, statement by statement (schema-events.ts).
          const statements = snapshotSchemaStatements({ serverVariables, databases, tables, createStatements });
          for (const st of statements) {
            const entry: SchemaHistoryEntry = {
              seq: c.history.next(),
              position: { file: pos.file, pos: pos.pos, gtids: pos.gtids ?? undefined },
              ts_ms: Date.now(),
              ...st,
            };
            await c.history.record(entry);
            if (config.events.includeSchemaChanges) {
              // The last snapshot record is marked 'last' (Debezium's postSnapshot): hold the newest schema event
              // back until a row follows it or the snapshot ends.
              await flushHeldSchemaEvent('true');
              heldSchemaEvent = entry;
            }
          }
          if (!chunked && !keep) {
            // The replayed window is queued before this checkpoint, so once it is committed a restart only needs to
            // replay from this snapshot's own position: each interrupted attempt costs one window, not all of them.
            // It follows the schema's history entries: a restart from it rebuilds the schema at this position from
            // them, so a crash while they are written must leave the previous checkpoint in place.
            await emit({
              record: null,
              offset: { file: pos.file, pos: pos.pos, ...(pos.gtids ? { gtids: pos.gtids } : {}), snapshot: true },
              flush: true,
            });
          }
          const withData = includeData ? tables.filter(snapPlan.includeTableData) : [];
          capturedTables = tables.map((t) => `${t.database}.${t.name}`);
          dataTables = withData.map((t) => `${t.database}.${t.name}`);
          metrics.snapshot.planned(capturedTables, withData.length);
          for (const t of tables) {
            if (chunked && t.primaryKey.length > 0 && snapPlan.included(t))
              chunkPlan[`${t.database}.${t.name}`] = { after: null, rows: 0, chunks: 0, kind: 'initial' };
          }
          await this.estimate(withData.map((t) => `${t.database}.${t.name}`));
          c.position = () => pos;
          if (includeData) await runway.beforeSnapshot(pos.file, this.estimatedRowsLeft());
          logger.info('snapshot position established', { file: pos.file, pos: pos.pos, tables: tables.length });
        },
        onRow: async (table, row, marker, tsMs) => {
          // Only the first row finds a held schema event; the others skip building its source block and id. (Rows
          // come after every schema event, so the id counter the skipped calls advanced is read by no one.)
          if (heldSchemaEvent !== null) await flushHeldSchemaEvent('true');
          // Rows arrive table by table: the progress id is built once per table, not per row.
          if (table !== progressTable) {
            progressTable = table;
            progressId = `${table.database}.${table.name}`;
          }
          const snap = metrics.snapshot;
          snap.rowsScanned(progressId, 1);
          if (snap.totalRowsScanned % 10_000 === 0)
            runway.duringSnapshot(
              snap.totalRowsScanned,
              snap.SnapshotDurationInSeconds * 1000,
              this.estimatedRowsLeft(),
            );
          // One SourceInfo for every row: read() turns it into text at once and keeps no reference to it.
          const info = rowSource;
          info.tsMs = tsMs;
          info.snapshot = marker;
          info.file = position.file;
          info.pos = position.pos;
          info.id = snapshotRowIds.next(table, position);
          const out = records.forTable(table).read(row, info);
          for (const record of out) await emit({ record, offset: null });
        },
        onTableScanStart: (table) => initialNotes?.tableInProgress(`${table.database}.${table.name}`, dataTables),
        onTableScanned: (table, rows) =>
          initialNotes?.tableCompleted(`${table.database}.${table.name}`, rows, capturedTables, 'SUCCEEDED'),
        onTableDone: async (table) => {
          metrics.snapshot.tableScanned(`${table.database}.${table.name}`);
        },
      },
    });
    await flushHeldSchemaEvent('last');
    const done: SourceOffset = keep ?? {
      file: result.position.file,
      pos: result.position.pos,
      ...(result.position.gtids ? { gtids: result.position.gtids } : {}),
      snapshot_completed: true,
      ...(Object.keys(chunkPlan).length > 0 ? { snapshot_chunks: chunkPlan } : {}),
    };
    const chunksFollow = Object.keys(chunkPlan).length > 0;
    metrics.snapshot.completed(chunksFollow);
    if (chunksFollow)
      logger.info('chunked snapshot planned; chunks are read while streaming', { tables: Object.keys(chunkPlan) });
    initialNotes?.completed();
    // Notification records (sink channel) are queued before the checkpoint that ends the snapshot.
    await this.options.notifications?.flush();
    // Committed as soon as it is delivered: a restart right after the snapshot must not take it again.
    await emit({ record: null, offset: done, flush: true });
    logger.info('snapshot completed', { rows: result.totalRows, ms: result.durationMs, lock: result.lockMode });
    return done;
  }

  /** recovery: fails when a captured table's schema changed between the kept offset and the schema read. */
  private async checkRecoveryWindow(keep: SourceOffset, read: { file: string; pos: number }): Promise<void> {
    const c = this.options.context;
    const verdict = await checkRecoveryWindow(
      {
        connection: callbackConnection(c.connect),
        serverId: c.config.database.serverId,
        logger: c.logger,
        tableFilter: c.filter,
      },
      keep,
      read,
      c.server.identity.key,
    );
    if (verdict === 'other-server') {
      c.logger.warn(
        'snapshot.mode=recovery: the stored offset was written on another server, so the binlog since it cannot be checked for DDL; the schema read now is recorded at it (correct only if no captured table changed since)',
        { from: `${keep.file}:${keep.pos}`, writtenOn: keep.server_identity, server: c.server.identity.key },
      );
      return;
    }
    c.logger.info(
      'snapshot.mode=recovery: no captured table changed since the stored offset; streaming resumes there',
      {
        from: `${keep.file}:${keep.pos}`,
        schemaReadAt: `${read.file}:${read.pos}`,
      },
    );
  }

  /**
   * Emits the captured changes between an interrupted snapshot's position and the new one (`to`): a bounded run of
   * the stream runner, decoding with the schema the interrupted snapshot recorded. Records only: their offsets would
   * claim a finished snapshot. DDLs in the window go into schema history.
   */
  private async replayWindow(from: SourceOffset, to: { file: string; pos: number }): Promise<void> {
    const { context: c } = this.options;
    const { logger } = c;
    if (BinlogPosition.of(from.file, from.pos).compareTo(BinlogPosition.of(to.file, to.pos)) >= 0) return;
    if (!(await binlogFileExists(c.connect, from.file, logger))) {
      logger.warn(
        'the interrupted snapshot started at a binlog position that was purged; rows it published and that changed since may be stale downstream',
        { from: `${from.file}:${from.pos}` },
      );
      return;
    }
    const schema = SchemaTracker.fromHistory(
      c.history.recovered.filter((e) => BinlogPosition.compare(e.position, from) <= 0),
      c.trackerOptions,
    );
    let emitted = 0;
    await this.options.streamOver(c.withSchema(schema)).run({
      from: { file: from.file, pos: from.pos, ...(from.gtids ? { gtids: from.gtids } : {}) },
      until: to,
      emit: async (item) => {
        if (!item.record) return;
        emitted++;
        await this.options.emit({ record: item.record, offset: null });
      },
    });
    logger.info('replayed the binlog between an interrupted snapshot and the new one', {
      from: `${from.file}:${from.pos}`,
      to: `${to.file}:${to.pos}`,
      records: emitted,
    });
  }

  /**
   * Which tables the consistent snapshot reads rows of, under which lock: everything (plain mode), or with
   * snapshot.chunked only the tables without a primary key (then locking per snapshot.locking.mode, logged),
   * else no lock at all — the chunked snapshot reads the rest while streaming.
   */
  private async planSnapshot(chunked: boolean) {
    const { config, logger, connect, filter } = this.options.context;
    const include = config.snapshot.includeCollections;
    const included = (t: TableDef) => include === null || include.some((re) => re.test(`${t.database}.${t.name}`));
    if (!chunked) {
      return { lockingMode: config.snapshot.lockingMode, includeTableData: included, included };
    }
    const conn = await connect();
    let noPk: string[];
    try {
      noPk = await tablesWithoutPrimaryKey(conn, filter);
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
    for (const t of this.options.context.metrics.snapshot.tables.values())
      if (!t.done) n += Math.max(0, t.estimatedRows - t.rowsScanned);
    return n;
  }

  private async estimate(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    const c = this.options.context;
    const conn = await c.connect();
    try {
      for (const id of ids) {
        const dot = id.indexOf('.');
        c.metrics.snapshot.tableEstimated(id, await estimateRows(conn, id.slice(0, dot), id.slice(dot + 1)));
      }
    } finally {
      await conn.end().catch(() => {});
    }
  }
}
