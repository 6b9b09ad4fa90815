/**
 * JSON string literals of long ASCII strings (JSON documents, TEXT cells), the same text JSON.stringify writes.
 *
 * Node 22's V8 serialises a string of more than a few hundred characters one character at a time through its
 * incremental builder, ~3 ns per character: for a 1 KB JSON document (a quote every few characters, so the
 * no-escape fast path in converters.ts never applies) that was the largest single cost of streaming it. Here the
 * string is encoded into a scratch buffer (native), escaped four bytes at a time in a typed-array loop (each word is
 * copied whole; a word with a quote, backslash or control byte then has those escaped in place in the same loop: a
 * call per such word cost as much as the escaping) and decoded once. The streaming benchmark's MariaDB document
 * (614 characters, 54 quotes), freshly decoded: ~1.0 us instead of ~1.9 us (Node 22). A long non-ASCII string
 * pays the byteLength check, ~0.15-0.6 us more.
 * Equivalence with JSON.stringify: only ASCII strings are escaped here (UTF-8 bytes = characters, so the string
 * round-trips unchanged and holds no surrogates), and only `"`, `\` and U+0000-U+001F are escaped, in
 * JSON.stringify's forms. Anything else (non-ASCII text, short or very long strings) is JSON.stringify's.
 */

/** Shorter strings go straight to JSON.stringify, which is as fast for them. */
export const LONG_STRING = 256;

/** Input scratch in bytes: ASCII strings up to this length are escaped here. */
const SCRATCH = 1 << 16;
const inBytes = new Uint8Array(SCRATCH);
const inWords = new Int32Array(inBytes.buffer);
const inBuf = Buffer.from(inBytes.buffer);
// Room for the worst case: every byte a control character written as \u00xx, plus the quotes and the 3 bytes a
// word store may write past the end (448 KiB in all).
const outBytes = new Uint8Array(6 * SCRATCH + 5);
const outView = new DataView(outBytes.buffer);
const out = Buffer.from(outBytes.buffer) as Buffer & { latin1Slice?: (start: number, end: number) => string };
/** Buffer's own latin1Slice (what toString ends in; see charsets.ts), or toString where absent. */
const decode =
  typeof out.latin1Slice === 'function'
    ? (e: number) => (out.latin1Slice as (s: number, e: number) => string).call(out, 0, e)
    : (e: number) => out.toString('latin1', 0, e);
const decodeUtf8 =
  typeof (out as { utf8Slice?: unknown }).utf8Slice === 'function'
    ? (e: number) => (out as unknown as { utf8Slice(s: number, e: number): string }).utf8Slice(0, e)
    : (e: number) => out.toString('utf8', 0, e);
/** The word loop reads bytes in little-endian order (x64, arm64); elsewhere JSON.stringify does it all. */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** Escapes of U+0000-U+001F: `\b \t \n \f \r` short, the rest `\u00xx` (lowercase hex), as JSON.stringify. */
const CONTROL: Uint8Array[] = Array.from({ length: 32 }, (_, c) =>
  Buffer.from(JSON.stringify(String.fromCharCode(c)).slice(1, -1), 'latin1'),
);

/** JSON.stringify(s) for a string. */
export function jsonString(s: string): string {
  const len = s.length;
  if (len < LONG_STRING || len > SCRATCH || !LITTLE_ENDIAN) return JSON.stringify(s);
  // As many UTF-8 bytes as characters: all ASCII (any other character takes 2-4). Measured before writing, which
  // costs a non-ASCII string several times more.
  if (Buffer.byteLength(s, 'utf8') !== len) return JSON.stringify(s);
  return decode(escapeScratch(inBuf.write(s, 0, 'latin1')));
}

/**
 * JSON.stringify(buf.toString('utf8', start, end)) straight from the UTF-8 bytes, for text whose bytes are at
 * hand (MariaDB's JSON documents in the binlog): no decoding to a string, no byteLength, no write. Escaping only
 * touches ASCII bytes (quote, backslash, controls), which never belong to a multi-byte sequence and end any
 * incomplete one where they stand, so decoding the escaped bytes gives the escaped decoded text, invalid
 * sequences becoming U+FFFD as they would; a UTF-8 decode never yields a lone surrogate, the one other thing
 * JSON.stringify escapes. All-ASCII output (the usual case) is decoded as latin1, which is cheaper.
 */
