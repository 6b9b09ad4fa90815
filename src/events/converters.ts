/**
 * Debezium MySQL type mapping (BinlogValueConverters / JdbcValueConverters semantics) from the neutral
 * CellValue representation to Kafka Connect values, plus the JSON text the JsonConverter writes for them.
 *
 * A FieldConverter is chosen once per column; `convert` and `write` are monomorphic closures, so the hot path
 * has no per-value type dispatch. Null handling follows Debezium's convertValue(): SQL NULL (and values
 * Debezium reads as null: zero dates) become null for nullable columns and the schema default or the type's
 * fallback (0, "", epoch) for NOT NULL columns.
 */
import { CdcError } from '../common/errors.js';
import type { ColumnDef } from '../model/table-def.js';
import {
  type CellValue,
  MysqlDate,
  MysqlDateTime,
  MysqlJson,
  MysqlJsonPartial,
  MysqlTime,
  MysqlTimestamp,
  utcMillis,
} from '../model/values.js';
import {
  B64_PAIRS,
  base64UrlSafe,
  decimalBase64,
  decimalBase64Json,
  float32Text,
  inet4Text,
  inet6Text,
  uuidText,
} from './binary.js';
import { type ColumnInfo, columnInfo, fsp } from './column-info.js';
import { type ConnectSchema, type JsonValue, toJsonText } from './connect-schema.js';
import { jsonString, jsonUtf8, LONG_STRING } from './json-escape.js';
import type { ResolvedOptions } from './options.js';

/** Converts one non-null cell; may return null when Debezium would (zero dates, unknown enum index). */
type ValueFn = (v: Exclude<CellValue, null | undefined>) => JsonValue;
/** Writes a converted value as JSON text. */
export type Writer = (x: JsonValue) => string;

export interface FieldConverter {
  /** Field schema, optional per column nullability (a fresh object the caller may decorate). */
  schema: ConnectSchema;
  /** CellValue → Connect value in its JSON form (bytes as base64 strings, int64 as number|bigint). */
  convert: (v: CellValue) => JsonValue;
  write: Writer;
  /** `write(convert(v))` in one step: the hot path's JSON text of a cell, without the intermediate value. */
  text: (v: CellValue) => string;
  /**
   * `text` in parts, for writers that test for null themselves (row-writer.ts): a non-null cell's text, or null
   * where the text is `nullText`; `nullText` = text(null); `missingText` = text(undefined).
   */
  present: TextFn;
  nullText: string;
  missingText: string;
}

/** JSON text of one non-null cell, or null where Debezium converts it to null (then null/fallback applies). */
export type TextFn = (v: Exclude<CellValue, null | undefined>) => string | null;

interface Spec {
  schema: ConnectSchema;
  fn: ValueFn;
  /** Debezium's fallback for NOT NULL columns. */
  fallback: JsonValue;
  write: Writer;
  /** Optional fused `fn` + `write` for the common types (must equal write(fn(v)) whenever fn(v) is not null). */
  text?: TextFn;
}

/** Zeros that pad the low half of numberText to 8 digits, by the low half's own digit count. */
const ZEROS = ['', '0000000', '000000', '00000', '0000', '000', '00', '0', ''];

/**
 * String(v) for a number, faster for integers of 2^31 to 2^53 (epoch micros, big ids): V8 prints those through
 * its shortest-double algorithm, while two halves below 2^31 print from small-integer code (below 2^31 V8's own
 * integer path is the fastest).
 */
export function numberText(v: number): string {
  if (v >= 2_147_483_648 && v <= Number.MAX_SAFE_INTEGER && Math.floor(v) === v) {
    const hi = Math.floor(v / 1e8);
    // v - hi * 1e8 is exact below 2^53; a low half of fewer than 8 digits is zero-padded.
    const lo = v - hi * 1e8;
    return lo >= 1e7 ? `${hi}${lo}` : `${hi}${ZEROS[String(lo).length]}${lo}`;
  }
  if (v <= -2_147_483_648 && v >= -Number.MAX_SAFE_INTEGER && Math.floor(v) === v) return `-${numberText(-v)}`;
  return String(v);
}

/** `.` and the digits of f / 1000 without trailing zeros (f < 1000), for the fractions doubleText prints itself. */
const THOUSANDTHS = Array.from({ length: 1000 }, (_, f) => `.${String(f).padStart(3, '0').replace(/0+$/, '')}`);

/**
 * String(x) for a finite double, faster for ones of one to three decimals (prices, scores, x.25): V8 prints a
 * non-integer through its shortest-digits search (FastDtoa). When m / 1000 === |x| for m = round(|x| * 1000), the
 * decimal m / 1000 rounds to x; from 1e-3 up to 1e9 a thousandth is wider than x's spacing, so no other decimal of
 * three or fewer decimals does, and m's digits without trailing zeros are the shortest that round to x, as String
 * prints them.
 */
export function doubleText(x: number): string {
  const a = x < 0 ? -x : x;
  if (a >= 1e-3 && a < 1e9 && !Number.isInteger(a)) {
    const m = Math.round(a * 1000);
    if (m / 1000 === a) {
      const ip = Math.floor(a);
      const t = `${ip}${THOUSANDTHS[m - ip * 1000]}`;
      return x < 0 ? `-${t}` : t;
    }
  }
  return String(x);
}

