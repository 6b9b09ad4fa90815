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

export interface ConnectionFactoryOptions {
  config: CdcConfig;
  logger: Logger;
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
    if (!secret) return;
    // Mark the secret unresolved on a copy so resolveSecrets reads it again.
    const unresolved = {
      ...options.config,
      database: { ...options.config.database, secret: { ...secret, resolved: false } },
    } as CdcConfig;
    const fresh = await resolveSecrets(unresolved, options.secretsClient ? { client: options.secretsClient } : {});
    current = connectionOptionsFor(fresh);
    options.logger.info('re-read database credentials from Secrets Manager after an authentication failure');
  };
  return async () => {
    try {
      return await open(current);
    } catch (err) {
      const canRefresh =
        err instanceof DatabaseConnectionError && err.reason === 'access_denied' && options.config.database.secret;
      if (!canRefresh) throw err;
      refreshing ??= refresh().finally(() => {
        refreshing = null;
      });
      await refreshing;
      return open(current);
    }
  };
}
