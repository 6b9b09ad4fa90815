/**
 * Per-table compiled writers of a row struct's JSON text (`{"col":<text>,...}`), the value's `before`/`after`.
 *
 * A loop over the columns calling `texts[i](cell)` is one call site seeing every column's converter: V8 calls it
 * megamorphically and inlines none of them. Generated code has one call site per column, each seeing one
 * converter, so the optimiser inlines the conversions into the writer. Only column indexes (integers) are written
 * into the generated source; names, prefixes and converters are passed in as values.
 */
import { MysqlJson, type Row } from '../model/values.js';
import type { TextFn } from './converters.js';

/**
 * How one emitted column's cell becomes JSON text: `present(v)` for a non-null cell (null: write `nullText`),
 * `nullText` for SQL NULL, `missingText` for a cell absent from the row image (undefined).
 */
export interface CellText {
  present: TextFn;
  nullText: string;
  missingText: string;
}

function cellText(c: CellText, v: Row[number]): string {
  return v === null ? c.nullText : v === undefined ? c.missingText : (c.present(v) ?? c.nullText);
}

export interface RowWriter {
  /** The struct of a row. */
  row(row: Row): string;
  /** The struct of an update's before image, keeping each column's text in `texts` for `after`. */
  before(before: Row, texts: string[]): string;
  /**
   * The struct of the after image right after `before(before, texts)`: a cell equal to the before image's (the
   * same primitive or object, or sameCell) has the same text, since every column's text is a pure function of
   * its cell's content.
   */
  after(before: Row, after: Row, texts: readonly string[]): string;
}

/**
 * Cells the decoder makes a new object for in each image but whose content is often unchanged by an update, and
 * whose text is costly: JSON documents (MySQL binary JSON, escaped as a string) and bytes (base64 or hex). An
 * UPDATE that sets other columns leaves them equal, and comparing is far cheaper than converting again.
 */
function sameCell(v: object, w: Row[number]): boolean {
  if (v instanceof MysqlJson) return w instanceof MysqlJson && v.text === w.text;
  return v instanceof Uint8Array && w instanceof Uint8Array && v.length === w.length && Buffer.compare(v, w) === 0;
}

/** Above this many columns the generated functions grow past what V8 optimises; a loop is used instead. */
const MAX_COMPILED_COLUMNS = 200;

/** Distinct source per writer: closures of one source text would share type feedback across tables. */
let serial = 0;

/**
 * `prefixes[i]` is the text before column i's value (`{"name":` for the first, `,"name":` after); `texts[i]`
 * writes its cell, read from `row[positions[i]]`. `close` ends each struct: the envelope passes '' and joins the
 * closing brace to the constant text that follows it, one concatenation fewer per image.
 */
export function compileRowWriter(
  prefixes: readonly string[],
  texts: readonly CellText[],
  positions: readonly number[],
  close = '}',
): RowWriter {
  const n = positions.length;
  if (n === 0) {
    const empty = `{${close}`;
    return { row: () => empty, before: () => empty, after: () => empty };
  }
  if (n > MAX_COMPILED_COLUMNS) return loopWriter(prefixes, texts, positions, close);
  const consts: string[] = [];
  const row: string[] = [];
  const before: string[] = [];
  const after: string[] = [];
  for (let i = 0; i < n; i++) {
    const p = positions[i];
    if (!Number.isInteger(p) || p < 0) throw new Error(`column position ${p} is not a row index`);
    consts.push(`p${i} = P[${i}], f${i} = T[${i}].present, n${i} = T[${i}].nullText, m${i} = T[${i}].missingText`);
    // text of v: the same as cellText(texts[i], v).
    const text = `(v === null ? n${i} : v === undefined ? m${i} : (f${i}(v) ?? n${i}))`;
    // The first column starts the text: no concatenation with an empty string.
    const add = i === 0 ? 's =' : 's +=';
    row.push(`v = r[${p}]; ${add} p${i} + ${text};`);
    before.push(`v = b[${p}]; ${add} p${i} + (x[${i}] = ${text});`);
    after.push(
      `v = a[${p}]; w = b[${p}]; ${add} p${i} + (v === w || (typeof v === 'object' && v !== null && same(v, w)) ? x[${i}] : ${text});`,
    );
  }
  const end = close === '' ? 'return s;' : 'return s + C;';
  const source = `"use strict"; // row writer ${++serial}
const ${consts.join(',\n  ')};
return {
  row(r) { let s; let v; ${row.join(' ')} ${end} },
  before(b, x) { let s; let v; ${before.join(' ')} ${end} },
  after(b, a, x) { let s; let v; let w; ${after.join(' ')} ${end} },
};`;
  return new Function('P', 'T', 'same', 'C', source)(prefixes.slice(), texts.slice(), sameCell, close) as RowWriter;
}

/** The same writer as a loop over the columns (very wide tables). */
function loopWriter(
  prefixes: readonly string[],
  texts: readonly CellText[],
  positions: readonly number[],
  close: string,
): RowWriter {
  const n = positions.length;
  return {
    row(row) {
      let out = '';
      for (let i = 0; i < n; i++) out += prefixes[i] + cellText(texts[i], row[positions[i]]);
      return out + close;
    },
    before(before, beforeTexts) {
      let out = '';
      for (let i = 0; i < n; i++) {
        const t = cellText(texts[i], before[positions[i]]);
        beforeTexts[i] = t;
        out += prefixes[i] + t;
      }
      return out + close;
    },
    after(before, after, beforeTexts) {
      let out = '';
      for (let i = 0; i < n; i++) {
        const p = positions[i];
        const v = after[p];
        const w = before[p];
        const same = v === w || (typeof v === 'object' && v !== null && sameCell(v, w));
        out += prefixes[i] + (same ? beforeTexts[i] : cellText(texts[i], v));
      }
      return out + close;
    },
  };
}