export const writeNumber: Writer = (x) => (x === null ? 'null' : typeof x === 'number' ? numberText(x) : String(x));
/** Characters JSON.stringify escapes (quote, backslash, controls, and surrogates in case one is lone). */
const NEEDS_ESCAPE = /[\\"\u0000-\u001f\ud800-\udfff]/;
/**
 * The same test, negated and anchored: V8 runs it as one loop over the string, while the search above restarts its
 * match at every position. Node 22, ASCII strings: 30 chars 52 -> 43 ns, 120: 167 -> 101, 380: 499 -> 277, 2000:
 * 2538 -> 1330; under ~24 characters the search is faster.
 */
const ESCAPE_FREE = /^[^\\"\u0000-\u001f\ud800-\udfff]*$/;
function needsEscape(x: string): boolean {
  return x.length < 24 ? NEEDS_ESCAPE.test(x) : !ESCAPE_FREE.test(x);
}
// Most values need no escaping; quoting them directly is about twice as fast as JSON.stringify on the hot path.
export const writeString: Writer = (x) =>
  x === null ? 'null' : typeof x === 'string' && !needsEscape(x) ? `"${x}"` : JSON.stringify(x);
/** JSON string literal of a string. */
export function quote(x: string): string {
  return needsEscape(x) ? jsonString(x) : `"${x}"`;
}
/** quote(x) as one flat string, for texts kept and written many times. */
function flatQuote(x: string): string {
  const q = quote(x);
  NEEDS_ESCAPE.test(q);
  return q;
}
export const writeBoolean: Writer = (x) => (x === null ? 'null' : x ? 'true' : 'false');
const writeFloat32: Writer = (x) => (x === null ? 'null' : float32Text(x as number));
const writeFloat64: Writer = (x) => (x === null || !Number.isFinite(x as number) ? 'null' : doubleText(x as number));
const writeFloat32Array: Writer = (x) =>
  x === null ? 'null' : `[${(x as number[]).map((n) => float32Text(n)).join(',')}]`;
const writeAny: Writer = toJsonText;

const EPOCH_ISO = '1970-01-01T00:00:00Z';
/** WKB of an empty GEOMETRYCOLLECTION: BinlogGeometry.createEmpty(). */
const EMPTY_WKB_B64 = Buffer.from([1, 7, 0, 0, 0, 0, 0, 0, 0]).toString('base64');

/** Build the converter for one column. */
export function createFieldConverter(col: ColumnDef, opts: ResolvedOptions, info = columnInfo(col)): FieldConverter {
  const spec = specFor(col, info, opts);
  const schema: ConnectSchema = { ...spec.schema };
  if (col.nullable) schema.optional = true;
  if (col.comment) schema.doc = col.comment;
  const fn = spec.fn;
  const fallback = defaultFallback(col, info, fn) ?? spec.fallback;
  if (col.hasDefault && col.defaultValue !== null) {
    const d = parseDefault(col, info);
    if (d !== null && d !== undefined) {
      const converted = fn(d);
      if (converted !== null) schema.default = converted;
    }
  }
  const missing = info.isBlobOrText ? unavailableValue(info, opts) : undefined;
  let convert: (v: CellValue) => JsonValue;
  if (col.nullable) {
    convert = (v) =>
      v === null || v === undefined ? (v === undefined && missing !== undefined ? missing : null) : fn(v);
  } else {
    convert = (v) => {
      if (v === null || v === undefined) return v === undefined && missing !== undefined ? missing : fallback;
      const r = fn(v);
      return r === null ? fallback : r;
    };
  }
  const write = spec.write;
  const textOf: TextFn =
    spec.text ??
    ((v) => {
      const r = fn(v);
      return r === null ? null : write(r);
    });
  const fallbackText = write(fallback);
  const missingText = missing === undefined ? undefined : write(missing);
  const text: (v: CellValue) => string = col.nullable
    ? (v) =>
        v === null || v === undefined
          ? v === undefined && missingText !== undefined
            ? missingText
            : 'null'
          : (textOf(v) ?? 'null')
    : (v) =>
        v === null || v === undefined
          ? v === undefined && missingText !== undefined
            ? missingText
            : fallbackText
          : (textOf(v) ?? fallbackText);
  const nullText = col.nullable ? 'null' : fallbackText;
  return { schema, convert, write, text, present: textOf, nullText, missingText: missingText ?? nullText };
}

function defaultFallback(col: ColumnDef, info: ColumnInfo, fn: ValueFn): JsonValue | undefined {
  // Debezium falls back to the schema default before the type's fallback (convertValue()).
  if (col.nullable || !col.hasDefault || col.defaultValue === null) return undefined;
  const d = parseDefault(col, info);
  if (d === null || d === undefined) return undefined;
  const v = fn(d);
  return v === null ? undefined : v;
}

function unavailableValue(info: ColumnInfo, opts: ResolvedOptions): JsonValue {
  const text = opts.unavailableValuePlaceholder;
  if (info.jdbcType === -2 || info.jdbcType === -3 || info.jdbcType === 2004) return binaryOut(Buffer.from(text), opts);
  return text;
}

function specFor(col: ColumnDef, info: ColumnInfo, opts: ResolvedOptions): Spec {
  switch (info.base) {
    case 'bool':
    case 'boolean':
      return booleanSpec();
    case 'tinyint':
      if (opts.tinyIntOneToBoolean && info.length === 1) return booleanSpec();
      return intSpec(info.unsigned ? 'int16' : 'int8');
    case 'smallint':
      return intSpec(info.unsigned ? 'int32' : 'int16');
    case 'mediumint':
      return intSpec('int32');
    case 'int':
    case 'integer':
      return intSpec(info.unsigned ? 'int64' : 'int32');
    case 'bigint':
    case 'serial':
      if (!info.unsigned) return intSpec('int64');
      if (opts.bigintUnsignedHandlingMode === 'precise') return decimalSpec(20, 0, 'precise');
      // long mode: the binlog hands Debezium a signed long, so values above 2^63-1 wrap negative.
      return {
        schema: { type: 'int64', optional: false },
        fn: (v) => (typeof v === 'bigint' ? BigInt.asIntN(64, v) : (v as number)),
        fallback: 0,
        write: writeNumber,
        text: (v) => (typeof v === 'bigint' ? String(BigInt.asIntN(64, v)) : numberText(v as number)),
      };
    case 'float':
      if (info.scale === null && (info.length === null || info.length <= 24)) {
        return {
          schema: { type: 'float32', optional: false },
          fn: (v) => v as number,
          fallback: 0,
          write: writeFloat32,
          text: (v) => float32Text(v as number),
        };
      }
      return float64Spec();
    case 'double':
    case 'real':
      return float64Spec();
    case 'decimal':
    case 'numeric':
    case 'dec':
    case 'fixed':
      return decimalSpec(info.length ?? 10, info.scale ?? 0, opts.decimalHandlingMode);
    case 'bit':
      return bitSpec(info.length ?? 1);
    case 'year':
      return yearSpec();
    case 'date':
      return dateSpec(opts);
    case 'datetime':
      return datetimeSpec(fsp(col, info), opts);
    case 'timestamp':
      return timestampSpec(fsp(col, info));
    case 'time':
      return timeSpec(fsp(col, info), opts);
    case 'enum':
      return enumSpec(col.enumValues ?? []);
    case 'set':
      return setSpec(col.enumValues ?? []);
    case 'json':
      return jsonSpec(col);
    case 'geometry':
    case 'linestring':
    case 'polygon':
    case 'multipoint':
    case 'multilinestring':
    case 'multipolygon':
    case 'geometrycollection':
    case 'geomcollection':
      return geometrySpec();
    case 'point':
      return pointSpec();
    case 'vector':
      return {
        schema: {
          type: 'array',
          items: { type: 'float32', optional: false },
          optional: false,
          name: 'io.debezium.data.FloatVector',
          version: 1,
        },
        fn: (v) => Array.from(v as Float32Array),
        fallback: [],
        write: writeFloat32Array,
      };
    case 'uuid':
      return {
        schema: { type: 'string', optional: false, name: 'io.debezium.data.Uuid', version: 1 },
        fn: (v) => (Buffer.isBuffer(v) ? uuidText(v) : String(v)),
        fallback: '',
        write: writeString,
        text: (v) => (Buffer.isBuffer(v) ? `"${uuidText(v)}"` : quote(String(v))),
      };
    case 'inet4':
      return addressSpec(inet4Text);
    case 'inet6':
      return addressSpec(inet6Text);
    case 'binary':
    case 'varbinary':
    case 'tinyblob':
    case 'blob':
    case 'mediumblob':
    case 'longblob':
      return binarySpec(info.base === 'binary' ? (info.length ?? 0) : 0, opts);
    default:
      if (info.isCharacter) return stringSpec();
      throw new CdcError(
        'SCHEMA_INCONSISTENT',
        `No Debezium type mapping for column ${col.name} of type '${col.columnType}'`,
      );
  }
}

function intSpec(type: 'int8' | 'int16' | 'int32' | 'int64'): Spec {
  return {
    schema: { type, optional: false },
    fn: (v) => v as number | bigint,
    fallback: 0,
    write: writeNumber,
    text: (v) => (typeof v === 'number' ? numberText(v) : String(v)),
  };
}

function booleanSpec(): Spec {
  return {
    schema: { type: 'boolean', optional: false },
    fn: (v) => (typeof v === 'number' ? v !== 0 : typeof v === 'bigint' ? v !== 0n : Boolean(v)),
    fallback: false,
    write: writeBoolean,
    text: (v) => ((typeof v === 'number' ? v !== 0 : typeof v === 'bigint' ? v !== 0n : Boolean(v)) ? 'true' : 'false'),
  };
}

function float64Spec(): Spec {
  return {
    schema: { type: 'float64', optional: false },
    fn: (v) => (typeof v === 'number' ? v : Number(v)),
    fallback: 0,
    write: writeFloat64,
    text: (v) => {
      const x = typeof v === 'number' ? v : Number(v);
      return Number.isFinite(x) ? doubleText(x) : 'null';
    },
  };
}

function decimalSpec(precision: number, scale: number, mode: 'precise' | 'double' | 'string'): Spec {
  if (mode === 'double') {
    const fn: ValueFn = (v) => Number(String(v));
    return { ...float64Spec(), fn, text: (v) => writeFloat64(fn(v)) };
  }
  if (mode === 'string') {
    return {
      schema: { type: 'string', optional: false },
      fn: (v) => String(v),
      fallback: scale > 0 ? `0.${'0'.repeat(scale)}` : '0',
      write: writeString,
      text: (v) => quote(String(v)),
    };
  }
  return {
    schema: {
      type: 'bytes',
      optional: false,
      name: 'org.apache.kafka.connect.data.Decimal',
      version: 1,
      parameters: { scale: String(scale), 'connect.decimal.precision': String(precision) },
    },
    fn: (v) => decimalBase64(String(v), scale),
    fallback: 'AA==',
    write: writeString,
    text: (v) => decimalBase64Json(typeof v === 'string' ? v : String(v), scale),
  };
}

/** base64 of the big-endian `be` reversed to little-endian and zero-padded to `numBytes` (io.debezium.data.Bits). */
function bitsBase64(be: Buffer, numBytes: number): string {
  const n = Math.max(numBytes, be.length);
  if (n > 8) {
    const out = Buffer.alloc(n);
    for (let i = 0; i < be.length; i++) out[i] = be[be.length - 1 - i];
    return out.toString('base64');
  }
  // Up to 8 bytes (BIT(64)) without a Buffer: byte i of the little-endian form is be[len - 1 - i], else 0.
  const last = be.length - 1;
  let out = '';
  let i = 0;
  for (; i + 3 <= n; i += 3) {
    const t =
      ((i <= last ? be[last - i] : 0) << 16) |
      ((i + 1 <= last ? be[last - i - 1] : 0) << 8) |
      (i + 2 <= last ? be[last - i - 2] : 0);
    out += B64_PAIRS[t >> 12] + B64_PAIRS[t & 4095];
  }
  if (n - i === 1) out += `${B64_PAIRS[(i <= last ? be[last - i] : 0) << 4]}==`;
  else if (n - i === 2) {
    const t = ((i <= last ? be[last - i] : 0) << 16) | ((i + 1 <= last ? be[last - i - 1] : 0) << 8);
    out += `${B64_PAIRS[t >> 12]}${B64_CHARS[(t >> 6) & 63]}=`;
  }
  return out;
}

const B64_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function bitSpec(bits: number): Spec {
  if (bits <= 1) {
    return {
      schema: { type: 'boolean', optional: false },
      // BitSet.get(0): the least significant bit; the buffer is big-endian.
      fn: (v) => (Buffer.isBuffer(v) ? (v[v.length - 1] & 1) === 1 : Number(v) !== 0),
      fallback: false,
      write: writeBoolean,
      text: (v) => ((Buffer.isBuffer(v) ? (v[v.length - 1] & 1) === 1 : Number(v) !== 0) ? 'true' : 'false'),
    };
  }
  const numBytes = Math.ceil(bits / 8);
  return {
    schema: {
      type: 'bytes',
      optional: false,
      name: 'io.debezium.data.Bits',
      version: 1,
      parameters: { length: String(bits) },
    },
    // io.debezium.data.Bits is little-endian, padded to ceil(n/8) bytes.
    fn: (v) => bitsBase64(v as Buffer, numBytes),
    fallback: '',
    write: writeString,
    // base64 never needs escaping.
    text: (v) => `"${bitsBase64(v as Buffer, numBytes)}"`,
  };
}

/** Debezium's adjustTemporal(): two-digit years 00-69 → 2000-2069, 70-99 → 1970-1999. */
function adjustYear(y: number): number {
  return y < 70 ? y + 2000 : y < 100 ? y + 1900 : y;
}

function yearSpec(): Spec {
  return {
    schema: { type: 'int32', optional: false, name: 'io.debezium.time.Year', version: 1 },
    // The binlog reader yields Year.of(1900 + byte), so YEAR 0000 is 1900; then adjustTemporal() always applies.
    fn: (v) => {
      const y = Number(v);
      return y === 0 ? 1900 : adjustYear(y);
    },
    fallback: 0,
    write: writeNumber,
    text: (v) => {
      const y = Number(v);
      return numberText(y === 0 ? 1900 : adjustYear(y));
    },
  };
}

function dateSpec(opts: ResolvedOptions): Spec {
  const adjust = opts.enableTimeAdjuster;
  if (opts.timePrecisionMode === 'isostring') return isoDateSpec(adjust);
  const name = opts.timePrecisionMode === 'connect' ? 'org.apache.kafka.connect.data.Date' : 'io.debezium.time.Date';
  return {
    schema: { type: 'int32', optional: false, name, version: 1 },
    fn: (v) => {
      const d = v as MysqlDate;
      // The binlog reader treats any zero year, month or day as an invalid (null) date.
      if (d.year === 0 || d.month === 0 || d.day === 0) return null;
      const y = adjust ? adjustYear(d.year) : d.year;
      return Math.floor(utcMillis(y, d.month, d.day, 0, 0, 0) / 86_400_000);
    },
    fallback: 0,
    write: writeNumber,
    text: (v) => {
      const d = v as MysqlDate;
      if (d.year === 0 || d.month === 0 || d.day === 0) return null;
      const y = adjust ? adjustYear(d.year) : d.year;
      return numberText(Math.floor(utcMillis(y, d.month, d.day, 0, 0, 0) / 86_400_000));
    },
  };
}

function datetimeSpec(precision: number, opts: ResolvedOptions): Spec {
  const adjust = opts.enableTimeAdjuster;
  const micros = (v: Exclude<CellValue, null | undefined>): number | null => {
    const d = v as MysqlDateTime;
    if (d.year === 0 || d.month === 0 || d.day === 0) return null;
    const y = adjust ? adjustYear(d.year) : d.year;
    return utcMillis(y, d.month, d.day, d.hour, d.minute, d.second) * 1000 + d.micros;
  };
  if (opts.timePrecisionMode === 'isostring') return isoTimestampSpec(micros);
  if (opts.timePrecisionMode !== 'connect' && precision > 3) {
    return {
      schema: { type: 'int64', optional: false, name: 'io.debezium.time.MicroTimestamp', version: 1 },
      fn: micros,
      fallback: 0,
      write: writeNumber,
      text: (v) => {
        const us = micros(v);
        return us === null ? null : numberText(us);
      },
    };
  }
  const name =
    opts.timePrecisionMode === 'connect' ? 'org.apache.kafka.connect.data.Timestamp' : 'io.debezium.time.Timestamp';
  return {
    schema: { type: 'int64', optional: false, name, version: 1 },
    fn: (v) => {
      const us = micros(v);
      return us === null ? null : Math.floor(us / 1000);
    },
    fallback: 0,
    write: writeNumber,
    text: (v) => {
      const us = micros(v);
      return us === null ? null : numberText(Math.floor(us / 1000));
    },
  };
}

function timestampSpec(precision: number): Spec {
  return {
    schema: { type: 'string', optional: false, name: 'io.debezium.time.ZonedTimestamp', version: 1 },
    fn: (v) => (v instanceof MysqlTimestamp ? zonedTimestampText(v, precision) : String(v)),
    fallback: EPOCH_ISO,
    write: writeString,
    text: (v) => {
      if (!(v instanceof MysqlTimestamp)) return quote(String(v));
      // ISO text needs no escaping.
      const iso = zonedTimestampText(v, precision);
      return iso === null ? null : `"${iso}"`;
    },
  };
}

/**
 * ZonedTimestamp.toIsoString(): with fsp > 0 exactly fsp fraction digits; without, ISO_OFFSET_DATE_TIME (fraction
 * only when non-zero, trailing zeros dropped). Always UTC, "Z".
 */
export function zonedTimestampText(ts: MysqlTimestamp, precision: number): string | null {
  if (ts.isZero) return null;
  const base = isoSeconds(ts.seconds);
  if (precision > 0) return `${base}.${String(ts.micros).padStart(6, '0').slice(0, precision)}Z`;
  if (ts.micros === 0) return `${base}Z`;
  let frac = String(ts.micros).padStart(6, '0');
  while (frac.endsWith('0')) frac = frac.slice(0, -1);
  return `${base}.${frac}Z`;
}

const TWO_DIGITS = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));
/** Last UTC second formatted (rows of one transaction often share it). */
let lastIsoSecond = Number.NaN;
let lastIsoText = '';

