/**
 * MariaDB's TABLE_MAP SIGNEDNESS bitmap has a bit for YEAR columns too (MySQL's does not): reading it with MySQL's
 * numeric-type list shifted every later flag by one, so a signed INT after a YEAR and an UNSIGNED column decoded
 * -1 as 4294967295 and the streamer stopped on a signedness mismatch. Through the real server and our decoder.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useMariaDb } from '../harness/fixtures.js';
import { binlogPosition, decodeFrom, rowChanges } from './support/binlog-stream.js';

const server = useMariaDb();

test('a YEAR column does not shift the signedness of the numeric columns after it (MariaDB)', async () => {
  const s = server();
  const db = await s.createDatabase('year_sign');
  await s.query(
    `CREATE TABLE ${db}.t (id INT PRIMARY KEY, y YEAR NOT NULL, s SMALLINT UNSIGNED, i INT, b BIGINT, y2 YEAR, u INT UNSIGNED)`,
  );
  const start = await binlogPosition(s);
  await s.query(`INSERT INTO ${db}.t VALUES (1, 2024, 65535, -1, -5, 1999, 4294967295)`);
  const changes = rowChanges(await decodeFrom(s, { file: start.file, pos: start.pos }, 1));
  assert.equal(changes.length, 1);
  const ch = changes[0];
  assert.ok(ch.op === 'c');
  assert.deepEqual(ch.after, [1, 2024, 65535, -1, -5, 1999, 4294967295]);
});
