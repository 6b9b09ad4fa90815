/**
 * Connections for the capture task, rotation-friendly: when the database refuses our credentials and they came
 * from Secrets Manager (`database.secret.arn`), the secret is read again once and the connection retried, so a
 * rotated password is picked up without restarting the task.
 */
import type { Connection } from 'mysql2/promise';
import type { Logger } from '../../common/logger.js';
import { resolveSecrets, type SecretsClient } from '../../config/secrets.js';
import type { CdcConfig } from '../../config/types.js';
import { DatabaseConnectionError, type DatabaseConnectionOptions, openConnection } from './connection.js';

export function connectionOptionsFor(config: CdcConfig): DatabaseConnectionOptions {
  const { database } = config;
  return {
    host: database.hostname,
    port: database.port,
    user: database.user,
    password: database.password.reveal(),
    ssl: {
      mode: database.ssl.mode,
      ...(database.ssl.ca ? { ca: database.ssl.ca } : {}),
      ...(database.ssl.cert ? { cert: database.ssl.cert } : {}),
      ...(database.ssl.key ? { key: database.ssl.key } : {}),
    },
    connectTimeoutMs: database.connectTimeoutMs,
  };
}

/** Produces an RDS IAM authentication token for host/port/user (injectable for tests). */
export type IamTokenProvider = (o: {
  hostname: string;
  port: number;
  username: string;
  region: string | null;
}) => Promise<string>;

const defaultIamTokens: IamTokenProvider = async (o) => {
  const { Signer } = await import('@aws-sdk/rds-signer');
  const { region, ...where } = o;
  return new Signer({ ...where, ...(region ? { region } : {}) }).getAuthToken();
};

/** Tokens live 15 minutes; a fresh one is taken after 10 so a connection never starts with one about to expire. */
const IAM_TOKEN_REUSE_MS = 10 * 60_000;

export interface ConnectionFactoryOptions {
  config: CdcConfig;
  logger: Logger;
  /** RDS IAM token provider (tests); default: @aws-sdk/rds-signer with the standard credential chain. */
  iamTokens?: IamTokenProvider;
  /** Injected Secrets Manager client (tests). */
  secretsClient?: SecretsClient;
  /** Injected opener (tests). */
  open?: (opts: DatabaseConnectionOptions) => Promise<Connection>;
}

export function createConnectionFactory(options: ConnectionFactoryOptions): () => Promise<Connection> {
  const open = options.open ?? openConnection;
  let current = connectionOptionsFor(options.config);
  let refreshing: Promise<void> | null = null;
  const refresh = async () => {
    const secret = options.config.database.secret;
    if (!secret) return; // IAM only: a new token is taken below
    // Mark the secret unresolved on a copy so resolveSecrets reads it again.
    const unresolved = {
      ...options.config,
      database: { ...options.config.database, secret: { ...secret, resolved: false } },
    } as CdcConfig;
    const fresh = await resolveSecrets(unresolved, options.secretsClient ? { client: options.secretsClient } : {});
    current = connectionOptionsFor(fresh);
    options.logger.info('re-read database credentials from Secrets Manager after an authentication failure');
  };
  const iam = options.config.database.iam;
  let token: { value: string; at: number } | null = null;
  const withIamToken = async (o: DatabaseConnectionOptions): Promise<DatabaseConnectionOptions> => {
    if (!iam.enabled) return o;
    if (!token || Date.now() - token.at > IAM_TOKEN_REUSE_MS) {
      const value = await (options.iamTokens ?? defaultIamTokens)({
        hostname: o.host,
        port: o.port,
        username: o.user,
        region: iam.region,
      });
      token = { value, at: Date.now() };
    }
    // RDS/Aurora verify IAM tokens through the mysql_clear_password plugin.
    return { ...o, password: token.value, cleartextPassword: true };
  };
  return async () => {
    try {
      return await open(await withIamToken(current));
    } catch (err) {
      const canRefresh =
        err instanceof DatabaseConnectionError &&
        err.reason === 'access_denied' &&
        (options.config.database.secret !== null || iam.enabled);
      if (!canRefresh) throw err;
      refreshing ??= refresh().finally(() => {
        refreshing = null;
      });
      await refreshing;
      token = null;
      return open(await withIamToken(current));
    }
  };
}
