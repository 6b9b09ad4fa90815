/**
 * MySQL binary JSON (the JSON column storage format) → JSON text. Also decodes MySQL 8 partial JSON update diffs.
 *
 * Output format (a deliberate choice, keep it in step with src/events/json-diff.ts):
 *  - compact separators, `{"a":1,"b":[true,null]}`, as Debezium's MySQL connector streams JSON columns
 *    (mysql-binlog-connector-java's JsonStringFormatter renders the binary value itself, without MySQL's ", " and
 *    ": " spacing), so our change events carry the same text Debezium consumers see;
 *  - object members in storage order (MySQL sorts keys by length, then bytes) — both MySQL and JsonStringFormatter
 *    print them that way;
 *  - scalars as MySQL prints them (Json_wrapper::to_string): doubles through my_gcvt's rules (shortest
 *    round-trip digits, 'f' format for 1e-15 <= |x| < 1e15 and for larger non-integral values, else `1e100`;
 *    ".0" appended when neither '.' nor 'e' appears, so `2.0`, `-0.0`), strings with only '"', '\' and control
 *    characters escaped, DECIMAL opaques as bare numbers, DATE/TIME/DATETIME opaques as quoted
 *    "YYYY-MM-DD hh:mm:ss.ffffff" with six fraction digits, other opaques as "base64:typeNN:…".
 *    JsonStringFormatter differs only in spelling some scalars (doubles with an exponent expanded through
 *    BigDecimal, bare base64 opaques); MySQL's spelling parses to the same values and matches what a snapshot
 *    (SELECT) of the same column returns, apart from the spacing.
 */

import { type JsonDiff, MysqlJson, MysqlJsonPartial, MysqlTime } from '../../../model/values.js';
import { ColumnType } from '../column-type.js';
import { decimalBinarySize, decodeDecimal } from './decimal.js';
import { BinlogDecodeError } from './errors.js';
import { unpackDatetimePacked, unpackTimePacked } from './temporal.js';

const T = {
  SMALL_OBJECT: 0x00,
  LARGE_OBJECT: 0x01,
  SMALL_ARRAY: 0x02,
  LARGE_ARRAY: 0x03,
  LITERAL: 0x04,
  INT16: 0x05,
  UINT16: 0x06,
  INT32: 0x07,
  UINT32: 0x08,
  INT64: 0x09,
  UINT64: 0x0a,
  DOUBLE: 0x0b,
  STRING: 0x0c,
  OPAQUE: 0x0f,
} as const;

/**
 * Malformed binary JSON. A BinlogDecodeError without a position: the JSON column decoder prefixes the column
 * name and the event decoder the event position (as for every other column value).
 */
export class JsonBinaryError extends BinlogDecodeError {}

/** MySQL's JSON_DOCUMENT_MAX_DEPTH: containers nested deeper than this are rejected (as MySQL does). */
export const JSON_MAX_DEPTH = 100;

function fail(reason: string, offset: number): never {
  throw new JsonBinaryError(`invalid binary JSON: ${reason} at offset ${offset}`);
}

/** Every read is checked against the extent of the value being read (`end`), never just the buffer. */
function need(pos: number, n: number, end: number, what: string): void {
  if (pos + n > end) fail(`${what} (${n} bytes) past end of value`, pos);
}

/** Renders a whole binary JSON document (`buf[start, end)`) as JSON text; an empty value is JSON null. */
export function jsonBinaryToText(buf: Buffer, start: number, end: number): string {
  if (end <= start) return 'null';
  if (end > buf.length) fail(`value end ${end} past the buffer`, start);
  return renderValue(buf, buf[start], start + 1, end, 0);
}

