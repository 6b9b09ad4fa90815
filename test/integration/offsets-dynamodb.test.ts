/**
 * DynamoDB offsets and the lease (issue 13 item 3): the lease follows `offset.storage=dynamodb` by default (a
 * missing lease table is a start-up error naming the fix), `lease.enabled=false` gives unfenced commits that
 * work, and a store that cannot commit fails the task before anything is published. dynalite + private MariaDB.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { ConfigError, parseConfig } from '../../src/config/index.js';
import { ensureTable } from '../../src/stores/dynamodb/dynamo-common.js';
import { dynamoClient, STAND_IN_CREDENTIALS } from '../harness/aws.js';
import { useDynalite, useMariaDb } from '../harness/fixtures.js';
import { captureEnv, changes } from './support/capture.js';

process.env.AWS_ACCESS_KEY_ID ??= STAND_IN_CREDENTIALS.accessKeyId;
process.env.AWS_SECRET_ACCESS_KEY ??= STAND_IN_CREDENTIALS.secretAccessKey;

const db = useMariaDb();
const dynalite = useDynalite();

function dynamoOffsets(table: string): Record<string, string> {
  return {
    'aws.region': 'us-east-1',
    'offset.storage': 'dynamodb',
    'offset.storage.dynamodb.table': table,
    'offset.storage.dynamodb.endpoint': dynalite().endpoint,
    'offset.storage.dynamodb.table.create': 'true',
    'offset.storage.file.filename': '', // removes captureEnv's file store
  };
}

describe('offset.storage=dynamodb and the lease', () => {
  it('the lease follows DynamoDB offsets by default: no lease table is a config error naming the fix', () => {
    assert.throws(
      () => parseConfig({ 'topic.prefix': 'x', 'database.hostname': 'h', 'database.user': 'u', ...dynamoOffsets('o') }),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.problems.some((p) => p.property === 'lease.dynamodb.table' && /lease\.enabled=false/.test(p.fix)),
    );
  });

  it('with lease.enabled=false the capture commits its offsets and a restart does not republish the snapshot', async () => {
    const server = db();
    const name = await server.createDatabase('nolease');
    await server.query(`CREATE TABLE ${name}.t (id INT PRIMARY KEY)`);
    await server.query(`INSERT INTO ${name}.t VALUES (1),(2)`);
    const env = captureEnv(server, name, { ...dynamoOffsets('offsets_nolease'), 'lease.enabled': 'false' });
    const first = changes(await env.runUntilIdle(), 't');
    assert.deepEqual(
      first.map((v) => v.op),
      ['r', 'r'],
    );
    await server.query(`INSERT INTO ${name}.t VALUES (3)`);
    const second = changes(await env.runUntilIdle(), 't').slice(first.length);
    assert.deepEqual(
      second.map((v) => [v.op, (v.after as { id: number }).id]),
      [['c', 3]],
    );
  });

  it('with the default lease on, the capture runs, fenced, and resumes without republishing', async () => {
    const server = db();
    const name = await server.createDatabase('lease');
    await server.query(`CREATE TABLE ${name}.t (id INT PRIMARY KEY)`);
    await server.query(`INSERT INTO ${name}.t VALUES (1)`);
    const env = captureEnv(server, name, {
      ...dynamoOffsets('offsets_lease'),
      'lease.dynamodb.table': 'lease_default',
      'lease.dynamodb.endpoint': dynalite().endpoint,
    });
    assert.equal(env.config.lease.enabled, true);
    const first = changes(await env.runUntilIdle(), 't');
    await server.query(`INSERT INTO ${name}.t VALUES (2)`);
    const all = changes(await env.runUntilIdle(), 't');
    assert.deepEqual(
      all.map((v) => v.op),
      ['r', 'c'],
    );
    assert.equal(first.length, 1);
  });

  it('a store that cannot commit fails the task at start-up, before anything is published', async () => {
    const server = db();
    const name = await server.createDatabase('fenced');
    await server.query(`CREATE TABLE ${name}.t (id INT PRIMARY KEY)`);
    await server.query(`INSERT INTO ${name}.t VALUES (1)`);
    const env = captureEnv(server, name, { ...dynamoOffsets('offsets_fenced'), 'lease.enabled': 'false' });
    // A lease holder fenced the item (and died before its first commit): reads work, unfenced commits cannot.
    const client = dynamoClient(dynalite().endpoint);
    await ensureTable(client, 'offsets_fenced', 'connector');
    await client.send(
      new PutItemCommand({
        TableName: 'offsets_fenced',
        Item: { connector: { S: env.config.name }, fencingToken: { N: '3' } },
      }),
    );
    client.destroy();
    await assert.rejects(env.runUntilIdle(), /fenced by a lease holder.*lease\.enabled=true/);
    assert.deepEqual(env.lines(), []);
  });

  it('a missing offsets table (not created) fails at start-up, before anything is published', async () => {
    const server = db();
    const name = await server.createDatabase('probe');
    await server.query(`CREATE TABLE ${name}.t (id INT PRIMARY KEY)`);
    await server.query(`INSERT INTO ${name}.t VALUES (1)`);
    // A table that does not exist, not created: nothing can be committed (nor loaded) there.
    const env = captureEnv(server, name, {
      ...dynamoOffsets('offsets_missing'),
      'offset.storage.dynamodb.table.create': 'false',
      'lease.enabled': 'false',
    });
    await assert.rejects(env.runUntilIdle(), /offsets_missing|not found|ResourceNotFound/i);
    assert.deepEqual(env.lines(), []);
  });
});
