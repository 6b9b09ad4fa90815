/**
 * The consistent initial snapshot: one REPEATABLE READ transaction started WITH CONSISTENT SNAPSHOT, a binlog
 * position that matches it exactly, the schemas as of that position, then every captured table streamed row by
 * row inside the transaction. Streaming resumes from the position, so snapshot + binlog = every change once.
 *
 * Locks only exist to make the position, the transaction and the schemas agree:
 * - global read lock (FLUSH TABLES WITH READ LOCK) when the user has RELOAD;
 * - otherwise (Aurora/RDS) LOCK TABLES ... READ on the captured tables, on a second connection, held only
 *   while the transaction starts, the position and the schemas are read;
 * - 'extended' keeps whichever lock for the whole scan, 'none' takes none.
 * See docs/snapshots.md for why each path is consistent and where it is not.
 *
 * Independent of the schema loader and the event layer: both come in as functions (loadSchema, emitter).
 * A chunked, lock-free snapshot can live beside this module and reuse tables.ts / table-scan.ts / markers.ts.
 */

import type { Connection } from 'mysql2/promise';
import { errorMessage } from '../../../common/errors.js';
import type { Logger } from '../../../common/logger.js';
import { type TableDef, tableId } from '../../../model/table-def.js';
import type { Row } from '../../../model/values.js';
import { ER } from '../server-errors.js';
import type { ServerVersion } from '../server-info.js';
import { describeSqlError, isPrivilegeError, SnapshotError, sqlError } from './errors.js';
import { type HeldLock, lockTables, tryGlobalReadLock } from './locks.js';
import { MarkerSequencer, type SnapshotMarker } from './markers.js';
import { type BinlogPosition, detectServer, gtidsAt, readBinlogStatus, serverTimeMs } from './server.js';
import { type PositionSource, readSnapshotStatus, startLockFreeSnapshot } from './snapshot-position.js';
import { defaultSelect, scanTable } from './table-scan.js';
import { type CapturedTable, listCapturedTables } from './tables.js';

export type LockingMode = 'minimal' | 'extended' | 'none';

export interface SnapshotOptions {
  /** A new connection on each call; the snapshot uses one to scan and, on the table-lock path, one to lock. */
  connect: () => Promise<Connection>;
  /** Which tables to capture (Debezium include/exclude lists, already compiled). */
  tableFilter: (db: string, table: string) => boolean;
  lockingMode: LockingMode;
  /** Reads TableDefs for the given tables inside the snapshot transaction (the schema loader). */
  loadSchema: (conn: Connection, tables: Array<{ db: string; table: string }>) => Promise<TableDef[]>;
  /** Rows buffered between the socket and the emitter (the stream's high-water mark). Default 1024. */
  fetchSize?: number;
  /** Bound on waiting for a lock (lock_wait_timeout, whole seconds). Default 10 000 ms. */
  lockTimeoutMs?: number;
  /** Wait before starting (snapshot.delay.ms). */
  delayMs?: number;
  /** 'db.table' → SELECT statement (snapshot.select.statement.overrides). */
  selectOverrides?: Map<string, string>;
  /** false for schema-only snapshots (no_data / recovery): locks, position and onSchema, but no rows. */
  includeData?: boolean;
  /** With includeData: which tables' rows to read (default all); the chunked snapshot reads the others. */
  includeTableData?: (table: TableDef) => boolean;
  /** Test hook: runs on the table-lock path between listing the tables and locking them (the race window). */
  beforeTableLock?: (tables: CapturedTable[]) => Promise<void>;
  /** Connector user, named in the GRANT hint when LOCK TABLES is denied. */
  user?: string;
  logger: Logger;
  signal?: AbortSignal;
  emitter: SnapshotEmitter;
}

export interface SnapshotEmitter {
  /** The consistent point is established: position + the definitions of every captured table. */
  onSchema(tables: TableDef[], position: BinlogPosition): Promise<void>;
  /**
   * One row with its Debezium source.snapshot marker and source.ts_ms (the server's clock when its table's scan
   * began, read once per table as Debezium does). Awaiting it is the backpressure.
   */
  onRow(table: TableDef, row: Row, marker: SnapshotMarker, tsMs: number): Promise<void>;
  onTableDone?(table: TableDef, rows: number): Promise<void>;
  /** A table's scan starts / ended (not deferred like onTableDone, which waits for the table's held last row). */
  onTableScanStart?(table: TableDef): void;
  onTableScanned?(table: TableDef, rows: number): void;
}

