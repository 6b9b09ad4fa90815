import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MariaDbGtidSet, MysqlGtidSet, parseGtidSet } from '../../../src/source/mysql/gtid.js';

const U1 = '3e11fa47-71ca-11e1-9e33-c80aa9429562';
const U2 = 'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee';

test('MySQL GTID sets merge adjacent transactions and print in server form', () => {
  const s = MysqlGtidSet.parse(`${U2}:1-3,${U1.toUpperCase()}:1-5:7`);
  s.add(`${U1}:6`);
  s.add(`${U2}:4`);
  assert.equal(s.toString(), `${U1}:1-7,${U2}:1-4`);
  assert.ok(s.contains(`${U1}:3`));
  assert.ok(!s.contains(`${U1}:8`));
});

test('MySQL 8.4 tagged GTIDs keep their tag', () => {
  const s = MysqlGtidSet.parse(`${U1}:1-2:tag_a:1-3`);
  s.add(`${U1}:tag_a:4`);
  assert.equal(s.toString(), `${U1}:1-2:tag_a:1-4`);
});

test('MariaDB GTID positions keep the last GTID per domain', () => {
  const s = MariaDbGtidSet.parse('0-1-10,1-2-5');
  s.add('0-1-11');
  s.add('2-3-1');
  assert.equal(s.toString(), '0-1-11,1-2-5,2-3-1');
  assert.equal(parseGtidSet('0-1-1').flavor, 'mariadb');
  assert.equal(parseGtidSet(`${U1}:1`).flavor, 'mysql');
  assert.throws(() => s.add('nope'), /domain-server-sequence/);
});
