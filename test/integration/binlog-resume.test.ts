/**
 * Resuming at the decoded level: from a MariaDB GTID position and from a file/position, our client + decoder
 * deliver exactly the decoded row changes after that point (replication.test.ts checks the raw bytes).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useMariaDb } from '../harness/fixtures.js';
import { binlogPosition, decodeFrom, rowChanges } from './support/binlog-stream.js';

const server = useMariaDb();

test('resume by GTID and by file/position yields exactly the remaining decoded changes', {
  timeout: 60_000,
}, async () => {
  const s = server();
  const db = await s.createDatabase('resume');
  await s.query(
    `CREATE TABLE ${db}.t (id INT PRIMARY KEY, amount DECIMAL(12,2), at DATETIME(6), note VARCHAR(40), big BIGINT UNSIGNED)`,
  );
  const start = await binlogPosition(s);
  const marks: Awaited<ReturnType<typeof binlogPosition>>[] = [];
  for (let txn = 0; txn < 4; txn++) {
    await s.query(
      `INSERT INTO ${db}.t VALUES ${[1, 2, 3]
        .map(
          (k) =>
            `(${txn * 10 + k}, ${txn}${k}.5${k}, '2024-0${k}-1${txn} 01:02:03.00000${k}', 'txn ${txn} 😀', 1844674407370955161${k})`,
        )
        .join(', ')}`,
    );
    await s.query(`UPDATE ${db}.t SET note = CONCAT(note, '!') WHERE id = ${txn * 10 + 1}`);
    marks.push(await binlogPosition(s));
  }
  // 8 transactions: an INSERT of 3 rows and an UPDATE of 1 per round.
  const all = rowChanges(await decodeFrom(s, { file: start.file, pos: start.pos }, 8));
  assert.equal(all.length, 16);
  assert.deepEqual(
    all.map((c) => c.op),
    Array(4).fill(['c', 'c', 'c', 'u']).flat(),
  );
  // After round 1 (2 transactions): the remaining 12 changes, decoded identically, by either kind of position.
  const byGtid = rowChanges(await decodeFrom(s, { gtidSet: marks[1].gtid }, 4));
  const byFile = rowChanges(await decodeFrom(s, { file: marks[1].file, pos: marks[1].pos }, 4));
  assert.deepEqual(byGtid, all.slice(8));
  assert.deepEqual(byFile, all.slice(8));
  // Resuming at the very end yields nothing old: the next change is the first one seen.
  await s.query(`DELETE FROM ${db}.t WHERE id = 1`);
  const tail = rowChanges(await decodeFrom(s, { gtidSet: marks[3].gtid }, 1));
  assert.equal(tail.length, 1);
  assert.equal(tail[0].op, 'd');
  assert.equal(tail[0].op === 'd' ? tail[0].before[0] : undefined, 1);
});