export interface SnapshotResult {
  position: BinlogPosition;
  /** The lock actually used: 'global' (FTWRL), 'tables' (LOCK TABLES fallback) or 'none'. */
  lockMode: 'global' | 'tables' | 'none';
  /** Where the position came from: MariaDB's binlog_snapshot_* (exact for the transaction) or the binlog status. */
  positionSource: PositionSource;
  tables: TableDef[];
  /** Rows emitted per 'db.table'. */
  rows: Record<string, number>;
  totalRows: number;
  durationMs: number;
  /** How long writers to the captured tables could have been blocked: lock request → release (0 for none). */
  lockMs: number;
  /** Most rows held in memory between the socket and the emitter at any time. */
  peakBufferedRows: number;
  server: ServerVersion;
}

const DEFAULT_FETCH_SIZE = 1024;
/** Table-lock path: how often the list → lock → list again cycle is retried when the table set keeps changing. */
const MAX_TABLE_LOCK_ATTEMPTS = 5;

function isNoSuchTable(err: unknown): boolean {
  return sqlError(err).errno === ER.NO_SUCH_TABLE;
}

/** Null when both lists name the same tables, else a short description of the difference (names only). */
export function tableSetChange(locked: CapturedTable[], now: CapturedTable[]): string | null {
  const ids = (l: CapturedTable[]) => new Set(l.map((t) => tableId(t.db, t.table)));
  const a = ids(locked);
  const b = ids(now);
  const added = [...b].filter((id) => !a.has(id));
  const removed = [...a].filter((id) => !b.has(id));
  if (added.length === 0 && removed.length === 0) return null;
  return [added.length ? `new: ${added.join(', ')}` : '', removed.length ? `gone: ${removed.join(', ')}` : '']
    .filter(Boolean)
    .join('; ');
}
const DEFAULT_LOCK_TIMEOUT_MS = 10_000;
/** A slow sink pauses the socket; the server must not give up writing to it meanwhile (default is 60 s). */
const NET_WRITE_TIMEOUT_S = 24 * 3600;

