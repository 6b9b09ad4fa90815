/**
 * A 10,000-row transaction interrupted by kill -9 of the `cdc run` process and restarted: every change is
 * delivered at least once, none is lost, and duplicates are only the window after the last committed offset.
 * Then a snapshot followed by transactions that change one row twice and delete and re-insert another, killed
 * mid-stream: the stable event ids name every re-delivered record, and state rebuilt by docs/delivery.md's rule
 * (the materializer's order) equals the table.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { changeOrder } from '../../lambdas/lib/binlog-order.js';
import { EVENT_ID_HEADER } from '../../src/events/event-id.js';
import { useMariaDb } from '../harness/fixtures.js';
import { pollUntil } from '../harness/wait.js';
import { startBinlogHoldProxy } from './support/binlog-hold-proxy.js';
import { captureEnv } from './support/capture.js';
import { countMatches, readSinkFile, spawnCapture } from './support/child-capture.js';

const db = useMariaDb();
const ROWS = 10_000;
/** `--until-idle` of the killed children: longer than the test, so only the kill ends them (never a caught-up pause). */
const CHILD_RUNS_UNTIL_KILLED_MS = 600_000;
/**
 * How long a child may take to start and make the progress awaited: with seven test files on two cores its start
 * alone can take many seconds; only a failure waits this long.
 */
const CHILD_PROGRESS_MS = 120_000;

