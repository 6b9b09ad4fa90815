/**
 * Opening connections and pools to the source database (mysql2/promise), with Debezium-style SSL modes and
 * connection errors turned into actionable `DatabaseConnectionError`s that never contain the password.
 */

import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { checkServerIdentity, type PeerCertificate } from 'node:tls';
import type { Connection, ConnectionOptions, Pool, PoolOptions, SslOptions } from 'mysql2/promise';
import mysql from 'mysql2/promise';
import { CdcError, type CdcErrorOptions } from '../../common/errors.js';
import { isInlinePem } from '../../common/inline-pem.js';
import { ER } from './server-errors.js';

export type SslMode = 'disabled' | 'preferred' | 'required' | 'verify_ca' | 'verify_identity';

export interface DatabaseConnectionOptions {
  host: string;
  port: number;
  user: string;
  password: string;
  database?: string;
  /** `ca`, `cert` and `key` are PEM file paths (`database.ssl.*`), read at each connect. */
  ssl: { mode: SslMode; ca?: string; cert?: string; key?: string };
  connectTimeoutMs?: number;
  charset?: string;
  /**
   * Allow the mysql_clear_password plugin (RDS/Aurora IAM tokens are checked that way). mysql2 refuses it unless
   * enabled; only set it where TLS is enforced (database.iam.authentication refuses database.ssl.mode=disabled).
   */
  cleartextPassword?: boolean;
}

export type ConnectionFailureReason = 'access_denied' | 'unreachable' | 'tls' | 'unknown_database' | 'other';

/** The source database could not be reached or refused us. `reason` says which, for callers and tests. */
export class DatabaseConnectionError extends CdcError {
  readonly reason: ConnectionFailureReason;
  constructor(message: string, reason: ConnectionFailureReason, options: CdcErrorOptions = {}) {
    super('CONNECTION_FAILED', message, options);
    this.reason = reason;
  }
}

/** Exact value typing every reader in this project relies on: big integers and DECIMALs as strings, dates as text. */
const VALUE_OPTIONS = {
  supportBigNumbers: true,
  bigNumberStrings: true,
  dateStrings: true,
  decimalNumbers: false,
} as const;

/**
 * mysql2 `ssl` for a mode; `undefined` means plain TCP. `preferred` maps to `required` (the caller falls back).
 * `host` decides how verify_identity is checked: mysql2 sends no SNI for an IP and Node would then match the
 * certificate against "localhost", so for IP hosts the chain is verified here and the name by assertServerIdentity.
 */
export function sslOptionsFor(ssl: DatabaseConnectionOptions['ssl'], host = ''): SslOptions | undefined {
  if (ssl.mode === 'disabled') return undefined;
  // The options are file paths (or inline PEM); TLS wants the PEM contents (a path string is not a certificate).
  const material: SslOptions = {};
  if (ssl.ca) material.ca = readPem(ssl.ca, 'database.ssl.ca');
  if (ssl.cert) material.cert = readPem(ssl.cert, 'database.ssl.cert');
  if (ssl.key) material.key = readPem(ssl.key, 'database.ssl.key');
  switch (ssl.mode) {
    case 'preferred':
    case 'required':
      // Encrypt, but like MySQL's REQUIRED mode do not authenticate the server.
      return { ...material, rejectUnauthorized: false, verifyIdentity: false };
    case 'verify_ca':
      // Chain must verify against the CA; the host name is not checked (mysql2 then skips checkServerIdentity).
      return { ...material, rejectUnauthorized: true, verifyIdentity: false };
    case 'verify_identity':
      return { ...material, rejectUnauthorized: true, verifyIdentity: isIP(host) === 0 };
    default: {
      const never: never = ssl.mode;
      throw new DatabaseConnectionError(
        `Unknown database.ssl.mode "${String(never)}": use disabled, preferred, required, verify_ca or verify_identity`,
        'other',
      );
    }
  }
}

function readPem(path: string, property: string): string {
  if (isInlinePem(path)) return path;
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new DatabaseConnectionError(`${property} names ${path}, which cannot be read (${code})`, 'tls', {
      cause: err,
    });
  }
}

function baseOptions(opts: DatabaseConnectionOptions, ssl: SslOptions | undefined): ConnectionOptions {
  return {
    host: opts.host,
    port: opts.port,
    user: opts.user,
    password: opts.password,
    ...(opts.database ? { database: opts.database } : {}),
    ...(ssl ? { ssl } : {}),
    connectTimeout: opts.connectTimeoutMs ?? 10_000,
    charset: opts.charset ?? 'utf8mb4',
    ...(opts.cleartextPassword ? { enableCleartextPlugin: true } : {}),
    ...VALUE_OPTIONS,
  };
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'PROTOCOL_CONNECTION_LOST',
]);

function isNoSslSupport(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e?.code === 'HANDSHAKE_NO_SSL_SUPPORT' || /does not support secure connection/i.test(e?.message ?? '');
}

function isTlsError(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  const code = e?.code ?? '';
  return (
    isNoSslSupport(err) ||
    /^(ERR_TLS|ERR_SSL|EPROTO$|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|HOSTNAME_MISMATCH)/.test(code) ||
    /certificate|\bSSL\b|\bTLS\b|altnames/i.test(e?.message ?? '')
  );
}

