import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MysqlTimestamp } from '../../../src/model/values.js';
import { isCurrent, versionedChange } from '../../../src/source/mysql/schema/system-versioning.js';

const MAX = new MysqlTimestamp(2147483647, 999999, 6);
const PAST = new MysqlTimestamp(1796157891, 20691, 6);

test('ROW END maximum: TIMESTAMP(6) 32/64-bit and BIGINT UNSIGNED', () => {
  assert.equal(isCurrent(MAX), true);
  assert.equal(isCurrent(new MysqlTimestamp(4294967295, 999999, 6)), true);
  assert.equal(isCurrent(PAST), false);
  assert.equal(isCurrent(18446744073709551615n), true);
  assert.equal(isCurrent(5n), false);
});

test('row events of a versioned table as changes of its current rows', () => {
  const row = (end: MysqlTimestamp) => [1, 2, PAST, end];
  assert.equal(versionedChange('c', 3, null, row(MAX)), 'c');
  assert.equal(versionedChange('c', 3, null, row(PAST)), null, 'an UPDATE writes the old version as history');
  assert.equal(versionedChange('u', 3, row(MAX), row(MAX)), 'u');
  assert.equal(versionedChange('u', 3, row(MAX), row(PAST)), 'd', 'DELETE closes ROW END');
  assert.equal(versionedChange('u', 3, row(PAST), row(PAST)), null);
  assert.equal(versionedChange('d', 3, row(MAX), null), 'd');
  assert.equal(versionedChange('d', 3, row(PAST), null), null, 'DELETE HISTORY');
  assert.equal(versionedChange('u', -1, row(PAST), row(PAST)), 'u', 'not versioned');
});