test('kill -9 in the middle of a 10,000-row transaction, then restart: nothing lost, duplicates only in flight', async (t) => {
  const server = db();
  const name = await server.createDatabase('kill');
  await server.query(`CREATE TABLE ${name}.big (id INT PRIMARY KEY, v VARCHAR(40), n INT)`);
  const env = captureEnv(server, name);
  await env.runUntilIdle(); // snapshot of the empty table; the offset is now committed
  const out = join(env.dir, 'events.ndjson');
  const startLines = readSinkFile(out).lines.length;
  const binlogEnd = async () =>
    Number((await server.query<{ Position: number }[]>('SHOW MASTER STATUS'))[0]?.Position ?? Number.NaN);
  const before = await binlogEnd();
  await server.query(`INSERT INTO ${name}.big SELECT seq, CONCAT('row-', seq), seq * 7 FROM ${name}.seq_1_to_${ROWS}`);
  const txnBytes = (await binlogEnd()) - before;
  assert.ok(txnBytes > ROWS, `the transaction's binlog size: ${txnBytes}`);

  // The child reads the binlog through a relay that passes only the stream's first 60% of the transaction (plus
  // the few events before it), so however fast it runs it cannot reach the commit: the kill lands inside the
  // transaction by construction, not by outrunning the child.
  const proxy = await startBinlogHoldProxy(
    server.host,
    server.port,
    Number(env.props['database.server.id']),
    2048 + Math.floor(txnBytes * 0.6),
  );
  t.after(() => proxy.close());
  // Small batches so the child commits offsets many times inside the transaction; it never stops on its own.
  const run = spawnCapture(
    env.dir,
    { ...env.props, 'database.hostname': proxy.host, 'database.port': String(proxy.port) },
    { 'max.batch.size': '200', 'max.queue.size': '1000' },
    CHILD_RUNS_UNTIL_KILLED_MS,
  );
  const creates = /"op":"c"/g;
  const committed = () => {
    try {
      return JSON.parse(readFileSync(join(env.dir, 'offsets.json'), 'utf8')).offset as { event: number; row: number };
    } catch {
      return null; // not written yet
    }
  };
  const inside = (o: { event: number; row: number } | null) => o !== null && (o.row > 0 || o.event > 0);
  const ready = await pollUntil(() => countMatches(out, creates) >= 2000 && inside(committed()), CHILD_PROGRESS_MS);
  run.child.kill('SIGKILL');
  assert.equal(await run.exited, null, `child exited on its own: ${run.stderr()}`);
  assert.ok(
    ready,
    `no 2000 rows and an offset inside the transaction (relayed ${proxy.forwarded()} of ${txnBytes} bytes, ${countMatches(out, creates)} rows, offset ${JSON.stringify(committed())}): ${run.stderr()}`,
  );
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

test('kill -9 mid-stream after a snapshot: duplicates are dropped by their event id and the rebuilt state equals the table', async (t) => {
  const server = db();
  const name = await server.createDatabase('killids');
  const ROWS_AT_SNAPSHOT = 2000;
  const TXNS = 300;
  await server.query(`CREATE TABLE ${name}.acct (id INT PRIMARY KEY, v INT)`);
  await server.query(`INSERT INTO ${name}.acct SELECT seq, 0 FROM ${name}.seq_1_to_${ROWS_AT_SNAPSHOT}`);
  const env = captureEnv(server, name);
  const out = join(env.dir, 'events.ndjson');
  // Offsets are committed at the snapshot's end and then not again before the kill (the interval is longer than the
  // test), so everything streamed before the kill is delivered again: re-delivery does not depend on when the kill
  // lands relative to a periodic commit.
  const run = spawnCapture(
    env.dir,
    env.props,
    { 'max.batch.size': '50', 'offset.flush.interval.ms': '600000' },
    CHILD_RUNS_UNTIL_KILLED_MS,
  );
  assert.ok(
    await pollUntil(() => countMatches(out, /"op":"r"/g) > 0, CHILD_PROGRESS_MS),
    `no snapshot: ${run.stderr()}`,
  );
  // The snapshot's position is set: the first transaction below starts exactly there, so the first streamed change
  // shares (file, pos, row 0) with key 1's snapshot row.
  const conn = await server.connect();
  let sourceChanges = 0;
  try {
    await conn.query(`UPDATE ${name}.acct SET v = v + 1 WHERE id = 1`);
    sourceChanges++;
    for (let i = 0; i < TXNS; i++) {
      const a = 2 + (i % 500);
      const b = 1000 + i;
      await conn.query('START TRANSACTION');
      // One row updated twice (same source.pos and source.row), another deleted and re-inserted.
      await conn.query(`UPDATE ${name}.acct SET v = v + 1 WHERE id = ${a}`);
      await conn.query(`UPDATE ${name}.acct SET v = v * 2 WHERE id = ${a}`);
      await conn.query(`DELETE FROM ${name}.acct WHERE id = ${b}`);
      await conn.query(`INSERT INTO ${name}.acct VALUES (${b}, ${i + 7})`);
      await conn.query('COMMIT');
      sourceChanges += 4;
      if (i === 100) {
        assert.ok(
          await pollUntil(() => countMatches(out, /"op":"u"/g) >= 100, CHILD_PROGRESS_MS),
          `stalled: ${run.stderr()}`,
        );
        run.child.kill('SIGKILL');
      }
    }
  } finally {
    await conn.end();
  }
  assert.equal(await run.exited, null, `child exited on its own: ${run.stderr()}`);
  await env.runUntilIdle();

  const { lines, torn } = readSinkFile(out);
  const rows = lines.filter((l) => l.topic === `it.${name}.acct`);
  const byId = new Map<string, string>();
  let duplicates = 0;
  for (const l of rows) {
    const id = l.headers?.[EVENT_ID_HEADER];
    assert.equal(typeof id, 'string', `a record without an id: ${JSON.stringify(l).slice(0, 200)}`);
    const v = l.value as { before: unknown; after: unknown; source: unknown; op: string } | null;
    // What the id names, without processing times: a repeat must be the same event.
    const fact = JSON.stringify([l.key, v ? [v.op, v.before, v.after, v.source] : null]);
    const seen = byId.get(id as string);
    if (seen === undefined) byId.set(id as string, fact);
    else {
      duplicates++;
      assert.equal(fact, seen, `id ${id} names two different events`);
    }
  }
  // Every change once: the snapshot's rows, the source's row changes and a tombstone per delete.
  assert.equal(byId.size, ROWS_AT_SNAPSHOT + sourceChanges + TXNS, 'distinct ids');
  assert.ok(duplicates > 0, 'the kill re-delivered records');

  // Rebuild: per key, apply a change only when its order (position, phase, rows event, row, part) is greater.
  const rebuild = (order: (v: Record<string, unknown>, id: string) => string) => {
    const state = new Map<number, { order: string; row: Record<string, unknown> | null }>();
    for (const l of rows) {
      const v = l.value as ({ op: string; after: Record<string, unknown> | null } & Record<string, unknown>) | null;
      if (!v) continue;
      const key = (l.key as { id: number }).id;
      const o = order(v, l.headers?.[EVENT_ID_HEADER] as string);
      const stored = state.get(key);
      if (stored && stored.order >= o) continue;
      state.set(key, { order: o, row: v.op === 'd' ? null : v.after });
    }
    return [...state.values()].flatMap((s) => (s.row ? [s.row] : [])).sort((a, b) => Number(a.id) - Number(b.id));
  };
  const table = (await server.query<Record<string, unknown>[]>(`SELECT id, v FROM ${name}.acct ORDER BY id`)).map(
    (r) => ({
      ...r,
    }),
  );
  const rebuilt = rebuild((v, id) => changeOrder(v as Parameters<typeof changeOrder>[0], id, '0', 0));
  assert.deepEqual(rebuilt, table);
  // The rule docs/delivery.md used to give, highest (file, pos, row) per key, gets this stream wrong.
  const pad = (n: unknown) => String(n).padStart(12, '0');
  const oldRule = rebuild((v) => {
    const s = v.source as { file: string; pos: number; row: number };
    return `${s.file}.${pad(s.pos)}.${pad(s.row)}`;
  });
  const byKey = new Map(oldRule.map((r) => [Number(r.id), JSON.stringify(r)]));
  const wrong =
    table.filter((r) => byKey.get(Number(r.id)) !== JSON.stringify(r)).length +
    oldRule.filter((r) => !table.some((x) => x.id === r.id)).length;
  assert.ok(wrong > 0, 'the old rule would have been right: the scenario misses its cases');
  t.diagnostic(
    `records: ${rows.length}, distinct ids: ${byId.size}, duplicates dropped by the id under kill -9: ${duplicates}, ` +
      `rows wrong under the old (file, pos, row) rule: ${wrong} of ${table.length}, torn lines: ${torn}`,
  );
});
