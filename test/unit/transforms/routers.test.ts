import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ANNE, change, heartbeat, run, tombstone } from './helpers.js';

const shard = (n: number, id: number) =>
  change(
    'c',
    null,
    { id, amount: 10 },
    { topic: `dbserver1.inventory.orders_${n}`, key: { id }, table: `inventory.orders_${n}` },
  );

describe('ByLogicalTableRouter', () => {
  const opts = { 'topic.regex': '(.*)\\.inventory\\.orders_\\d+', 'topic.replacement': '$1.inventory.orders' };

  test('merges shard topics into one and keeps equal keys of different shards distinct', () => {
    const [a] = run('io.debezium.transforms.ByLogicalTableRouter', opts, shard(1, 7));
    const [b] = run('router', opts, shard(2, 7));
    assert.equal(a.topic, 'dbserver1.inventory.orders');
    assert.equal(b.topic, 'dbserver1.inventory.orders');
    assert.deepEqual(a.key, { id: 7, __dbz__physicalTableIdentifier: 'dbserver1.inventory.orders_1' });
    assert.deepEqual(b.key, { id: 7, __dbz__physicalTableIdentifier: 'dbserver1.inventory.orders_2' });
    assert.deepEqual(a.value, shard(1, 7).value);
  });

  test('key.field.name / key.field.regex / key.field.replacement shape the added key field', () => {
    const [r] = run(
      'router',
      { ...opts, 'key.field.name': 'shard', 'key.field.regex': '.*_(\\d+)', 'key.field.replacement': '$1' },
      shard(3, 1),
    );
    assert.deepEqual(r.key, { id: 1, shard: '3' });
    const [plain] = run('router', { ...opts, 'key.enforce.uniqueness': 'false' }, shard(3, 1));
    assert.deepEqual(plain.key, { id: 1 });
  });

  test('tombstones are re-keyed and routed; other topics and heartbeats pass', () => {
    const [t] = run('router', opts, { ...tombstone(7), topic: 'dbserver1.inventory.orders_4' });
    assert.equal(t.topic, 'dbserver1.inventory.orders');
    assert.equal(t.value, null);
    assert.deepEqual(t.key, { id: 7, __dbz__physicalTableIdentifier: 'dbserver1.inventory.orders_4' });
    const other = change('c', null, ANNE);
    assert.deepEqual(run('router', opts, other), [other]);
    assert.deepEqual(run('router', opts, heartbeat()), [heartbeat()]);
  });

  test('the regex must match the whole topic; schema-wrapped keys gain the field in the schema', () => {
    const r = { ...shard(1, 1), topic: 'x.dbserver1.inventory.orders_1.y' };
    assert.equal(
      run('router', { 'topic.regex': 'dbserver1\\.inventory\\.orders_1', 'topic.replacement': 'z' }, r)[0].topic,
      r.topic,
    );
    const ks = { type: 'struct', fields: [{ type: 'int32', optional: false, field: 'id' }] };
    const [w] = run('router', opts, { ...shard(1, 1), keySchema: ks });
    assert.deepEqual(w.keySchema, {
      type: 'struct',
      fields: [...ks.fields, { type: 'string', optional: false, field: '__dbz__physicalTableIdentifier' }],
    });
  });

  test('missing topic.regex/topic.replacement are both reported', () => {
    assert.throws(
      () => run('router', {}, shard(1, 1)),
      (err: Error & { problems?: { property: string }[] }) => {
        assert.deepEqual(
          err.problems?.map((p) => p.property),
          ['transforms.t.topic.regex', 'transforms.t.topic.replacement'],
        );
        return true;
      },
    );
  });
});

describe('RegexRouter', () => {
  test('rewrites matching topics with group references (Kafka docs example)', () => {
    const opts = { regex: '(.*)customers', replacement: '$1people' };
    const [r] = run('org.apache.kafka.connect.transforms.RegexRouter', opts, change('c', null, ANNE));
    assert.equal(r.topic, 'dbserver1.inventory.people');
    const named = run(
      'regex-router',
      { regex: '(?<srv>[^.]+)\\..*', replacement: '$' + '{srv}.all' },
      change('c', null, ANNE),
    );
    assert.equal(named[0].topic, 'dbserver1.all');
    assert.deepEqual(run('regex-router', { regex: 'nomatch', replacement: 'x' }, heartbeat()), [heartbeat()]);
  });
});

describe('tombstone router', () => {
  test('routes tombstones (and deletes when asked) to a separate topic, or drops them', () => {
    const del = change('d', ANNE, null);
    const [t] = run('tombstone-router', {}, tombstone());
    assert.equal(t.topic, 'dbserver1.inventory.customers.tombstones');
    assert.deepEqual(run('tombstone-router', {}, del), [del]);
    assert.equal(
      run('tombstone-router', { 'include.deletes': 'true', 'topic.template': 'deletes.{topic}' }, del)[0].topic,
      'deletes.dbserver1.inventory.customers',
    );
    assert.deepEqual(run('tombstone-router', { behavior: 'drop' }, tombstone()), []);
    const c = change('c', null, ANNE);
    assert.deepEqual(run('tombstone-router', { behavior: 'drop', 'include.deletes': 'true' }, c), [c]);
  });
});
