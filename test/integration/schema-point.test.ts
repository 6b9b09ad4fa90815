/**
 * snapshot.mode=never on a first start reads the schema from the server: a DDL committed between that read and the
 * position read must neither be lost (its table's rows decoded with the old columns) nor applied twice. The DDL is
 * injected deterministically: the source's connections are wrapped, and the first binlog-position read after the
 * schema was loaded runs the DDL first.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Connection } from 'mysql2/promise';
import { startCapture } from '../../src/cli/commands/run.js';
import { silentLogger } from '../../src/common/logger.js';
import { useMariaDb } from '../harness/fixtures.js';
import { pollUntil } from '../harness/wait.js';
import { captureEnv, changes } from './support/capture.js';

const db = useMariaDb();

/** Before the source's next statement matching `on` (after the previous step ran), run `sql` on the server. */
interface Step {
  on: RegExp;
  sql: (db: string) => string[];
}

/**
 * Starts a capture with snapshot.mode=never on table t (id, a) whose source runs `steps` in turn between its own
 * statements; once it streams, inserts `row` and returns the rows captured.
 */
async function captureAcross(label: string, steps: Step[], row: Record<string, unknown>): Promise<unknown[]> {
  const server = db();
  const name = await server.createDatabase(label);
  await server.query(`CREATE TABLE ${name}.t (id INT PRIMARY KEY, a VARCHAR(20))`);
  const env = captureEnv(server, name, { 'snapshot.mode': 'never' });

  let next = 0;
  const inject = async (sql: string) => {
    const step = steps[next];
    if (!step?.on.test(sql)) return;
    next++;
    for (const s of step.sql(name)) await server.query(s);
  };
  const wrapConnect = (connect: () => Promise<Connection>) => async () => {
    const conn = await connect();
    return new Proxy(conn, {
      get(target, prop) {
        if (prop === 'query') {
          return async (...args: Parameters<Connection['query']>) => {
            await inject(typeof args[0] === 'string' ? args[0] : String((args[0] as { sql?: string }).sql));
            return target.query(...args);
          };
        }
        const v = Reflect.get(target, prop, target);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
  };

  const handle = startCapture(env.config, silentLogger, { wrapConnect });
  let failure: unknown = null;
  const settled = handle.done.catch((err) => {
    failure = err;
  });
  try {
    assert.ok(
      await pollUntil(
        () => failure !== null || (next === steps.length && handle.source.metrics.streaming.Connected),
        60_000,
      ),
      'the capture started streaming',
    );
    assert.equal(failure, null, `the capture failed: ${String(failure)}`);
    const cols = Object.keys(row);
    await server.query(`INSERT INTO ${name}.t (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`, [
      ...Object.values(row),
    ]);
    assert.ok(
      await pollUntil(() => failure !== null || changes(env.lines(), 't').length > 0, 60_000),
      'the row after the DDL was captured',
    );
    assert.equal(failure, null, `the capture failed: ${String(failure)}`);
    return changes(env.lines(), 't').map((v) => v.after);
  } finally {
    handle.stop();
    await settled;
    assert.equal(failure, null, `the capture failed: ${String(failure)}`);
  }
}

const STATUS = /SHOW (MASTER|BINARY LOG) STATUS/i;
const SCHEMA_LOADED = /SHOW CREATE TABLE/i;
const SCHEMA_LOAD_STARTS = /information_schema\.SCHEMATA/i;

test('snapshot.mode=never: a DDL committed after the schema was read, before the position, is not lost', async () => {
  // Before the fix the position was read after the DDL, with the schema from before it: SCHEMA_INCONSISTENT.
  const rows = await captureAcross(
    'schemapoint_after',
    [
      { on: SCHEMA_LOADED, sql: () => [] },
      { on: STATUS, sql: (d) => [`ALTER TABLE ${d}.t ADD COLUMN b INT NOT NULL DEFAULT 7`] },
    ],
    { id: 1, a: 'x', b: 42 },
  );
  assert.deepEqual(rows, [{ id: 1, a: 'x', b: 42 }], 'the row is decoded with the column the DDL added');
});

test('snapshot.mode=never: a DDL committed while the schema is read is not applied on top of it', async () => {
  // The first DDL lands after a position read, inside the schema read, the second before the next position read.
  // Streaming from the first position (reading the position first alone) re-applies the first DDL onto a schema
  // that shows it: the tracker's fallback reloads the table as it is now (with c), and the row between the two
  // DDLs (id 1, no c yet) no longer matches it.
  const rows = await captureAcross(
    'schemapoint_during',
    [
      { on: STATUS, sql: () => [] },
      {
        on: SCHEMA_LOAD_STARTS,
        sql: (d) => [
          `ALTER TABLE ${d}.t ADD COLUMN b INT NOT NULL DEFAULT 7`,
          `INSERT INTO ${d}.t VALUES (1, 'x', 41)`,
        ],
      },
      { on: SCHEMA_LOADED, sql: () => [] },
      { on: STATUS, sql: (d) => [`ALTER TABLE ${d}.t ADD COLUMN c INT NULL`] },
    ],
    { id: 2, a: 'y', b: 42, c: 43 },
  );
  // Row 1 was committed before the position the stream starts at (no snapshot): only row 2 is captured.
  assert.deepEqual(rows, [{ id: 2, a: 'y', b: 42, c: 43 }], 'the row is decoded with both added columns');
});

/**
 * snapshot.mode=recovery with a stored offset and no schema history (Debezium's recovery snapshot): today's schema
 * is recorded at the stored offset and streaming resumes there, so the changes made while the connector was down
 * are not skipped. That only holds when no captured table's schema changed since the offset: the binlog between the
 * offset and now is checked, and DDL on a captured table fails the start with the tables and the way out.
 */
test('snapshot.mode=recovery resumes at the stored offset, and refuses when captured tables changed since', async () => {
  const server = db();
  const name = await server.createDatabase('recov');
  const other = await server.createDatabase('recovother');
  await server.query(`CREATE TABLE ${name}.t (id INT PRIMARY KEY, a VARCHAR(20))`);
  const env = captureEnv(server, name);
  await env.runUntilIdle();
  const recovery = (history: string) =>
    captureEnv(server, name, {
      'offset.storage.file.filename': `${env.dir}/offsets.json`,
      'schema.history.internal.file.filename': `${env.dir}/${history}`,
      'snapshot.mode': 'recovery',
    });

  // While down: a row, and DDL on a table the capture does not include.
  await server.query(`INSERT INTO ${name}.t VALUES (1, 'while down')`);
  await server.query(`CREATE TABLE ${other}.x (id INT PRIMARY KEY)`);
  const recovered = await recovery('history-a.jsonl').runUntilIdle();
  assert.deepEqual(
    changes(recovered, 't').map((v) => [v.op, (v.after as { id: number } | null)?.id]),
    [['c', 1]],
    'the row written while the connector was down is captured after the recovery',
  );

  // While down again: a captured table changes.
  await server.query(`ALTER TABLE ${name}.t ADD COLUMN b INT`);
  await server.query(`INSERT INTO ${name}.t VALUES (2, 'after alter', 3)`);
  await assert.rejects(recovery('history-b.jsonl').runUntilIdle(), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'SCHEMA_INCONSISTENT', err.message);
    assert.match(err.message, new RegExp(`\\b${name}\\.t\\b`));
    assert.match(err.message, /snapshot\.mode=initial/);
    return true;
  });
});