/** Maps a mysql2/socket error to a DatabaseConnectionError with a fix the operator can act on. */
export function toConnectionError(err: unknown, opts: DatabaseConnectionOptions): DatabaseConnectionError {
  if (err instanceof DatabaseConnectionError) return err;
  const e = err as { code?: string; errno?: number; message?: string };
  const code = e?.code ?? '';
  let detail = e?.message || code || String(err);
  // Defence in depth: the drivers do not echo passwords, but a message must never carry one.
  if (opts.password) detail = detail.split(opts.password).join('***');
  const where = `${opts.host}:${opts.port} as user "${opts.user}"`;
  let reason: ConnectionFailureReason;
  let hint: string;
  let retriable = false;
  if (code === 'ER_ACCESS_DENIED_ERROR' || code === 'ER_DBACCESS_DENIED_ERROR' || e?.errno === ER.ACCESS_DENIED_ERROR) {
    reason = 'access_denied';
    hint =
      'Check database.user and database.password, and that the user exists for the host the connector connects ' +
      `from (e.g. CREATE USER '${opts.user}'@'%' ...; SELECT user, host FROM mysql.user).`;
  } else if (code === 'ER_BAD_DB_ERROR') {
    reason = 'unknown_database';
    hint = `Check database.database: "${opts.database ?? ''}" does not exist on the server.`;
  } else if (isTlsError(err)) {
    reason = 'tls';
    hint = isNoSslSupport(err)
      ? 'The server does not offer TLS. Enable TLS on the server, or set database.ssl.mode to preferred or disabled.'
      : 'TLS negotiation or certificate verification failed. Check database.ssl.mode and database.ssl.ca ' +
        '(verify_ca needs the server CA; verify_identity also needs the host name to match the certificate; ' +
        'for Amazon RDS/Aurora use the RDS CA bundle).';
  } else if (NETWORK_CODES.has(code) || /connect ETIMEDOUT|timed? ?out/i.test(detail)) {
    reason = 'unreachable';
    retriable = true;
    hint =
      'Check database.hostname and database.port, that the server is running, and that security groups, ' +
      'network ACLs and firewalls allow this host to reach it.';
  } else {
    reason = 'other';
    retriable = NETWORK_CODES.has(code);
    hint = 'See the cause for details.';
  }
  return new DatabaseConnectionError(`Cannot connect to MySQL at ${where}: ${detail}. ${hint}`, reason, {
    cause: err,
    retriable,
  });
}

async function connectWith(opts: DatabaseConnectionOptions, ssl: SslOptions | undefined): Promise<Connection> {
  const conn = await mysql.createConnection(baseOptions(opts, ssl));
  if (opts.ssl.mode === 'verify_identity') {
    try {
      assertServerIdentity(conn, opts.host);
    } catch (err) {
      conn.destroy();
      throw err;
    }
  }
  return conn;
}

/**
 * mysql2 sends no SNI for IP hosts, and Node then checks the certificate against "localhost"; so re-check the
 * certificate against the configured host ourselves. Fails closed when the TLS socket cannot be inspected.
 */
function assertServerIdentity(conn: Connection, host: string): void {
  // mysql2 internals: the promise wrapper's core connection keeps the (TLS) socket in `stream`.
  const stream = (conn as unknown as { connection?: { stream?: { getPeerCertificate?: () => PeerCertificate } } })
    .connection?.stream;
  const cert = stream?.getPeerCertificate?.();
  if (!cert || Object.keys(cert).length === 0) {
    throw Object.assign(new Error('verify_identity: could not inspect the server certificate'), {
      code: 'ERR_TLS_CERT_ALTNAME_INVALID',
    });
  }
  const err = checkServerIdentity(host, cert);
  if (err) throw err;
}

/** Opens one connection. `preferred` tries TLS first and falls back to plain TCP when the server has no TLS. */
export async function openConnection(opts: DatabaseConnectionOptions): Promise<Connection> {
  const ssl = sslOptionsFor(opts.ssl, opts.host);
  try {
    return await connectWith(opts, ssl);
  } catch (err) {
    // Never fall back to plain TCP when the password travels in clear text (IAM tokens).
    if (opts.ssl.mode === 'preferred' && isNoSslSupport(err) && !opts.cleartextPassword) {
      try {
        return await connectWith(opts, undefined);
      } catch (err2) {
        throw toConnectionError(err2, opts);
      }
    }
    throw toConnectionError(err, opts);
  }
}

export interface OpenPoolOptions {
  connectionLimit?: number;
  idleTimeoutMs?: number;
}

/**
 * Opens a pool after proving one connection works, so bad credentials fail here with a clear error rather than
 * on first use. For `preferred`, a probe decides between TLS and plain TCP for the whole pool.
 */
export async function openPool(opts: DatabaseConnectionOptions, poolOpts: OpenPoolOptions = {}): Promise<Pool> {
  let ssl = sslOptionsFor(opts.ssl, opts.host);
  // The probe also re-checks the certificate's host name for verify_identity (see assertServerIdentity).
  if (opts.ssl.mode === 'preferred' || opts.ssl.mode === 'verify_identity') {
    try {
      const probe = await connectWith(opts, ssl);
      await probe.end();
    } catch (err) {
      if (opts.ssl.mode !== 'preferred' || !isNoSslSupport(err) || opts.cleartextPassword)
        throw toConnectionError(err, opts);
      ssl = undefined;
    }
  }
  const config: PoolOptions = {
    ...baseOptions(opts, ssl),
    connectionLimit: poolOpts.connectionLimit ?? 4,
    idleTimeout: poolOpts.idleTimeoutMs ?? 60_000,
  };
  const pool = mysql.createPool(config);
  try {
    const c = await pool.getConnection();
    c.release();
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw toConnectionError(err, opts);
  }
  return pool;
}
