/**
 * A 10,000-row transaction interrupted by kill -9 of the `cdc run` process and restarted: every change is
 * delivered at least once, none is lost, and duplicates are only the window after the last committed offset.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { useMariaDb } from '../harness/fixtures.js';
import { captureEnv } from './support/capture.js';
import { countMatches, readSinkFile, spawnCapture, waitFor } from './support/child-capture.js';

const db = useMariaDb();
const ROWS = 10_000;

test('kill -9 in the middle of a 10,000-row transaction, then restart: nothing lost, duplicates only in flight', async (t) => {
  const server = db();
  const name = await server.createDatabase('kill');
  await server.query(`CREATE TABLE ${name}.big (id INT PRIMARY KEY, v VARCHAR(40), n INT)`);
  const env = captureEnv(server, name);
  await env.runUntilIdle(); // snapshot of the empty table; the offset is now committed
  const out = join(env.dir, 'events.ndjson');
  const startLines = readSinkFile(out).lines.length;
  await server.query(`INSERT INTO ${name}.big SELECT seq, CONCAT('row-', seq), seq * 7 FROM ${name}.seq_1_to_${ROWS}`);

  // Small batches so the child commits offsets many times inside the transaction.
  const run = spawnCapture(env.dir, env.props, { 'max.batch.size': '200', 'max.queue.size': '1000' });
  const creates = /"op":"c"/g;
  const some = await waitFor(() => countMatches(out, creates) >= 2000, 30_000);
  run.child.kill('SIGKILL');
  assert.equal(await run.exited, null, `child exited on its own: ${run.stderr()}`);
  assert.ok(some, `the child delivered too few rows before the deadline: ${run.stderr()}`);
  const atKill = readSinkFile(out);
  const deliveredBeforeKill = atKill.lines.length - startLines;
  assert.ok(deliveredBeforeKill < ROWS, `killed too late: ${deliveredBeforeKill} rows already delivered`);
  const offsetAtKill = JSON.parse(readFileSync(join(env.dir, 'offsets.json'), 'utf8')).offset;

  await env.runUntilIdle();
  const final = readSinkFile(out);
  assert.ok(final.torn <= 1, `torn lines: ${final.torn}`);
  const ids: number[] = [];
  for (const l of final.lines.slice(startLines)) {
    const v = l.value as { op: string; after: { id: number; v: string; n: number } } | null;
    if (v?.op !== 'c') continue;
    assert.equal(v.after.v, `row-${v.after.id}`);
    assert.equal(v.after.n, v.after.id * 7);
    ids.push(v.after.id);
  }
  const seen = new Map<number, number>();
  for (const id of ids) seen.set(id, (seen.get(id) ?? 0) + 1);
  for (let id = 1; id <= ROWS; id++) assert.ok(seen.has(id), `row ${id} lost`);
  const duplicates = ids.length - ROWS;
  // The replay after restart starts at the committed offset: the duplicated ids are one contiguous run that ends
  // where the killed process stopped, and it is not longer than what that process delivered.
  const dupIds = [...seen].filter(([, n]) => n > 1).map(([id]) => id);
  assert.ok(dupIds.every((id) => seen.get(id) === 2));
  if (dupIds.length > 0) {
    assert.equal(Math.max(...dupIds) - Math.min(...dupIds) + 1, dupIds.length, 'duplicates are contiguous');
    assert.ok(Math.max(...dupIds) <= deliveredBeforeKill + 1);
  }
  assert.ok(duplicates < deliveredBeforeKill, `duplicates ${duplicates} vs ${deliveredBeforeKill} in flight`);
  assert.ok(offsetAtKill.row > 0 || offsetAtKill.event > 0, 'an offset inside the transaction was committed');
  t.diagnostic(
    `delivered before kill: ${deliveredBeforeKill}, committed offset: ${JSON.stringify(offsetAtKill)}, duplicates after restart: ${duplicates}, torn lines: ${final.torn}`,
  );
});
