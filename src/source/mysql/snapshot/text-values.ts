/**
 * Converts values read over the text protocol (snapshot SELECTs) into the neutral CellValue representation the
 * binlog decoder produces, so snapshot and streaming events go through the same event builders. One converter
 * is chosen per column up front; the session runs with time_zone='+00:00' so TIMESTAMP text is UTC.
 */

import { BLOB_TYPES, GEOMETRY_TYPES } from '../../../model/column-types.js';
import type { ColumnDef } from '../../../model/table-def.js';
import {
  type CellValue,
  MysqlDate,
  MysqlDateTime,
  MysqlJson,
  MysqlTime,
  MysqlTimestamp,
} from '../../../model/values.js';
import { compactJsonText } from '../binlog/json-binary.js';

/** Raw column value as mysql2 hands it over with our typeCast: text, bytes, or null. */
export type RawValue = string | Buffer | null;
export type TextConverter = (raw: RawValue) => CellValue;

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Result-set column type of MySQL's native JSON (MariaDB's JSON is LONGTEXT and arrives as a blob/text type). */
export const MYSQL_TYPE_JSON = 245;

/**
 * A native MySQL JSON column: the server's text is re-spaced like the binlog decoder's output (json-binary.ts),
 * so a row's snapshot and streamed events serialise it identically. MariaDB's JSON text stays verbatim: its binlog
 * carries the stored text itself.
 */
export const nativeJsonConverter: TextConverter = (v) =>
  v === null ? null : new MysqlJson(compactJsonText(String(v)));

export function textConverterFor(col: ColumnDef): TextConverter {
  const t = col.dataType.toLowerCase();
  const fsp = col.length ?? 0;
  switch (t) {
    case 'tinyint':
    case 'smallint':
    case 'mediumint':
    case 'int':
    case 'integer':
    case 'year':
      return (v) => (v === null ? null : Number(v));
    case 'bigint':
      return (v) => {
        if (v === null) return null;
        const s = String(v);
        if (s.length < 16) return Number(s);
        const b = BigInt(s);
        return b <= MAX_SAFE && b >= -MAX_SAFE ? Number(b) : b;
      };
    case 'float':
      // FLOAT is 32-bit: round to float32 like the binlog decoder's readFloatLE, whatever digits the text had.
      return (v) => (v === null ? null : Math.fround(Number(v)));
    case 'double':
    case 'real':
      return (v) => (v === null ? null : Number(v));
    case 'decimal':
    case 'numeric':
      return (v) => (v === null ? null : String(v));
    case 'bit':
      return (v) => (v === null ? null : Buffer.isBuffer(v) ? v : Buffer.from(v, 'latin1'));
    case 'date':
      return (v) => (v === null ? null : parseDate(String(v)));
    case 'datetime':
      return (v) => (v === null ? null : parseDateTime(String(v), fsp));
    case 'timestamp':
      return (v) => (v === null ? null : parseTimestamp(String(v), fsp));
    case 'time':
      return (v) => (v === null ? null : parseTime(String(v), fsp));
    case 'json':
      return (v) => (v === null ? null : new MysqlJson(String(v)));
    case 'enum': {
      const index = new Map((col.enumValues ?? []).map((m, i) => [m, i + 1]));
      return (v) => (v === null ? null : (index.get(String(v)) ?? 0));
    }
    case 'set': {
      const bit = new Map((col.enumValues ?? []).map((m, i) => [m, 1n << BigInt(i)]));
      return (v) => {
        if (v === null) return null;
        let mask = 0n;
        const s = String(v);
        if (s) for (const m of s.split(',')) mask |= bit.get(m) ?? 0n;
        return mask;
      };
    }
    case 'uuid':
    case 'inet4':
    case 'inet6':
      // The text protocol returns MariaDB's canonical text; the binlog has the raw bytes, which the event
      // converters format into this same text.
      return (v) => (v === null ? null : Buffer.isBuffer(v) ? v.toString('latin1') : v);
    case 'binary':
    case 'varbinary':
    case 'vector':
      return toBuffer(t);
    default:
      if (col.charset === 'binary' || BLOB_TYPES.has(t) || GEOMETRY_TYPES.has(t)) return toBuffer(t);
      return (v) => (v === null ? null : Buffer.isBuffer(v) ? v.toString('utf8') : v);
  }
}

/**
 * A converter from the cell's bytes, for the types whose server text is read without making a string first (every
 * integer, double, temporal value of a scan made one, then parsed it). A cell not in the expected shape takes the
 * text path, `text(decode(bytes))`, so the value is always the text converter's.
 */
