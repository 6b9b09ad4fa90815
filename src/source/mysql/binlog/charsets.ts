/**
 * Collation id → character set, and character set → how to turn column bytes into a JS string.
 * Ids are MySQL 8 / MariaDB collation numbers (SHOW COLLATION); unknown ids fall back to utf-8.
 */

// Runs of collation ids sharing a charset: "first-last:charset" (data from SHOW COLLATION).
const RUNS =
  '1:big5 2:latin2 3:dec8 4:cp850 5:latin1 6:hp8 7:koi8r 8:latin1 9:latin2 10:swe7 11:ascii 12:ujis 13:sjis ' +
  '14:cp1251 15:latin1 16:hebrew 18:tis620 19:euckr 20:latin7 21:latin2 22:koi8u 23:cp1251 24:gb2312 25:greek ' +
  '26:cp1250 27:latin2 28:gbk 29:cp1257 30:latin5 31:latin1 32:armscii8 33:utf8mb3 34:cp1250 35:ucs2 36:cp866 ' +
  '37:keybcs2 38:macce 39:macroman 40:cp852 41-42:latin7 43:macce 44:cp1250 45-46:utf8mb4 47-49:latin1 ' +
  '50-52:cp1251 53:macroman 54-55:utf16 56:utf16le 57:cp1256 58-59:cp1257 60-61:utf32 62:utf16le 63:binary ' +
  '64:armscii8 65:ascii 66:cp1250 67:cp1256 68:cp866 69:dec8 70:greek 71:hebrew 72:hp8 73:keybcs2 74:koi8r ' +
  '75:koi8u 76:utf8mb3 77:latin2 78:latin5 79:latin7 80:cp850 81:cp852 82:swe7 83:utf8mb3 84:big5 85:euckr ' +
  '86:gb2312 87:gbk 88:sjis 89:tis620 90:ucs2 91:ujis 92-93:geostd8 94:latin1 95-96:cp932 97-98:eucjpms ' +
  '99:cp1250 101-124:utf16 128-151:ucs2 159:ucs2 160-183:utf32 192-215:utf8mb3 223:utf8mb3 224-247:utf8mb4 ' +
  '248-250:gb18030 253:utf8mb3 255-323:utf8mb4';

const BY_ID = new Map<number, string>();
for (const run of RUNS.split(' ')) {
  const [range, name] = run.split(':');
  const [a, b] = range.split('-').map(Number);
  for (let id = a; id <= (b ?? a); id++) BY_ID.set(id, name);
}

export const BINARY_COLLATION = 63;

/** Character set name of a collation id, or undefined when unknown. */
export function charsetOfCollation(id: number): string | undefined {
  return BY_ID.get(id);
}

/** Decodes a byte range of a buffer to a string. */
export type StringDecoderFn = (buf: Buffer, start: number, end: number) => string;

/**
 * Buffer's own utf8Slice (what toString('utf8', s, e) ends in): calling it directly skips toString's argument and
 * encoding handling, most of the cost of a short string (a long-stable Node internal; mysql2 relies on it too).
 * Callers pass a checked range within the buffer, where both give the same string.
 */
const nativeUtf8 = (Buffer.prototype as { utf8Slice?: (start: number, end: number) => string }).utf8Slice;
const utf8: StringDecoderFn =
  typeof nativeUtf8 === 'function'
    ? (b, s, e) => (b as unknown as { utf8Slice(start: number, end: number): string }).utf8Slice(s, e)
    : (b, s, e) => b.toString('utf8', s, e);
/** The UTF-8 decoder `stringDecoderFor` returns for utf8mb4/utf8mb3 (column decoders special-case it). */
export const utf8Decoder: StringDecoderFn = utf8;
const latin1Node: StringDecoderFn = (b, s, e) => b.toString('latin1', s, e);

function whatwg(label: string): StringDecoderFn {
  const td = new TextDecoder(label);
  return (b, s, e) => td.decode(b.subarray(s, e));
}

function utf32be(b: Buffer, s: number, e: number): string {
  let out = '';
  for (let i = s; i + 3 < e; i += 4) {
    const cp = b.readUInt32BE(i);
    out += cp <= 0x10ffff ? String.fromCodePoint(cp) : '\ufffd'; // not a code point: replacement character
  }
  return out;
}

// WHATWG encoding labels for MySQL charsets TextDecoder knows; the rest fall back to utf-8.
const WHATWG: Record<string, string> = {
  latin2: 'iso-8859-2',
  latin5: 'windows-1254',
  latin7: 'iso-8859-13',
  cp1250: 'windows-1250',
  cp1251: 'windows-1251',
  cp1256: 'windows-1256',
  cp1257: 'windows-1257',
  cp866: 'ibm866',
  koi8r: 'koi8-r',
  koi8u: 'koi8-u',
  greek: 'iso-8859-7',
  hebrew: 'iso-8859-8',
  tis620: 'windows-874',
  macroman: 'macintosh',
  big5: 'big5',
  euckr: 'euc-kr',
  gb2312: 'gbk',
  gbk: 'gbk',
  gb18030: 'gb18030',
  sjis: 'shift_jis',
  cp932: 'shift_jis',
  ujis: 'euc-jp',
  eucjpms: 'euc-jp',
  ucs2: 'utf-16be',
  utf16: 'utf-16be',
  utf16le: 'utf-16le',
};

// windows-1252 0x80..0x9f (MySQL latin1 is cp1252); Node's TextDecoder treats the label as ISO-8859-1.
const CP1252_HIGH =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

function cp1252(b: Buffer, s: number, e: number): string {
  let i = s;
  while (i < e && (b[i] < 0x80 || b[i] > 0x9f)) i++;
  if (i === e) return b.toString('latin1', s, e);
  let out = b.toString('latin1', s, i);
  for (; i < e; i++) {
    const c = b[i];
    out += c >= 0x80 && c <= 0x9f ? CP1252_HIGH[c - 0x80] : String.fromCharCode(c);
  }
  return out;
}

const cache = new Map<string, StringDecoderFn>();

/**
 * The string decoder for a MySQL charset name, or null for `binary` (values stay Buffers).
 * Unknown names decode as utf-8 rather than failing: better a readable value than a stalled capture.
 */
export function stringDecoderFor(charset: string | undefined): StringDecoderFn | null {
  const name = (charset ?? 'utf8mb4').toLowerCase();
  if (name === 'binary') return null;
  if (name === 'utf8mb4' || name === 'utf8mb3' || name === 'utf8') return utf8;
  if (name === 'ascii') return latin1Node;
  if (name === 'latin1') return cp1252;
  if (name === 'utf32') return utf32be;
  let fn = cache.get(name);
  if (fn) return fn;
  const label = WHATWG[name];
  try {
    fn = label ? whatwg(label) : utf8;
  } catch {
    fn = utf8; // a Node build without full ICU lacks some legacy encodings
  }
  cache.set(name, fn);
  return fn;
}