/**
 * `new Date(seconds * 1000).toISOString().slice(0, 19)` without the Date object: days to civil date (the
 * proleptic Gregorian algorithm java.time uses too), for whole seconds in years 1970-9999; Date otherwise.
 */
export function isoSeconds(seconds: number): string {
  if (seconds === lastIsoSecond) return lastIsoText;
  let text: string;
  if (!(seconds >= 0 && seconds < 253_402_300_800 && Number.isInteger(seconds))) {
    text = new Date(seconds * 1000).toISOString().slice(0, 19);
  } else {
    const days = Math.floor(seconds / 86_400);
    let rem = seconds - days * 86_400;
    const hour = Math.floor(rem / 3600);
    rem -= hour * 3600;
    const minute = Math.floor(rem / 60);
    const second = rem - minute * 60;
    const z = days + 719_468;
    const era = Math.floor(z / 146_097);
    const doe = z - era * 146_097;
    const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
    const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
    const mp = Math.floor((5 * doy + 2) / 153);
    const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
    const month = mp < 10 ? mp + 3 : mp - 9;
    const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
    text = `${year}-${TWO_DIGITS[month]}-${TWO_DIGITS[day]}T${TWO_DIGITS[hour]}:${TWO_DIGITS[minute]}:${TWO_DIGITS[second]}`;
  }
  lastIsoSecond = seconds;
  lastIsoText = text;
  return text;
}

