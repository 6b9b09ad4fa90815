import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type AttributeValue, type DynamoDBClient, QueryCommand } from '@aws-sdk/client-dynamodb';
import { LeaseLostError, OffsetStoreError } from '../../src/common/errors.js';
import type { ColumnDef, TableDef } from '../../src/model/table-def.js';
import { DynamoDbLease } from '../../src/stores/dynamodb/dynamodb-lease.js';
import { DynamoDbOffsetStore } from '../../src/stores/dynamodb/dynamodb-offset-store.js';
import { DynamoDbSchemaHistory } from '../../src/stores/dynamodb/dynamodb-schema-history.js';
import type { SchemaHistoryEntry } from '../../src/stores/schema-history.js';
import { dynamoClient } from '../harness/aws.js';
import { useDynalite } from '../harness/fixtures.js';
import { waitFor } from '../harness/wait.js';

function column(i: number, comment: string | null): ColumnDef {
  return {
    name: `c${i}`,
    position: i,
    dataType: 'varchar',
    columnType: 'varchar(255)',
    length: 255,
    scale: null,
    unsigned: false,
    nullable: true,
    charset: 'utf8mb4',
    collation: 'utf8mb4_0900_ai_ci',
    defaultValue: null,
    hasDefault: false,
    autoIncrement: false,
    enumValues: null,
    generated: false,
    invisible: false,
    comment,
  };
}

function table(name: string, columns: number, comment: (i: number) => string | null): TableDef {
  return {
    database: 'shop',
    name,
    columns: Array.from({ length: columns }, (_, i) => column(i, comment(i))),
    primaryKey: ['c0'],
    uniqueKeys: [],
    charset: 'utf8mb4',
    comment: null,
  };
}