export type ByteConverter = (buf: Buffer, start: number, end: number) => CellValue;

/** The byte converter of a column whose text converter is `text` (textConverterFor), or undefined: decode, then convert. */
export function byteConverterFor(
  col: ColumnDef,
  text: TextConverter,
  decode: (buf: Buffer, start: number, end: number) => string,
): ByteConverter | undefined {
  const slow = (buf: Buffer, start: number, end: number) => text(decode(buf, start, end));
  const fsp = col.length ?? 0;
  switch (col.dataType.toLowerCase()) {
    case 'tinyint':
    case 'smallint':
    case 'mediumint':
    case 'int':
    case 'integer':
    case 'year':
    case 'bigint':
      // Number(text), and textConverterFor's bigint reads texts under 16 characters with Number too.
      return (buf, start, end) => {
        const v = end - start < 16 ? integerBytes(buf, start, end) : Number.NaN;
        return Number.isNaN(v) ? slow(buf, start, end) : v;
      };
    case 'double':
    case 'real':
      return (buf, start, end) => {
        const v = doubleBytes(buf, start, end);
        return Number.isNaN(v) ? slow(buf, start, end) : v;
      };
    case 'float':
      return (buf, start, end) => {
        const v = doubleBytes(buf, start, end);
        return Number.isNaN(v) ? slow(buf, start, end) : Math.fround(v);
      };
    case 'date':
      return (buf, start, end) => {
        if (end - start !== 10 || buf[start + 4] !== 45 || buf[start + 7] !== 45) return slow(buf, start, end);
        const year = digitBytes(buf, start, 4);
        const month = digitBytes(buf, start + 5, 2);
        const day = digitBytes(buf, start + 8, 2);
        return (year | month | day) < 0 ? slow(buf, start, end) : new MysqlDate(year, month, day);
      };
    case 'datetime':
      return (buf, start, end) => dateTimeBytes(buf, start, end, fsp) ?? slow(buf, start, end);
    case 'timestamp':
      return (buf, start, end) => {
        const dt = dateTimeBytes(buf, start, end, fsp);
        return dt === null ? slow(buf, start, end) : timestampOf(dt, fsp);
      };
    default:
      return undefined;
  }
}