const ONE_DAY_MICROS = 86_400_000_000;

function timeSpec(precision: number, opts: ResolvedOptions): Spec {
  const mode = opts.timePrecisionMode;
  if (mode === 'isostring') return ISO_TIME_SPEC;
  if (mode === 'connect') {
    return {
      schema: { type: 'int32', optional: false, name: 'org.apache.kafka.connect.data.Time', version: 1 },
      // Connect's Time only covers 00:00:00-24:00:00; Debezium logs and drops other values.
      fn: (v) => {
        const us = (v as MysqlTime).micros;
        return us < 0 || us > ONE_DAY_MICROS ? null : Math.trunc(us / 1000);
      },
      fallback: 0,
      write: writeNumber,
      text: (v) => {
        const us = (v as MysqlTime).micros;
        return us < 0 || us > ONE_DAY_MICROS ? null : numberText(Math.trunc(us / 1000));
      },
    };
  }
  if (mode === 'adaptive' && precision <= 3) {
    return {
      schema: { type: 'int32', optional: false, name: 'io.debezium.time.Time', version: 1 },
      fn: (v) => Math.trunc((v as MysqlTime).micros / 1000),
      fallback: 0,
      write: writeNumber,
      text: (v) => numberText(Math.trunc((v as MysqlTime).micros / 1000)),
    };
  }
  return {
    schema: { type: 'int64', optional: false, name: 'io.debezium.time.MicroTime', version: 1 },
    fn: (v) => (v as MysqlTime).micros,
    fallback: 0,
    write: writeNumber,
    text: (v) => numberText((v as MysqlTime).micros),
  };
}