function renderValue(buf: Buffer, type: number, pos: number, end: number, depth: number): string {
  switch (type) {
    case T.SMALL_OBJECT:
      return renderContainer(buf, pos, end, false, true, depth + 1);
    case T.LARGE_OBJECT:
      return renderContainer(buf, pos, end, true, true, depth + 1);
    case T.SMALL_ARRAY:
      return renderContainer(buf, pos, end, false, false, depth + 1);
    case T.LARGE_ARRAY:
      return renderContainer(buf, pos, end, true, false, depth + 1);
    case T.LITERAL:
      need(pos, 1, end, 'literal');
      return renderLiteral(buf[pos], pos);
    case T.INT16:
      need(pos, 2, end, 'int16');
      return String(buf.readInt16LE(pos));
    case T.UINT16:
      need(pos, 2, end, 'uint16');
      return String(buf.readUInt16LE(pos));
    case T.INT32:
      need(pos, 4, end, 'int32');
      return String(buf.readInt32LE(pos));
    case T.UINT32:
      need(pos, 4, end, 'uint32');
      return String(buf.readUInt32LE(pos));
    case T.INT64:
      need(pos, 8, end, 'int64');
      return buf.readBigInt64LE(pos).toString();
    case T.UINT64:
      need(pos, 8, end, 'uint64');
      return buf.readBigUInt64LE(pos).toString();
    case T.DOUBLE:
      need(pos, 8, end, 'double');
      return formatDouble(buf.readDoubleLE(pos));
    case T.STRING: {
      const [len, p] = readVarLen(buf, pos, end);
      if (p + len > end) fail('string past end of value', p);
      return quote(buf.toString('utf8', p, p + len));
    }
    case T.OPAQUE: {
      need(pos, 1, end, 'opaque type');
      const fieldType = buf[pos];
      const [len, p] = readVarLen(buf, pos + 1, end);
      if (p + len > end) fail('opaque value past end of value', p);
      return renderOpaque(buf, fieldType, p, len);
    }
    default:
      return fail(`unknown value type 0x${type.toString(16)}`, pos - 1);
  }
}

function renderLiteral(v: number, pos: number): string {
  if (v === 0) return 'null';
  if (v === 1) return 'true';
  if (v === 2) return 'false';
  return fail(`unknown literal 0x${v.toString(16)}`, pos);
}

function renderContainer(
  buf: Buffer,
  base: number,
  end: number,
  large: boolean,
  isObject: boolean,
  depth: number,
): string {
  if (depth > JSON_MAX_DEPTH) fail(`nesting deeper than ${JSON_MAX_DEPTH}`, base - 1);
  const w = large ? 4 : 2;
  need(base, 2 * w, end, 'container header');
  const count = large ? buf.readUInt32LE(base) : buf.readUInt16LE(base);
  const size = large ? buf.readUInt32LE(base + w) : buf.readUInt16LE(base + w);
  if (base + size > end) fail(`container size ${size} exceeds the value`, base);
  const keyEntries = base + 2 * w;
  const valueEntrySize = 1 + w;
  const valueEntries = keyEntries + (isObject ? count * (w + 2) : 0);
  // Header, key entries and value entries lie inside the container (checked before allocating for `count`).
  const headerEnd = valueEntries + count * valueEntrySize;
  if (headerEnd > base + size) fail(`${count} entries do not fit in a container of size ${size}`, base);
  const parts: string[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const ve = valueEntries + i * valueEntrySize;
    const vt = buf[ve];
    let text: string;
    if (isInlined(vt, large)) {
      text = renderInlined(buf, vt, ve + 1);
    } else {
      const off = large ? buf.readUInt32LE(ve + 1) : buf.readUInt16LE(ve + 1);
      if (off >= size) fail(`value offset ${off} outside container of size ${size}`, ve + 1);
      // Values follow the entries; an offset into the header would make the container contain itself.
      if (base + off < headerEnd) fail(`value offset ${off} points into the container's own header`, ve + 1);
      text = renderValue(buf, vt, base + off, base + size, depth);
    }
    if (isObject) {
      const ke = keyEntries + i * (w + 2);
      const koff = large ? buf.readUInt32LE(ke) : buf.readUInt16LE(ke);
      const klen = buf.readUInt16LE(ke + w);
      if (koff + klen > size || base + koff < headerEnd) fail('object key outside container', ke);
      parts[i] = `${quote(buf.toString('utf8', base + koff, base + koff + klen))}:${text}`;
    } else parts[i] = text;
  }
  return isObject ? `{${parts.join(',')}}` : `[${parts.join(',')}]`;
}

