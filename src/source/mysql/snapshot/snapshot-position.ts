/**
 * The binlog position of a snapshot read view taken without locks (snapshot.locking.mode=none, and every chunk
 * of the chunked snapshot). Every transaction at or before the position must be visible in the read view, else it
 * is missed by both the snapshot and the stream (or a stale `r` follows its change).
 *
 * - MariaDB and Percona Server: Binlog_snapshot_file/position (SHOW STATUS, inside START TRANSACTION WITH
 *   CONSISTENT SNAPSHOT) is the exact position of the read view: the server takes both under its commit-ordering
 *   lock. Percona 8 also gives Binlog_snapshot_gtid_executed.
 * - MySQL: File/Position advance at the binlog flush stage, before the engine commit, so SHOW BINARY LOG STATUS
 *   can name a transaction the read view does not see. performance_schema.log_status (8.0.17+, BACKUP_ADMIN)
 *   reads the binlog position and gtid_executed with commits blocked, so they agree: read before the read view is
 *   created, everything up to it is committed and visible. Without it, with gtid_mode=ON, @@gtid_executed (updated
 *   only after the engine commit) read before the read view is exact for a resume by GTID set (the file/position
 *   beside it is then only informational). Otherwise there is no lock-free exact position: refused with the fix.
 */

import type { Connection, RowDataPacket } from 'mysql2/promise';
import type { ServerVersion } from '../server-info.js';
import { describeSqlError, SnapshotError } from './errors.js';
import type { BinlogPosition } from './server.js';
import { readBinlogStatus } from './server.js';

export type PositionSource = 'binlog_snapshot' | 'log_status' | 'gtid_executed' | 'binlog_status';

export interface ReadViewPosition extends BinlogPosition {
  source: PositionSource;
}

/** Binlog_snapshot_* of the current transaction (MariaDB, Percona), null where the server has none. */
export async function readSnapshotStatus(conn: Connection): Promise<BinlogPosition | null> {
  const [rows] = await conn.query<RowDataPacket[]>("SHOW STATUS LIKE 'binlog_snapshot_%'");
  const get = (name: string) => rows.find((r) => String(r.Variable_name).toLowerCase() === name)?.Value;
  const file = get('binlog_snapshot_file');
  const pos = get('binlog_snapshot_position');
  if (!file || pos === undefined) return null;
  const gtids = String(get('binlog_snapshot_gtid_executed') ?? '').replace(/\s+/g, '');
  return { file: String(file), pos: Number(pos), gtids: gtids === '' ? null : gtids };
}

/**
 * MySQL, before START TRANSACTION WITH CONSISTENT SNAPSHOT: a position whose transactions are all committed.
 * `forWindows`: the chunked snapshot compares file/positions, so a GTID-only answer is not enough there.
 */
async function committedPositionBefore(
  conn: Connection,
  server: ServerVersion,
  forWindows: boolean,
): Promise<ReadViewPosition | null> {
  try {
    const [rows] = await conn.query<RowDataPacket[]>('SELECT LOCAL FROM performance_schema.log_status');
    const raw = rows[0]?.LOCAL;
    const local = (typeof raw === 'string' ? JSON.parse(raw) : raw) as {
      gtid_executed?: string;
      binary_log_file?: string;
      binary_log_position?: number;
    } | null;
    if (local?.binary_log_file) {
      const gtids = String(local.gtid_executed ?? '').replace(/\s+/g, '');
      return {
        file: local.binary_log_file,
        pos: Number(local.binary_log_position),
        gtids: gtids === '' ? null : gtids,
        source: 'log_status',
      };
    }
  } catch {
    // No such table (before 8.0.17, Aurora 2) or no BACKUP_ADMIN: try the GTID set.
  }
  if (forWindows) return null;
  const status = await readBinlogStatus(conn, server);
  const [rows] = await conn.query<RowDataPacket[]>(
    'SELECT @@global.gtid_mode AS mode, @@global.gtid_executed AS executed',
  );
  if (String(rows[0]?.mode ?? 'OFF').toUpperCase() !== 'ON') return null;
  const gtids = String(rows[0]?.executed ?? '').replace(/\s+/g, '');
  return { file: status.file, pos: status.pos, gtids: gtids === '' ? null : gtids, source: 'gtid_executed' };
}

/** The error for MySQL without a lock-free exact position. */
function noExactPosition(forWindows: boolean, cause?: unknown): SnapshotError {
  const what = forWindows ? 'The chunked snapshot (snapshot.chunked)' : 'snapshot.locking.mode=none';
  return new SnapshotError(
    `${what} needs a binlog position that only names committed transactions, and this MySQL server offers none: ` +
      'File/Position advance before the engine commit, so a transaction could be missed by both the snapshot and ' +
      'the stream. Grant BACKUP_ADMIN (performance_schema.log_status, MySQL 8.0.17+)' +
      (forWindows ? '' : ', or enable GTIDs (gtid_mode=ON)') +
      ', or use snapshot.locking.mode=minimal' +
      (forWindows ? ' without snapshot.chunked.' : '.'),
    cause === undefined ? {} : { cause },
  );
}

/**
 * Starts START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY without any lock, and returns the position that
 * belongs to its read view (see the module comment).
 */
export async function startLockFreeSnapshot(
  conn: Connection,
  server: ServerVersion,
  forWindows: boolean,
): Promise<ReadViewPosition> {
  let before: ReadViewPosition | null = null;
  if (server.flavor === 'mysql') {
    try {
      before = await committedPositionBefore(conn, server, forWindows);
    } catch (err) {
      throw new SnapshotError(`reading the snapshot position failed: ${describeSqlError(err)}`, { cause: err });
    }
  }
  await conn.query('START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY');
  const exact = await readSnapshotStatus(conn);
  if (exact) return { ...exact, gtids: exact.gtids ?? before?.gtids ?? null, source: 'binlog_snapshot' };
  if (server.flavor === 'mariadb') {
    // MariaDB without Binlog_snapshot_*: cannot happen on 10.x; fall back to the status inside the transaction.
    const status = await readBinlogStatus(conn, server);
    return { file: status.file, pos: status.pos, gtids: null, source: 'binlog_status' };
  }
  if (!before) {
    await conn.query('ROLLBACK').catch(() => {});
    throw noExactPosition(forWindows);
  }
  return before;
}
