/**
 * An initial snapshot killed (kill -9) part-way: the restart takes a new snapshot at a later position, and must
 * first replay the binlog between the two positions, or rows the first attempt published and that were deleted
 * meanwhile would stay downstream forever (Debezium's behaviour, which we improve on).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { silentLogger } from '../../src/common/logger.js';
import type { SourceOffset } from '../../src/model/source-offset.js';
import { createConnectionFactory } from '../../src/source/mysql/connection-factory.js';
import { MySqlSource } from '../../src/source/mysql/mysql-source.js';
import { SchemaTracker } from '../../src/source/mysql/schema/schema-tracker.js';
import { FileSchemaHistory } from '../../src/stores/file/file-schema-history.js';
import type { SchemaHistory } from '../../src/stores/schema-history.js';
import { useMariaDb } from '../harness/fixtures.js';
import { pollUntil } from '../harness/wait.js';
import { captureEnv } from './support/capture.js';
import { readSinkFile, spawnCapture } from './support/child-capture.js';

const db = useMariaDb();

test('a killed initial snapshot is redone after replaying the changes since it started: no stale rows', async () => {
  const server = db();
  const name = await server.createDatabase('snapkill');
  await server.query(`CREATE TABLE ${name}.t (id INT PRIMARY KEY, v VARCHAR(200))`);
  await server.query(`INSERT INTO ${name}.t SELECT seq, REPEAT('x', 150) FROM ${name}.seq_1_to_20000`);
  const env = captureEnv(server, name);
  const out = join(env.dir, 'events.ndjson');
  const offsets = join(env.dir, 'offsets.json');
  const run = spawnCapture(env.dir, env.props, { 'max.batch.size': '100', 'max.queue.size': '200' });
  const started = await pollUntil(() => {
    let committed = '';
    try {
      committed = readFileSync(offsets, 'utf8');
    } catch {
      return false;
    }
    return committed.includes('"snapshot":true') && readSinkFile(out).lines.length >= 2000;
  }, 60_000);
  assert.ok(started, `the snapshot did not start in time: ${run.stderr()}`);
  run.child.kill('SIGKILL');
  await run.exited;
  const firstAttempt = readSinkFile(out).lines.filter((l) => l.value && l.value.op === 'r').length;
  assert.ok(firstAttempt < 20000, `killed too late: the first attempt finished (${firstAttempt} rows)`);

  // Changes while the capture is down, to rows the first attempt already published.
  await server.query(`DELETE FROM ${name}.t WHERE id <= 300`);
  await server.query(`UPDATE ${name}.t SET v = 'changed' WHERE id BETWEEN 301 AND 600`);
  await server.query(`INSERT INTO ${name}.t VALUES (30001, 'new')`);

  await env.runUntilIdle(800);
  const state = new Map<number, string>();
  for (const l of readSinkFile(out).lines) {
    const v = l.value as { op?: string; after?: { id: number; v: string }; before?: { id: number } } | null;
    if (!v?.op) continue;
    if (v.op === 'd') state.delete(v.before!.id);
    else state.set(v.after!.id, v.after!.v);
  }
  const rows = await server.query<Array<{ id: number; v: string }>>(`SELECT id, v FROM ${name}.t ORDER BY id`);
  assert.equal(state.size, rows.length, 'rebuilt row count equals the table');
  for (const r of rows) assert.equal(state.get(r.id), r.v, `row ${r.id}`);
  assert.equal(state.has(1), false, 'a row deleted after the first attempt published it is gone downstream');
});

/**
 * The snapshot's schema goes into history statement by statement (Debezium's table-structure phase: DROP TABLE,
 * DROP/CREATE DATABASE, then CREATE TABLE). An offset committed before the last of them is written points at a
 * history without the table: a crash in between, then a restart that replays the binlog from that offset, cannot
 * decode the table's rows (SCHEMA_INCONSISTENT). Crashes are injected at exact points, on the real server.
 */
