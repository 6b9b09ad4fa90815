import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ColumnType } from '../../../src/source/mysql/column-type.js';
import { SchemaTracker } from '../../../src/source/mysql/schema/schema-tracker.js';
import { checkTableMap } from '../../../src/source/mysql/schema/table-map-check.js';

const tracker = () => {
  const t = new SchemaTracker();
  t.apply('CREATE DATABASE d');
  return t;
};

test('without a PRIMARY KEY the first NOT NULL unique index in declaration order is the key', () => {
  const t = tracker();
  t.apply('CREATE TABLE d.t (a INT NULL UNIQUE, z INT NOT NULL, b INT NOT NULL, UNIQUE KEY zz (z), UNIQUE KEY bb (b))');
  assert.deepEqual(t.getTable('d', 't')?.primaryKey, ['z']);
  assert.equal(t.getTable('d', 't')?.primaryKeyIndex, 'zz');
  // A declared PRIMARY KEY wins, wherever it is written.
  t.apply('CREATE TABLE d.p (a INT NOT NULL UNIQUE, b INT, PRIMARY KEY (b))');
  assert.deepEqual(t.getTable('d', 'p')?.primaryKey, ['b']);
  assert.equal(t.getTable('d', 'p')?.primaryKeyIndex, undefined);
  assert.equal(t.getTable('d', 'p')?.columns[1].nullable, false);
});

test('ALTERs keep the derived key in step: nullable again, dropped index, renamed index, real primary key', () => {
  const t = tracker();
  t.apply('CREATE TABLE d.t (a INT NOT NULL, b INT NOT NULL, UNIQUE KEY ka (a), UNIQUE KEY kb (b))');
  assert.deepEqual(t.getTable('d', 't')?.primaryKey, ['a']);
  t.apply('ALTER TABLE d.t RENAME INDEX ka TO ka2');
  assert.equal(t.getTable('d', 't')?.primaryKeyIndex, 'ka2');
  t.apply('ALTER TABLE d.t MODIFY a INT NULL');
  assert.deepEqual(t.getTable('d', 't')?.primaryKey, ['b']);
  assert.equal(t.getTable('d', 't')?.columns[0].nullable, true, 'a stays nullable: it is no longer the key');
  t.apply('ALTER TABLE d.t DROP INDEX kb');
  assert.deepEqual(t.getTable('d', 't')?.primaryKey, []);
  t.apply('CREATE UNIQUE INDEX kb ON d.t (b)');
  assert.deepEqual(t.getTable('d', 't')?.primaryKey, ['b']);
  t.apply('ALTER TABLE d.t ADD PRIMARY KEY (a)');
  assert.deepEqual(t.getTable('d', 't')?.primaryKey, ['a']);
  assert.equal(t.getTable('d', 't')?.primaryKeyIndex, undefined);
});

test('TABLE_MAP check: the binlog key of a table without PRIMARY KEY is any NOT NULL unique index of the model', () => {
  const t = tracker();
  t.apply(
    'CREATE TABLE d.t (a INT NOT NULL, b INT NOT NULL, c INT NULL, UNIQUE KEY ka (a), UNIQUE KEY kb (b), UNIQUE KEY kc (c))',
  );
  const def = t.getTable('d', 't')!;
  const map = (pk: number[]) => ({
    columnCount: 3,
    columnTypes: [ColumnType.LONG, ColumnType.LONG, ColumnType.LONG],
    primaryKey: pk,
  });
  assert.deepEqual(checkTableMap(def, map([0])), []);
  assert.deepEqual(checkTableMap(def, map([1])), []);
  assert.deepEqual(
    checkTableMap(def, map([2])).map((m) => m.kind),
    ['PRIMARY_KEY'],
  );
});
