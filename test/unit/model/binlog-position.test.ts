import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BinlogPosition, InvalidBinlogPositionError } from '../../../src/model/binlog-position.js';
import { positionKey } from '../../../src/stores/dynamodb/dynamodb-offset-store.js';
import { compareOffsets } from '../../../src/stores/file/offset-order.js';

const at = (file: string, pos: number, generation = 0) => BinlogPosition.of(file, pos, generation);

describe('BinlogPosition', () => {
  it('orders by file, then position', () => {
    assert.ok(at('mysql-bin.000001', 900).compareTo(at('mysql-bin.000002', 4)) < 0);
    assert.ok(at('mysql-bin.000002', 4).compareTo(at('mysql-bin.000001', 900)) > 0);
    assert.ok(at('mysql-bin.000002', 4).compareTo(at('mysql-bin.000002', 120)) < 0);
    assert.equal(at('mysql-bin.000002', 120).compareTo(at('mysql-bin.000002', 120)), 0);
  });

  it('puts mysql-bin.1000000 after mysql-bin.999999 (a string comparison puts it first)', () => {
    assert.ok('mysql-bin.1000000' < 'mysql-bin.999999', 'the premise: strings sort the other way');
    assert.ok(at('mysql-bin.999999', 5000).compareTo(at('mysql-bin.1000000', 4)) < 0);
    assert.ok(BinlogPosition.compare({ file: 'mysql-bin.1000000', pos: 4 }, { file: 'mysql-bin.999999', pos: 9 }) > 0);
    assert.ok(at('mysql-bin.1000000', 4).compareTo(at('mysql-bin.10000000', 4)) < 0);
    assert.ok(at('mysql-bin.1000001', 4).compareTo(at('mysql-bin.1000000', 9999)) > 0);
  });

  it('orders by server generation before the file name', () => {
    assert.ok(at('mysql-bin.000009', 4, 1).compareTo(at('mysql-bin.000001', 4, 2)) < 0);
    assert.ok(
      BinlogPosition.compare({ file: 'a.000001', pos: 4, server_generation: 1 }, { file: 'z.000009', pos: 4 }) > 0,
    );
    assert.equal(
      BinlogPosition.compare({ file: 'a.000001', pos: 4, server_generation: 0 }, { file: 'a.000001', pos: 4 }),
      0,
    );
  });

  it('compares names without a numeric suffix as text', () => {
    assert.ok(at('vitess', 3).compareTo(at('vitess', 7)) < 0);
    assert.ok(at('alpha', 9).compareTo(at('beta', 1)) < 0);
  });

  it('rejects an empty file name and a negative or fractional position, naming the bad part', () => {
    assert.throws(
      () => at('', 4),
      (e: unknown) => e instanceof InvalidBinlogPositionError && /file name/.test(e.message),
    );
    assert.throws(() => at('mysql-bin.000001', -1), /position of mysql-bin.000001 must be a non-negative integer/);
    assert.throws(() => at('mysql-bin.000001', 1.5), InvalidBinlogPositionError);
    assert.throws(() => at('mysql-bin.000001', 4, -1), /server generation/);
  });

  it('compare of plain positions in one file orders and validates them as the position objects do', () => {
    const f = 'mysql-bin.000007';
    assert.ok(BinlogPosition.compare({ file: f, pos: 120 }, { file: f, pos: 900 }) < 0);
    assert.equal(BinlogPosition.compare({ file: f, pos: 900 }, at(f, 900)), 0);
    // Same file, other server generation: the generation orders them, not the bytes.
    assert.ok(BinlogPosition.compare({ file: f, pos: 900, server_generation: 1 }, { file: f, pos: 4 }) > 0);
    assert.throws(() => BinlogPosition.compare({ file: f, pos: -1 }, { file: f, pos: 4 }), /non-negative integer/);
    assert.throws(() => BinlogPosition.compare({ file: f, pos: 4 }, { file: f, pos: 4.5 }), InvalidBinlogPositionError);
    assert.throws(() => BinlogPosition.compare({ file: '', pos: 4 }, { file: '', pos: 4 }), /file name/);
    assert.throws(
      () =>
        BinlogPosition.compare({ file: f, pos: 4, server_generation: -2 }, { file: f, pos: 4, server_generation: -2 }),
      /server generation/,
    );
  });
  it('serialises as file:pos, with the generation when there is one', () => {
    assert.equal(String(at('mysql-bin.000003', 154)), 'mysql-bin.000003:154');
    assert.equal(String(at('mysql-bin.000003', 154, 2)), 'server generation 2 mysql-bin.000003:154');
  });

  it('keeps six-digit file names in the sortable form and sorts longer ones after them', () => {
    assert.equal(at('mysql-bin-changelog.000123', 4).sortableFile(), 'mysql-bin-changelog.000123');
    const names = ['b.999998', 'b.999999', 'b.1000000', 'b.1000001', 'b.9999999', 'b.10000000'];
    const keys = names.map((n) => at(n, 4).sortableFile());
    assert.deepEqual([...keys].sort(), keys);
  });

  it('sorts generation prefixes like compareTo: before any file name text for 0, then by generation', () => {
    const positions = [
      at('z.000009', 9),
      at('a.000001', 4, 1),
      at('z.1000000', 4, 1),
      at('a.000001', 4, 2),
      at('a.000001', 4, 100000),
    ];
    const texts = positions.map((p) => `${p.sortableGeneration()}${p.sortableFile()}`);
    assert.deepEqual([...texts].sort(), texts);
    assert.equal(at('a.000001', 4).sortableGeneration(), '', 'generation 0 adds nothing: stored keys stay valid');
    assert.throws(() => BinlogPosition.sortableGeneration(-1), InvalidBinlogPositionError);
  });
});

describe('offset order past mysql-bin.999999', () => {
  const before = { file: 'mysql-bin.999999', pos: 80_000, event: 2 };
  const after = { file: 'mysql-bin.1000000', pos: 4 };

  it('compareOffsets (file offset store) sees the rotated offset as later', () => {
    assert.ok(compareOffsets(after, before) > 0);
    assert.ok(compareOffsets(before, after) < 0);
  });

  it('the DynamoDB position key sorts the rotated offset after the old one', () => {
    assert.ok(positionKey(after) > positionKey(before), `${positionKey(after)} <= ${positionKey(before)}`);
    assert.ok(positionKey({ ...after, server_generation: 1 }) > positionKey({ ...before, server_generation: 1 }));
    assert.equal(positionKey(before), 'mysql-bin.999999|00000000000000080000|0000000002|0000000000');
  });
});
