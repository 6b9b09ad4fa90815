import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ColumnType as T } from '../../../src/source/mysql/column-type.js';
import { checkTableMap, SchemaTracker } from '../../../src/source/mysql/schema/index.js';

const tracker = new SchemaTracker();
tracker.apply(
  `CREATE TABLE t (id INT UNSIGNED NOT NULL PRIMARY KEY, name VARCHAR(10), kind ENUM('a','b'), tags SET('x','y'),
     amount DECIMAL(8,2), at DATETIME(3), body TEXT, flag TINYINT, code CHAR(2))`,
  { defaultDatabase: 'app' },
);
const table = tracker.getTable('app', 't')!;
const types: number[] = [T.LONG, T.VARCHAR, T.STRING, T.STRING, T.NEWDECIMAL, T.DATETIME2, T.BLOB, T.TINY, T.STRING];

describe('checkTableMap', () => {
  it('accepts a matching TABLE_MAP with full metadata (numeric-only signedness, per-ENUM member lists)', () => {
    assert.deepEqual(
      checkTableMap(table, {
        columnCount: 9,
        columnTypes: types,
        columnNames: ['id', 'NAME', 'kind', 'tags', 'amount', 'at', 'body', 'flag', 'code'],
        signedness: [true, false, false], // id, amount, flag
        enumValues: [['a', 'b']],
        setValues: [['x', 'y']],
        primaryKey: [0],
      }),
      [],
    );
  });

  it('accepts the alternative codes (VAR_STRING, ENUM/SET real types, old temporal encodings)', () => {
    const alt = [T.LONG, T.VAR_STRING, T.ENUM, T.SET, T.NEWDECIMAL, T.DATETIME, T.BLOB, T.TINY, T.STRING];
    assert.deepEqual(checkTableMap(table, { columnCount: 9, columnTypes: alt }), []);
  });

  it('reports a column count mismatch once', () => {
    const m = checkTableMap(table, { columnCount: 10, columnTypes: [...types, T.LONG] });
    assert.equal(m.length, 1);
    assert.equal(m[0].kind, 'COLUMN_COUNT');
    assert.match(m[0].message, /app\.t: the schema model has 9 columns but the binlog TABLE_MAP has 10/);
  });

  it('reports type, name, signedness, member and primary key differences', () => {
    const wrong = [...types];
    wrong[1] = T.LONGLONG;
    const m = checkTableMap(table, {
      columnCount: 9,
      columnTypes: wrong,
      columnNames: ['id', 'title', 'kind', 'tags', 'amount', 'at', 'body', 'flag', 'code'],
      signedness: table.columns.map((c) => c.name === 'flag'), // per-column layout: id signed, flag unsigned
      enumValues: [null, null, ['a', 'b', 'c'], null, null, null, null, null, null],
      setValues: [['x']],
      primaryKey: [0, 1],
    });
    assert.deepEqual(
      m.map((x) => `${x.kind}:${x.column ?? ''}`),
      [
        'COLUMN_TYPE:1',
        'COLUMN_NAME:1',
        'SIGNEDNESS:0',
        'SIGNEDNESS:7',
        'ENUM_VALUES:2',
        'SET_VALUES:3',
        'PRIMARY_KEY:',
      ],
    );
    assert.match(m[0].message, /column 1 \(name\) is varchar\(10\) in the model but LONGLONG in the binlog/);
  });
});
