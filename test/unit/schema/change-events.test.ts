import assert from 'node:assert/strict';
import { test } from 'node:test';
import { javaHashSetOrder, schemaChangeEvents } from '../../../src/source/mysql/schema/change-events.js';

test('javaHashSetOrder iterates like java.util.HashSet (bucket = (h ^ h>>>16) & (n-1), then insertion order)', () => {
  // "x2".hashCode() = 3770 → bucket 10, "y2" = 3801 → bucket 9; "Aa" and "BB" collide (2112).
  assert.deepEqual(javaHashSetOrder(['x2', 'y2']), ['y2', 'x2']);
  assert.deepEqual(javaHashSetOrder(['c', 'a', 'b']), ['a', 'b', 'c']);
  assert.deepEqual(javaHashSetOrder(['BB', 'Aa']), ['BB', 'Aa']);
  assert.deepEqual(javaHashSetOrder(['a', 'a']), ['a']);
  // "inventory.customers" and "inventory.orders": negative hash codes use the unsigned shift.
  const ids = ['inventory.orders', 'inventory.customers'];
  assert.deepEqual(javaHashSetOrder(ids).sort(), [...ids].sort());
});

test('schemaChangeEvents: key from the table changes, one event per rename clause, DROP DATABASE without tables', () => {
  const alter = (id: string) => ({ type: 'ALTER' as const, id, table: null });
  assert.deepEqual(schemaChangeEvents({ database: 'home' }, [alter('other.t')], 'ALTER TABLE other.t ...', 'home'), [
    { databaseName: 'other', ddl: 'ALTER TABLE other.t ...', tableChanges: [alter('other.t')], tables: ['t'] },
  ]);
  const renames = [
    { id: 'a.x2', ddl: 'RENAME TABLE x TO x2' },
    { id: 'b.y2', ddl: 'RENAME TABLE y TO b.y2' },
  ];
  assert.deepEqual(
    schemaChangeEvents(
      { perTableDdl: renames },
      [alter('a.x2'), alter('b.y2')],
      'RENAME TABLE x TO x2, y TO b.y2',
      'a',
    ).map((e) => [e.databaseName, e.ddl, e.tables]),
    [
      ['a', 'RENAME TABLE x TO x2', ['x2']],
      ['b', 'RENAME TABLE y TO b.y2', ['y2']],
    ],
  );
  assert.deepEqual(
    schemaChangeEvents(
      { database: 'gone', dropsDatabase: true },
      [{ type: 'DROP', id: 'gone.t', table: null }],
      'DROP DATABASE gone',
      '',
    ),
    [{ databaseName: 'gone', ddl: 'DROP DATABASE gone', tableChanges: [], tables: [] }],
  );
  assert.deepEqual(
    schemaChangeEvents({ ddl: 'CREATE DATABASE n', database: 'n' }, [], 'SET STATEMENT x=1 FOR CREATE DATABASE n', ''),
    [{ databaseName: 'n', ddl: 'CREATE DATABASE n', tableChanges: [], tables: [] }],
  );
});
