/**
 * jsonString: the same text as JSON.stringify for every string, whichever path writes it (the word loop for long
 * ASCII strings, JSON.stringify for short, non-ASCII, lone-surrogate and over-long ones); jsonUtf8: the text
 * JSON.stringify writes for the bytes' UTF-8 decode, for any bytes (invalid UTF-8 included).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonString, jsonUtf8, LONG_STRING } from '../../../src/events/json-escape.js';

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

/** jsonUtf8 of bytes placed at an offset inside a larger buffer (as in an event), against the decode's stringify. */
function sameUtf8(bytes: Buffer, at = 3): void {
  const buf = Buffer.alloc(bytes.length + at + 5, 0x22);
  bytes.copy(buf, at);
  const want = JSON.stringify(bytes.toString('utf8'));
  assert.equal(jsonUtf8(buf, at, at + bytes.length), want, want.slice(0, 120));
}

describe('jsonUtf8', () => {
  it('escapes random bytes (invalid UTF-8, controls, quotes, backslashes) as JSON.stringify escapes their decode', () => {
    const rnd = random(23);
    // Bytes biased towards what matters: escapes, lead and continuation bytes, and bytes never valid in UTF-8.
    const pick = [0x22, 0x5c, 0x00, 0x0a, 0x1f, 0x20, 0x41, 0x7f, 0x80, 0xbf, 0xc0, 0xc2, 0xe0, 0xe2, 0xed, 0xf0];
    pick.push(0xf4, 0xf5, 0xff, 0xa0, 0x9f, 0x8f);
    for (let k = 0; k < 600; k++) {
      const len = Math.floor(rnd() * 700);
      const b = Buffer.alloc(len);
      for (let i = 0; i < len; i++)
        b[i] = rnd() < 0.5 ? pick[Math.floor(rnd() * pick.length)] : Math.floor(rnd() * 256);
      sameUtf8(b, k & 7);
    }
  });

  it('escapes valid UTF-8 text with every kind of character, and cuts multi-byte sequences at every point', () => {
    const rnd = random(5);
    const chars = [...'ab"\\\n\t\u0000\u001f\u007f', 'é', '€', '\u2028', '\u2029', '\u00a0', '😀', '\ufeff', '\uffff'];
    for (const s of strings(rnd, chars, 300, 0, 900)) {
      const b = Buffer.from(s, 'utf8');
      sameUtf8(b);
      // Sequences cut at any byte (a value truncated mid-character decodes to U+FFFD).
      const cut = Math.floor(rnd() * b.length);
      sameUtf8(Buffer.concat([b.subarray(0, cut), Buffer.from('"\\'), b.subarray(cut + 1)]));
    }
    // Encoded surrogates (CESU-8) and overlong forms are invalid: U+FFFD, never a lone surrogate.
    sameUtf8(Buffer.from([0xed, 0xa0, 0x80, 0x22, 0xed, 0xbf, 0xbf, 0xc0, 0xaf, 0xe0, 0x80, 0xaf, 0x5c]));
    sameUtf8(Buffer.from('x'.repeat(70_000) + '"é'));
    sameUtf8(Buffer.alloc(65_536, 0));
    sameUtf8(Buffer.alloc(0));
  });
});
