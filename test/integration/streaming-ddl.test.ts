/**
 * DDL sequences on a captured table: every row change is decoded with the schema of its time — across restarts
 * at idle points, and after a kill -9 that leaves the committed offset before DDLs already in the history.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { useMariaDb } from '../harness/fixtures.js';
import { pollUntil } from '../harness/wait.js';
import { captureEnv, changes, type SinkLine } from './support/capture.js';
import { readSinkFile, spawnCapture } from './support/child-capture.js';

const db = useMariaDb();

/** Each step: DDL (or none), then rows inserted after it, and the `after` fields those rows must show. */
function steps(name: string, rowsPerStep: number) {
  const ids = (step: number) => Array.from({ length: rowsPerStep }, (_, i) => step * 100_000 + i + 1);
  const values = (step: number, f: (id: number) => string) =>
    ids(step)
      .map((id) => `(${f(id)})`)
      .join(',');
  return [
    {
      ddl: null,
      dml: `INSERT INTO ${name}.t (id, a) VALUES ${values(1, (id) => `${id}, 'a${id}'`)}`,
      expect: (id: number) => ({ id, a: `a${id}` }),
    },
    {
      ddl: `ALTER TABLE ${name}.t ADD COLUMN b INT NOT NULL DEFAULT 5`,
      dml: `INSERT INTO ${name}.t (id, a, b) VALUES ${values(2, (id) => `${id}, 'a${id}', ${id % 1000}`)}`,
      expect: (id: number) => ({ id, a: `a${id}`, b: id % 1000 }),
    },
    {
      ddl: `ALTER TABLE ${name}.t DROP COLUMN a`,
      dml: `INSERT INTO ${name}.t (id, b) VALUES ${values(3, (id) => `${id}, ${id % 1000}`)}`,
      expect: (id: number) => ({ id, b: id % 1000 }),
    },
    {
      ddl: `ALTER TABLE ${name}.t RENAME COLUMN b TO c`,
      dml: `INSERT INTO ${name}.t (id, c) VALUES ${values(4, (id) => `${id}, ${id % 1000}`)}`,
      expect: (id: number) => ({ id, c: id % 1000 }),
    },
    {
      ddl: `ALTER TABLE ${name}.t MODIFY c VARCHAR(12) NULL`,
      dml: `INSERT INTO ${name}.t (id, c) VALUES ${values(5, (id) => `${id}, 'c${id}'`)}`,
      expect: (id: number) => ({ id, c: `c${id}` }),
    },
    {
      ddl: `RENAME TABLE ${name}.t TO ${name}.t2`,
      dml: `INSERT INTO ${name}.t2 (id, c) VALUES ${values(6, (id) => `${id}, 'r${id}'`)}`,
      expect: (id: number) => ({ id, c: `r${id}` }),
    },
  ];
}

function checkRows(lines: SinkLine[], plan: ReturnType<typeof steps>, rowsPerStep: number): number {
  const creates = [...changes(lines, 't'), ...changes(lines, 't2')].filter((v) => v.op === 'c');
  const byId = new Map<number, Record<string, unknown>[]>();
  for (const v of creates) {
    const after = v.after as { id: number };
    byId.set(after.id, [...(byId.get(after.id) ?? []), after]);
  }
  plan.forEach((step, s) => {
    for (let i = 1; i <= rowsPerStep; i++) {
      const id = (s + 1) * 100_000 + i;
      const got = byId.get(id);
      assert.ok(got, `row ${id} (after step ${s}) missing`);
      for (const g of got) assert.deepEqual(g, step.expect(id), `row ${id} decoded with the schema of its time`);
    }
  });
  // Rows after the rename appear on the new table's topic, the others on the old one.
  for (const v of changes(lines, 't2')) assert.ok((v.after as { id: number }).id > 600_000);
  for (const v of changes(lines, 't')) assert.ok((v.after as { id: number }).id < 600_000);
  return creates.length - plan.length * rowsPerStep;
}

test('DDL sequence with restarts at idle points: each row uses the schema of its time', async () => {
  const server = db();
  const name = await server.createDatabase('ddl');
  await server.query(`CREATE TABLE ${name}.t (id INT PRIMARY KEY, a VARCHAR(20))`);
  const env = captureEnv(server, name);
  await env.runUntilIdle();
  const plan = steps(name, 3);
  // Restart between every pair of steps, and once with two steps pending.
  for (const [i, step] of plan.entries()) {
    if (step.ddl) await server.query(step.ddl);
    await server.query(step.dml);
    if (i !== 2) await env.runUntilIdle();
  }
  const lines = env.lines();
  assert.equal(checkRows(lines, plan, 3), 0, 'no duplicates across clean restarts');
  const ddl = lines.filter((l) => l.topic === 'it' && l.value && 'ddl' in l.value).map((l) => String(l.value?.ddl));
  assert.deepEqual(
    ddl.slice(-5),
    plan.slice(1).map((s) => s.ddl),
  );
});

test('kill -9 with the committed offset before DDLs already in the history: replay uses the right schemas', async (t) => {
  const server = db();
  const name = await server.createDatabase('ddlk');
  await server.query(`CREATE TABLE ${name}.t (id INT PRIMARY KEY, a VARCHAR(20))`);
  const env = captureEnv(server, name);
  await env.runUntilIdle();
  const offsets = join(env.dir, 'offsets.json');
  const committedBefore = readFileSync(offsets, 'utf8');
  const rows = 1500;
  const plan = steps(name, rows);
  for (const step of plan) {
    if (step.ddl) await server.query(step.ddl);
    await server.query(step.dml);
  }
  // The child reads past the DDLs (recording them in the schema history) and dies. Its stored offset is put back
  // to the one from before the DDLs, as if it had died before committing: when its first commit lands is a matter
  // of timing (on a loaded machine it came after every DDL), the situation tested is not.
  const out = join(env.dir, 'events.ndjson');
  const run = spawnCapture(env.dir, env.props, { 'offset.flush.interval.ms': '60000', 'max.batch.size': '250' });
  // The child's start alone can take many seconds on a loaded machine; only a failure waits this long.
  const reached = await pollUntil(() => readFileSync(out, 'utf8').includes('"id":500001'), 120_000);
  run.child.kill('SIGKILL');
  await run.exited;
  assert.ok(reached, `child did not reach step 5: ${run.stderr()}`);
  writeFileSync(offsets, committedBefore);
  const offset = JSON.parse(readFileSync(offsets, 'utf8')).offset as {
    file: string;
    pos: number;
  };
  const history = readFileSync(join(env.dir, 'history.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { position?: { pos: number }; ddl?: string });
  const later = history.filter((h) => h.ddl?.startsWith('ALTER') && (h.position?.pos ?? 0) > offset.pos);
  assert.ok(later.length >= 3, `history entries past the committed offset: ${later.length}`);

  await env.runUntilIdle();
  const { lines, torn } = readSinkFile(out);
  const dups = checkRows(lines, plan, rows);
  t.diagnostic(
    `DDLs in history past the committed offset: ${later.length}; duplicates replayed: ${dups}; torn: ${torn}`,
  );
  assert.ok(dups > 0, 'the replay really re-read rows from before the DDLs');

  // The replay recorded those DDLs in the history a second time; a further restart must still recover.
  await server.query(`INSERT INTO ${name}.t2 (id, c) VALUES (700001, 'x')`);
  await env.runUntilIdle();
  const last = changes(env.lines(), 't2').at(-1);
  assert.deepEqual(last?.after, { id: 700001, c: 'x' });
});
