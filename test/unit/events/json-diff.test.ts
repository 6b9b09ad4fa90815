/** Partial JSON update applier: MySQL path syntax and apply_json_diff semantics (sql-common/json_diff.cc). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PartialJsonUpdateError, TableEventBuilder } from '../../../src/events/index.js';
import { applyJsonDiffs, JsonDiffError, parseJsonPath } from '../../../src/events/json-diff.js';
import { type JsonDiff, MysqlJson, MysqlJsonPartial } from '../../../src/model/values.js';
import { col, fixedClock, source, table } from './fixtures.js';

const R = (path: string, v: string): JsonDiff => ({ op: 'replace', path, value: new MysqlJson(v) });
const I = (path: string, v: string): JsonDiff => ({ op: 'insert', path, value: new MysqlJson(v) });
const D = (path: string): JsonDiff => ({ op: 'remove', path });

describe('JSON paths', () => {
  it('parses members, quoted members, cells and last-relative cells', () => {
    assert.deepEqual(parseJsonPath('$.a."b c".d[2][last][last-1]'), [
      { kind: 'member', name: 'a' },
      { kind: 'member', name: 'b c' },
      { kind: 'member', name: 'd' },
      { kind: 'cell', index: 2, fromEnd: false },
      { kind: 'cell', index: 0, fromEnd: true },
      { kind: 'cell', index: 1, fromEnd: true },
    ]);
    assert.deepEqual(parseJsonPath('$."a.\\"q\\"\\u00e9"'), [{ kind: 'member', name: 'a."q"é' }]);
    assert.deepEqual(parseJsonPath(' $ [ 0 ] . x '), [
      { kind: 'cell', index: 0, fromEnd: false },
      { kind: 'member', name: 'x' },
    ]);
    assert.deepEqual(parseJsonPath('$'), []);
  });
  it('rejects wildcards, ranges and garbage', () => {
    for (const p of ['$.*', '$[*]', '$**.a', '$[1 to 3]', 'a.b', '$.', '$["a"]', '$."open']) {
      assert.throws(() => parseJsonPath(p), JsonDiffError, p);
    }
  });
});

describe('applyJsonDiffs', () => {
  const doc = '{"a": 1, "b": [10, 20, 30], "c": {"d": "x", "e f": null}}';
  it('REPLACE members, cells and nested values; output compact like the decoder renders binary JSON', () => {
    assert.equal(
      applyJsonDiffs(doc, [R('$.a', '2.5'), R('$.b[1]', '"y"'), R('$.c."e f"', '[true, false]'), R('$.b[last]', '{}')]),
      '{"a":2.5,"b":[10,"y",{}],"c":{"d":"x","e f":[true,false]}}',
    );
    assert.equal(applyJsonDiffs(doc, [R('$', '[1]')]), '[1]');
  });
  it('INSERT members in MySQL key order (shorter keys first, then bytes) and array cells at the position', () => {
    assert.equal(
      applyJsonDiffs(doc, [I('$.zz', '0'), I('$.B', 'true'), I('$.b[0]', '5'), I('$.b[2]', '15'), I('$.b[99]', '99')]),
      '{"B":true,"a":1,"b":[5,10,15,20,30,99],"c":{"d":"x","e f":null},"zz":0}',
    );
    assert.equal(applyJsonDiffs('[1, 2, 3]', [I('$[last]', '"x"')]), '[1,2,"x",3]');
  });
  it('REMOVE members and cells', () => {
    assert.equal(
      applyJsonDiffs(doc, [D('$.a'), D('$.b[0]'), D('$.b[last]'), D('$.c.d')]),
      '{"b":[20],"c":{"e f":null}}',
    );
  });
  it('diffs apply in order, each to the result of the previous one', () => {
    assert.equal(
      applyJsonDiffs('{"a": []}', [I('$.a[0]', '1'), I('$.a[1]', '2'), R('$.a[0]', '0'), D('$.a[1]')]),
      '{"a":[0]}',
    );
  });
  it('keeps scalars exactly: big integers, doubles, escapes, unicode', () => {
    const text = '{"big": 18446744073709551615, "d": 1.0e-7, "neg": -0.0, "s": "q\\"\\u0001é😀"}';
    assert.equal(
      applyJsonDiffs(text, [R('$.d', '1e100')]),
      '{"d":1e100,"s":"q\\"\\u0001é😀","big":18446744073709551615,"neg":-0.0}',
    );
  });
  it('rejects what the server would reject', () => {
    const cases: Array<[JsonDiff, RegExp]> = [
      [R('$.nope', '1'), /no value at the path/],
      [R('$.b[3]', '1'), /no value at the path/],
      [R('$.x.y', '1'), /parent of the path does not exist/],
      [I('$.a', '1'), /already exists/],
      [I('$.a[0]', '1'), /not a container of that kind/],
      [I('$.b.x', '1'), /not a container of that kind/],
      [D('$.nope'), /no such member/],
      [D('$.b[3]'), /out of bounds/],
      [D('$'), /only REPLACE/],
      [{ op: 'insert', path: '$.q' }, /no value/],
    ];
    for (const [diff, re] of cases) {
      assert.throws(
        () => applyJsonDiffs(doc, [diff]),
        (e: unknown) => e instanceof JsonDiffError && re.test(e.message) && e.message.includes(diff.path),
        diff.path,
      );
    }
    assert.throws(() => applyJsonDiffs('{"a": ', [D('$.a')]), /invalid JSON document/);
  });
});

describe('TableEventBuilder.update with partial JSON updates', () => {
  const docs = table('shop', 'docs', [col('id', 'int'), col('doc', 'json'), col('note', 'varchar(10)')], ['id']);
  const b = new TableEventBuilder(docs, { topicPrefix: 'srv', clockMicros: fixedClock });
  const partial = new MysqlJsonPartial([R('$.age', '26'), I('$.tags[1]', '"b"'), D('$.old')]);
  it('emits the full after-image document (the diffs applied to the before image)', () => {
    const before = [1, new MysqlJson('{"age": 25, "old": true, "tags": ["a", "c"]}'), 'n'];
    const [rec] = b.update(before, [1, partial, 'n'], source);
    const value = JSON.parse(rec.value as string);
    assert.equal(value.op, 'u');
    assert.equal(value.before.doc, '{"age": 25, "old": true, "tags": ["a", "c"]}');
    assert.equal(value.after.doc, '{"age":26,"tags":["a","b","c"]}');
    assert.equal(value.after.note, 'n');
  });
  it('a MINIMAL before image (column absent) or a diff that does not fit is a PartialJsonUpdateError with the position', () => {
    assert.throws(
      () =>
        b.update([1, undefined, undefined], [1, partial, 'n'], { ...source, file: 'binlog.000007', pos: 1234, row: 2 }),
      (e: unknown) =>
        e instanceof PartialJsonUpdateError &&
        e.code === 'BINLOG_DECODE' &&
        /shop\.docs\.doc at binlog\.000007:1234 row 2/.test(e.message) &&
        /does not contain the column/.test(e.message) &&
        /binlog_row_image=FULL/.test(e.message),
    );
    assert.throws(
      () => b.update([1, new MysqlJson('{"age": 1}'), 'n'], [1, partial, 'n'], source),
      (e: unknown) => e instanceof PartialJsonUpdateError && /INSERT \$\.tags\[1\]/.test(e.message),
    );
  });
});