function isInlined(type: number, large: boolean): boolean {
  return (
    type === T.LITERAL || type === T.INT16 || type === T.UINT16 || (large && (type === T.INT32 || type === T.UINT32))
  );
}

function renderInlined(buf: Buffer, type: number, pos: number): string {
  switch (type) {
    case T.LITERAL:
      return renderLiteral(buf[pos], pos);
    case T.INT16:
      return String(buf.readInt16LE(pos));
    case T.UINT16:
      return String(buf.readUInt16LE(pos));
    case T.INT32:
      return String(buf.readInt32LE(pos));
    default:
      return String(buf.readUInt32LE(pos));
  }
}

/** Variable-length unsigned int: 7 bits per byte, low bits first, high bit = more. Returns [value, nextPos]. */
function readVarLen(buf: Buffer, pos: number, end: number): [number, number] {
  let v = 0;
  for (let i = 0; i < 5; i++) {
    if (pos >= end) fail('truncated length', pos);
    const b = buf[pos++];
    v += (b & 0x7f) * 2 ** (7 * i);
    if ((b & 0x80) === 0) return [v, pos];
  }
  return fail('length longer than 5 bytes', pos);
}

function renderOpaque(buf: Buffer, fieldType: number, pos: number, len: number): string {
  switch (fieldType) {
    case ColumnType.NEWDECIMAL: {
      if (len < 2) break;
      const precision = buf[pos];
      const scale = buf[pos + 1];
      if (precision < 1 || precision > 65 || scale > precision || scale > 38) {
        fail(`DECIMAL precision/scale ${precision}/${scale} out of range`, pos);
      }
      if (2 + decimalBinarySize(precision, scale) > len) fail('DECIMAL digits past end of opaque value', pos);
      return decodeDecimal(buf, pos + 2, precision, scale);
    }
    case ColumnType.DATE:
    case ColumnType.DATETIME:
    case ColumnType.TIMESTAMP: {
      if (len < 8) break;
      const [y, mo, d, h, mi, s, us] = unpackDatetimePacked(buf.readBigInt64LE(pos));
      const date = `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}`;
      if (fieldType === ColumnType.DATE) return `"${date}"`;
      return `"${date} ${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}.${pad(us, 6)}"`;
    }
    case ColumnType.TIME: {
      if (len < 8) break;
      return `"${new MysqlTime(unpackTimePacked(buf.readBigInt64LE(pos)), 6).toString()}"`;
    }
  }
  return `"base64:type${fieldType}:${buf.toString('base64', pos, pos + len)}"`;
}

function pad(n: number, w: number): string {
  return String(n).padStart(w, '0');
}

/**
 * Doubles as MySQL prints them in JSON: my_gcvt(d, MY_GCVT_ARG_DOUBLE, MY_GCVT_MAX_FIELD_WIDTH) (strings/dtoa.cc),
 * then ".0" when the text has neither '.' nor 'e'. my_gcvt takes the shortest round-trip digits and uses the 'f'
 * format when the decimal exponent `decpt` (value = 0.DIGITS × 10^decpt) satisfies
 * decpt >= -14 && (decpt <= 15 || digits > decpt) (MAX_DECPT_FOR_F_FORMAT = DBL_DIG = 15), else `D.DDDe±X`.
 */
export function formatDouble(d: number): string {
  if (!Number.isFinite(d)) return String(d);
  if (d === 0) return Object.is(d, -0) ? '-0.0' : '0.0';
  const sign = d < 0 ? '-' : '';
  const [mant, expText] = Math.abs(d).toExponential().split('e');
  const digits = mant.replace('.', '');
  const len = digits.length;
  const decpt = Number(expText) + 1;
  if (decpt >= -14 && (decpt <= 15 || len > decpt)) {
    if (decpt <= 0) return `${sign}0.${'0'.repeat(-decpt)}${digits}`;
    if (decpt < len) return `${sign}${digits.slice(0, decpt)}.${digits.slice(decpt)}`;
    return `${sign}${digits}${'0'.repeat(decpt - len)}.0`;
  }
  return `${sign}${digits[0]}${len > 1 ? `.${digits.slice(1)}` : ''}e${decpt - 1}`;
}

