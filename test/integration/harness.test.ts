import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CreateTableCommand, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { PutRecordsCommand } from '@aws-sdk/client-kinesis';
import {
  createStream,
  dynamoClient,
  kinesisClient,
  readAllRecords,
  startDynalite,
  startKinesalite,
} from '../harness/aws.js';
import { useMariaDb } from '../harness/fixtures.js';
import { startMariaDb } from '../harness/mariadb.js';
import { waitFor } from '../harness/wait.js';

describe('MariaDB harness', () => {
  const db = useMariaDb({ serverId: 4242 });

  it('starts with binlog ROW/FULL/FULL and the requested server id', async () => {
    const [v] = await db().query<Array<Record<string, unknown>>>(
      'SELECT @@log_bin AS log_bin, @@binlog_format AS fmt, @@binlog_row_image AS img, ' +
        '@@binlog_row_metadata AS meta, @@server_id AS sid, @@character_set_server AS cs',
    );
    assert.deepEqual(v, { log_bin: 1, fmt: 'ROW', img: 'FULL', meta: 'FULL', sid: 4242, cs: 'utf8mb4' });
    assert.equal(db().serverId, 4242);
    const files = await db().binlogFiles();
    assert.ok(files.length >= 1);
    for (const f of files) {
      assert.ok(f.startsWith(db().binlogBasename), f);
      assert.ok(existsSync(f), `binlog file ${f} exists`);
    }
  });

  it('keeps its own set-up (users) out of the binlog', async () => {
    const events = await db().query<Array<{ Info: string }>>(
      `SHOW BINLOG EVENTS IN '${(await db().binlogFiles())[0].split('/').pop()}'`,
    );
    assert.ok(!events.some((e) => /cdc_admin|cdc_aurora/.test(e.Info)), 'no user DDL in the binlog');
  });

  it('creates unique databases and users with grants', async () => {
    const a = await db().createDatabase('x');
    const b = await db().createDatabase('x');
    assert.match(a, /^t_x_[0-9a-f]+$/);
    assert.notEqual(a, b);
    const u = await db().createUser('reader', [`SELECT ON \`${a}\`.*`]);
    const c = await db().connect({ ...u, database: a });
    try {
      await c.query('SELECT 1');
      await assert.rejects(c.query(`CREATE TABLE \`${a}\`.t (id INT)`), /denied/i);
    } finally {
      await c.end();
    }
  });

  it('admin can take the global read lock', async () => {
    const c = await db().connect();
    try {
      await c.query('FLUSH TABLES WITH READ LOCK');
      await c.query('UNLOCK TABLES');
    } finally {
      await c.end();
    }
  });

  it('aurora user: FLUSH TABLES WITH READ LOCK is denied, LOCK TABLES and binlog reads work', async () => {
    const dbName = await db().createDatabase('aur');
    await db().query(`CREATE TABLE \`${dbName}\`.t (id INT PRIMARY KEY)`);
    const c = await db().connect({ ...db().aurora, database: dbName });
    try {
      await assert.rejects(c.query('FLUSH TABLES WITH READ LOCK'), (err: { code?: string }) => {
        assert.equal(err.code, 'ER_SPECIFIC_ACCESS_DENIED_ERROR');
        return true;
      });
      await c.query('LOCK TABLES t READ');
      const [rows] = await c.query('SELECT COUNT(*) AS n FROM t');
      assert.deepEqual(rows, [{ n: 0 }]);
      await c.query('UNLOCK TABLES');
      const [status] = await c.query('SHOW MASTER STATUS');
      assert.equal((status as unknown[]).length, 1);
    } finally {
      await c.end();
    }
  });
});

