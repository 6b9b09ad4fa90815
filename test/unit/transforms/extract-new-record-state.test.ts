import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ANNE, asJson, change, heartbeat, run, schemaChange, tombstone } from './helpers.js';

const UNWRAP = 'io.debezium.transforms.ExtractNewRecordState';
const updated = { ...ANNE, first_name: 'Anne Marie' };

describe('ExtractNewRecordState', () => {
  test('create/update/read become the after row, keeping key and topic (Debezium docs example)', () => {
    for (const r of [change('c', null, ANNE), change('u', ANNE, updated), change('r', null, ANNE)]) {
      const [out, ...rest] = run(UNWRAP, {}, r);
      assert.equal(rest.length, 0);
      assert.deepEqual(out.value, r.value && (r.value as { after: unknown }).after);
      assert.deepEqual(out.key, { id: 1004 });
      assert.equal(out.topic, 'dbserver1.inventory.customers');
    }
  });

  test('delete.tombstone.handling.mode: each mode on a delete followed by its tombstone', () => {
    const del = change('d', ANNE, null);
    const tomb = tombstone();
    const apply = (mode: string) =>
      [del, tomb].flatMap((r) => run('unwrap', { 'delete.tombstone.handling.mode': mode }, r));
    assert.deepEqual(apply('drop'), []);
    assert.deepEqual(apply('tombstone'), [tomb]);
    const rewritten = apply('rewrite');
    assert.equal(rewritten.length, 1);
    assert.deepEqual(rewritten[0].value, { ...ANNE, __deleted: 'true' });
    const withTomb = apply('rewrite-with-tombstone');
    assert.deepEqual(
      withTomb.map((r) => r.value),
      [{ ...ANNE, __deleted: 'true' }, null],
    );
    const d2t = apply('delete-to-tombstone');
    assert.equal(d2t.length, 1);
    assert.equal(d2t[0].value, null);
    assert.deepEqual(d2t[0].key, { id: 1004 });
    // The default is tombstone.
    assert.deepEqual(
      [del, tomb].flatMap((r) => run('unwrap', {}, r)),
      [tomb],
    );
  });

  test('rewrite marks live rows __deleted=false', () => {
    const [out] = run('unwrap', { 'delete.tombstone.handling.mode': 'rewrite' }, change('c', null, ANNE));
    assert.deepEqual(out.value, { ...ANNE, __deleted: 'false' });
  });

  test('add.fields: envelope, source and nested fields with the prefix, aliases; rewrite takes them from the delete', () => {
    const opts = {
      'add.fields': 'op,table,source.ts_ms,ts_ms,file:binlog',
      'delete.tombstone.handling.mode': 'rewrite',
    };
    const [u] = run('unwrap', opts, change('u', ANNE, updated));
    assert.deepEqual(u.value, {
      ...updated,
      __op: 'u',
      __table: 'customers',
      __source_ts_ms: 1559033904000,
      __ts_ms: 1559033904863,
      __binlog: 'mysql-bin.000003',
      __deleted: 'false',
    });
    const [d] = run('unwrap', opts, change('d', ANNE, null));
    assert.equal((d.value as Record<string, unknown>).__op, 'd');
    const [p] = run('unwrap', { 'add.fields': 'op', 'add.fields.prefix': 'cdc_' }, change('c', null, ANNE));
    assert.equal((p.value as Record<string, unknown>).cdc_op, 'c');
  });

  test('add.headers copies metadata into headers, leaving the value a plain row', () => {
    const [out] = run('unwrap', { 'add.headers': 'op,source.ts_ms,db' }, change('c', null, ANNE));
    assert.deepEqual(out.value, ANNE);
    assert.deepEqual(out.headers, { __op: 'c', __source_ts_ms: 1559033904000, __db: 'inventory' });
  });

  test('drop.fields.header.name removes the listed fields (from the key too when asked)', () => {
    const r = change('c', null, ANNE, { headers: { drop: ['email', 'id'] } });
    const [v] = run('unwrap', { 'drop.fields.header.name': 'drop' }, r);
    assert.deepEqual(v.value, { first_name: 'Anne', last_name: 'Kretchmar' });
    assert.deepEqual(v.key, { id: 1004 });
    const [k] = run('unwrap', { 'drop.fields.header.name': 'drop', 'drop.fields.from.key': 'true' }, r);
    assert.deepEqual(k.key, {});
  });

  test('route.by.field sends the record to the topic named by a row field', () => {
    const [out] = run('unwrap', { 'route.by.field': 'last_name' }, change('c', null, ANNE));
    assert.equal(out.topic, 'Kretchmar');
  });

  test('schema changes and heartbeats pass through untouched; truncates are dropped', () => {
    for (const r of [schemaChange(), heartbeat()]) assert.deepEqual(run('unwrap', { 'add.fields': 'op' }, r), [r]);
    assert.deepEqual(run('unwrap', {}, change('t', null, null)), []);
  });

  test('with schemas the value schema becomes the row schema plus added fields', () => {
    const rowSchema = {
      type: 'struct',
      name: 'dbserver1.inventory.customers.Value',
      optional: true,
      fields: [
        { type: 'int32', optional: false, field: 'id' },
        { type: 'string', optional: true, default: 'n/a', field: 'email' },
      ],
    };
    const r = change(
      'c',
      null,
      { id: 1, email: null },
      {
        valueSchema: asJson({
          type: 'struct',
          fields: [
            { ...rowSchema, field: 'before' },
            { ...rowSchema, field: 'after' },
          ],
        }),
      },
    );
    const [out] = run('unwrap', { 'add.fields': 'op' }, r);
    assert.deepEqual(out.value, { id: 1, email: 'n/a', __op: 'c' });
    assert.deepEqual(out.valueSchema, {
      ...rowSchema,
      optional: false,
      fields: [...rowSchema.fields, { type: 'string', optional: true, field: '__op' }],
    });
    const [kept] = run('unwrap', { 'replace.null.with.default': 'false' }, r);
    assert.equal((kept.value as Record<string, unknown>).email, null);
  });

  test('removed Debezium 2 options are reported with the replacement', () => {
    assert.throws(
      () =>
        run('unwrap', { 'delete.handling.mode': 'rewrite', 'delete.tombstone.handling.mode': 'rewrit' }, tombstone()),
      (err: Error & { problems?: { property: string; fix: string }[] }) => {
        assert.equal(err.problems?.length, 2);
        assert.match(err.problems?.[0].fix ?? '', /delete\.tombstone\.handling\.mode=drop\|tombstone/);
        assert.match(err.problems?.[1].fix ?? '', /did you mean .*=rewrite\?/);
        return true;
      },
    );
  });
});