export function jsonUtf8(buf: Buffer, start: number, end: number): string {
  const n = end - start;
  if (n > SCRATCH || !LITTLE_ENDIAN) return JSON.stringify(buf.toString('utf8', start, end));
  buf.copy(inBytes, 0, start, end);
  const o = escapeScratch(n);
  return high ? decodeUtf8(o) : decode(o);
}

/** Whether the last escapeScratch saw a byte >= 0x80. */
let high = false;

/**
 * Escapes the first n bytes of the input scratch into `out` as a quoted JSON string; returns its length.
 *
 * Each word is stored whole first. A word holding bytes to escape (a third of a JSON document's: a quote every
 * few characters) then has an exact mask of them, and for each, lowest first, the output advances over the clean
 * bytes before it, the escape is written and the rest of the word stored again after it: work per escaped byte,
 * none per clean one (a byte loop over the word cost ~30% more instructions for the benchmark's document).
 */
function escapeScratch(n: number): number {
  const words = inWords;
  const ob = outBytes;
  const ov = outView;
  ob[0] = 34;
  let o = 1;
  let any = 0;
  const nw = n >> 2;
  for (let k = 0; k < nw; k++) {
    const w = words[k];
    any |= w;
    // One unaligned little-endian store (the word's low byte is the first character).
    ov.setInt32(o, w, true);
    // Bit 7 of each byte of `clean`: the byte is none of quote, backslash, U+0000-U+001F. With bit 7 of each byte
    // cleared first, adding 0x7f to a byte (of l ^ quote, l ^ backslash) or 0x60 (of l) sets it exactly when the
    // byte is nonzero or >= 0x20, and never carries into the next byte; bytes >= 0x80 (| w) never need escaping.
    const l = w & 0x7f7f7f7f;
    const clean = (((l ^ 0x22222222) + 0x7f7f7f7f) & ((l ^ 0x5c5c5c5c) + 0x7f7f7f7f) & (l + 0x60606060)) | w;
    let m = ~clean & 0x80808080;
    if (m === 0) {
      o += 4;
      continue;
    }
    let next = 0;
    do {
      const bit = 31 - Math.clz32(m & -m);
      const j = bit >> 3;
      o += j - next;
      const c = (w >>> (bit - 7)) & 255;
      if (c >= 32) {
        ob[o] = 92;
        ob[o + 1] = c;
        o += 2;
      } else {
        o = control(c, ob, o);
      }
      next = j + 1;
      // The word's bytes after this one, right after its escape (bytes past the word are written over later).
      if (next < 4) ov.setInt32(o, w >>> (next << 3), true);
      m &= m - 1;
    } while (m !== 0);
    o += 4 - next;
  }
  const inb = inBytes;
  for (let i = nw << 2; i < n; i++) any |= inb[i];
  high = (any & 0x80808080) !== 0;
  o = escapeBytes(inb, nw << 2, n, ob, o);
  ob[o++] = 34;
  return o;
}

/** Writes the escape of control character c at o; returns the next offset. */
function control(c: number, ob: Uint8Array, o: number): number {
  const e = CONTROL[c];
  for (let j = 0; j < e.length; j++) ob[o++] = e[j];
  return o;
}

/** The last 0-3 bytes, as the loop above escapes a word's. */
function escapeBytes(inb: Uint8Array, from: number, to: number, ob: Uint8Array, o: number): number {
  for (let i = from; i < to; i++) {
    const c = inb[i];
    if (c === 34 || c === 92) {
      ob[o] = 92;
      ob[o + 1] = c;
      o += 2;
    } else if (c < 32) {
      o = control(c, ob, o);
    } else {
      ob[o++] = c;
    }
  }
  return o;
}