const isWellFormed = (String.prototype as { isWellFormed?: (this: string) => boolean }).isWellFormed;

/** JSON string quoting as MySQL does it: only ", \ and control characters are escaped. */
export function quote(s: string): string {
  if (!/["\\\u0000-\u001f]/.test(s)) return `"${s}"`;
  // JSON.stringify writes these same escapes natively, ~6x faster than the loop below; it also escapes a lone
  // surrogate, which MySQL leaves as is (and which a string decoded from UTF-8, every caller's, never holds).
  if (isWellFormed?.call(s)) return JSON.stringify(s);
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += '\\\\';
    else if (c === 0x08) out += '\\b';
    else if (c === 0x0c) out += '\\f';
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0d) out += '\\r';
    else if (c === 0x09) out += '\\t';
    else if (c < 0x20) out += `\\u00${c.toString(16).padStart(2, '0')}`;
    else out += s[i];
  }
  return `${out}"`;
}

/**
 * MySQL's own JSON text (what a SELECT of a native JSON column returns: Json_wrapper::to_string, with ", " and
 * ": " separators) in this module's output format. Scalars, escapes and member order already agree — both come
 * from the same server rules — so only whitespace outside strings goes. A snapshot row and a streamed change of
 * the same value then carry identical text.
 */
export function compactJsonText(text: string): string {
  let out = '';
  let from = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // the escaped character cannot end the string
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
      out += text.slice(from, i);
      from = i + 1;
    }
  }
  return from === 0 ? text : out + text.slice(from);
}

const DIFF_OPS: JsonDiff['op'][] = ['replace', 'insert', 'remove'];

/** MySQL 8 partial JSON update (binlog_row_value_options=PARTIAL_JSON): a list of diffs on the before-image. */
export function decodeJsonDiffs(buf: Buffer, start: number, end: number): MysqlJsonPartial {
  const diffs: JsonDiff[] = [];
  let p = start;
  if (end > buf.length) fail(`value end ${end} past the buffer`, start);
  while (p < end) {
    const opCode = buf[p++];
    const op = DIFF_OPS[opCode];
    if (op === undefined) fail(`unknown JSON diff operation ${opCode}`, p - 1);
    const [pathLen, pp] = readPacked(buf, p, end);
    p = pp;
    if (p + pathLen > end) fail('JSON diff path past end of value', p);
    const path = buf.toString('utf8', p, p + pathLen);
    p += pathLen;
    if (op === 'remove') {
      diffs.push({ op, path });
      continue;
    }
    const [valueLen, vp] = readPacked(buf, p, end);
    p = vp;
    if (p + valueLen > end) fail('JSON diff value past end of value', p);
    diffs.push({ op, path, value: new MysqlJson(jsonBinaryToText(buf, p, p + valueLen)) });
    p += valueLen;
  }
  return new MysqlJsonPartial(diffs);
}

function readPacked(buf: Buffer, p: number, end: number): [number, number] {
  need(p, 1, end, 'packed length');
  const b = buf[p];
  if (b < 0xfb) return [b, p + 1];
  if (b === 0xfc) {
    need(p + 1, 2, end, 'packed length');
    return [buf.readUInt16LE(p + 1), p + 3];
  }
  if (b === 0xfd) {
    need(p + 1, 3, end, 'packed length');
    return [buf.readUIntLE(p + 1, 3), p + 4];
  }
  if (b === 0xfe) {
    need(p + 1, 8, end, 'packed length');
    return [Number(buf.readBigUInt64LE(p + 1)), p + 9];
  }
  return fail(`invalid packed length prefix 0x${b.toString(16)}`, p);
}
