/** DynamoDB item sizes as the materializer counts them against the 400 KB limit (lambdas/lib/dynamo-values.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { itemBytes, MAX_ITEM_BYTES, toItem } from '../../lambdas/lib/dynamo-values.js';

test('names and strings count in UTF-8 bytes; numbers by significant digits; null and booleans one byte', () => {
  assert.equal(itemBytes(toItem({ ab: 'xyz' })), 5);
  assert.equal(itemBytes(toItem({ é: 'ü€' })), 2 + 5);
  assert.equal(itemBytes(toItem({ n: 12345 })), 1 + 4, 'five digits: three bytes plus one');
  assert.equal(itemBytes(toItem({ n: 1000 })), 1 + 2, 'trailing zeros are not significant');
  assert.equal(itemBytes(toItem({ n: 123456789012345678901234567890n })), 1 + 16);
  assert.equal(itemBytes(toItem({ a: null, b: true })), 2 + 2);
});

test('lists and maps: three bytes plus one per element, names of map entries included', () => {
  assert.equal(itemBytes(toItem({ l: ['ab', 'c'] })), 1 + 3 + (1 + 2) + (1 + 1));
  assert.equal(itemBytes(toItem({ m: { k: 'v', kk: 1 } })), 1 + 3 + (1 + 1 + 1) + (2 + 1 + 2));
});

test("DynamoDB's limit: 400 KB with the names, so a 409,600-byte string is already over it", () => {
  assert.equal(MAX_ITEM_BYTES, 409_600);
  assert.ok(itemBytes(toItem({ __key: 'k', v: 'x'.repeat(409_600 - 7) })) <= MAX_ITEM_BYTES);
  assert.ok(itemBytes(toItem({ __key: 'k', v: 'x'.repeat(409_600) })) > MAX_ITEM_BYTES);
});