// ---- time.precision.mode=isostring (Debezium 3.x: IsoDate / IsoTime / IsoTimestamp, java.time ISO_OFFSET_*
// formats at UTC: "2023-11-21Z", "10:15:30.5Z", "2023-11-21T18:29:26.123456Z"; a fraction only when non-zero,
// without trailing zeros). DATETIME is read as UTC; TIMESTAMP stays io.debezium.time.ZonedTimestamp.

/** ".ffffff" without trailing zeros, or "" for a whole second (DateTimeFormatter's fraction(0, 9)). */
function isoFraction(micros: number): string {
  if (micros === 0) return '';
  let frac = String(micros).padStart(6, '0');
  while (frac.endsWith('0')) frac = frac.slice(0, -1);
  return `.${frac}`;
}

function isoDateText(year: number, month: number, day: number): string {
  return `${String(year).padStart(4, '0')}-${TWO_DIGITS[month]}-${TWO_DIGITS[day]}`;
}

function isoDateSpec(adjust: boolean): Spec {
  const fn: ValueFn = (v) => {
    const d = v as MysqlDate;
    if (d.year === 0 || d.month === 0 || d.day === 0) return null;
    return `${isoDateText(adjust ? adjustYear(d.year) : d.year, d.month, d.day)}Z`;
  };
  return {
    schema: { type: 'string', optional: false, name: 'io.debezium.time.IsoDate', version: 1 },
    fn,
    fallback: '1970-01-01Z',
    write: writeString,
    // ISO text never needs escaping.
    text: (v) => {
      const r = fn(v) as string | null;
      return r === null ? null : `"${r}"`;
    },
  };
}

