import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { recordSize, type SinkRecord } from '../../../src/model/sink-record.js';
import {
  applyTransforms,
  buildChain,
  parseTransformsConfig,
  TransformConfigError,
  transformsFromEnv,
} from '../../../src/transforms/index.js';
import { ANNE, chain, change, tombstone } from './helpers.js';

describe('chain', () => {
  test('steps run in order and a record can be split or dropped along the way', () => {
    const c = chain({
      transforms: 'insert,unwrap,route',
      'transforms.insert.type': 'read-to-insert',
      'transforms.unwrap.type': 'unwrap',
      'transforms.unwrap.add.fields': 'op',
      'transforms.route.type': 'tombstone-router',
    });
    assert.deepEqual(
      c.apply(change('r', null, ANNE)).map((r) => r.value),
      [{ ...ANNE, __op: 'c' }],
    );
    assert.equal(c.apply(tombstone())[0].topic, 'dbserver1.inventory.customers.tombstones');
    assert.deepEqual(c.apply(change('d', ANNE, null)), []);
    assert.deepEqual(
      c.steps.map((s) => s.type),
      ['ReadToInsertEvent', 'ExtractNewRecordState', 'TombstoneRouter'],
    );
  });

  test('every problem of every transform is reported at once, naming the property and the fix', () => {
    try {
      chain({
        transforms: 'a,b,c,d',
        'transforms.a.type': 'io.debezium.transforms.ExtractNewRecordStat',
        'transforms.b.type': 'unwrap',
        'transforms.b.add.feilds': 'op',
        'transforms.c.type': 'filter',
        'transforms.d.type': 'regex-router',
        'transforms.d.regex': '(',
        'transforms.d.replacement': 'x',
      });
      assert.fail('expected an error');
    } catch (err) {
      assert.ok(err instanceof TransformConfigError);
      assert.equal(err.code, 'TRANSFORM_INVALID');
      assert.deepEqual(
        err.problems.map((p) => p.property),
        ['transforms.a.type', 'transforms.b.add.feilds', 'transforms.c.condition', 'transforms.d.regex'],
      );
      assert.match(err.problems[0].fix, /did you mean io\.debezium\.transforms\.ExtractNewRecordState\?/);
      assert.match(err.problems[1].fix, /did you mean transforms\.b\.add\.fields\?/);
      assert.match(err.message, /Invalid transforms: 4 problems/);
    }
  });

  test('transforms-only parsing ignores other keys and reports unlisted transform keys', () => {
    const configs = parseTransformsConfig({
      'database.hostname': 'ignored',
      transforms: 'unwrap',
      'transforms.unwrap.type': 'unwrap',
    });
    assert.deepEqual(configs, [{ name: 'unwrap', type: 'unwrap', options: {} }]);
    assert.throws(
      () =>
        parseTransformsConfig({ transforms: 'unwrap', 'transforms.unwrap.type': 'unwrap', 'transforms.unwarp.x': '1' }),
      /did you mean transforms\.unwrap\.x/,
    );
  });

  test('environment variables map to transforms (JSON config plus CDC_TRANSFORMS_* overrides)', () => {
    const configs = transformsFromEnv({
      TRANSFORMS_CONFIG: JSON.stringify({ transforms: 'unwrap', 'transforms.unwrap.type': 'unwrap' }),
      CDC_TRANSFORMS: 'unwrap,by_table',
      CDC_TRANSFORMS_UNWRAP_DELETE_TOMBSTONE_HANDLING_MODE: 'rewrite',
      CDC_TRANSFORMS_BY_TABLE_TYPE: 'router',
      CDC_TRANSFORMS_BY_TABLE_TOPIC_REGEX: '(.*)_\\d+',
      CDC_TRANSFORMS_BY_TABLE_TOPIC_REPLACEMENT: '$1',
      OTHER: 'x',
    });
    assert.deepEqual(configs, [
      { name: 'unwrap', type: 'unwrap', options: { 'delete.tombstone.handling.mode': 'rewrite' } },
      { name: 'by_table', type: 'router', options: { 'topic.regex': '(.*)_\\d+', 'topic.replacement': '$1' } },
    ]);
    buildChain(configs);
    assert.throws(
      () => transformsFromEnv({ CDC_TRANSFORMS_NOPE_TYPE: 'x', TRANSFORMS_CONFIG: '[' }),
      (err: TransformConfigError) => err.problems.length === 2,
    );
  });

  test('applyTransforms works on serialised SinkRecords and is the identity for an empty chain', () => {
    const value = JSON.stringify({ before: null, after: { id: 1 }, source: { table: 't' }, op: 'r' });
    const input: SinkRecord[] = [
      { topic: 'p.db.t', key: '{"id":1}', value, table: 'db.t', sizeBytes: recordSize('{"id":1}', value) },
      { topic: 'p.db.t', key: '{"id":1}', value: null, table: 'db.t', sizeBytes: 8 },
    ];
    assert.equal(applyTransforms(buildChain([]), input), input);
    const out = applyTransforms(chain({ transforms: 'u', 'transforms.u.type': 'unwrap' }), input);
    assert.deepEqual(out, [
      { topic: 'p.db.t', key: '{"id":1}', value: '{"id":1}', table: 'db.t', sizeBytes: 16 },
      { topic: 'p.db.t', key: '{"id":1}', value: null, table: 'db.t', sizeBytes: 8 },
    ]);
    assert.throws(
      () => applyTransforms(chain({ transforms: 'u', 'transforms.u.type': 'unwrap' }), [{ ...input[0], value: '{' }]),
      /topic 'p\.db\.t'/,
    );
  });
});
