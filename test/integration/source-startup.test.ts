/**
 * What the MySQL source does with the server before it captures: one connection reads the server's facts and checks
 * the stored offset (each set-up costs round trips and CPU on every start), and it is ended whether that succeeds
 * or fails; a failing query is reported as itself.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Connection } from 'mysql2/promise';
import { silentLogger } from '../../src/common/logger.js';
import type { SourceOffset } from '../../src/model/source-offset.js';
import { createConnectionFactory } from '../../src/source/mysql/connection-factory.js';
import { MySqlSource } from '../../src/source/mysql/mysql-source.js';
import { FileSchemaHistory } from '../../src/stores/file/file-schema-history.js';
import { useMariaDb } from '../harness/fixtures.js';
import { pollUntil } from '../harness/wait.js';
import { captureEnv } from './support/capture.js';

const db = useMariaDb();

interface Recorded {
  sql: string[];
  ended: boolean;
}

/** A connection factory that records each connection's statements and whether it was ended. */
function recording(connect: () => Promise<Connection>, fail?: RegExp) {
  const conns: Recorded[] = [];
  return {
    conns,
    connect: async () => {
      const conn = await connect();
      const rec: Recorded = { sql: [], ended: false };
      conns.push(rec);
      const query = conn.query.bind(conn) as (...args: unknown[]) => Promise<unknown>;
      (conn as { query: unknown }).query = (sql: unknown, ...rest: unknown[]) => {
        const text = typeof sql === 'string' ? sql : String((sql as { sql?: string }).sql);
        rec.sql.push(text);
        if (fail?.test(text)) return Promise.reject(new Error(`injected failure of ${text.slice(0, 20)}`));
        return query(sql, ...rest);
      };
      const end = conn.end.bind(conn);
      conn.end = () => {
        rec.ended = true;
        return end();
      };
      return conn;
    },
  };
}

test('a restart reads the server and checks the stored offset on one connection, then ends it', async () => {
  const server = db();
  const name = await server.createDatabase('startup');
  await server.query(`CREATE TABLE ${name}.t (id INT PRIMARY KEY)`);
  await server.query(`INSERT INTO ${name}.t VALUES (1)`);
  const env = captureEnv(server, name);
  const history = new FileSchemaHistory({ path: `${env.dir}/history.jsonl`, connectorName: 'startup' });
  const factory = createConnectionFactory({ config: env.config, logger: silentLogger });
  let committed: SourceOffset | null = null;
  const run = async (connect: () => Promise<Connection>, stopWhen: (offset: SourceOffset) => boolean) => {
    const source = new MySqlSource({ config: env.config, history, connect, logger: silentLogger });
    const abort = new AbortController();
    const done = source.run({
      offset: committed,
      signal: abort.signal,
      logger: silentLogger,
      emit: async (item) => {
        if (!item.offset) return;
        committed = item.offset;
        if (stopWhen(item.offset)) abort.abort();
      },
    });
    return { source, done, abort };
  };
  // First start: the initial snapshot, stopped once it is complete.
  await (await run(factory, (o) => o.snapshot_completed === true)).done;
  assert.ok(committed);

  const rec = recording(factory);
  const second = await run(rec.connect, () => false);
  assert.ok(await pollUntil(() => second.source.metrics.phase === 'streaming', 20_000));
  const before = committed as SourceOffset | null;
  await server.query(`INSERT INTO ${name}.t VALUES (2)`);
  assert.ok(await pollUntil(() => committed !== before, 20_000), 'the restarted capture streamed the insert');
  second.abort.abort();
  await second.done;
  const setup = rec.conns.find((c) => c.sql.some((s) => s.includes('@@version_comment')));
  assert.ok(setup, 'a connection read the server identity');
  assert.ok(
    setup.sql.some((s) => s === 'SHOW BINARY LOGS'),
    `the same connection checked the stored offset: ${setup.sql.join(' | ')}`,
  );
  assert.equal(setup.ended, true);
});

test('a failing server read fails the start with its own error and ends the connection', async () => {
  const server = db();
  const name = await server.createDatabase('startfail');
  const env = captureEnv(server, name);
  const history = new FileSchemaHistory({ path: `${env.dir}/history.jsonl`, connectorName: 'startfail' });
  const rec = recording(createConnectionFactory({ config: env.config, logger: silentLogger }), /@@version_comment/);
  const source = new MySqlSource({ config: env.config, history, connect: rec.connect, logger: silentLogger });
  await assert.rejects(
    source.run({ offset: null, signal: new AbortController().signal, logger: silentLogger, emit: async () => {} }),
    /injected failure of SELECT VERSION()/,
  );
  assert.equal(rec.conns.length, 1);
  assert.equal(rec.conns[0].ended, true);
});