test('a crash while a snapshot records its schema: every offset handed out can be resumed from the history', async () => {
  const server = db();
  const name = await server.createDatabase('snaphist');
  await server.query(`CREATE TABLE ${name}.t (id INT PRIMARY KEY, v VARCHAR(20))`);
  await server.query(`INSERT INTO ${name}.t SELECT seq, 'x' FROM ${name}.seq_1_to_50`);
  const env = captureEnv(server, name);
  const file = new FileSchemaHistory({ path: join(env.dir, 'history.ndjson'), connectorName: 'snaphist' });
  let crashAt: RegExp | null = null;
  const history: SchemaHistory = {
    initializeStorage: () => file.initializeStorage(),
    exists: () => file.exists(),
    recover: (upTo) => file.recover(upTo),
    close: () => file.close(),
    record: async (entry) => {
      if (crashAt?.test(entry.ddl)) throw new Error(`injected crash before recording ${entry.ddl.slice(0, 20)}`);
      await file.record(entry);
    },
  };
  const unresumable: string[] = [];
  let committed: SourceOffset | null = null;
  const values: Array<{ op: string; before?: { id: number }; after?: { id: number; v: string } }> = [];
  /** One capture run from `committed`; `rowLimit` rows into a snapshot it dies (a kill mid-snapshot). */
  const run = async (rowLimit = Number.POSITIVE_INFINITY) => {
    const source = new MySqlSource({
      config: env.config,
      history,
      connect: createConnectionFactory({ config: env.config, logger: silentLogger }),
      logger: silentLogger,
    });
    const abort = new AbortController();
    let rows = 0;
    await source.run({
      offset: committed,
      signal: abort.signal,
      logger: silentLogger,
      emit: async (item) => {
        const value = item.record?.value ? JSON.parse(item.record.value) : null;
        if (value?.op === 'r' && ++rows > rowLimit) throw new Error('injected crash mid-snapshot');
        if (value?.op) values.push(value);
        if (!item.offset) return;
        // As if the publisher committed it at once (flush): a restart may start from here.
        const tracker = SchemaTracker.fromHistory(await file.recover(item.offset));
        if (!tracker.getTable(name, 't'))
          unresumable.push(`${item.offset.file}:${item.offset.pos} (snapshot: ${item.offset.snapshot})`);
        committed = item.offset;
        if (item.offset.snapshot_completed) abort.abort();
      },
    });
  };

  await assert.rejects(run(10), /injected crash mid-snapshot/);
  await server.query(`DELETE FROM ${name}.t WHERE id <= 5`);
  crashAt = /^CREATE TABLE/;
  await assert.rejects(run(), /injected crash before recording CREATE TABLE/);
  crashAt = null;
  await server.query(`UPDATE ${name}.t SET v = 'changed' WHERE id BETWEEN 6 AND 10`);
  await run();
  assert.deepEqual(unresumable, [], 'offsets handed out before their snapshot schema was in history');

  const state = new Map<number, string>();
  for (const v of values) {
    if (v.op === 'd') state.delete(v.before!.id);
    else state.set(v.after!.id, v.after!.v);
  }
  const rows = await server.query<Array<{ id: number; v: string }>>(`SELECT id, v FROM ${name}.t ORDER BY id`);
  assert.deepEqual(
    [...state].sort((a, b) => a[0] - b[0]),
    rows.map((r) => [r.id, r.v]),
  );
});

/**
 * The replay after an interrupted snapshot is a bounded run of the stream runner and checks row events against the
 * schema model as live streaming does: a column added outside the binlog (sql_log_bin=0) while the capture was
 * down makes the replayed rows disagree with the history the interrupted snapshot recorded, which must stop the
 * replay (inconsistent.schema.handling.mode=fail) instead of decoding them with the wrong columns.
 */
test('the replay after an interrupted snapshot checks row events against the schema model', async () => {
  const server = db();
  const name = await server.createDatabase('snapcheck');
  await server.query(`CREATE TABLE ${name}.t (id INT PRIMARY KEY, v VARCHAR(20))`);
  await server.query(`INSERT INTO ${name}.t SELECT seq, 'x' FROM ${name}.seq_1_to_50`);
  const env = captureEnv(server, name);
  const history = new FileSchemaHistory({ path: join(env.dir, 'history.ndjson'), connectorName: 'snapcheck' });
  let committed: SourceOffset | null = null;
  const replayed: Array<{ op: string; after?: Record<string, unknown> }> = [];
  const run = async (rowLimit = Number.POSITIVE_INFINITY) => {
    const source = new MySqlSource({
      config: env.config,
      history,
      connect: createConnectionFactory({ config: env.config, logger: silentLogger }),
      logger: silentLogger,
    });
    const abort = new AbortController();
    let rows = 0;
    await source.run({
      offset: committed,
      signal: abort.signal,
      logger: silentLogger,
      emit: async (item) => {
        const value = item.record?.value ? JSON.parse(item.record.value) : null;
        if (value?.op === 'r' && ++rows > rowLimit) throw new Error('injected crash mid-snapshot');
        if (value?.op && value.op !== 'r') replayed.push(value);
        if (item.offset) committed = item.offset;
        if (item.offset?.snapshot_completed) abort.abort();
      },
    });
  };
  await assert.rejects(run(10), /injected crash mid-snapshot/);
  // (TypeScript narrows `committed` to null: the callback that assigns it is not followed.)
  assert.equal(
    (committed as SourceOffset | null)?.snapshot,
    true,
    'the interrupted snapshot left its start in the offset',
  );
  await server.query(
    `SET SESSION sql_log_bin = 0; ALTER TABLE ${name}.t ADD COLUMN w INT NOT NULL DEFAULT 7; SET SESSION sql_log_bin = 1`,
  );
  await server.query(`INSERT INTO ${name}.t VALUES (51, 'new', 8)`);
  await assert.rejects(run(), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'SCHEMA_INCONSISTENT', err.message);
    assert.match(err.message, new RegExp(`${name}\\.t`));
    assert.match(err.message, /inconsistent\.schema\.handling\.mode/);
    return true;
  });
  assert.deepEqual(replayed, [], 'nothing replayed with the wrong columns');
});
