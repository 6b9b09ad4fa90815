import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JsonParseError, jsonEqual, parseJson, stringifyJson } from '../../../src/transforms/json.js';

test('unsafe integers survive a parse/stringify round trip exactly', () => {
  const text = '{"id":18446744073709551615,"neg":-9223372036854775808,"safe":9007199254740991,"f":-0.125}';
  const v = parseJson(text) as Record<string, unknown>;
  assert.equal(v.id, 18446744073709551615n);
  assert.equal(v.neg, -9223372036854775808n);
  assert.equal(v.safe, 9007199254740991);
  assert.equal(stringifyJson(v), text);
});

test('matches JSON.parse on ordinary documents, escapes included', () => {
  const text = '{"a":[1,2.5,-0.25,true,false,null],"s":"x\\"y\\u00e9\\n","o":{},"l":[]}';
  assert.deepEqual(parseJson(text), JSON.parse(text));
  assert.equal(stringifyJson(parseJson(text)), JSON.stringify(JSON.parse(text)));
});

test('a member named __proto__ stays an own property and does not change the prototype', () => {
  const v = parseJson('{"__proto__":{"polluted":true}}') as Record<string, unknown>;
  assert.ok(Object.hasOwn(v, '__proto__'));
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(stringifyJson(v), '{"__proto__":{"polluted":true}}');
});

test('malformed JSON fails with the offset', () => {
  assert.throws(() => parseJson('{"a":1,}'), JsonParseError);
  assert.throws(() => parseJson('[1] x'), /offset 4/);
  assert.throws(() => parseJson('"abc'), /unterminated/);
});

test('jsonEqual compares numbers across number and bigint', () => {
  assert.ok(jsonEqual({ a: [1, 2n] }, { a: [1n, 2] }));
  assert.ok(!jsonEqual({ a: 1 }, { a: 1, b: null }));
  assert.ok(!jsonEqual([1], { 0: 1 }));
});