export async function runConsistentSnapshot(opts: SnapshotOptions): Promise<SnapshotResult> {
  const log = opts.logger.child({ component: 'snapshot' });
  const signal = opts.signal;
  await abortableDelay(opts.delayMs ?? 0, signal);
  const started = performance.now();
  const lockTimeoutMs = opts.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;

  const scan = await connectOrFail(opts, 'scan');
  let lockConn: Connection | undefined;
  const onAbort = () => {
    // Dropping the sessions ends the transaction and releases every lock server-side at once.
    scan.destroy();
    lockConn?.destroy();
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  let lock: HeldLock | null = null;
  let lockMs = 0;
  let succeeded = false;
  try {
    const server = await detectServer(scan);
    await prepareScanSession(scan, server);
    checkAbort(signal);

    // 1. Lock (or not), and find the captured tables. Under the global lock the list cannot change; the table
    //    lock path must list first to know what to lock, so a table created (or dropped) between the listing and
    //    the lock would be missed: it lists again once the position is read and starts over when the set changed.
    let tables: CapturedTable[] = [];
    let position: BinlogPosition = { file: '', pos: 0, gtids: null };
    let positionSource: SnapshotResult['positionSource'] = 'binlog_status';
    let globalDenied = false;
    let retriedLockMs = 0;
    for (let attempt = 1; ; attempt++) {
      if (opts.lockingMode === 'none') {
        tables = await listCapturedTables(scan, opts.tableFilter);
      } else {
        if (!globalDenied) {
          lock = await tryGlobalReadLock(scan, lockTimeoutMs, log);
          globalDenied = lock === null;
        }
        tables = await listCapturedTables(scan, opts.tableFilter);
        if (!lock) {
          lockConn ??= await connectOrFail(opts, 'lock');
          checkAbort(signal);
          await opts.beforeTableLock?.(tables);
          try {
            lock = await lockTables(lockConn, tables, lockTimeoutMs, opts.user, log);
          } catch (err) {
            if (!(err instanceof SnapshotError && isNoSuchTable(err.cause)) || attempt >= MAX_TABLE_LOCK_ATTEMPTS)
              throw err;
            log.warn('a captured table was dropped before it could be locked; listing the tables again', { attempt });
            continue;
          }
        }
      }
      checkAbort(signal);

      // 2. The snapshot transaction and its position.
      await scan.query('SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ');
      ({ position, positionSource } = await startTransactionAt(scan, server, lock?.kind ?? 'none', log));
      checkAbort(signal);
      if (lock?.kind !== 'tables') break;
      // Every table created before the position is listed now; later CREATEs are in the binlog after it.
      const changed = tableSetChange(tables, await listCapturedTables(scan, opts.tableFilter));
      if (!changed) break;
      await scan.query('ROLLBACK');
      retriedLockMs += await lock.release();
      lock = null;
      if (attempt >= MAX_TABLE_LOCK_ATTEMPTS) {
        throw new SnapshotError(
          `the captured tables changed while they were being locked, ${attempt} times in a row (${changed}): ` +
            'tables are being created or dropped continuously. Retry when the DDL has finished, or grant RELOAD ' +
            'so the snapshot can take the global read lock (snapshot.locking.mode=minimal).',
          { retriable: true },
        );
      }
      log.warn('the captured tables changed between listing and locking them; locking again', { changed, attempt });
    }
    const lockMode = lock?.kind ?? 'none';
    log.info('captured tables', { count: tables.length, lockMode, lockingMode: opts.lockingMode });

    // 3. Schemas, read while DDL is still blocked.
    const defs = await loadSchemas(opts, scan, tables);
    const txTables = tables.filter((t) => t.transactional);
    const plainTables = tables.filter((t) => !t.transactional);

    // 4. Non-transactional tables are not covered by the snapshot's read view: in 'minimal' they are read
    //    while the lock still holds (their rows come first), then the lock goes.
    const keepLockForPlain = opts.lockingMode === 'minimal' && lock !== null && plainTables.length > 0;
    if (plainTables.length > 0) {
      log.warn('non-transactional tables are captured; they are only consistent while locked', {
        tables: plainTables.map((t) => `${tableId(t.db, t.table)}(${t.engine})`),
        lockedDuringRead: lock !== null && (opts.lockingMode === 'extended' || keepLockForPlain),
      });
    }
    if (opts.lockingMode === 'minimal' && lock && !keepLockForPlain) lockMs = await lock.release();

    // MariaDB's BINLOG_GTID_POS reads the binlog file; do it after the lock is gone where the lock allows.
    if (position.gtids === null) position.gtids = await gtidsFor(scan, server, position, log);

    await opts.emitter.onSchema(defs.ordered, { ...position });
    log.info('consistent point established', { ...position, positionSource, lockMode, lockMs: Math.round(lockMs) });

    // 5. Rows.
    const rows: Record<string, number> = {};
    let totalRows = 0;
    let peakBufferedRows = 0;
    if (opts.includeData !== false) {
      const sequencer = new MarkerSequencer(
        (t, r, m, ts) => opts.emitter.onRow(t, r, m, ts),
        async (t, n) => {
          await opts.emitter.onTableDone?.(t, n);
        },
      );
      const order = [...plainTables, ...txTables].filter(
        (t) => !opts.includeTableData || opts.includeTableData(defs.byId.get(tableId(t.db, t.table))!),
      );
      for (const [i, t] of order.entries()) {
        checkAbort(signal);
        const def = defs.byId.get(tableId(t.db, t.table))!;
        const sql = opts.selectOverrides?.get(tableId(t.db, t.table)) ?? defaultSelect(def);
        const t0 = performance.now();
        opts.emitter.onTableScanStart?.(def);
        sequencer.beginTable(def, await serverTimeMs(scan));
        const stats = await scanTable(scan, def, sql, {
          highWaterMark: opts.fetchSize ?? DEFAULT_FETCH_SIZE,
          signal,
          onRow: (row) => sequencer.row(row),
        });
        if (stats.missingColumns.length > 0) {
          log.warn('select override does not return every column; they are emitted as null', {
            table: tableId(t.db, t.table),
            columns: stats.missingColumns,
          });
        }
        opts.emitter.onTableScanned?.(def, stats.rows);
        await sequencer.endTable();
        rows[tableId(t.db, t.table)] = stats.rows;
        totalRows += stats.rows;
        peakBufferedRows = Math.max(peakBufferedRows, stats.peakBufferedRows);
        log.info('table scanned', {
          table: tableId(t.db, t.table),
          rows: stats.rows,
          ms: Math.round(performance.now() - t0),
          progress: `${i + 1}/${order.length}`,
        });
        if (keepLockForPlain && lock && i === plainTables.length - 1) lockMs = await lock.release();
      }
      await sequencer.finish();
    }
    if (keepLockForPlain && lock) lockMs = await lock.release(); // no-data runs

    // 6. Done: end the read-only transaction, then drop an 'extended' lock.
    await scan.query('COMMIT');
    if (lock) lockMs = await lock.release();
    lockMs += retriedLockMs; // writers also waited during attempts that found the table set changed
    const durationMs = performance.now() - started;
    log.info('snapshot completed', {
      tables: tables.length,
      rows: totalRows,
      ms: Math.round(durationMs),
      lockMs: Math.round(lockMs),
    });
    succeeded = true;
    return {
      position,
      lockMode,
      positionSource,
      tables: defs.ordered,
      rows,
      totalRows,
      durationMs,
      lockMs,
      peakBufferedRows,
      server,
    };
  } catch (err) {
    if (signal?.aborted) {
      throw new SnapshotError(`snapshot aborted: ${errorMessage(signal.reason)}`, { cause: signal.reason });
    }
    throw err;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    await closeConnection(scan, succeeded);
    if (lockConn) await closeConnection(lockConn, succeeded);
  }
}

async function prepareScanSession(conn: Connection, server: ServerVersion): Promise<void> {
  // TIMESTAMP text in UTC (text-values.ts relies on it); no server-side statement time limit on long scans.
  await conn.query("SET SESSION time_zone = '+00:00'");
  await conn.query('SET SESSION net_write_timeout = ?', [NET_WRITE_TIMEOUT_S]);
  if (server.flavor === 'mariadb') await conn.query('SET SESSION max_statement_time = 0');
  else if (server.major >= 8 || (server.major === 5 && server.minor >= 7)) {
    await conn.query('SET SESSION max_execution_time = 0');
  }
}

/**
 * START TRANSACTION WITH CONSISTENT SNAPSHOT and the binlog position belonging to it.
 * - Without a lock: snapshot-position.ts (Binlog_snapshot_* on MariaDB/Percona; on MySQL log_status or
 *   gtid_executed read before the read view, else refused).
 * - Under a lock no captured-table commit can happen, so the status read after the start matches; where the
 *   server offers Binlog_snapshot_* (MariaDB, Percona) that exact position is used.
 */
async function startTransactionAt(
  conn: Connection,
  server: ServerVersion,
  lockMode: 'global' | 'tables' | 'none',
  log: Logger,
): Promise<{ position: BinlogPosition; positionSource: SnapshotResult['positionSource'] }> {
  if (lockMode === 'none') {
    const { source, ...position } = await startLockFreeSnapshot(conn, server, false);
    return { position, positionSource: source };
  }
  await conn.query('START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY');
  const status = await readBinlogStatus(conn, server);
  const snap = await readSnapshotStatus(conn);
  if (snap) {
    if (lockMode === 'global' && (snap.file !== status.file || snap.pos !== status.pos)) {
      // Cannot happen under FTWRL; if it does, the snapshot's own position is the right one.
      log.warn('binlog_snapshot position differs from the binlog status under the global lock', {
        snapshot: { file: snap.file, pos: snap.pos },
        status: { file: status.file, pos: status.pos },
      });
    }
    return { position: { ...snap, gtids: snap.gtids ?? status.executedGtids }, positionSource: 'binlog_snapshot' };
  }
  return {
    position: { file: status.file, pos: status.pos, gtids: status.executedGtids },
    positionSource: 'binlog_status',
  };
}

async function gtidsFor(conn: Connection, server: ServerVersion, at: BinlogPosition, log: Logger) {
  if (server.flavor !== 'mariadb') return null;
  try {
    return await gtidsAt(conn, server, at, null);
  } catch (err) {
    log.warn('could not derive the GTID position for the snapshot; streaming will resume by file/position', {
      error: describeSqlError(err),
    });
    return null;
  }
}

async function loadSchemas(
  opts: SnapshotOptions,
  conn: Connection,
  tables: CapturedTable[],
): Promise<{ ordered: TableDef[]; byId: Map<string, TableDef> }> {
  const wanted = tables.map((t) => ({ db: t.db, table: t.table }));
  let loaded: TableDef[];
  try {
    loaded = wanted.length > 0 ? await opts.loadSchema(conn, wanted) : [];
  } catch (err) {
    if (err instanceof SnapshotError) throw err;
    throw new SnapshotError(`reading the captured tables' schemas failed: ${errorMessage(err)}`, {
      cause: err,
      retriable: !isPrivilegeError(err),
    });
  }
  const byId = new Map(loaded.map((d) => [tableId(d.database, d.name), d]));
  const absent = wanted.filter((w) => !byId.has(tableId(w.db, w.table)));
  if (absent.length > 0) {
    throw new SnapshotError(
      `the schema loader returned no definition for ${absent.map((a) => tableId(a.db, a.table)).join(', ')}`,
    );
  }
  return { ordered: wanted.map((w) => byId.get(tableId(w.db, w.table))!), byId };
}

async function connectOrFail(opts: SnapshotOptions, role: string): Promise<Connection> {
  try {
    return await opts.connect();
  } catch (err) {
    throw new SnapshotError(`could not open the snapshot's ${role} connection: ${describeSqlError(err)}`, {
      cause: err,
      retriable: !isPrivilegeError(err),
    });
  }
}

/** A failed snapshot's sessions are destroyed: that rolls back and unlocks without waiting on a stuck stream. */
async function closeConnection(conn: Connection, graceful: boolean): Promise<void> {
  if (!graceful) {
    conn.destroy();
    return;
  }
  try {
    await conn.end();
  } catch {
    conn.destroy();
  }
}

function checkAbort(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason ?? new Error('aborted');
}

function abortableDelay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new SnapshotError('snapshot aborted before it started'));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new SnapshotError('snapshot aborted before it started'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
