/**
 * The one place that reads the server's current binlog coordinates. MySQL 8.2 added SHOW BINARY LOG STATUS and
 * 8.4 removed SHOW MASTER STATUS; MariaDB (and MySQL before 8.2) only know SHOW MASTER STATUS. Version numbers
 * do not tell which (MySQL's versions jump to 26.x, forks add their own), so the statement that answered last is
 * tried first and a parse error (1064) switches to the other one.
 */
import { ER, errnoOf } from './server-errors.js';

/** What the reader needs of a connection (mysql2/promise Connection, Pool or PoolConnection). */
export interface StatusQueryable {
  query(sql: string, values?: unknown[]): Promise<[unknown, unknown]>;
}

export type BinlogStatusStatement = 'SHOW BINARY LOG STATUS' | 'SHOW MASTER STATUS';

export interface BinlogStatus {
  file: string;
  pos: number;
  /** MySQL's Executed_Gtid_Set (one line), null when GTIDs are off or on MariaDB (which does not print it). */
  executedGtids: string | null;
  /** The statement that answered. */
  statement: BinlogStatusStatement;
}

const MODERN: BinlogStatusStatement = 'SHOW BINARY LOG STATUS';
const LEGACY: BinlogStatusStatement = 'SHOW MASTER STATUS';

/** Learnt per process: one capture talks to one server, so after the first call only one statement is sent. */
let preferred: BinlogStatusStatement = MODERN;

function isParseError(err: unknown): boolean {
  return errnoOf(err) === ER.PARSE_ERROR;
}

/** GTID sets print with newlines after commas on MySQL; offsets want one line. */
export function oneLineGtids(s: unknown): string | null {
  const t = String(s ?? '').replace(/\s+/g, '');
  return t === '' ? null : t;
}

/**
 * The current binlog file/position (and MySQL's executed GTID set), or null when binary logging is off (the
 * statement answers with no row). Other errors (privileges, lost connection) are thrown as mysql2 raised them.
 */
export async function readBinlogStatus(conn: StatusQueryable): Promise<BinlogStatus | null> {
  const first = preferred;
  let statement = first;
  let rows: unknown;
  try {
    [rows] = await conn.query(statement);
  } catch (err) {
    if (!isParseError(err)) throw err;
    statement = first === MODERN ? LEGACY : MODERN;
    [rows] = await conn.query(statement);
  }
  preferred = statement;
  const r = (Array.isArray(rows) ? rows[0] : undefined) as Record<string, unknown> | undefined;
  if (!r?.File) return null;
  return {
    file: String(r.File),
    pos: Number(r.Position),
    executedGtids: oneLineGtids(r.Executed_Gtid_Set),
    statement,
  };
}

/** For tests: forget which statement answered last. */
export function resetBinlogStatusPreference(): void {
  preferred = MODERN;
}
