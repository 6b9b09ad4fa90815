import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ColumnDef, TableDef } from '../../../src/model/table-def.js';
import type { Row } from '../../../src/model/values.js';
import { parseServerVersion } from '../../../src/source/mysql/server-info.js';
import { isGlobalLockDenied, isPrivilegeError, SnapshotError } from '../../../src/source/mysql/snapshot/errors.js';
import { lockTablesStatement } from '../../../src/source/mysql/snapshot/locks.js';
import { MarkerSequencer } from '../../../src/source/mysql/snapshot/markers.js';
import { normalizeGtids } from '../../../src/source/mysql/snapshot/server.js';
import { lockWaitSeconds, quoteTable } from '../../../src/source/mysql/snapshot/sql.js';
import { defaultSelect, wantsBytes } from '../../../src/source/mysql/snapshot/table-scan.js';

function col(name: string, position: number, dataType: string, charset: string | null = null): ColumnDef {
  return {
    name,
    position,
    dataType,
    columnType: dataType,
    length: null,
    scale: null,
    unsigned: false,
    nullable: true,
    charset,
    collation: null,
    defaultValue: null,
    hasDefault: false,
    autoIncrement: false,
    enumValues: null,
    generated: false,
    invisible: false,
    comment: null,
  };
}
function table(name: string): TableDef {
  return {
    database: 'db',
    name,
    columns: [col('id', 0, 'int')],
    primaryKey: ['id'],
    uniqueKeys: [],
    charset: null,
    comment: null,
  };
}

/** Runs the sequencer over tables given as row counts; returns "table:marker" and "done:table:n" events. */
async function sequence(counts: Record<string, number>): Promise<string[]> {
  const out: string[] = [];
  const seq = new MarkerSequencer(
    async (t, _r, m) => {
      out.push(`${t.name}:${m}`);
    },
    async (t, n) => {
      out.push(`done:${t.name}:${n}`);
    },
  );
  for (const [name, n] of Object.entries(counts)) {
    seq.beginTable(table(name));
    for (let i = 0; i < n; i++) await seq.row([i] as Row);
    await seq.endTable();
  }
  await seq.finish();
  return out;
}

describe('MarkerSequencer', () => {
  it('marks first, table boundaries and last, with onTableDone after each table’s last row', async () => {
    assert.deepEqual(await sequence({ a: 3, b: 2 }), [
      'a:first',
      'a:true',
      'a:last_in_data_collection',
      'done:a:3',
      'b:first_in_data_collection',
      'b:last',
      'done:b:2',
    ]);
  });

  it('puts last on the last real row when trailing tables are empty', async () => {
    assert.deepEqual(await sequence({ a: 2, b: 0, c: 0 }), ['a:first', 'a:last', 'done:a:2', 'done:b:0', 'done:c:0']);
  });

  it('handles empty leading tables (no "first": Debezium marks the first table positionally), single-row tables and a single-row snapshot', async () => {
    assert.deepEqual(await sequence({ a: 0, b: 1, c: 1, d: 1 }), [
      'done:a:0',
      'b:last_in_data_collection',
      'done:b:1',
      'c:last_in_data_collection',
      'done:c:1',
      'd:last',
      'done:d:1',
    ]);
    assert.deepEqual(await sequence({ a: 1 }), ['a:last', 'done:a:1']);
    assert.deepEqual(await sequence({ a: 0 }), ['done:a:0']);
    assert.deepEqual(await sequence({ a: 0, b: 3 }), [
      'done:a:0',
      'b:first_in_data_collection',
      'b:true',
      'b:last',
      'done:b:3',
    ]);
  });

  it('holds back exactly one row: emission of row n waits for row n+1', async () => {
    const emitted: number[] = [];
    const seq = new MarkerSequencer(
      async (_t, r) => {
        emitted.push(r[0] as number);
      },
      async () => {},
    );
    seq.beginTable(table('a'));
    await seq.row([1]);
    assert.deepEqual(emitted, []);
    await seq.row([2]);
    assert.deepEqual(emitted, [1]);
    await seq.endTable();
    await seq.finish();
    assert.deepEqual(emitted, [1, 2]);
  });
});

describe('snapshot helpers', () => {
  it('classifies a denied global read lock (RELOAD missing / Aurora 1045) but not timeouts', () => {
    assert.equal(isGlobalLockDenied({ errno: 1227, sqlMessage: 'you need the RELOAD privilege' }), true);
    assert.equal(isGlobalLockDenied({ errno: 1045, sqlMessage: "Access denied for user 'x'@'%'" }), true);
    assert.equal(isGlobalLockDenied({ errno: 1205, sqlMessage: 'Lock wait timeout exceeded' }), false);
    assert.equal(isGlobalLockDenied(new Error('ECONNRESET')), false);
    assert.equal(isPrivilegeError({ errno: 1044 }), true);
    assert.equal(new SnapshotError('x').code, 'SNAPSHOT_FAILED');
  });

  it('quotes identifiers in LOCK TABLES and SELECT', () => {
    assert.equal(
      lockTablesStatement([
        { db: 'a', table: 'b`c' },
        { db: 'd', table: 'e' },
      ]),
      'LOCK TABLES `a`.`b``c` READ, `d`.`e` READ',
    );
    assert.equal(lockTablesStatement([]), '');
    assert.equal(quoteTable('x', 'y'), '`x`.`y`');
    const t = table('t');
    t.columns.push(col('na`me', 1, 'varchar', 'utf8mb4'));
    assert.equal(defaultSelect(t), 'SELECT `id`, `na``me` FROM `db`.`t`');
    t.columns.push(col('f', 2, 'float'));
    assert.equal(defaultSelect(t), 'SELECT `id`, `na``me`, `f` + 0e0 AS `f` FROM `db`.`t`');
  });

  it('rounds the lock timeout up to whole seconds, at least 1', () => {
    assert.equal(lockWaitSeconds(0), 1);
    assert.equal(lockWaitSeconds(1500), 2);
    assert.equal(lockWaitSeconds(10_000), 10);
  });

  it('parses server versions and normalises GTID sets', () => {
    assert.equal(parseServerVersion('10.11.19-MariaDB-0+deb12u1').flavor, 'mariadb');
    assert.equal(normalizeGtids('uuid:1-5,\nuuid2:1-3'), 'uuid:1-5,uuid2:1-3');
    assert.equal(normalizeGtids(''), null);
  });

  it('keeps binary columns as bytes and text columns as text', () => {
    assert.equal(wantsBytes(col('b', 0, 'varbinary', 'binary')), true);
    assert.equal(wantsBytes(col('c', 0, 'char', 'binary')), true);
    assert.equal(wantsBytes(col('j', 0, 'json')), true);
    assert.equal(wantsBytes(col('v', 0, 'varchar', 'utf8mb4')), false);
    assert.equal(wantsBytes(col('i', 0, 'int')), false);
  });
});
