/**
 * XA transactions in the binlog (issue 14 item 6), live on MariaDB (10.5+ logs XA PREPARE as its own group, and
 * XA COMMIT / XA ROLLBACK as a later one): the rows of a prepared-then-rolled-back transaction are never emitted,
 * a prepared-then-committed one is emitted once, at its commit, and a one-phase XA COMMIT like a plain commit.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useMariaDb } from '../harness/fixtures.js';
import { captureEnv, changes } from './support/capture.js';

const server = useMariaDb();

test('XA: rolled-back prepared rows are not emitted; committed ones once, at XA COMMIT', {
  timeout: 60_000,
}, async () => {
  const s = server();
  const db = await s.createDatabase('xa');
  await s.query(`CREATE TABLE ${db}.t (id INT PRIMARY KEY, note VARCHAR(20))`);
  const env = captureEnv(s, db);
  await env.runUntilIdle();
  const conn = await s.connect();
  try {
    await conn.query(`XA START 'rolled'`);
    await conn.query(`INSERT INTO ${db}.t VALUES (1, 'rolled back')`);
    await conn.query(`XA END 'rolled'`);
    await conn.query(`XA PREPARE 'rolled'`);
    await s.query(`INSERT INTO ${db}.t VALUES (2, 'plain')`);
    await conn.query(`XA ROLLBACK 'rolled'`);
    await conn.query(`XA START 'kept'`);
    await conn.query(`INSERT INTO ${db}.t VALUES (3, 'two phase')`);
    await conn.query(`XA END 'kept'`);
    await conn.query(`XA PREPARE 'kept'`);
    await conn.query(`XA COMMIT 'kept'`);
    await conn.query(`XA START 'one'`);
    await conn.query(`INSERT INTO ${db}.t VALUES (4, 'one phase')`);
    await conn.query(`XA END 'one'`);
    await conn.query(`XA COMMIT 'one' ONE PHASE`);
  } finally {
    await conn.end();
  }
  const lines = await env.runUntilIdle();
  assert.deepEqual(
    changes(lines, 't').map((v) => [v.op, (v.after as { id: number }).id]),
    [
      ['c', 2],
      ['c', 3],
      ['c', 4],
    ],
  );
  // A capture stopped while a transaction is prepared resumes before it: its rows arrive at XA COMMIT after the
  // restart (the transactions in between may repeat: at least once).
  const xa = await s.connect();
  let more: Awaited<ReturnType<typeof env.runUntilIdle>>;
  try {
    await xa.query(`XA START 'late'`);
    await xa.query(`INSERT INTO ${db}.t VALUES (5, 'late')`);
    await xa.query(`XA END 'late'`);
    await xa.query(`XA PREPARE 'late'`);
    await s.query(`INSERT INTO ${db}.t VALUES (6, 'between')`);
    const held = await env.runUntilIdle();
    assert.deepEqual(
      changes(held.slice(lines.length), 't').map((v) => (v.after as { id: number }).id),
      [6],
    );
    await xa.query(`XA COMMIT 'late'`);
    more = (await env.runUntilIdle()).slice(held.length);
  } finally {
    await xa.end();
  }
  const ids = changes(more, 't').map((v) => (v.after as { id: number }).id);
  assert.deepEqual(
    ids.filter((id) => id !== 6),
    [5],
  );
});
