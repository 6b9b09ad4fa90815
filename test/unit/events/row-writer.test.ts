/**
 * The compiled row writers: the same text as writing each column in turn, for the generated form and the loop
 * used above 200 columns; null, absent and Debezium-null cells; the after image converting only changed cells.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type CellText, compileRowWriter } from '../../../src/events/row-writer.js';
import { type CellValue, MysqlJson } from '../../../src/model/values.js';

/** Column i: numbers as `<n>`, strings quoted, -1 → Debezium null (the null text), null and absent as given. */
function column(i: number, calls: number[]): CellText {
  return {
    present: (v) => {
      calls[i] = (calls[i] ?? 0) + 1;
      if (v === -1) return null;
      return typeof v === 'number' ? String(v) : JSON.stringify(String(v));
    },
    nullText: i % 2 === 0 ? 'null' : `"fallback${i}"`,
    missingText: `"__absent${i}"`,
  };
}

function reference(cols: CellText[], positions: number[], names: string[], row: CellValue[]): string {
  const fields = cols.map((c, i) => {
    const v = row[positions[i]];
    const text = v === null ? c.nullText : v === undefined ? c.missingText : (c.present(v) ?? c.nullText);
    return `${JSON.stringify(names[i])}:${text}`;
  });
  return `{${fields.join(',')}}`;
}

for (const n of [1, 7, 250]) {
  describe(`a ${n}-column row writer (${n > 200 ? 'loop' : 'generated'})`, () => {
    // Positions skip and reorder row slots, as column filters do.
    const positions = Array.from({ length: n }, (_, i) => (i * 7) % (n + 3));
    const names = Array.from({ length: n }, (_, i) => (i === 1 ? 'quo"te' : `c${i}`));
    const prefixes = names.map((name, i) => `${i === 0 ? '{' : ','}${JSON.stringify(name)}:`);
    const rowOf = (seed: number) => {
      const row: CellValue[] = Array.from({ length: n + 3 }, (_, p) => (p % 5 === 0 ? `s${p + seed}` : p + seed));
      row[positions[0]] = null;
      if (n > 2) row[positions[2]] = -1;
      if (n > 3) row[positions[3]] = undefined;
      return row;
    };

    it('writes the same text as each column in turn', () => {
      const calls: number[] = [];
      const cols = names.map((_, i) => column(i, calls));
      const w = compileRowWriter(prefixes, cols, positions);
      for (const seed of [0, 1, 1000]) {
        const row = rowOf(seed);
        const expected = reference(cols, positions, names, row);
        assert.equal(w.row(row), expected);
        assert.deepEqual(Object.keys(JSON.parse(expected)), names);
        const texts: string[] = [];
        assert.equal(w.before(row, texts), expected);
        assert.equal(texts.length, n);
      }
    });

    it("close '' leaves each struct open (the envelope joins its brace to what follows)", () => {
      const cols = names.map((_, i) => column(i, []));
      const w = compileRowWriter(prefixes, cols, positions, '');
      const before = rowOf(0);
      const after = rowOf(1);
      const texts: string[] = [];
      assert.equal(w.row(before), reference(cols, positions, names, before).slice(0, -1));
      assert.equal(w.before(before, texts), reference(cols, positions, names, before).slice(0, -1));
      assert.equal(w.after(before, after, texts), reference(cols, positions, names, after).slice(0, -1));
    });

    it('after: unchanged cells reuse the before texts, changed ones are converted', () => {
      const calls: number[] = [];
      const cols = names.map((_, i) => column(i, calls));
      const w = compileRowWriter(prefixes, cols, positions);
      const before = rowOf(0);
      const after = before.slice();
      const changed = n > 4 ? 4 : n - 1;
      after[positions[changed]] = 'changed';
      const texts: string[] = [];
      w.before(before, texts);
      calls.length = 0;
      const text = w.after(before, after, texts);
      assert.deepEqual(
        calls.flatMap((c, i) => (c ? [i] : [])),
        [changed],
      );
      assert.equal(text, reference(cols, positions, names, after));
    });

    it('after: JSON documents and bytes equal to the before image are not converted again', () => {
      if (n < 3) return;
      const calls: number[] = [];
      const cols = names.map((_, i) => column(i, calls));
      const w = compileRowWriter(prefixes, cols, positions);
      const before = rowOf(0);
      before[positions[0]] = new MysqlJson('{"a": "x"}');
      before[positions[1]] = Buffer.from('bytes');
      before[positions[2]] = new MysqlJson('{"a": 1}');
      const texts: string[] = [];
      w.before(before, texts);
      // New objects of the same content (as the decoder makes per image), changed content of the same length, a
      // string where bytes were, and SQL NULL.
      const cases: Array<[CellValue, CellValue, CellValue, number[]]> = [
        [new MysqlJson('{"a": "x"}'), Buffer.from('bytes'), new MysqlJson('{"a": 2}'), [2]],
        [new MysqlJson('{"a": "y"}'), Buffer.from('bytez'), new MysqlJson('{"a": 1}'), [0, 1]],
        [new MysqlJson('{"a": "x"}'), 'bytes', null, [1]],
      ];
      for (const [doc, bytes, other, converted] of cases) {
        const after = before.slice();
        after[positions[0]] = doc;
        after[positions[1]] = bytes;
        after[positions[2]] = other;
        calls.length = 0;
        const text = w.after(before, after, texts);
        assert.deepEqual(
          calls.flatMap((c, i) => (c ? [i] : [])),
          converted,
        );
        assert.equal(text, reference(cols, positions, names, after));
      }
    });
  });
}

describe('compileRowWriter', () => {
  it('writes {} for no columns and refuses a position that is not a row index', () => {
    assert.equal(compileRowWriter([], [], []).row([1]), '{}');
    assert.equal(compileRowWriter([], [], [], '').row([1]), '{');
    const col = column(0, []);
    assert.throws(() => compileRowWriter(['{"a":'], [col], [0.5]), /not a row index/);
    assert.throws(() => compileRowWriter(['{"a":'], [col], [Number('1;x')]), /not a row index/);
  });
});