function isoTimestampSpec(micros: (v: Exclude<CellValue, null | undefined>) => number | null): Spec {
  const fn: ValueFn = (v) => {
    const us = micros(v);
    if (us === null) return null;
    const whole = Math.floor(us / 1_000_000);
    return `${isoSeconds(whole)}${isoFraction(us - whole * 1_000_000)}Z`;
  };
  return {
    schema: { type: 'string', optional: false, name: 'io.debezium.time.IsoTimestamp', version: 1 },
    fn,
    fallback: EPOCH_ISO,
    write: writeString,
    // ISO text never needs escaping.
    text: (v) => {
      const r = fn(v) as string | null;
      return r === null ? null : `"${r}"`;
    },
  };
}

function isoTimeText(v: Exclude<CellValue, null | undefined>): string | null {
  const us = (v as MysqlTime).micros;
  if (us < 0 || us > ONE_DAY_MICROS) return null;
  const inDay = us % ONE_DAY_MICROS;
  const sec = Math.floor(inDay / 1_000_000);
  const hms = `${TWO_DIGITS[Math.floor(sec / 3600)]}:${TWO_DIGITS[Math.floor(sec / 60) % 60]}:${TWO_DIGITS[sec % 60]}`;
  return `${hms}${isoFraction(inDay - sec * 1_000_000)}Z`;
}

const ISO_TIME_SPEC: Spec = {
  schema: { type: 'string', optional: false, name: 'io.debezium.time.IsoTime', version: 1 },
  // IsoTime covers 00:00:00-24:00:00 (24:00:00 prints as 00:00:00Z); Debezium logs and drops other values.
  fn: isoTimeText,
  fallback: '00:00:00Z',
  write: writeString,
  text: (v) => {
    const r = isoTimeText(v);
    return r === null ? null : `"${r}"`;
  },
};

function enumSpec(options: string[]): Spec {
  // The members' JSON texts, written once.
  const texts = options.map((o) => flatQuote(o));
  return {
    schema: {
      type: 'string',
      optional: false,
      name: 'io.debezium.data.Enum',
      version: 1,
      parameters: { allowed: options.join(',') },
    },
    fn: (v) => {
      if (typeof v === 'string') return v;
      const index = Number(v);
      if (index === 0) return ''; // MySQL's error value for invalid input
      return index > 0 && index <= options.length ? options[index - 1] : null;
    },
    fallback: '',
    write: writeString,
    text: (v) => {
      if (typeof v === 'string') return quote(v);
      const index = Number(v);
      if (index === 0) return '""';
      return index > 0 && index <= options.length ? texts[index - 1] : null;
    },
  };
}

/** SET value text of a member bitmask (convertSetValue(): a bit beyond the member list still adds a separator). */
function setText(options: string[], v: number | bigint): string {
  // As a 64-bit unsigned mask (Debezium shifts with >>>): a negative value would never shift down to 0.
  let mask = BigInt.asUintN(64, BigInt(v));
  let out = '';
  let first = true;
  for (let i = 0; mask !== 0n; i++, mask >>= 1n) {
    if ((mask & 1n) === 0n) continue;
    if (!first) out += ',';
    first = false;
    if (i < options.length) out += options[i];
  }
  return out;
}

/** Distinct SET texts kept per column. */
const SET_TEXT_CACHE = 1024;

