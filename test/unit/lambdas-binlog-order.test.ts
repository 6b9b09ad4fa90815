/** The materializer's per-key order text (lambdas/lib/binlog-order.ts) across server generations (failovers). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { changeOrder, PositionError } from '../../lambdas/lib/binlog-order.js';
import type { JsonObject } from '../../src/transforms/record.js';

const change = (file: string, pos: number, op = 'u'): JsonObject & { op: string; source: JsonObject } => ({
  op,
  source: { file, pos, row: 0, snapshot: op === 'r' ? 'true' : 'false' },
});
const order = (file: string, pos: number, generation?: number, id = '0-1-5/0/0', op = 'u') =>
  changeOrder(change(file, pos, op), id, '1', 0, generation);

test('a change read after a failover orders after every change of the old server, whatever its file and pos', () => {
  const old = order('mysql-bin.000009', 5000);
  const afterFailover = order('mysql-bin.000001', 4, 1);
  assert.ok(old < afterFailover, `${old} < ${afterFailover}`);
  assert.ok(order('mysql-bin.000009', 5000, 1) < order('mysql-bin.000001', 4, 2), 'generation 1 < generation 2');
  assert.ok(order('mysql-bin.1000000', 4, 1) > order('mysql-bin.999999', 9000, 1), 'file number within one');
  assert.ok(order('mysql-bin.000001', 300, 1) > order('mysql-bin.000001', 200, 1), 'pos within one generation');
  assert.ok(order('mysql-bin.000001', 4, 1, undefined, 'r') > old, 'a snapshot after a failover too');
  // A repeat has an equal order in its generation; generation 0 is the order text stored before generations.
  assert.equal(order('mysql-bin.000002', 120, 3), order('mysql-bin.000002', 120, 3));
  assert.equal(order('mysql-bin.000002', 120, 0), order('mysql-bin.000002', 120));
  assert.match(order('mysql-bin.000002', 120), /^0{11}2\.0{17}120\.1\./);
});

test('a server generation that is not a non-negative integer is a position error naming the header', () => {
  for (const bad of [-1, 1.5, '1', null]) {
    assert.throws(
      () => changeOrder(change('mysql-bin.000001', 4), undefined, '1', 0, bad),
      (err: Error) => err instanceof PositionError && /__cdc\.server_generation/.test(err.message),
      String(bad),
    );
  }
});
