import { CdcError, type CdcErrorOptions } from '../../../common/errors.js';
import { ACCESS_DENIED_ERRNOS, ER } from '../server-errors.js';

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

/**
 * True when FLUSH TABLES WITH READ LOCK was refused for lack of privilege: RELOAD missing (1227), or the
 * 1045 "Access denied for user" Aurora/RDS return for it. Anything else (timeouts, lost connection) is not a
 * reason to fall back to table locks.
 */
export function isGlobalLockDenied(err: unknown): boolean {
  const e = sqlError(err);
  if (e.errno === ER.SPECIFIC_ACCESS_DENIED_ERROR || e.errno === ER.ACCESS_DENIED_ERROR) return true;
  return /RELOAD/i.test(e.sqlMessage ?? '') && /denied/i.test(e.sqlMessage ?? '');
}

export function isPrivilegeError(err: unknown): boolean {
  const n = sqlError(err).errno;
  return n !== undefined && ACCESS_DENIED_ERRNOS.has(n);
}

export function isLockWaitTimeout(err: unknown): boolean {
  return sqlError(err).errno === ER.LOCK_WAIT_TIMEOUT;
}

/** "ER_X (1234): message" for log lines and wrapped errors. */
export function describeSqlError(err: unknown): string {
  const e = sqlError(err);
  const msg = e.sqlMessage ?? e.message ?? String(err);
  return e.errno !== undefined ? `${e.code ?? 'ERROR'} (${e.errno}): ${msg}` : msg;
}
