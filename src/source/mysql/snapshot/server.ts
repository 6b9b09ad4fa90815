/**
 * Server facts the snapshot needs: flavor/version (which status statement exists), the binlog position and the
 * GTID set. Every read here is a plain query on the caller's connection, so the caller decides what lock or
 * transaction it runs under.
 */
import type { Connection, RowDataPacket } from 'mysql2/promise';
import { readBinlogStatus as readStatus } from '../binlog-status.js';
import { parseServerVersion, type ServerVersion } from '../server-info.js';
import { describeSqlError, isPrivilegeError, SnapshotError } from './errors.js';

export interface BinlogPosition {
  file: string;
  pos: number;
  gtids: string | null;
}

export async function detectServer(conn: Connection): Promise<ServerVersion> {
  const [rows] = await conn.query<RowDataPacket[]>('SELECT VERSION() AS v');
  return parseServerVersion(String(rows[0].v));
}

/** GTID sets print with newlines after commas on MySQL; offsets want one line. */
export function normalizeGtids(s: string | null | undefined): string | null {
  const t = (s ?? '').replace(/\s+/g, '');
  return t === '' ? null : t;
}

/**
 * The server's current binlog coordinates (and, on MySQL, the executed GTID set printed with them, which is
 * read atomically with the position). Which status statement exists is decided in ../binlog-status.ts.
 */
export async function readBinlogStatus(
  conn: Connection,
  _server?: ServerVersion,
): Promise<{ file: string; pos: number; executedGtids: string | null }> {
  let status: Awaited<ReturnType<typeof readStatus>>;
  try {
    status = await readStatus(conn);
  } catch (err) {
    if (isPrivilegeError(err)) {
      throw new SnapshotError(
        `SHOW BINARY LOG STATUS / SHOW MASTER STATUS was denied (${describeSqlError(err)}): the connector user needs ` +
          `GRANT REPLICATION CLIENT ON *.* (BINLOG MONITOR on MariaDB 10.5+).`,
        { cause: err },
      );
    }
    throw err;
  }
  if (!status) {
    throw new SnapshotError(
      'SHOW BINARY LOG STATUS / SHOW MASTER STATUS returned no binlog position: binary logging is disabled. Enable ' +
        'it (log_bin, binlog_format=ROW) before capturing changes; a snapshot without a position cannot be followed ' +
        'by streaming.',
    );
  }
  return { file: status.file, pos: status.pos, executedGtids: status.executedGtids };
}

/**
 * The GTID set matching `at`. MariaDB: BINLOG_GTID_POS(file, pos) computes it for exactly that position (it reads
 * the binlog file from its start, a one-off cost); MySQL: the Executed_Gtid_Set read together with the position.
 * Returns null when GTIDs are not in use or cannot be derived (streaming then resumes by file/position).
 */
export async function gtidsAt(
  conn: Connection,
  server: ServerVersion,
  at: { file: string; pos: number },
  executedGtids: string | null,
): Promise<string | null> {
  if (server.flavor === 'mysql') return executedGtids;
  const [rows] = await conn.query<RowDataPacket[]>('SELECT BINLOG_GTID_POS(?, ?) AS g', [at.file, at.pos]);
  return normalizeGtids(rows[0]?.g as string | null);
}

/**
 * The server's CURRENT_TIMESTAMP in epoch milliseconds, whole seconds as Debezium reads it (once per snapshot
 * table) for source.ts_ms. UNIX_TIMESTAMP keeps the reading independent of the session's time_zone.
 */
export async function serverTimeMs(conn: Connection): Promise<number> {
  const [rows] = await conn.query<RowDataPacket[]>('SELECT UNIX_TIMESTAMP(CURRENT_TIMESTAMP) AS ts');
  return Math.floor(Number(rows[0]?.ts)) * 1000;
}