/** Unsigned decimal of the n bytes at i, or -1 when one is not a digit. */
function digitBytes(buf: Buffer, i: number, n: number): number {
  let v = 0;
  for (let k = i; k < i + n; k++) {
    const c = buf[k] - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

/** `-?[0-9]+` of at most 15 digits (exact in a double) as Number(text) reads it, else NaN. */
function integerBytes(buf: Buffer, start: number, end: number): number {
  const neg = buf[start] === 45;
  const i = neg ? start + 1 : start;
  if (i === end) return Number.NaN;
  const v = digitBytes(buf, i, end - i);
  if (v < 0) return Number.NaN;
  return neg ? -v : v;
}

const POWERS_OF_TEN = Array.from({ length: 23 }, (_, k) => 10 ** k);

/**
 * `-?[0-9]+(\.[0-9]+)?` of at most 15 digits as Number(text) reads it, else NaN. The digits as an integer m and
 * 10^k (k fraction digits, k <= 22) are both exact doubles, so m / 10^k is the correctly rounded value of the text,
 * which is what Number() returns (the fast path of Clinger's algorithm). Exponents and longer texts take Number().
 */
function doubleBytes(buf: Buffer, start: number, end: number): number {
  const neg = buf[start] === 45;
  let i = neg ? start + 1 : start;
  let m = 0;
  let digits = 0;
  let fraction = -1;
  for (; i < end; i++) {
    const c = buf[i] - 48;
    if (c >= 0 && c <= 9) {
      m = m * 10 + c;
      digits++;
    } else if (c === -2 && fraction < 0 && digits > 0) {
      fraction = digits;
    } else {
      return Number.NaN;
    }
  }
  if (digits === 0 || digits > 15 || fraction === digits) return Number.NaN;
  const v = fraction < 0 ? m : m / POWERS_OF_TEN[digits - fraction];
  return neg ? -v : v;
}

/** parseDateTime's fast path on the bytes (`YYYY-MM-DD HH:MM:SS[.f{1,6}]`), or null for any other shape. */
function dateTimeBytes(buf: Buffer, start: number, end: number, fsp: number): MysqlDateTime | null {
  const n = end - start;
  if (n < 19 || n === 20 || n > 26 || buf[start + 10] !== 32 || (n !== 19 && buf[start + 19] !== 46)) return null;
  if (buf[start + 4] !== 45 || buf[start + 7] !== 45 || buf[start + 13] !== 58 || buf[start + 16] !== 58) return null;
  const year = digitBytes(buf, start, 4);
  const month = digitBytes(buf, start + 5, 2);
  const day = digitBytes(buf, start + 8, 2);
  const hour = digitBytes(buf, start + 11, 2);
  const minute = digitBytes(buf, start + 14, 2);
  const second = digitBytes(buf, start + 17, 2);
  const frac = n === 19 ? 0 : digitBytes(buf, start + 20, n - 20);
  if ((year | month | day | hour | minute | second | frac) < 0) return null;
  return new MysqlDateTime(year, month, day, hour, minute, second, frac * FRACTION_SCALE[n === 19 ? 0 : n - 20], fsp);
}

function toBuffer(type: string): TextConverter {
  if (type === 'vector') {
    return (v) => {
      if (v === null) return null;
      const b = Buffer.isBuffer(v) ? v : Buffer.from(v, 'latin1');
      const out = new Float32Array(b.length / 4);
      for (let i = 0; i < out.length; i++) out[i] = b.readFloatLE(i * 4);
      return out;
    };
  }
  return (v) => (v === null ? null : Buffer.isBuffer(v) ? v : Buffer.from(v, 'latin1'));
}

export function parseDate(s: string): MysqlDate {
  return new MysqlDate(Number(s.slice(0, 4)), Number(s.slice(5, 7)), Number(s.slice(8, 10)));
}

function micros(frac: string | undefined): number {
  return frac ? Number(frac.padEnd(6, '0').slice(0, 6)) : 0;
}

/** Unsigned decimal of s[i, i+n), or -1 when a character is not a digit. */
function digits(s: string, i: number, n: number): number {
  let v = 0;
  for (let k = i; k < i + n; k++) {
    const c = s.charCodeAt(k) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

const FRACTION_SCALE = [1, 100_000, 10_000, 1000, 100, 10, 1];

/** `YYYY-MM-DD HH:MM:SS[.f{1,6}]` (what the server sends) read in place; anything else takes the general path. */
export function parseDateTime(s: string, fsp: number): MysqlDateTime {
  const n = s.length;
  if (n >= 19 && n !== 20 && n <= 26 && s.charCodeAt(10) === 32 && (n === 19 || s.charCodeAt(19) === 46)) {
    const year = digits(s, 0, 4);
    const month = digits(s, 5, 2);
    const day = digits(s, 8, 2);
    const hour = digits(s, 11, 2);
    const minute = digits(s, 14, 2);
    const second = digits(s, 17, 2);
    const frac = n === 19 ? 0 : digits(s, 20, n - 20);
    if (
      (year | month | day | hour | minute | second | frac) >= 0 &&
      s.charCodeAt(4) === 45 &&
      s.charCodeAt(7) === 45 &&
      s.charCodeAt(13) === 58 &&
      s.charCodeAt(16) === 58
    ) {
      return new MysqlDateTime(
        year,
        month,
        day,
        hour,
        minute,
        second,
        frac * FRACTION_SCALE[n === 19 ? 0 : n - 20],
        fsp,
      );
    }
  }
  return parseDateTimeGeneral(s, fsp);
}

export function parseDateTimeGeneral(s: string, fsp: number): MysqlDateTime {
  const [date, time = '00:00:00'] = s.split(' ');
  const [hms, frac] = time.split('.');
  return new MysqlDateTime(
    Number(date.slice(0, 4)),
    Number(date.slice(5, 7)),
    Number(date.slice(8, 10)),
    Number(hms.slice(0, 2)),
    Number(hms.slice(3, 5)),
    Number(hms.slice(6, 8)),
    micros(frac),
    fsp,
  );
}

export function parseTimestamp(s: string, fsp: number): MysqlTimestamp {
  return timestampOf(parseDateTime(s, fsp), fsp);
}

function timestampOf(dt: MysqlDateTime, fsp: number): MysqlTimestamp {
  if (dt.isZero) return new MysqlTimestamp(0, 0, fsp);
  const ms = Date.UTC(dt.year, dt.month - 1, dt.day, dt.hour, dt.minute, dt.second);
  return new MysqlTimestamp(ms / 1000, dt.micros, fsp);
}

export function parseTime(s: string, fsp: number): MysqlTime {
  const neg = s.startsWith('-');
  const [hms, frac] = (neg ? s.slice(1) : s).split('.');
  const [h, m, sec] = hms.split(':').map(Number);
  const us = ((h * 60 + m) * 60 + sec) * 1_000_000 + micros(frac);
  return new MysqlTime(neg ? -us : us, fsp);
}