function setSpec(options: string[]): Spec {
  const cache = new Map<number | bigint, string>();
  return {
    schema: {
      type: 'string',
      optional: false,
      name: 'io.debezium.data.EnumSet',
      version: 1,
      parameters: { allowed: options.join(',') },
    },
    fn: (v) => (typeof v === 'string' ? v : setText(options, v as number | bigint)),
    fallback: '',
    write: writeString,
    text: (v) => {
      if (typeof v === 'string') return quote(v);
      // Rows of a table repeat few distinct member combinations: their texts are kept, up to a bound.
      const mask = v as number | bigint;
      const key = typeof mask === 'bigint' && mask >= 0n && mask <= 0xffff_ffffn ? Number(mask) : mask;
      let t = cache.get(key);
      if (t === undefined) {
        t = flatQuote(setText(options, mask));
        if (cache.size < SET_TEXT_CACHE) cache.set(key, t);
      }
      return t;
    },
  };
}

function jsonSpec(col: ColumnDef): Spec {
  const fn: ValueFn = (v) => {
    if (v instanceof MysqlJson) return v.text.length === 0 ? (col.nullable ? null : '{}') : v.text;
    if (v instanceof MysqlJsonPartial) {
      // TableEventBuilder.update applies the diffs to the before image first; a diff list only gets here when a
      // caller converts an after image on its own.
      throw new CdcError(
        'BINLOG_UNSUPPORTED_EVENT',
        `Partial JSON update for column ${col.name} without its before image: convert it through TableEventBuilder.update, or set binlog_row_value_options='' (Debezium requires full JSON images)`,
      );
    }
    return String(v);
  };
  return {
    schema: { type: 'string', optional: false, name: 'io.debezium.data.Json', version: 1 },
    fn,
    fallback: '{}',
    write: writeString,
    text: (v) => {
      // A long document with its UTF-8 bytes at hand is escaped from them (same text: jsonUtf8).
      if (v instanceof MysqlJson && v.utf8 !== null && v.text.length >= LONG_STRING)
        return jsonUtf8(v.utf8, v.utf8Start, v.utf8End);
      const r = fn(v) as string | null;
      return r === null ? null : quote(r);
    },
  };
}

function splitGeometry(buf: Buffer): { wkb: Buffer; srid: number | null } {
  const srid = buf.readInt32LE(0);
  return { wkb: buf.subarray(4), srid: srid === 0 ? null : srid };
}

const GEOMETRY_FIELDS: ConnectSchema['fields'] = [
  { field: 'wkb', schema: { type: 'bytes', optional: false } },
  { field: 'srid', schema: { type: 'int32', optional: true } },
  {
    field: 'extensions',
    schema: {
      type: 'map',
      keys: { type: 'string', optional: false },
      values: { type: 'string', optional: false },
      optional: true,
    },
  },
];

function geometrySpec(): Spec {
  return {
    // Geometry.builder() is optional() even for NOT NULL columns.
    schema: {
      type: 'struct',
      fields: GEOMETRY_FIELDS,
      optional: true,
      name: 'io.debezium.data.geometry.Geometry',
      version: 2,
      doc: 'Geometry',
    },
    fn: (v) => {
      const g = splitGeometry(v as Buffer);
      return { wkb: g.wkb.toString('base64'), srid: g.srid, extensions: null };
    },
    fallback: { wkb: EMPTY_WKB_B64, srid: null, extensions: null },
    write: writeAny,
  };
}

function pointSpec(): Spec {
  return {
    schema: {
      type: 'struct',
      fields: [
        { field: 'x', schema: { type: 'float64', optional: false } },
        { field: 'y', schema: { type: 'float64', optional: false } },
        { field: 'wkb', schema: { type: 'bytes', optional: true } },
        { field: 'srid', schema: { type: 'int32', optional: true } },
      ],
      optional: false,
      name: 'io.debezium.data.geometry.Point',
      version: 1,
      doc: 'Geometry (POINT)',
    },
    fn: (v) => {
      const g = splitGeometry(v as Buffer);
      const le = g.wkb[0] === 1;
      const x = le ? g.wkb.readDoubleLE(5) : g.wkb.readDoubleBE(5);
      const y = le ? g.wkb.readDoubleLE(13) : g.wkb.readDoubleBE(13);
      return { x, y, wkb: g.wkb.toString('base64'), srid: g.srid };
    },
    fallback: { x: 0, y: 0, wkb: EMPTY_WKB_B64, srid: null },
    write: writeAny,
  };
}

function addressSpec(format: (b: Buffer) => string): Spec {
  return {
    schema: { type: 'string', optional: false },
    fn: (v) => (Buffer.isBuffer(v) ? format(v) : String(v)),
    fallback: '',
    write: writeString,
    // Address text never needs escaping.
    text: (v) => (Buffer.isBuffer(v) ? `"${format(v)}"` : quote(String(v))),
  };
}

function stringSpec(): Spec {
  return {
    schema: { type: 'string', optional: false },
    fn: (v) => (typeof v === 'string' ? v : Buffer.isBuffer(v) ? v.toString('utf8') : String(v)),
    fallback: '',
    write: writeString,
    text: (v) => quote(typeof v === 'string' ? v : Buffer.isBuffer(v) ? v.toString('utf8') : String(v)),
  };
}

function binaryOut(buf: Buffer, opts: ResolvedOptions): string {
  switch (opts.binaryHandlingMode) {
    case 'hex':
      return buf.toString('hex');
    case 'base64-url-safe':
      return base64UrlSafe(buf);
    default:
      // 'bytes' is base64 in JSON (JsonConverter), 'base64' is a base64 string: same text, different schema.
      return buf.toString('base64');
  }
}

