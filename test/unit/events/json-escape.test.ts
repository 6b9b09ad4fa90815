/**
 * jsonString: the same text as JSON.stringify for every string, whichever path writes it (the word loop for long
 * ASCII strings, JSON.stringify for short, non-ASCII, lone-surrogate and over-long ones).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonString, LONG_STRING } from '../../../src/events/json-escape.js';

/** A deterministic pseudo-random source (xorshift32), so a failure reproduces. */
function random(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

/** Strings of `len` characters drawn from `alphabet`. */
function strings(rnd: () => number, alphabet: string[], count: number, min: number, spread: number): string[] {
  const out: string[] = [];
  for (let k = 0; k < count; k++) {
    const len = min + Math.floor(rnd() * spread);
    let s = '';
    for (let i = 0; i < len; i++) s += alphabet[Math.floor(rnd() * alphabet.length)];
    out.push(s);
  }
  return out;
}

const same = (s: string) => assert.equal(jsonString(s), JSON.stringify(s), JSON.stringify(s).slice(0, 120));

describe('jsonString', () => {
  it('writes what JSON.stringify writes for long ASCII strings with quotes, backslashes and every control', () => {
    const rnd = random(19);
    const ascii = Array.from({ length: 128 }, (_, c) => String.fromCharCode(c));
    // Dense escapes (every word dirty), sparse ones (clean words copied whole), and each length mod 4.
    const dense = [...ascii, '"', '"', '\\', '\\', '\n', '\t'];
    const sparse = [...'abcdefghijklmnopqrstuvwxyz0123456789 {}:,', '"'];
    for (const s of strings(rnd, dense, 400, LONG_STRING - 4, 600)) same(s);
    for (const s of strings(rnd, sparse, 400, LONG_STRING - 4, 3000)) same(s);
    same(JSON.stringify({ doc: 'lorem "ipsum" \\ dolor\tsit\u0000\u001f\u007f '.repeat(40), n: [1, 2, 3] }));
  });

  it('leaves non-ASCII text, lone surrogates and over-long strings to JSON.stringify, with the same result', () => {
    const rnd = random(7);
    const base = strings(rnd, [...'abc "\\\n'], 50, LONG_STRING, 400);
    const odd = ['é', '€', '\u00a0', '\u0080', '\u00ff', '\u0100', '\u0122', '\u015c', '😀', '\ud800', '\udfff'];
    for (const s of base) for (const o of odd) same(s.slice(0, 100) + o + s.slice(100));
    for (const s of strings(rnd, [...'aé€😀"\\\ud800'], 100, LONG_STRING, 500)) same(s);
    same('x'.repeat(70_000) + '"');
    same('"'.repeat(65_536));
    same('\u0000'.repeat(65_536));
  });

  it('short strings', () => {
    for (const s of ['', '"', '\\', 'a"b', '\u0001', 'é"', 'x'.repeat(LONG_STRING - 1) + '"']) same(s);
  });
});
