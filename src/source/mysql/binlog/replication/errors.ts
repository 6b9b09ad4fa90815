/**
 * Transport errors and the mapping from mysql2 / server errors onto them. Messages name what was requested and
 * what to do; they never include credentials (mysql2's own messages do not either).
 */
import { CdcError, errorMessage } from '../../../../common/errors.js';
import {
  ER,
  LOGIN_DENIED_ERRNOS,
  NO_REPLICATION_ERRNOS,
  PRIVILEGE_DENIED_ERRNOS,
  TRANSIENT_ERRNOS,
} from '../../server-errors.js';
import type { BinlogStartPosition } from './types.js';

/** The requested binlog position or GTID is not on the server any more (or never was). Not retriable. */
export class BinlogPositionLostError extends CdcError {
  readonly requested: BinlogStartPosition;
  readonly serverMessage: string;
  constructor(requested: BinlogStartPosition, serverMessage: string, options: { cause?: unknown } = {}) {
    super(
      'BINLOG_POSITION_LOST',
      `The server cannot stream from ${describePosition(requested)}: ${serverMessage}. ` +
        'The changes since that point are no longer in its binlogs (purged, or the position/GTID is not on this ' +
        'server). Take a new snapshot (or run with snapshot.mode=when_needed so one is taken automatically), and ' +
        'increase binlog retention (binlog_expire_logs_seconds / expire_logs_days) so a stopped connector can resume.',
      { ...options, retriable: false },
    );
    this.requested = requested;
    this.serverMessage = serverMessage;
  }
}

/** The binlog stream failed or could not be set up. `retriable` says whether reconnecting can help. */
export class BinlogStreamError extends CdcError {
  /** Server error number, when the server sent one. */
  readonly errno: number | undefined;
  constructor(message: string, options: { cause?: unknown; retriable: boolean; errno?: number }) {
    super('BINLOG_STREAM', message, options);
    this.errno = options.errno;
  }
}

/**
 * What a failover looks like for a few seconds to minutes (Aurora/RDS): the endpoint still resolves to the old
 * writer, now a reader with binary logging closed ("binary log is not open") or read-only. Retriable, but only for
 * a bounded time (ResilientBinlogStream's failoverRetryMs), after which it is reported with its fix.
 */
export class BinlogFailoverError extends BinlogStreamError {
  constructor(message: string, options: { cause?: unknown; errno?: number } = {}) {
    super(message, { ...options, retriable: true });
  }
}

/** Authentication or privilege failure: fatal until the configuration changes. */
export class BinlogAuthError extends CdcError {
  readonly errno: number | undefined;
  constructor(message: string, options: { cause?: unknown; errno?: number } = {}) {
    super('CONNECTION_FAILED', message, { ...options, retriable: false });
    this.errno = options.errno;
  }
}

export function describePosition(p: BinlogStartPosition): string {
  return 'gtidSet' in p ? `GTID set '${p.gtidSet}'` : `binlog file '${p.file}' position ${p.pos}`;
}

/** The fields mysql2 puts on errors (server errors have errno + sqlMessage; socket errors a string code). */
interface Mysql2ErrorFields {
  code?: unknown;
  errno?: unknown;
  sqlMessage?: unknown;
  fatal?: unknown;
}

/**
 * Maps anything thrown while connecting or streaming onto a transport error. Errors that already are CdcErrors
 * pass through unchanged.
 */
export function classifyError(
  err: unknown,
  requested: BinlogStartPosition,
  serverId: number,
  loggedIn = false,
): CdcError {
  if (err instanceof CdcError) return err;
  const f = (typeof err === 'object' && err !== null ? err : {}) as Mysql2ErrorFields;
  // Only server error packets carry sqlMessage; socket errors have negative OS errnos (ECONNREFUSED = -111).
  const errno = typeof f.errno === 'number' && typeof f.sqlMessage === 'string' ? f.errno : undefined;
  const code = typeof f.code === 'string' ? f.code : undefined;
  const serverMessage = typeof f.sqlMessage === 'string' ? f.sqlMessage : errorMessage(err);

  if (errno === ER.MASTER_FATAL_ERROR_READING_BINLOG) {
    if (/binary log is not open/i.test(serverMessage)) {
      return new BinlogFailoverError(
        `The server's binary log is not open: ${serverMessage}. Right after an Aurora/RDS failover the endpoint ` +
          'can still reach the old writer (now a reader); otherwise binary logging is off: enable it (log_bin, ' +
          'binlog_format=ROW; on Aurora set binlog_format in the DB cluster parameter group).',
        { cause: err, errno },
      );
    }
    if (/same server_uuid|same server[_ ]id/i.test(serverMessage)) {
      return new BinlogStreamError(
        `Another replica connected with server id ${serverId} and the server dropped this stream: ` +
          `${serverMessage}. Give every connector and replica of this server a distinct serverId.`,
        { cause: err, retriable: false, errno },
      );
    }
    if (/max_allowed_packet/i.test(serverMessage)) {
      return new BinlogStreamError(
        `The server cannot send an event larger than its max_allowed_packet: ${serverMessage}. ` +
          'Increase max_allowed_packet on the server (it also caps replication events).',
        { cause: err, retriable: false, errno },
      );
    }
    return new BinlogPositionLostError(requested, serverMessage, { cause: err });
  }
  // Once logged in, "access denied" (MariaDB answers COM_BINLOG_DUMP with 1045) means a missing privilege.
  if (errno !== undefined && (PRIVILEGE_DENIED_ERRNOS.has(errno) || (loggedIn && LOGIN_DENIED_ERRNOS.has(errno)))) {
    return new BinlogAuthError(
      `The user lacks a privilege binlog replication needs: ${serverMessage}. ` +
        'Grant it REPLICATION SLAVE and REPLICATION CLIENT (MariaDB: REPLICATION SLAVE, BINLOG MONITOR).',
      { cause: err, errno },
    );
  }
  if (loggedIn && errno !== undefined && NO_REPLICATION_ERRNOS.has(errno)) {
    // A proxy (RDS Proxy, ProxySQL without fast_forward) or a server that does not speak the replication protocol.
    return new BinlogStreamError(
      `The endpoint does not support binlog replication: ${serverMessage}. If database.hostname is a proxy (RDS ` +
        "Proxy, ProxySQL), connect to the database's writer or instance endpoint instead.",
      { cause: err, retriable: false, errno },
    );
  }
  if ((errno !== undefined && LOGIN_DENIED_ERRNOS.has(errno)) || code === 'HANDSHAKE_NO_SSL_SUPPORT') {
    return new BinlogAuthError(
      `Cannot log in for binlog replication: ${serverMessage}. Check the user name, password and TLS settings.`,
      { cause: err, errno },
    );
  }
  if (errno !== undefined && !TRANSIENT_ERRNOS.has(errno) && errno < 2000) {
    // Other server errors come from our own setup statements: a server this client does not support.
    return new BinlogStreamError(`The server refused the binlog replication setup: ${serverMessage}`, {
      cause: err,
      retriable: false,
      errno,
    });
  }
  return new BinlogStreamError(`Binlog connection failed: ${serverMessage}${code ? ` (${code})` : ''}`, {
    cause: err,
    retriable: true,
    errno,
  });
}
