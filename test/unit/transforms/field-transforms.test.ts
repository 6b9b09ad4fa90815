import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { convertZoned, zoneOffset } from '../../../src/transforms/timezone-converter.js';
import { ANNE, asJson, change, heartbeat, run, schemaChange, tombstone } from './helpers.js';

describe('ReadToInsertEvent', () => {
  test('snapshot reads become creates; everything else is untouched', () => {
    const [out] = run('io.debezium.connector.mysql.transforms.ReadToInsertEvent', {}, change('r', null, ANNE));
    assert.equal((out.value as { op: string }).op, 'c');
    assert.deepEqual((out.value as { after: unknown }).after, ANNE);
    for (const r of [change('u', ANNE, ANNE), tombstone(), schemaChange(), heartbeat()])
      assert.deepEqual(run('read-to-insert', {}, r), [r]);
  });
});

describe('HeaderToValue', () => {
  const r = change('c', null, ANNE, { headers: { h1: 'one', h2: { n: 2 } } });

  test('copy adds fields and keeps the headers; move removes them (Debezium docs shape)', () => {
    const [c] = run(
      'io.debezium.transforms.HeaderToValue',
      { headers: 'h1,h2', fields: 'f1,f2', operation: 'copy' },
      r,
    );
    assert.deepEqual((c.value as Record<string, unknown>).f1, 'one');
    assert.deepEqual((c.value as Record<string, unknown>).f2, { n: 2 });
    assert.deepEqual(Object.keys(c.headers), ['h1', 'h2']);
    const [m] = run('header-to-value', { headers: 'h1', fields: 'f1', operation: 'move' }, r);
    assert.deepEqual(m.headers, { h2: { n: 2 } });
    assert.deepEqual(r.headers, { h1: 'one', h2: { n: 2 } }, 'input not mutated');
  });

  test('mismatched lists are reported; tombstones pass', () => {
    assert.throws(() => run('header-to-value', { headers: 'a,b', fields: 'x' }, r), /lists 1 field\(s\) for 2 header/);
    assert.deepEqual(run('header-to-value', { headers: 'h1', fields: 'f1' }, tombstone()), [tombstone()]);
  });
});

describe('TimezoneConverter', () => {
  const ts = { id: 1, created_at: '2011-01-11T16:40:30.123456789Z', name: 'x' };

  test('ZonedTimestamp strings move to the target zone, same instant (Pacific/Easter, summer time)', () => {
    const [out] = run(
      'io.debezium.transforms.TimezoneConverter',
      { 'converted.timezone': 'Pacific/Easter' },
      change('c', null, ts),
    );
    assert.equal(
      (out.value as { after: { created_at: string } }).after.created_at,
      '2011-01-11T11:40:30.123456789-05:00',
    );
    assert.equal(convertZoned('2024-07-01T12:00:00Z', zoneOffset('America/New_York')), '2024-07-01T08:00:00-04:00');
    assert.equal(convertZoned('2024-01-01T12:00:00+01:00', zoneOffset('+05:30')), '2024-01-01T16:30:00+05:30');
    assert.equal(convertZoned('not a timestamp', zoneOffset('UTC')), null);
  });

  test('schema-typed epoch timestamps are shifted by the offset', () => {
    const schema = {
      type: 'struct',
      fields: [
        {
          field: 'after',
          type: 'struct',
          fields: [
            { field: 'dt', type: 'int64', name: 'io.debezium.time.Timestamp' },
            { field: 'n', type: 'int64' },
          ],
        },
      ],
    };
    const [out] = run(
      'timezone-converter',
      { 'converted.timezone': '+02:00' },
      change('c', null, { dt: 0, n: 0 }, { valueSchema: asJson(schema) }),
    );
    assert.deepEqual((out.value as { after: unknown }).after, { dt: 7_200_000, n: 0 });
  });

  test('include.list / exclude.list select tables and fields', () => {
    const other = { ...ts, updated_at: '2011-01-11T16:40:30Z' };
    const inc = run(
      'timezone-converter',
      { 'converted.timezone': '+01:00', 'include.list': 'source:customers:updated_at' },
      change('c', null, other),
    );
    assert.deepEqual((inc[0].value as { after: unknown }).after, { ...other, updated_at: '2011-01-11T17:40:30+01:00' });
    const exc = run(
      'timezone-converter',
      { 'converted.timezone': '+01:00', 'exclude.list': 'topic:dbserver1.inventory.customers' },
      change('c', null, other),
    );
    assert.deepEqual((exc[0].value as { after: unknown }).after, other);
    assert.throws(
      () =>
        run(
          'timezone-converter',
          { 'converted.timezone': 'Mars/Olympus', 'include.list': 'customers', 'exclude.list': 'source:x' },
          tombstone(),
        ),
      (err: Error & { problems?: unknown[] }) => err.problems?.length === 3,
    );
  });

  test('flattened rows convert top-level fields; schema changes and heartbeats pass through', () => {
    const flat = { ...tombstone(), value: ts };
    assert.equal(
      (run('timezone-converter', { 'converted.timezone': 'UTC' }, flat)[0].value as { created_at: string }).created_at,
      '2011-01-11T16:40:30.123456789Z',
    );
    for (const r of [schemaChange(), heartbeat()])
      assert.deepEqual(run('timezone-converter', { 'converted.timezone': 'Asia/Tokyo' }, r), [r]);
  });
});

describe('ExtractChangedRecordState', () => {
  const opts = { 'header.changed.name': 'Changed', 'header.unchanged.name': 'Unchanged' };
  test('updates list changed and unchanged fields; other events get empty lists', () => {
    const [u] = run(
      'io.debezium.transforms.ExtractChangedRecordState',
      opts,
      change('u', ANNE, { ...ANNE, email: 'anne@x.org' }),
    );
    assert.deepEqual(u.headers, { Changed: ['email'], Unchanged: ['id', 'first_name', 'last_name'] });
    const [c] = run('changes', opts, change('c', null, ANNE));
    assert.deepEqual(c.headers, { Changed: [], Unchanged: [] });
    assert.deepEqual(run('changes', opts, tombstone()), [tombstone()]);
    assert.deepEqual(run('changes', {}, change('u', ANNE, ANNE))[0].headers, {});
  });
});
