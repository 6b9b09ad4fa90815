/**
 * Resume after a failover (issue 14 item 2), live on two MariaDB servers with the same binlog file names: B
 * replicates A by GTID (log_slave_updates, but without ANNOTATE_ROWS events, so the same transactions sit at other
 * offsets of B's `mariadb-bin.000001`). The capture moves from A to B like it would after an Aurora/RDS failover:
 * it must resume by GTID position (exactly the changes it has not read), never at A's file/position on B; and an
 * offset without a GTID position is refused on B with the fix. The DynamoDB materializer (on dynalite) then
 * applies everything read from both servers: B's positions are smaller than A's (A rotated to a later file), and
 * the server generation must order B's changes after A's.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { CreateTableCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { fromItem } from '../../lambdas/lib/dynamo-values.js';
import { createMaterializer } from '../../lambdas/materializer.js';
import { dynamoClient } from '../harness/aws.js';
import { useDynalite, useMariaDb } from '../harness/fixtures.js';
import type { MariaDbServer } from '../harness/mariadb.js';
import { waitFor } from '../harness/wait.js';
import { captureEnv, changes } from './support/capture.js';
import { kinesisEvent, quietTools } from './support/lambda-events.js';

const primary = useMariaDb({ serverId: 1 });
const replica = useMariaDb({
  serverId: 2,
  options: { 'log-slave-updates': true, 'replicate-annotate-row-events': false },
});
const dynalite = useDynalite();

async function gtidPos(s: MariaDbServer, variable: string): Promise<string> {
  const rows = await s.query<Array<{ v: string }>>(`SELECT @@global.${variable} AS v`);
  return String(rows[0].v);
}

test('a capture moved to another server resumes by GTID position; a file/position offset is refused there', {
  timeout: 120_000,
}, async () => {
  const a = primary();
  const b = replica();
  await b.query(
    `CHANGE MASTER TO MASTER_HOST='${a.host}', MASTER_PORT=${a.port}, MASTER_USER='${a.admin.user}', ` +
      `MASTER_PASSWORD='${a.admin.password}', MASTER_USE_GTID=slave_pos`,
  );
  await b.query('START SLAVE');
  const synced = async () => (await gtidPos(b, 'gtid_slave_pos')) === (await gtidPos(a, 'gtid_binlog_pos'));

  // A's later file: B goes on writing its first one, so B's positions compare below A's (a new server's files
  // start anew). FLUSH BINARY LOGS is not replicated.
  await a.query('FLUSH BINARY LOGS');
  const db = await a.createDatabase('failover');
  await a.query(`CREATE TABLE ${db}.t (id INT PRIMARY KEY, note VARCHAR(40))`);
  await a.query(`INSERT INTO ${db}.t VALUES (1, 'one'), (2, 'two')`);
  const onA = captureEnv(a, db);
  const first = await onA.runUntilIdle();
  assert.deepEqual(
    changes(first, 't').map((v) => v.op),
    ['r', 'r'],
  );
  await a.query(`INSERT INTO ${db}.t VALUES (3, 'three')`);
  const second = await onA.runUntilIdle();
  assert.deepEqual(
    changes(second.slice(first.length), 't').map((v) => (v.after as { id: number }).id),
    [3],
  );
  const offsetsFile = onA.props['offset.storage.file.filename'];
  const storedOnA = JSON.parse(readFileSync(offsetsFile, 'utf8')).offset;
  assert.equal(storedOnA.server_identity, 'mariadb:1');
  assert.match(storedOnA.gtids, /^0-1-\d+$/);

  // Changes the capture has not read yet, replicated to B; then the "failover": the capture now reads B.
  await a.query(`INSERT INTO ${db}.t VALUES (4, 'four')`);
  await a.query(`UPDATE ${db}.t SET note = 'uno' WHERE id = 1`);
  await waitFor('the replica to apply everything', synced);
  await b.query('STOP SLAVE');
  const [aFile] = await a.binlogFiles();
  const [bFile] = await b.binlogFiles();
  assert.equal(aFile.split('/').pop(), bFile.split('/').pop(), 'both servers write the same binlog file names');

  const props = {
    ...onA.props,
    'database.hostname': b.host,
    'database.port': String(b.port),
    'database.user': b.admin.user,
    'database.password': b.admin.password,
  };
  const onB = captureEnv(b, db, props);
  // The sink file is A's (props), which onA reads.
  const envB = {
    runUntilIdle: async () => {
      await onB.runUntilIdle();
      return onA.lines();
    },
  };
  const third = await envB.runUntilIdle();
  const moved = changes(third.slice(second.length), 't');
  assert.deepEqual(
    moved.map((v) => [v.op, (v.after as { id: number }).id]),
    [
      ['c', 4],
      ['u', 1],
    ],
  );
  const storedOnB = JSON.parse(readFileSync(offsetsFile, 'utf8')).offset;
  assert.equal(storedOnB.server_identity, 'mariadb:2');
  assert.equal(storedOnB.server_generation, 1);
  // New writes on B (now the primary) keep flowing after a restart on B.
  await b.query(`INSERT INTO ${db}.t VALUES (5, 'five')`);
  const fourth = await envB.runUntilIdle();
  assert.deepEqual(
    changes(fourth.slice(third.length), 't').map((v) => (v.after as { id: number }).id),
    [5],
  );

  // Everything read from A, then from B, materialised: B's update of row 1 sits at a smaller file/pos than A's
  // snapshot read of it, and must still win (server generation 1 > 0); B's records say their generation.
  const sinkLines = readFileSync(onA.props['sink.file.path'], 'utf8').split('\n').filter(Boolean);
  const fromB = sinkLines.slice(second.length).map((l) => JSON.parse(l) as { headers?: Record<string, unknown> });
  assert.deepEqual(
    fromB.map((l) => l.headers?.['__cdc.server_generation']),
    [1, 1, 1],
    'every record read on B says generation 1',
  );
  const dynamo = dynamoClient(dynalite().endpoint);
  await dynamo.send(
    new CreateTableCommand({
      TableName: `${db}.t`,
      AttributeDefinitions: [{ AttributeName: '__key', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: '__key', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  const materialize = createMaterializer({ dynamo, inputFormat: 'record', ...quietTools() });
  const batch = sinkLines.map((line, i) => ({
    shardId: 'shardId-000000000000',
    sequenceNumber: String(i + 1).padStart(20, '0'),
    partitionKey: 'k',
    data: Buffer.from(line),
  }));
  const result = await materialize(kinesisEvent(batch, 'it'));
  assert.deepEqual(result?.batchItemFailures, []);
  const items = (await dynamo.send(new ScanCommand({ TableName: `${db}.t`, ConsistentRead: true }))).Items ?? [];
  const materialized = items
    .map(fromItem)
    .filter((i) => i.__deleted === false)
    .map((i) => ({ id: Number(i.id), note: i.note }))
    .sort((x, y) => x.id - y.id);
  assert.deepEqual(materialized, await b.query(`SELECT id, note FROM ${db}.t ORDER BY id`));

  // An offset that only has a file/position (as on MySQL with gtid_mode=OFF) from A cannot resume on B.
  const file = JSON.parse(readFileSync(offsetsFile, 'utf8'));
  file.offset = { file: storedOnA.file, pos: storedOnA.pos, server_identity: 'mariadb:1' };
  writeFileSync(offsetsFile, JSON.stringify(file));
  await assert.rejects(envB.runUntilIdle(), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'BINLOG_POSITION_LOST');
    assert.match(err.message, /written on another server \(mariadb:1; this is mariadb:2\)/);
    assert.match(err.message, /snapshot\.mode=when_needed/);
    return true;
  });
});
