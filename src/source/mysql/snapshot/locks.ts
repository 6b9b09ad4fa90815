/**
 * The two ways to freeze the captured tables while the snapshot transaction and binlog position are taken:
 * the global read lock (needs RELOAD) and, where that is denied (Aurora, RDS), LOCK TABLES ... READ on a
 * separate connection. Both measure how long writers could have been blocked: from the moment the lock was
 * requested (a pending lock already queues new writers) until it is released.
 */
import type { Connection } from 'mysql2/promise';
import type { Logger } from '../../../common/logger.js';
import { describeSqlError, isGlobalLockDenied, isLockWaitTimeout, isPrivilegeError, SnapshotError } from './errors.js';
import { lockWaitSeconds, quoteTable } from './sql.js';
import type { CapturedTable } from './tables.js';

export interface HeldLock {
  kind: 'global' | 'tables';
  /** When the lock statement was sent (performance.now()). */
  requestedAt: number;
  /** How long acquiring it took. */
  waitMs: number;
  /** Releases the lock (idempotent) and returns how long writers could have been blocked, in ms. */
  release(): Promise<number>;
}

function holder(kind: HeldLock['kind'], requestedAt: number, unlock: () => Promise<unknown>): HeldLock {
  let released: number | undefined;
  return {
    kind,
    requestedAt,
    waitMs: performance.now() - requestedAt,
    async release() {
      if (released === undefined) {
        await unlock();
        released = performance.now() - requestedAt;
      }
      return released;
    },
  };
}

/**
 * FLUSH TABLES WITH READ LOCK on `conn`, or null when the user lacks the privilege (the caller falls back to
 * table locks). Other failures throw: a lock wait timeout is retriable.
 */
export async function tryGlobalReadLock(conn: Connection, timeoutMs: number, log: Logger): Promise<HeldLock | null> {
  await conn.query('SET SESSION lock_wait_timeout = ?', [lockWaitSeconds(timeoutMs)]);
  const requestedAt = performance.now();
  try {
    await conn.query('FLUSH TABLES WITH READ LOCK');
  } catch (err) {
    if (isGlobalLockDenied(err)) {
      log.warn(
        'global read lock denied (no RELOAD privilege, as on Aurora/RDS); falling back to LOCK TABLES ... READ ' +
          'on the captured tables, held only while the snapshot transaction and binlog position are taken',
        { error: describeSqlError(err) },
      );
      return null;
    }
    if (isLockWaitTimeout(err)) {
      throw new SnapshotError(
        `FLUSH TABLES WITH READ LOCK did not get the lock within ${lockWaitSeconds(timeoutMs)} s ` +
          '(lockTimeoutMs): a long-running query or transaction holds a table open. Retry later, raise ' +
          'snapshot.lock.timeout.ms, or use snapshot.locking.mode=none.',
        { cause: err, retriable: true },
      );
    }
    throw new SnapshotError(`FLUSH TABLES WITH READ LOCK failed: ${describeSqlError(err)}`, { cause: err });
  }
  const lock = holder('global', requestedAt, () => conn.query('UNLOCK TABLES'));
  log.info('global read lock acquired', { waitMs: Math.round(lock.waitMs) });
  return lock;
}

/** The LOCK TABLES statement for `tables` (empty string when there is nothing to lock). */
export function lockTablesStatement(tables: ReadonlyArray<{ db: string; table: string }>): string {
  if (tables.length === 0) return '';
  return `LOCK TABLES ${tables.map((t) => `${quoteTable(t.db, t.table)} READ`).join(', ')}`;
}

/**
 * LOCK TABLES ... READ for every captured table on `conn`, which must be a connection of its own: starting a
 * transaction on the locking session would release its table locks implicitly.
 */
export async function lockTables(
  conn: Connection,
  tables: CapturedTable[],
  timeoutMs: number,
  user: string | undefined,
  log: Logger,
): Promise<HeldLock> {
  await conn.query('SET SESSION lock_wait_timeout = ?', [lockWaitSeconds(timeoutMs)]);
  const requestedAt = performance.now();
  const stmt = lockTablesStatement(tables);
  if (stmt) {
    try {
      await conn.query(stmt);
    } catch (err) {
      if (isPrivilegeError(err)) {
        const who = user ? `'${user}'@'%'` : '<connector user>';
        throw new SnapshotError(
          `LOCK TABLES was denied (${describeSqlError(err)}). The snapshot needs either RELOAD (global read lock) ` +
            `or LOCK TABLES on the captured tables: GRANT LOCK TABLES, SELECT ON *.* TO ${who}; ` +
            'or set snapshot.locking.mode=none (then schema changes during the snapshot are unsafe).',
          { cause: err },
        );
      }
      if (isLockWaitTimeout(err)) {
        throw new SnapshotError(
          `LOCK TABLES did not get the locks on ${tables.length} table(s) within ${lockWaitSeconds(timeoutMs)} s ` +
            '(lockTimeoutMs): a long-running transaction or DDL holds a metadata lock on one of them. Retry later ' +
            'or raise snapshot.lock.timeout.ms.',
          { cause: err, retriable: true },
        );
      }
      throw new SnapshotError(`LOCK TABLES failed: ${describeSqlError(err)}`, { cause: err });
    }
  }
  const lock = holder('tables', requestedAt, () => (stmt ? conn.query('UNLOCK TABLES') : Promise.resolve()));
  log.info('table read locks acquired', { tables: tables.length, waitMs: Math.round(lock.waitMs) });
  return lock;
}
