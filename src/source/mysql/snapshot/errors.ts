import { CdcError, type CdcErrorOptions } from '../../../common/errors.js';

/** The initial snapshot failed. `retriable` is set for transient causes (lock wait timeouts, lost connections). */
export class SnapshotError extends CdcError {
  constructor(message: string, options: CdcErrorOptions = {}) {
    super('SNAPSHOT_FAILED', message, options);
  }
}

/** The subset of a mysql2 server error we look at. */
export interface SqlErrorLike {
  errno?: number;
  code?: string;
  sqlMessage?: string;
  message?: string;
}

export function sqlError(err: unknown): SqlErrorLike {
  return typeof err === 'object' && err !== null ? (err as SqlErrorLike) : {};
}

// Server error numbers (include/mysqld_error.h); identical on MySQL and MariaDB for these.
export const ER_ACCESS_DENIED = 1045;
export const ER_DBACCESS_DENIED = 1044;
export const ER_TABLEACCESS_DENIED = 1142;
export const ER_SPECIFIC_ACCESS_DENIED = 1227;
export const ER_LOCK_WAIT_TIMEOUT = 1205;
export const ER_PARSE_ERROR = 1064;

/**
 * True when FLUSH TABLES WITH READ LOCK was refused for lack of privilege: RELOAD missing (1227), or the
 * 1045 "Access denied for user" Aurora/RDS return for it. Anything else (timeouts, lost connection) is not a
 * reason to fall back to table locks.
 */
export function isGlobalLockDenied(err: unknown): boolean {
  const e = sqlError(err);
  if (e.errno === ER_SPECIFIC_ACCESS_DENIED || e.errno === ER_ACCESS_DENIED) return true;
  return /RELOAD/i.test(e.sqlMessage ?? '') && /denied/i.test(e.sqlMessage ?? '');
}

export function isPrivilegeError(err: unknown): boolean {
  const n = sqlError(err).errno;
  return (
    n === ER_ACCESS_DENIED || n === ER_DBACCESS_DENIED || n === ER_TABLEACCESS_DENIED || n === ER_SPECIFIC_ACCESS_DENIED
  );
}

export function isLockWaitTimeout(err: unknown): boolean {
  return sqlError(err).errno === ER_LOCK_WAIT_TIMEOUT;
}

/** "ER_X (1234): message" for log lines and wrapped errors. */
export function describeSqlError(err: unknown): string {
  const e = sqlError(err);
  const msg = e.sqlMessage ?? e.message ?? String(err);
  return e.errno !== undefined ? `${e.code ?? 'ERROR'} (${e.errno}): ${msg}` : msg;
}