describe('DynamoDB stores against dynalite', () => {
  const dynalite = useDynalite();
  let client: DynamoDBClient;
  before(() => {
    client = dynamoClient(dynalite().endpoint);
  });
  after(() => client.destroy());

  test('offset store: created on demand, never moves backwards, survives a new instance', async () => {
    const store = new DynamoDbOffsetStore({ client, tableName: 'offsets-a', connectorName: 'c1', createTables: true });
    assert.equal(await store.load(), null);
    await store.commit({ file: 'mysql-bin.000001', pos: 4 });
    await store.commit({ file: 'mysql-bin.000002', pos: 120, event: 3, row: 2, gtids: '0-1-9' });
    await store.commit({ file: 'mysql-bin.000002', pos: 120, event: 3, row: 2, snapshot_chunks: { t: 1 } });
    await assert.rejects(
      store.commit({ file: 'mysql-bin.000002', pos: 120, event: 3, row: 1 }),
      (err: Error) => err instanceof OffsetStoreError && /moved backwards.*000002:120 event 3 row 1/.test(err.message),
    );
    await assert.rejects(store.commit({ file: 'mysql-bin.000001', pos: 99999 }), /moved backwards/);
    const fresh = new DynamoDbOffsetStore({ client, tableName: 'offsets-a', connectorName: 'c1' });
    assert.deepEqual(await fresh.load(), {
      file: 'mysql-bin.000002',
      pos: 120,
      event: 3,
      row: 2,
      snapshot_chunks: { t: 1 },
    });
    assert.equal(
      await new DynamoDbOffsetStore({ client, tableName: 'offsets-a', connectorName: 'other' }).load(),
      null,
    );
    await assert.rejects(
      new DynamoDbOffsetStore({ client, tableName: 'no-such-table', connectorName: 'x' }).load(),
      /does not exist: create it, or let the task create it: set offset\.storage\.dynamodb\.table\.create=true/,
    );
  });

  test('schema history: hundreds of DDLs and a huge table definition recovered exactly up to a position', async () => {
    const history = new DynamoDbSchemaHistory({
      client,
      tableName: 'history',
      connectorName: 'c1',
      createTables: true,
    });
    await history.initializeStorage();
    assert.equal(await history.exists(), false);
    const entries: SchemaHistoryEntry[] = [];
    for (let seq = 1; seq <= 400; seq++) {
      const file = `mysql-bin.${String(1 + Math.floor(seq / 100)).padStart(6, '0')}`;
      let def: TableDef;
      if (seq === 150) def = table('wide', 2000, (i) => `column ${i} ${'explains the business meaning '.repeat(12)}`);
      else if (seq === 250) def = table('noisy', 1200, () => randomBytes(600).toString('base64'));
      else def = table(`t${seq % 20}`, 5 + (seq % 7), () => null);
      entries.push({
        seq,
        position: { file, pos: 4 + (seq % 100) * 1000 },
        ts_ms: 1_700_000_000_000 + seq,
        databaseName: 'shop',
        ddl: `ALTER TABLE ${def.name} ADD COLUMN x${seq} INT`,
        tableChanges: [{ type: 'ALTER', id: `shop.${def.name}`, table: def }],
      });
    }
    assert.ok(JSON.stringify(entries[149]).length > 350_000, 'compressible large entry');
    assert.ok(JSON.stringify(entries[249]).length > 1_000_000, 'incompressible entry that must be split');
    for (const e of entries) await history.record(e);
    await history.record(entries[10]); // a retried write of the same entry is accepted
    await assert.rejects(history.record({ ...entries[10], ddl: 'DROP TABLE x' }), /different entry with seq 11/);
    assert.equal(await history.exists(), true);

    let items = 0;
    let startKey: Record<string, AttributeValue> | undefined;
    do {
      const page = await client.send(
        new QueryCommand({
          TableName: 'history',
          KeyConditionExpression: 'connector = :c',
          ExpressionAttributeValues: { ':c': { S: 'c1' } },
          Select: 'COUNT',
          ExclusiveStartKey: startKey,
        }),
      );
      items += page.Count ?? 0;
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    assert.ok(items > 400, `the incompressible entry is split across items (${items} items)`);

    const all = await history.recover();
    assert.deepEqual(all, entries);
    const upTo = { file: 'mysql-bin.000003', pos: 50_004 };
    const want = entries.filter(
      (e) => e.position.file < upTo.file || (e.position.file === upTo.file && e.position.pos <= upTo.pos),
    );
    assert.ok(want.length > 200 && want.length < 400);
    assert.deepEqual(await history.recover(upTo), want);
    const other = new DynamoDbSchemaHistory({ client, tableName: 'history', connectorName: 'c2' });
    assert.equal(await other.exists(), false);
    assert.deepEqual(await other.recover(), []);
  });

  test('lease: one of two contenders holds; when its renewals stop the other takes over with a higher token; the old token is fenced', async () => {
    // A renews every 200 ms and gives up after 3 s without a renewal: 1200/150/400 (800 ms) was short enough for a
    // loaded machine to make A lose the lease while it was meant to be renewing (B then acquired "too early").
    const timing = { leaseDurationMs: 4000, renewIntervalMs: 200, safetyMarginMs: 1000, acquireRetryMs: 50 };
    // Each contender gets its own client so one's "death" (renewals failing) is local to it.
    const clientA = dynamoClient(dynalite().endpoint);
    const clientB = dynamoClient(dynalite().endpoint);
    let aDead = false;
    let bRejected = 0;
    clientA.middlewareStack.add(
      (next, context) => async (args) => {
        if (aDead && context.commandName === 'UpdateItemCommand') {
          throw Object.assign(new Error('connect ETIMEDOUT (simulated dead holder)'), { code: 'ETIMEDOUT' });
        }
        return next(args);
      },
      { step: 'initialize', name: 'simulateDeath' },
    );
    clientB.middlewareStack.add(
      (next) => async (args) => {
        try {
          return await next(args);
        } catch (err) {
          if ((err as Error).name === 'ConditionalCheckFailedException') bRejected++;
          throw err;
        }
      },
      { step: 'initialize', name: 'countRejections' },
    );
    const a = new DynamoDbLease({
      client: clientA,
      tableName: 'leases',
      leaseName: 'c1',
      owner: 'A',
      createTables: true,
      ...timing,
    });
    const b = new DynamoDbLease({
      client: clientB,
      tableName: 'leases',
      leaseName: 'c1',
      owner: 'B',
      createTables: true,
      ...timing,
    });
    const tokenA = await a.acquire();
    let lostAt = 0;
    let lostError: Error | undefined;
    a.onLost((err) => {
      lostAt = performance.now();
      lostError = err;
    });
    let acquiredAt = 0;
    const bAcquire = b.acquire().then((t) => {
      acquiredAt = performance.now();
      return t;
    });
    // B keeps being refused for longer than a whole lease duration: A's renewals keep it alive.
    const waitStart = performance.now();
    await waitFor(
      'B to be refused for more than a lease duration',
      () => bRejected >= 3 && performance.now() - waitStart > timing.leaseDurationMs + 300,
    );
    assert.equal(acquiredAt, 0, 'B must not acquire while A renews');
    a.assertHeld();
    assert.equal(a.token, tokenA);

    // A's offset store commits with its token.
    const storeA = new DynamoDbOffsetStore({
      client: clientA,
      tableName: 'offsets-b',
      connectorName: 'c1',
      createTables: true,
      fencingToken: () => tokenA,
    });
    await storeA.load();
    await storeA.commit({ file: 'mysql-bin.000001', pos: 100 });

    // A "dies": its renewals fail. It must give up before B can acquire.
    aDead = true;
    const tokenB = await bAcquire;
    assert.ok(lostAt > 0 && lostAt < acquiredAt, 'the old holder stops before the new one starts');
    assert.ok(lostError instanceof LeaseLostError);
    assert.throws(() => a.assertHeld(), LeaseLostError);
    assert.equal(a.token, null);
    assert.ok(tokenB > tokenA, `token ${tokenB} > ${tokenA}`);
    b.assertHeld();

    // B loads (which fences the item with its token); A's late commit with the stale token is rejected.
    aDead = false;
    const storeB = new DynamoDbOffsetStore({
      client: clientB,
      tableName: 'offsets-b',
      connectorName: 'c1',
      fencingToken: () => b.token,
    });
    assert.deepEqual(await storeB.load(), { file: 'mysql-bin.000001', pos: 100 });
    await assert.rejects(
      storeA.commit({ file: 'mysql-bin.000001', pos: 200 }),
      (err: Error) => err instanceof OffsetStoreError && /lease lost.*token 1 is older than 2/.test(err.message),
    );
    await storeB.commit({ file: 'mysql-bin.000001', pos: 150 });
    assert.deepEqual(await storeB.load(), { file: 'mysql-bin.000001', pos: 150 });

    // Release expires (not deletes) the item: the next acquirer's token keeps growing.
    await b.release();
    assert.throws(() => b.assertHeld(), LeaseLostError);
    const c = new DynamoDbLease({ client: clientA, tableName: 'leases', leaseName: 'c1', owner: 'C', ...timing });
    assert.ok((await c.acquire()) > tokenB);
    await c.release();
    await a.release();
    clientA.destroy();
    clientB.destroy();
  });

  test('lease: a holder paused past its deadline says it found the loss late, not that it stopped in time', async () => {
    const p = new DynamoDbLease({
      client,
      tableName: 'leases-3',
      leaseName: 'paused',
      owner: 'P',
      createTables: true,
      leaseDurationMs: 600,
      renewIntervalMs: 100,
      safetyMarginMs: 200,
    });
    await p.acquire();
    let lost: Error | undefined;
    p.onLost((err) => {
      lost = err;
    });
    // The event loop does not run for longer than the whole lease: a paused (SIGSTOP) or CPU-starved process.
    const blockedUntil = performance.now() + 900;
    while (performance.now() < blockedUntil) {
      // busy: no timer, no renewal, no watchdog can run
    }
    assert.throws(() => p.assertHeld(), LeaseLostError);
    await waitFor('the lease listener', () => lost !== undefined);
    assert.match(
      lost?.message ?? '',
      /this process was not running when its deadline passed .*the lease has expired, so another process may hold it/,
    );
    assert.doesNotMatch(lost?.message ?? '', /before it can expire/);
    await p.release();
  });

  test('lease: acquire can be aborted while another process holds it', async () => {
    const x = new DynamoDbLease({
      client,
      tableName: 'leases-2',
      leaseName: 'c',
      owner: 'X',
      createTables: true,
      leaseDurationMs: 5000,
      renewIntervalMs: 500,
      safetyMarginMs: 1000,
    });
    const y = new DynamoDbLease({
      client,
      tableName: 'leases-2',
      leaseName: 'c',
      owner: 'Y',
      leaseDurationMs: 5000,
      renewIntervalMs: 500,
      safetyMarginMs: 1000,
      acquireRetryMs: 20,
    });
    await x.acquire();
    const ac = new AbortController();
    const pending = y.acquire(ac.signal);
    ac.abort(new Error('shutting down'));
    await assert.rejects(pending, /shutting down/);
    assert.throws(() => y.assertHeld(), LeaseLostError);
    await x.release();
  });
});