function binarySpec(fixedLength: number, opts: ResolvedOptions): Spec {
  const mode = opts.binaryHandlingMode;
  const toBuffer = (v: Exclude<CellValue, null | undefined>): Buffer => {
    const b = Buffer.isBuffer(v) ? v : Buffer.from(String(v), 'utf8');
    // DBZ-254: the binlog strips BINARY(n) trailing zero bytes; pad back to the declared length.
    if (fixedLength > 0 && b.length < fixedLength) {
      const padded = Buffer.alloc(fixedLength);
      b.copy(padded);
      return padded;
    }
    return b;
  };
  const encode =
    mode === 'hex'
      ? (b: Buffer) => b.toString('hex')
      : mode === 'base64-url-safe'
        ? base64UrlSafe
        : (b: Buffer) => b.toString('base64');
  return {
    schema: { type: mode === 'bytes' ? 'bytes' : 'string', optional: false },
    fn: (v) => encode(toBuffer(v)),
    fallback: '',
    write: writeString,
    // hex and base64 never need escaping.
    text: (v) => `"${encode(toBuffer(v))}"`,
  };
}

/**
 * Column default (SQL text) as a CellValue, for the schema `default` and the NOT NULL fallback. Covers literals
 * of the common types; expressions (CURRENT_TIMESTAMP, functions) yield undefined except TIMESTAMP's
 * CURRENT_TIMESTAMP, which Debezium documents as 1970-01-01 00:00:00.
 */
export function parseDefault(col: ColumnDef, info: ColumnInfo): CellValue {
  const text = col.defaultValue;
  if (text === null) return null;
  const t = text.trim();
  const isNow = /^(current_timestamp|now|localtime|localtimestamp)\b/i.test(t);
  try {
    switch (info.base) {
      case 'tinyint':
      case 'smallint':
      case 'mediumint':
      case 'int':
      case 'integer':
      case 'year':
        return Number.isFinite(Number(t)) ? Math.round(Number(t)) : undefined;
      case 'bigint': {
        if (!/^-?\d+(\.\d+)?$/.test(t)) return undefined;
        const b = BigInt(t.split('.')[0]);
        return b >= BigInt(Number.MIN_SAFE_INTEGER) && b <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(b) : b;
      }
      case 'float':
      case 'double':
      case 'real':
        return Number.isFinite(Number(t)) ? Number(t) : undefined;
      case 'decimal':
      case 'numeric':
        return /^[-+]?\d*\.?\d+$/.test(t) ? t : undefined;
      case 'char':
      case 'varchar':
      case 'tinytext':
      case 'text':
      case 'mediumtext':
      case 'longtext':
        return text;
      case 'enum': {
        const i = (col.enumValues ?? []).indexOf(text);
        return i >= 0 ? i + 1 : undefined;
      }
      case 'set': {
        let mask = 0n;
        for (const m of text.split(',')) {
          const i = (col.enumValues ?? []).indexOf(m);
          if (i >= 0) mask |= 1n << BigInt(i);
        }
        return mask;
      }
      case 'date': {
        const m = /^(\d{1,4})-(\d{1,2})-(\d{1,2})$/.exec(t);
        return m ? new MysqlDate(+m[1], +m[2], +m[3]) : undefined;
      }
      case 'datetime':
      case 'timestamp': {
        // The timestamp converter passes strings through, so the epoch ISO text stands in for the instant.
        if (isNow) return info.base === 'timestamp' ? EPOCH_ISO : undefined;
        const m = /^(\d{1,4})-(\d{1,2})-(\d{1,2})[ T](\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.(\d{1,6}))?$/.exec(t);
        if (!m) return undefined;
        const micros = m[7] ? Number(m[7].padEnd(6, '0')) : 0;
        const p = fsp(col, info);
        if (info.base === 'datetime') return new MysqlDateTime(+m[1], +m[2], +m[3], +m[4], +m[5], +m[6], micros, p);
        if (+m[2] === 0 || +m[3] === 0) return new MysqlTimestamp(0, 0, p);
        return new MysqlTimestamp(utcMillis(+m[1], +m[2], +m[3], +m[4], +m[5], +m[6]) / 1000, micros, p);
      }
      case 'time': {
        const m = /^(-)?(\d+):(\d{1,2}):(\d{1,2})(?:\.(\d{1,6}))?$/.exec(t);
        if (!m) return undefined;
        const us =
          ((+m[2] * 3600 + +m[3] * 60 + +m[4]) * 1_000_000 + (m[5] ? Number(m[5].padEnd(6, '0')) : 0)) *
          (m[1] ? -1 : 1);
        return new MysqlTime(us, fsp(col, info));
      }
      case 'bit': {
        const m = /^b'([01]*)'$/i.exec(t);
        const n = m ? BigInt(`0b${m[1] || '0'}`) : /^\d+$/.test(t) ? BigInt(t) : undefined;
        if (n === undefined) return undefined;
        const bytes = Math.ceil((info.length ?? 1) / 8);
        return Buffer.from(
          n
            .toString(16)
            .padStart(bytes * 2, '0')
            .slice(-bytes * 2),
          'hex',
        );
      }
      case 'bool':
      case 'boolean':
        return /^(true|1)$/i.test(t) ? 1 : /^(false|0)$/i.test(t) ? 0 : undefined;
      default:
        return undefined;
    }
  } catch {
    return undefined;
  }
}
