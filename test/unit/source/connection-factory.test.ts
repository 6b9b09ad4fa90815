import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Connection } from 'mysql2/promise';
import { silentLogger } from '../../../src/common/logger.js';
import { parseConfig } from '../../../src/config/index.js';
import { resolveSecrets, type SecretsClient } from '../../../src/config/secrets.js';
import { DatabaseConnectionError, type DatabaseConnectionOptions } from '../../../src/source/mysql/connection.js';
import { createConnectionFactory } from '../../../src/source/mysql/connection-factory.js';

// The database and Secrets Manager are replaced by functions here: what is tested is the retry decision.
function secrets(passwords: string[]): SecretsClient & { calls: number } {
  const client = {
    calls: 0,
    async send() {
      const password = passwords[Math.min(client.calls++, passwords.length - 1)];
      return { SecretString: JSON.stringify({ username: 'cdc', password, host: 'db.local', port: 3306 }) };
    },
  };
  return client;
}

const base = {
  'topic.prefix': 't',
  'database.secret.arn': 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:db-AbCdEf',
  'database.server.id': '1',
};

test('a rotated password is read again from Secrets Manager after an access-denied error', async () => {
  const sm = secrets(['old', 'new']);
  const config = await resolveSecrets(parseConfig(base), { client: sm });
  const seen: string[] = [];
  const connect = createConnectionFactory({
    config,
    logger: silentLogger,
    secretsClient: sm,
    open: async (o: DatabaseConnectionOptions) => {
      seen.push(o.password);
      if (o.password !== 'new') throw new DatabaseConnectionError('Access denied for user cdc', 'access_denied');
      return {} as Connection;
    },
  });
  await connect();
  assert.deepEqual(seen, ['old', 'new']);
  assert.equal(sm.calls, 2);
});

test('other connection errors are not retried and do not touch the secret', async () => {
  const sm = secrets(['pw']);
  const config = await resolveSecrets(parseConfig(base), { client: sm });
  const connect = createConnectionFactory({
    config,
    logger: silentLogger,
    secretsClient: sm,
    open: async () => {
      throw new DatabaseConnectionError('connect ECONNREFUSED', 'unreachable');
    },
  });
  await assert.rejects(connect(), /ECONNREFUSED/);
  assert.equal(sm.calls, 1);
});

test('database.iam.authentication signs in with an RDS IAM token instead of the password, reused across connects', async () => {
  const config = parseConfig({
    'topic.prefix': 't',
    'database.hostname': 'db.cluster-x.eu-west-1.rds.amazonaws.com',
    'database.user': 'cdc_iam',
    'database.server.id': '1',
    'database.ssl.mode': 'verify_identity',
    'database.iam.authentication': 'true',
    'database.iam.region': 'eu-west-1',
  });
  const asked: Array<{ hostname: string; port: number; username: string; region: string | null }> = [];
  const passwords: string[] = [];
  const connect = createConnectionFactory({
    config,
    logger: silentLogger,
    iamTokens: async (o) => {
      asked.push(o);
      return `token-${asked.length}`;
    },
    open: async (o: DatabaseConnectionOptions) => {
      passwords.push(o.password);
      return {} as Connection;
    },
  });
  await connect();
  await connect();
  assert.deepEqual(passwords, ['token-1', 'token-1']);
  assert.deepEqual(asked, [
    { hostname: 'db.cluster-x.eu-west-1.rds.amazonaws.com', port: 3306, username: 'cdc_iam', region: 'eu-west-1' },
  ]);
});

test('IAM authentication without TLS is a configuration error naming the fix', () => {
  assert.throws(
    () =>
      parseConfig({
        'topic.prefix': 't',
        'database.hostname': 'h',
        'database.user': 'u',
        'database.ssl.mode': 'disabled',
        'database.iam.authentication': 'true',
      }),
    /database\.ssl\.mode[\s\S]*verify_identity/,
  );
});
