import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inspect } from 'node:util';
import type { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import {
  ConfigError,
  loadConfigWithSecrets,
  parseConfig,
  resolveSecrets,
  SecretResolutionError,
  type SecretsClient,
} from '../../../src/config/index.js';

const ARN = 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:prod/cdc-AbCdEf';
const PASSWORD = 'rds-generated-Pa55word!';

function stub(secret: unknown, calls: string[] = []): SecretsClient {
  return {
    async send(command: GetSecretValueCommand) {
      calls.push(command.input.SecretId ?? '');
      return { SecretString: typeof secret === 'string' ? secret : JSON.stringify(secret) };
    },
  };
}

const rds = {
  username: 'cdc_user',
  password: PASSWORD,
  host: 'prod.cluster-x.rds.amazonaws.com',
  port: 3307,
  engine: 'mysql',
  dbname: 'shop',
};

describe('resolveSecrets', () => {
  it('validation without the secret passes when the secret will supply host and credentials', () => {
    const c = parseConfig({ 'topic.prefix': 'shop', 'database.secret.arn': ARN });
    assert.deepEqual(c.database.secret, { arn: ARN, region: 'eu-central-1', resolved: false });
    assert.equal(c.database.hostname, '');
  });

  it('fills user/password, and host/port when not configured', async () => {
    const calls: string[] = [];
    const c = parseConfig({ 'topic.prefix': 'shop', 'database.secret.arn': ARN });
    const r = await resolveSecrets(c, { client: stub(rds, calls) });
    assert.deepEqual(calls, [ARN]);
    assert.equal(r.database.user, 'cdc_user');
    assert.equal(r.database.password.reveal(), PASSWORD);
    assert.equal(r.database.hostname, 'prod.cluster-x.rds.amazonaws.com');
    assert.equal(r.database.port, 3307);
    assert.equal(r.database.secret?.resolved, true);
    assert.ok(Object.isFrozen(r.database));
    for (const text of [JSON.stringify(r), inspect(r, { depth: 10 })]) assert.ok(!text.includes(PASSWORD));
    assert.equal(await resolveSecrets(r, { client: stub({}) }), r, 'already resolved: no second fetch');
  });

  it('configured host and port win over the secret; user and password come from the secret', async () => {
    const c = parseConfig({
      'topic.prefix': 'shop',
      'database.secret.arn': ARN,
      'database.hostname': 'proxy.local',
      'database.port': '6033',
      'database.user': 'old',
    });
    const r = await resolveSecrets(c, { client: stub(rds) });
    assert.equal(r.database.hostname, 'proxy.local');
    assert.equal(r.database.port, 6033);
    assert.equal(r.database.user, 'cdc_user');
  });

  it('no secret configured: returns the config unchanged without calling AWS', async () => {
    const c = parseConfig({ 'topic.prefix': 'shop', 'database.hostname': 'h', 'database.user': 'u' });
    assert.equal(await resolveSecrets(c, { client: stub({}) }), c);
  });

  it('a secret that is not JSON is a ConfigError that does not quote the content', async () => {
    const c = parseConfig({ 'topic.prefix': 'shop', 'database.secret.arn': ARN });
    await assert.rejects(resolveSecrets(c, { client: stub(`user=x password=${PASSWORD}`) }), (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.ok(!err.message.includes(PASSWORD));
      return true;
    });
  });

  it('a secret without host while hostname is unset, or for another engine, lists both problems', async () => {
    const c = parseConfig({ 'topic.prefix': 'shop', 'database.secret.arn': ARN });
    await assert.rejects(
      resolveSecrets(c, { client: stub({ username: 'u', password: PASSWORD, engine: 'postgres' }) }),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.problems.length === 2 &&
        err.problems.some((p) => p.property === 'database.hostname') &&
        !err.message.includes(PASSWORD),
    );
  });

  it('AWS failures become SecretResolutionError; not-found is not retriable, throttling is', async () => {
    const c = parseConfig({ 'topic.prefix': 'shop', 'database.secret.arn': ARN });
    const failing = (name: string): SecretsClient => ({
      async send() {
        throw Object.assign(new Error('boom'), { name });
      },
    });
    await assert.rejects(
      resolveSecrets(c, { client: failing('ResourceNotFoundException') }),
      (err: unknown) => err instanceof SecretResolutionError && !err.retriable && err.message.includes(ARN),
    );
    await assert.rejects(
      resolveSecrets(c, { client: failing('ThrottlingException') }),
      (err: unknown) => err instanceof SecretResolutionError && err.retriable,
    );
  });

  it('loadConfigWithSecrets runs the whole chain with the injected client', async () => {
    const r = await loadConfigWithSecrets({
      overrides: ['topic.prefix=shop', `database.secret.arn=${ARN}`],
      secretsClient: stub(rds),
    });
    assert.equal(r.database.user, 'cdc_user');
  });
});
