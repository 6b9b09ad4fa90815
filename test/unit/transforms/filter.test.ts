import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compileExpression, ExpressionError } from '../../../src/transforms/expression.js';
import { ANNE, change, run, tombstone } from './helpers.js';

const order = (op: 'c' | 'u' | 'd', amount: number | bigint) =>
  change(op, op === 'c' ? null : { id: 1, amount }, op === 'd' ? null : { id: 1, amount, tags: ['a', 'b'] }, {
    topic: 'shop.sales.orders',
  });

describe('expression language', () => {
  const ev = (src: string, r = order('u', 150)) => compileExpression(src)(r);

  test('comparisons, logic, field access and JSONPath-ish roots', () => {
    assert.ok(ev("value.op == 'u' && value.after.amount > 100"));
    assert.ok(!ev("value.op == 'd' && value.after.amount > 100"));
    assert.ok(ev('$.value.after.amount >= 150 and not (value.after.amount > 150)'));
    assert.ok(ev("value['after']['tags'][1] == 'b' && value.after.tags[-1] == 'b'"));
    assert.ok(ev('topic =~ /orders$/ && !(topic !~ /^shop\\./)'));
    assert.ok(ev("'a' in value.after.tags && 'amount' in value.after && 'ales' in topic"));
    assert.ok(ev('value.after.amount * 2 - 100 == 200 && value.after.amount % 100 == 50'));
    assert.ok(ev("len(value.after.tags) == 2 && upper(value.op) == 'U' && startsWith(topic, 'shop')"));
    assert.ok(ev('value.source.file == "mysql-bin.000003" || false'));
  });

  test('missing fields are null and never throw', () => {
    assert.ok(ev('value.nope.deeper == null && !exists(value.nope)'));
    assert.ok(!ev('value.nope.deeper > 1'));
    assert.ok(!ev('value.after.amount > "100"'), 'mixed types compare false');
    assert.ok(ev('value.constructor == null && value.__proto__ == null'), 'no prototype access');
  });

  test('big integers compare exactly', () => {
    const r = order('c', 18446744073709551615n);
    assert.ok(compileExpression('value.after.amount > 9007199254740993')(r));
    assert.ok(compileExpression('value.after.amount == value.after.amount + 0')(r));
  });

  test('syntax errors name the position; unknown names are refused', () => {
    assert.throws(() => compileExpression('value.op =='), ExpressionError);
    assert.throws(() => compileExpression('process.exit(1)'), /unknown name 'process'/);
    assert.throws(() => compileExpression("value.op == 'u"), /unterminated string/);
    assert.throws(() => compileExpression('topic =~ /(/'), /invalid regular expression/);
  });
});

describe('Filter', () => {
  const big = { condition: "value.op == 'd' || value.after.amount > 100" };

  test('keeps records for which the condition holds', () => {
    assert.equal(run('io.debezium.transforms.Filter', big, order('u', 150)).length, 1);
    assert.equal(run('filter', big, order('u', 50)).length, 0);
    assert.equal(run('filter', big, order('d', 50)).length, 1);
  });

  test('null.handling.mode keep/drop/evaluate for tombstones', () => {
    assert.equal(run('filter', big, tombstone()).length, 1);
    assert.equal(run('filter', { ...big, 'null.handling.mode': 'drop' }, tombstone()).length, 0);
    assert.equal(
      run('filter', { condition: 'value == null', 'null.handling.mode': 'evaluate' }, tombstone()).length,
      1,
    );
    assert.equal(run('filter', { ...big, 'null.handling.mode': 'evaluate' }, tombstone()).length, 0);
  });

  test('topic.regex limits which records are filtered', () => {
    const customers = change('c', null, ANNE);
    assert.deepEqual(run('filter', { condition: 'false', 'topic.regex': '.*orders' }, customers), [customers]);
    assert.equal(run('filter', { condition: 'false', 'topic.regex': '.*orders' }, order('c', 1)).length, 0);
  });

  test('script languages and bad conditions are configuration errors', () => {
    assert.throws(
      () => run('filter', { language: 'jsr223.groovy', condition: 'value.op ==' }, tombstone()),
      (err: Error & { code?: string; problems?: { property: string }[] }) => {
        assert.equal(err.code, 'TRANSFORM_INVALID');
        assert.deepEqual(
          err.problems?.map((p) => p.property),
          ['transforms.t.language', 'transforms.t.condition'],
        );
        return true;
      },
    );
  });
});
