/**
 * Restarts around a snapshot's end, through `cdc run` (kill -9) on the private MariaDB, with a long
 * offset.flush.interval.ms so only an explicit commit can save the snapshot: the end of a completed snapshot and
 * the position after a replayed window are committed as soon as they are delivered, so a restart right after them
 * neither takes the snapshot again nor replays the binlog from the first attempt's position. And a when_needed
 * re-snapshot after a purge says, at warn level, what was lost.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { useMariaDb } from '../harness/fixtures.js';
import { pollUntil } from '../harness/wait.js';
import { captureEnv } from './support/capture.js';
import { readSinkFile, spawnCapture } from './support/child-capture.js';

const db = useMariaDb();
const NEVER_IDLE_MS = 600_000;
const SLOW_FLUSH = { 'offset.flush.interval.ms': '60000' };

type Offset = { file: string; pos: number; snapshot?: boolean; snapshot_completed?: boolean };
function committed(path: string): Offset | null {
  try {
    return (JSON.parse(readFileSync(path, 'utf8')) as { offset: Offset }).offset;
  } catch {
    return null;
  }
}

test('a restart right after a snapshot ends does not take it again: its end is committed at once', async () => {
  const server = db();
  const name = await server.createDatabase('snapend');
  await server.query(`CREATE TABLE ${name}.t (id INT PRIMARY KEY, v VARCHAR(40))`);
  await server.query(`INSERT INTO ${name}.t SELECT seq, 'x' FROM ${name}.seq_1_to_3000`);
  const env = captureEnv(server, name);
  const offsets = join(env.dir, 'offsets.json');
  const run = spawnCapture(env.dir, env.props, { ...SLOW_FLUSH, 'max.batch.size': '200' }, NEVER_IDLE_MS);
  const done = await pollUntil(() => committed(offsets)?.snapshot_completed === true, 30_000);
  run.child.kill('SIGKILL');
  await run.exited;
  assert.ok(done, `the completed snapshot was not committed within 30 s: ${run.stderr().slice(-2000)}`);

  await server.query(`INSERT INTO ${name}.t VALUES (3001, 'after')`);
  const lines = await env.runUntilIdle();
  const ops = lines.filter((l) => l.value?.op).map((l) => l.value?.op);
  assert.equal(ops.filter((o) => o === 'r').length, 3000, 'the snapshot was published once');
  assert.deepEqual(
    ops.filter((o) => o !== 'r'),
    ['c'],
  );
});

test('an interrupted snapshot redone: the replayed window is committed, a second restart replays only from there', async () => {
  const server = db();
  const name = await server.createDatabase('snaprepl');
  await server.query(`CREATE TABLE ${name}.t (id INT PRIMARY KEY, v VARCHAR(200))`);
  await server.query(`INSERT INTO ${name}.t SELECT seq, REPEAT('x', 150) FROM ${name}.seq_1_to_20000`);
  const env = captureEnv(server, name);
  const offsets = join(env.dir, 'offsets.json');
  const out = join(env.dir, 'events.ndjson');
  const small = { 'max.batch.size': '100', 'max.queue.size': '200' };
  // A first attempt dies mid-snapshot, leaving its start position; changes follow it.
  const first = spawnCapture(env.dir, env.props, small, NEVER_IDLE_MS);
  const started = await pollUntil(
    () => committed(offsets)?.snapshot === true && readSinkFile(out).lines.length >= 2000,
    60_000,
  );
  first.child.kill('SIGKILL');
  await first.exited;
  assert.ok(started, `the first attempt did not start: ${first.stderr().slice(-2000)}`);
  const old = committed(offsets)!;
  await server.query(`DELETE FROM ${name}.t WHERE id <= 10`);

  const run = spawnCapture(env.dir, env.props, { ...SLOW_FLUSH, ...small }, NEVER_IDLE_MS);
  const moved = await pollUntil(() => {
    const o = committed(offsets);
    return o !== null && o.snapshot === true && (o.file !== old.file || o.pos > old.pos);
  }, 30_000);
  const mid = readSinkFile(out).lines.filter((l) => l.value?.op === 'r').length;
  run.child.kill('SIGKILL');
  await run.exited;
  assert.ok(moved, `the position after the replayed window was not committed: ${run.stderr().slice(-2000)}`);
  assert.ok(mid < 2 * (20000 - 10), `the second attempt was killed mid-snapshot (${mid} rows so far)`);

  await server.query(`UPDATE ${name}.t SET v = 'changed' WHERE id BETWEEN 11 AND 20`);
  const lines = await env.runUntilIdle(800);
  const state = new Map<number, string>();
  for (const l of lines) {
    const v = l.value as { op?: string; after?: { id: number; v: string }; before?: { id: number } } | null;
    if (!v?.op) continue;
    if (v.op === 'd') state.delete(v.before!.id);
    else state.set(v.after!.id, v.after!.v);
  }
  const rows = await server.query<Array<{ id: number; v: string }>>(`SELECT id, v FROM ${name}.t ORDER BY id`);
  assert.equal(state.size, rows.length, 'rebuilt row count equals the table');
  for (const r of rows) assert.equal(state.get(r.id), r.v, `row ${r.id}`);
  const deletes = lines.filter((l) => l.value?.op === 'd').length;
  assert.equal(deletes, 10, 'the window before the second attempt is not replayed again by the third');
});

test('snapshot.mode=when_needed after a purge warns which position was lost, why, and what it costs', async () => {
  const server = db();
  const name = await server.createDatabase('snappurge');
  await server.query(`CREATE TABLE ${name}.t (id INT PRIMARY KEY)`);
  await server.query(`INSERT INTO ${name}.t VALUES (1), (2)`);
  const env = captureEnv(server, name, { 'snapshot.mode': 'when_needed' });
  await env.runUntilIdle();
  const lost = committed(join(env.dir, 'offsets.json'));
  assert.ok(lost);
  // A change after the stored position, in the file that is then purged: neither file/position nor the GTID
  // position can reach it any more (a change written after the purge would still be read by GTID).
  await server.query(`DELETE FROM ${name}.t WHERE id = 1`);
  await server.query('FLUSH BINARY LOGS');
  const [status] = await server.query<Array<{ File: string }>>('SHOW MASTER STATUS');
  // A file still open by a dump thread that has not gone away yet is skipped by PURGE: retry until it is gone.
  const purged = await pollUntil(
    async () => {
      await server.query(`PURGE BINARY LOGS TO '${status.File}'`);
      const logs = await server.query<Array<{ Log_name: string }>>('SHOW BINARY LOGS');
      return !logs.some((l) => l.Log_name === lost.file);
    },
    20_000,
    100,
  );
  assert.ok(purged, `${lost.file} could not be purged`);

  const run = spawnCapture(env.dir, env.props);
  assert.equal(await run.exited, 0, run.stderr().slice(-2000));
  const warn = run
    .stderr()
    .split('\n')
    .find((l) => /stored binlog position is lost/.test(l));
  assert.ok(warn, `no warning: ${run.stderr().slice(-2000)}`);
  assert.match(warn, /warn/i);
  assert.ok(warn.includes(`${lost.file}:${lost.pos}`), 'names the lost position');
  assert.match(warn, /no longer listed by SHOW BINARY LOGS/);
  assert.match(warn, /deleted since that position get no delete events/);
});