describe('MariaDB harness lifecycle', () => {
  it('stop is clean and idempotent: process gone, datadir removed', async () => {
    const s = await startMariaDb({ binlogFormat: 'STATEMENT', logBin: true });
    const [row] = await s.query<Array<{ f: string }>>('SELECT @@binlog_format AS f');
    assert.equal(row.f, 'STATEMENT');
    await Promise.all([s.stop(), s.stop()]);
    await s.stop();
    assert.equal(existsSync(s.datadir), false);
    assert.throws(() => process.kill(s.pid, 0), /ESRCH/);
  });

  it('runs without binary logging when asked', async () => {
    const s = await startMariaDb({ logBin: false, options: { max_connections: 20 } });
    try {
      const [row] = await s.query<Array<{ l: number; m: number }>>('SELECT @@log_bin AS l, @@max_connections AS m');
      assert.deepEqual(row, { l: 0, m: 20 });
      assert.deepEqual(await s.binlogFiles(), []);
    } finally {
      await s.stop();
    }
  });
});

/** Dead or a zombie awaiting its reaper (what `kill -0` cannot tell apart). */
function isDead(pid: number): boolean {
  try {
    return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

describe('no mariadbd outlives its parent', () => {
  const harness = fileURLToPath(new URL('../harness/mariadb.ts', import.meta.url));
  const script = `const { startMariaDb } = await import(${JSON.stringify(harness)});
const s = await startMariaDb();
console.log(JSON.stringify({ pid: s.pid, datadir: s.datadir }));
setInterval(() => {}, 1000);`;

  for (const signal of ['SIGTERM', 'SIGINT', 'SIGKILL'] as const) {
    it(`parent killed with ${signal}`, async () => {
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const exited = new Promise((r) => child.once('exit', r));
      let out = '';
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (d: string) => {
        out += d;
      });
      await waitFor('the child to start mariadbd', () => out.includes('\n'), 30_000);
      const { pid, datadir } = JSON.parse(out) as { pid: number; datadir: string };
      assert.equal(isDead(pid), false);
      child.kill(signal);
      await exited;
      await waitFor(`mariadbd ${pid} to die`, () => isDead(pid));
      // Exit hooks remove the datadir; after SIGKILL the next startMariaDb() sweeps it instead.
      if (signal !== 'SIGKILL') assert.equal(existsSync(datadir), false);
      else rmSync(datadir, { recursive: true, force: true });
    });
  }
});

describe('AWS stand-ins', () => {
  it('kinesalite: create a 2-shard stream, put and read back every record', async () => {
    const k = await startKinesalite();
    const client = kinesisClient(k.endpoint);
    try {
      await createStream(client, 'cdc-test', 2);
      const entries = Array.from({ length: 50 }, (_, i) => ({
        PartitionKey: `pk-${i}`,
        Data: Buffer.from(JSON.stringify({ i })),
      }));
      const put = await client.send(new PutRecordsCommand({ StreamName: 'cdc-test', Records: entries }));
      assert.equal(put.FailedRecordCount, 0);
      const got = await readAllRecords(client, 'cdc-test');
      assert.equal(got.length, 50);
      assert.equal(new Set(got.map((r) => r.shardId)).size, 2, 'records spread over both shards');
      const values = got.map((r) => (JSON.parse(r.data.toString()) as { i: number }).i).sort((a, b) => a - b);
      assert.deepEqual(
        values,
        entries.map((_, i) => i),
      );
    } finally {
      client.destroy();
      await k.stop();
      await k.stop();
    }
  });

  it('dynalite: create a table, conditional put and get', async () => {
    const d = await startDynalite();
    const client = dynamoClient(d.endpoint);
    try {
      await client.send(
        new CreateTableCommand({
          TableName: 'offsets',
          AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
          KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
          BillingMode: 'PAY_PER_REQUEST',
        }),
      );
      const put = (v: string) =>
        client.send(
          new PutItemCommand({
            TableName: 'offsets',
            Item: { pk: { S: 'a' }, v: { S: v } },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
      await put('1');
      await assert.rejects(put('2'), { name: 'ConditionalCheckFailedException' });
      const got = await client.send(new GetItemCommand({ TableName: 'offsets', Key: { pk: { S: 'a' } } }));
      assert.deepEqual(got.Item, { pk: { S: 'a' }, v: { S: '1' } });
    } finally {
      client.destroy();
      await d.stop();
    }
  });
});
