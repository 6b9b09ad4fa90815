/**
 * MySQL/MariaDB server error numbers (include/mysqld_error.h, errmsg.h; the same on both for these) and what they
 * mean to the connector, listed once for the replication client, the snapshot, the preflight check and the
 * binlog-status reader.
 */

export const ER = {
  DBACCESS_DENIED_ERROR: 1044,
  ACCESS_DENIED_ERROR: 1045,
  UNKNOWN_COM_ERROR: 1047,
  CON_COUNT_ERROR: 1040,
  SERVER_SHUTDOWN: 1053,
  PARSE_ERROR: 1064,
  NORMAL_SHUTDOWN: 1077,
  TABLEACCESS_DENIED_ERROR: 1142,
  NO_SUCH_TABLE: 1146,
  ABORTING_CONNECTION: 1152,
  NET_READ_ERROR: 1158,
  NET_READ_INTERRUPTED: 1159,
  NET_ERROR_ON_WRITE: 1160,
  NET_WRITE_INTERRUPTED: 1161,
  LOCK_WAIT_TIMEOUT: 1205,
  SPECIFIC_ACCESS_DENIED_ERROR: 1227,
  NOT_SUPPORTED_YET: 1235,
  MASTER_FATAL_ERROR_READING_BINLOG: 1236,
  NOT_SUPPORTED_AUTH_MODE: 1251,
  QUERY_INTERRUPTED: 1317,
  TABLE_DEF_CHANGED: 1412,
  ACCESS_DENIED_NO_PASSWORD_ERROR: 1698,
  MUST_CHANGE_PASSWORD_LOGIN: 1862,
  CONNECTION_KILLED: 1927, // MariaDB
  ACCOUNT_HAS_BEEN_LOCKED: 3118,
  CLIENT_INTERACTION_TIMEOUT: 4031, // MySQL 8.0.24+
  MARIADB_ACCOUNT_HAS_BEEN_LOCKED: 4151,
  CR_SERVER_GONE_ERROR: 2006, // client side
  CR_SERVER_LOST: 2013, // client side
} as const;

/** Login refused: wrong credentials, locked or expired account, unsupported authentication. */
export const LOGIN_DENIED_ERRNOS: ReadonlySet<number> = new Set([
  ER.DBACCESS_DENIED_ERROR,
  ER.ACCESS_DENIED_ERROR,
  ER.NOT_SUPPORTED_AUTH_MODE,
  ER.ACCESS_DENIED_NO_PASSWORD_ERROR,
  ER.MUST_CHANGE_PASSWORD_LOGIN,
  ER.ACCOUNT_HAS_BEEN_LOCKED,
  ER.MARIADB_ACCOUNT_HAS_BEEN_LOCKED,
]);

/** A statement refused for a missing grant (REPLICATION SLAVE, RELOAD, SELECT on a table ...). */
export const PRIVILEGE_DENIED_ERRNOS: ReadonlySet<number> = new Set([
  ER.TABLEACCESS_DENIED_ERROR,
  ER.SPECIFIC_ACCESS_DENIED_ERROR,
]);

/** "Access denied" in the sense of the snapshot and preflight checks: at login for the user or database, or for a grant. */
export const ACCESS_DENIED_ERRNOS: ReadonlySet<number> = new Set([
  ER.DBACCESS_DENIED_ERROR,
  ER.ACCESS_DENIED_ERROR,
  ...PRIVILEGE_DENIED_ERRNOS,
]);

/** Answers to COM_REGISTER_SLAVE / COM_BINLOG_DUMP from an endpoint that cannot replicate. */
export const NO_REPLICATION_ERRNOS: ReadonlySet<number> = new Set([ER.UNKNOWN_COM_ERROR, ER.NOT_SUPPORTED_YET]);

/** Server errors about this session or the server's state, not about configuration: reconnecting helps. */
export const TRANSIENT_ERRNOS: ReadonlySet<number> = new Set([
  ER.CON_COUNT_ERROR,
  ER.SERVER_SHUTDOWN,
  ER.NORMAL_SHUTDOWN,
  ER.ABORTING_CONNECTION,
  ER.NET_READ_ERROR,
  ER.NET_READ_INTERRUPTED,
  ER.NET_ERROR_ON_WRITE,
  ER.NET_WRITE_INTERRUPTED,
  ER.LOCK_WAIT_TIMEOUT,
  ER.QUERY_INTERRUPTED,
  ER.CONNECTION_KILLED,
  ER.CLIENT_INTERACTION_TIMEOUT,
]);

/** The client lost the connection (client-side error numbers). */
export const CONNECTION_LOST_ERRNOS: ReadonlySet<number> = new Set([ER.CR_SERVER_GONE_ERROR, ER.CR_SERVER_LOST]);

/** The error number of a mysql2 error, if it has one. */
export function errnoOf(err: unknown): number | undefined {
  const n = typeof err === 'object' && err !== null ? (err as { errno?: unknown }).errno : undefined;
  return typeof n === 'number' ? n : undefined;
}
