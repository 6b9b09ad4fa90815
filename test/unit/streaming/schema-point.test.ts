/** The schema read without a snapshot is taken at one binlog position: the window decision and its retries. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../../../src/common/logger.js';
import type { PositionLike } from '../../../src/model/binlog-position.js';
import type { SourceOffset } from '../../../src/model/source-offset.js';
import {
  checkRecoveryWindow,
  loadSchemaAtOnePoint,
  mayChangeSchema,
  SchemaPointError,
} from '../../../src/source/mysql/streaming/schema-point.js';

/** Positions read in turn, schema versions loaded in turn, and which windows hold a DDL. */
function steps(positions: SourceOffset[], ddlWindows: Array<[number, number]>, attempts?: number) {
  const reads: string[] = [];
  let loads = 0;
  const windows: Array<[number, number]> = [];
  return {
    reads,
    windows,
    steps: {
      position: async () => {
        const p = positions.shift();
        assert.ok(p, 'more position reads than expected');
        reads.push(`${p.file}:${p.pos}`);
        return p;
      },
      load: async () => ++loads,
      windowChangesSchema: async (from: PositionLike, to: PositionLike) => {
        windows.push([from.pos, to.pos]);
        return ddlWindows.some(([a, b]) => a === from.pos && b === to.pos);
      },
      logger: silentLogger,
      ...(attempts === undefined ? {} : { attempts }),
    },
  };
}

const at = (pos: number, file = 'bin.000001'): SourceOffset => ({ file, pos, gtids: `0-1-${pos}` });

test('no binlog written while the schema was read: the schema holds at that position, no window read', async () => {
  const s = steps([at(100), at(100)], []);
  const got = await loadSchemaAtOnePoint(s.steps);
  assert.deepEqual(got, { schema: 1, position: at(100) });
  assert.deepEqual(s.windows, []);
});

test('rows written while the schema was read: the stream starts at the first position (its rows are kept)', async () => {
  const s = steps([at(100), at(900)], []);
  const got = await loadSchemaAtOnePoint(s.steps);
  assert.deepEqual(got, { schema: 1, position: at(100) });
  assert.deepEqual(s.windows, [[100, 900]]);
});

test('a DDL committed while the schema was read: read again, and take the schema of the quiet attempt', async () => {
  const s = steps([at(100), at(900), at(900), at(1200)], [[100, 900]]);
  const got = await loadSchemaAtOnePoint(s.steps);
  assert.deepEqual(got, { schema: 2, position: at(900) });
  assert.deepEqual(s.windows, [
    [100, 900],
    [900, 1200],
  ]);
});

test('DDL in every attempt: a retriable SCHEMA_INCONSISTENT error naming the snapshot modes', async () => {
  const s = steps(
    [at(1), at(2), at(2), at(3), at(3), at(4)],
    [
      [1, 2],
      [2, 3],
      [3, 4],
    ],
    3,
  );
  await assert.rejects(loadSchemaAtOnePoint(s.steps), (err: unknown) => {
    assert.ok(err instanceof SchemaPointError);
    assert.equal(err.code, 'SCHEMA_INCONSISTENT');
    assert.equal(err.retriable, true);
    assert.match(err.message, /3 times/);
    assert.match(err.message, /snapshot\.mode=initial/);
    return true;
  });
  assert.equal(s.reads.length, 6);
});

test('a window across a binlog rotation is compared by file first', async () => {
  const s = steps([at(900, 'bin.000001'), at(4, 'bin.000002')], []);
  const got = await loadSchemaAtOnePoint(s.steps);
  assert.deepEqual(got.position, at(900, 'bin.000001'));
  assert.deepEqual(s.windows, [[900, 4]]);
});

test('which statements may change a schema', () => {
  for (const sql of ['BEGIN', 'COMMIT', 'XA START 0x01', 'SAVEPOINT a', 'INSERT INTO t VALUES (1)', ' delete from t']) {
    assert.equal(mayChangeSchema(sql), false, sql);
  }
  for (const sql of ['ALTER TABLE t ADD b INT', 'CREATE TABLE t (a INT)', 'DROP TABLE t', 'RENAME TABLE a TO b']) {
    assert.equal(mayChangeSchema(sql), true, sql);
  }
});

test('with the table filter, only statements that may change a captured table count', () => {
  const filter = (db: string, table: string) => db === 'app' && table !== 'skipped';
  const changes = (sql: string, db = 'app') => mayChangeSchema(sql, db, filter);
  // Captured tables, named with or without their database, in any letter case.
  for (const sql of [
    'ALTER TABLE t ADD b INT',
    'ALTER TABLE app.t ADD b INT',
    'ALTER TABLE `APP`.`T` ADD b INT',
    'CREATE TABLE t2 (a INT)',
    'CREATE TABLE t3 LIKE other.x',
    'DROP TABLE other.x, app.t',
    'RENAME TABLE other.x TO app.t',
    'CREATE INDEX i ON t (a)',
  ]) {
    assert.equal(changes(sql), true, sql);
  }
  // Uncaptured tables, statements the schema model ignores, truncation (no schema change).
  for (const sql of [
    'ALTER TABLE other.t ADD b INT',
    'ALTER TABLE skipped ADD b INT',
    'CREATE TABLE t (a INT)',
    "GRANT SELECT ON app.* TO 'u'@'%'",
    "CREATE USER 'u'@'%' IDENTIFIED BY 'x'",
    'CREATE VIEW app.v AS SELECT 1',
    'TRUNCATE TABLE app.t',
  ]) {
    assert.equal(changes(sql, sql === 'CREATE TABLE t (a INT)' ? 'other' : 'app'), false, sql);
  }
  // Database-level statements and text the parser cannot read count as a change.
  for (const sql of ['DROP DATABASE other', 'CREATE DATABASE x', 'ALTER TABLE t FROBNICATE']) {
    assert.equal(changes(sql), true, sql);
  }
  // Without a filter every DDL counts, as before.
  assert.equal(mayChangeSchema('ALTER TABLE other.t ADD b INT'), true);
});

test('recovery window: an offset another server wrote is not read by file/position there', async () => {
  const options = {
    connection: async () => {
      throw new Error('the window must not be read on another server');
    },
    serverId: 1,
    logger: silentLogger,
  };
  const from = { file: 'bin.000001', pos: 4, server_identity: 'mariadb:1' };
  const to = { file: 'bin.000009', pos: 400 };
  assert.equal(await checkRecoveryWindow(options, from, to, 'mariadb:2'), 'other-server');
  // The same server: the window is read (here the connection fails, so the check does).
  await assert.rejects(checkRecoveryWindow(options, from, to, 'mariadb:1'), /must not be read/);
});
