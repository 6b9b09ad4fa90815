/**
 * An initial snapshot killed (kill -9) part-way: the restart takes a new snapshot at a later position, and must
 * first replay the binlog between the two positions, or rows the first attempt published and that were deleted
 * meanwhile would stay downstream forever (Debezium's behaviour, which we improve on).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { useMariaDb } from '../harness/fixtures.js';
import { captureEnv } from './support/capture.js';
import { readSinkFile, spawnCapture, waitFor } from './support/child-capture.js';

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
  const started = await waitFor(() => {
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
