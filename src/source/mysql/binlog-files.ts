/** Questions about the server's binlog files that the start and the runners ask: which exist, where it is now. */
import type { Connection as PromiseConnection } from 'mysql2/promise';
import { CdcError, errorMessage } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { SourceOffset } from '../../model/source-offset.js';
import { readBinlogStatus } from './binlog-status.js';

/** SHOW BINARY LOGS: the file names the server still has, oldest first. */
export async function binaryLogs(conn: PromiseConnection): Promise<string[]> {
  const [rows] = await conn.query('SHOW BINARY LOGS');
  return (rows as Array<{ Log_name: string }>).map((r) => r.Log_name);
}

/** True when the server still has `file`; also true when that cannot be checked (the dump then says). */
export async function binlogFileExists(
  connect: () => Promise<PromiseConnection>,
  file: string,
  logger: Logger,
): Promise<boolean> {
  const conn = await connect();
  try {
    return (await binaryLogs(conn)).includes(file);
  } catch (err) {
    logger.warn('cannot list binary logs to check the stored offset', { error: errorMessage(err) });
    return true;
  } finally {
    await conn.end().catch(() => {});
  }
}

/** MariaDB: the GTID position at exactly `file`:`pos` (the server reads that binlog file from its start). */
export async function gtidsAtOn(conn: PromiseConnection, file: string, pos: number): Promise<string | null> {
  const [rows] = await conn.query('SELECT BINLOG_GTID_POS(?, ?) AS g', [file, pos]);
  const g = String((rows as Array<{ g: unknown }>)[0]?.g ?? '').replace(/\s+/g, '');
  return g === '' ? null : g;
}

/** The server's current position with the GTID set at exactly that point (MySQL prints it with the position). */
export async function currentPosition(
  connect: () => Promise<PromiseConnection>,
  flavor: 'mysql' | 'mariadb',
): Promise<SourceOffset> {
  const conn = await connect();
  try {
    const r = await readBinlogStatus(conn);
    if (!r) throw new CdcError('PREFLIGHT_FAILED', 'binary logging is off on the source: enable log_bin');
    const gtids = flavor === 'mariadb' ? await gtidsAtOn(conn, r.file, r.pos) : r.executedGtids;
    return { file: r.file, pos: r.pos, ...(gtids ? { gtids } : {}) };
  } finally {
    await conn.end().catch(() => {});
  }
}

/** MariaDB: the GTID position of a stored file/position (null, logged, when the server cannot say). */
export async function gtidsAtStored(
  connect: () => Promise<PromiseConnection>,
  file: string,
  pos: number,
  logger: Logger,
): Promise<string | null> {
  const conn = await connect();
  try {
    return await gtidsAtOn(conn, file, pos);
  } catch (err) {
    logger.warn('cannot derive the GTID position of the stored offset', { error: errorMessage(err) });
    return null;
  } finally {
    await conn.end().catch(() => {});
  }
}
