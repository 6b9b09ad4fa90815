/**
 * One decode closure per column, chosen once per TABLE_MAP: the per-row loop then only dispatches through an
 * array. Each closure reads the value at `r.pos` and advances it. Values follow src/model/values.ts.
 * Buffers (BLOB, BINARY, BIT, GEOMETRY) are subarrays of the event buffer (no copy), except BINARY(n) values the
 * server stored shorter than n (trailing 0x00 stripped), which are padded into a new buffer.
 */

import { type CellValue, MysqlJson, MysqlTimestamp } from '../../../model/values.js';
import { ColumnType, columnTypeName } from '../column-type.js';
import type { ByteReader } from './byte-reader.js';
import { type StringDecoderFn, stringDecoderFor, utf8Decoder } from './charsets.js';
import { decimalBinarySize, decodeDecimal } from './decimal.js';
import { BinlogDecodeError } from './errors.js';
import { jsonBinaryToText } from './json-binary.js';
import type { ColumnInfo } from './table-map.js';
import {
  decodeDate,
  decodeDatetime2,
  decodeDatetimeOld,
  decodeTime2,
  decodeTimeOld,
  decodeTimestamp2,
  fracBytes,
} from './temporal.js';

export type ColumnDecoder = (r: ByteReader) => CellValue;

/** What the schema layer knows about a column when the server did not send it in TABLE_MAP metadata. */
export interface ColumnHint {
  unsigned?: boolean;
  /** MySQL charset name ('utf8mb4', 'latin1', 'binary', ...). */
  charset?: string;
  /** True for BINARY/VARBINARY/BLOB (bytes), false for CHAR/VARCHAR/TEXT. */
  binary?: boolean;
  /** MariaDB JSON columns are LONGTEXT in the binlog; set to get MysqlJson values. */
  json?: boolean;
}

const TWO_32 = 4294967296;

function readLen(r: ByteReader, bytes: number): number {
  const b = r.buf;
  const p = r.pos;
  if (!(p + bytes <= r.end)) throw truncated(r, bytes);
  r.pos = p + bytes;
  switch (bytes) {
    case 1:
      return b[p];
    case 2:
      return b[p] | (b[p + 1] << 8);
    case 3:
      return b[p] | (b[p + 1] << 8) | (b[p + 2] << 16);
    default:
      return b.readUInt32LE(p);
  }
}

function lengthPrefixed(bytes: number, make: (buf: Buffer, start: number, end: number) => CellValue): ColumnDecoder {
  return (r) => {
    const len = readLen(r, bytes);
    const start = r.pos;
    const end = start + len;
    if (end > r.end) throw truncated(r, len);
    r.pos = end;
    return make(r.buf, start, end);
  };
}

function truncated(r: ByteReader, len: number): BinlogDecodeError {
  return new BinlogDecodeError(
    `event at position ${r.eventPosition}: column value of ${len} bytes at offset ${r.pos} runs past the end of the event`,
    r.eventPosition,
  );
}

const asBuffer = (buf: Buffer, s: number, e: number): Buffer => buf.subarray(s, e);

function textOrBytes(decode: StringDecoderFn | null, json: boolean): (buf: Buffer, s: number, e: number) => CellValue {
  if (decode === null) return asBuffer;
  if (json) {
    // UTF-8 documents keep their bytes for the converter to escape (MysqlJson.fromUtf8).
    if (decode === utf8Decoder) return (buf, s, e) => MysqlJson.fromUtf8(utf8Decoder(buf, s, e), buf, s, e);
    return (buf, s, e) => new MysqlJson(decode(buf, s, e));
  }
  return decode;
}

/** Text/bytes columns; UTF-8 text (the common case) gets a closure of its own with no further indirection. */
function stringColumn(lenBytes: number, decode: StringDecoderFn | null, json: boolean): ColumnDecoder {
  if (decode !== utf8Decoder || json) return lengthPrefixed(lenBytes, textOrBytes(decode, json));
  return (r) => {
    const len = readLen(r, lenBytes);
    const start = r.pos;
    const end = start + len;
    if (end > r.end) throw truncated(r, len);
    r.pos = end;
    return utf8Decoder(r.buf, start, end);
  };
}

/**
 * BINARY(n) (and MariaDB UUID/INET4/INET6): the server strips trailing 0x00 pad bytes when it writes the row
 * image, but the value is n bytes (what SELECT returns): pad back. Only the short ones are copied.
 */
function fixedBinary(lenBytes: number, size: number): ColumnDecoder {
  return (r) => {
    const len = readLen(r, lenBytes);
    const start = r.pos;
    const end = start + len;
    if (end > r.end) throw truncated(r, len);
    r.pos = end;
    if (len >= size) return r.buf.subarray(start, end);
    const out = Buffer.alloc(size);
    r.buf.copy(out, 0, start, end);
    return out;
  };
}

function fixed(size: number, read: (buf: Buffer, pos: number) => CellValue): ColumnDecoder {
  return (r) => {
    const p = r.pos;
    if (!(p + size <= r.end)) throw truncated(r, size);
    r.pos = p + size;
    return read(r.buf, p);
  };
}

function readInt64(buf: Buffer, p: number): number | bigint {
  const lo = buf.readUInt32LE(p);
  const hi = buf.readInt32LE(p + 4);
  // Exact as a number while |v| <= 2^53 - 1.
  if ((hi > -2097152 && hi < 2097152) || (hi === -2097152 && lo !== 0)) return hi * TWO_32 + lo;
  return buf.readBigInt64LE(p);
}
function readUint64(buf: Buffer, p: number): number | bigint {
  const hi = buf.readUInt32LE(p + 4);
  if (hi < 2097152) return hi * TWO_32 + buf.readUInt32LE(p);
  return buf.readBigUInt64LE(p);
}

/** STRING metadata: real type in the high byte, max length split across both bytes. */
export function stringMaxLength(meta: number): number {
  const b0 = meta >> 8;
  const b1 = meta & 0xff;
  return (b0 & 0x30) !== 0x30 ? b1 | (((b0 & 0x30) ^ 0x30) << 4) : b1;
}

function charsetDecoder(col: ColumnInfo, hint: ColumnHint | undefined, defaultBinary: boolean): StringDecoderFn | null {
  if (col.charset !== undefined) return stringDecoderFor(col.charset);
  if (hint?.binary === true) return null;
  if (hint?.charset !== undefined) return stringDecoderFor(hint.charset);
  if (hint?.binary === false) return stringDecoderFor(undefined);
  return defaultBinary ? null : stringDecoderFor(undefined);
}

/** Builds the decoder for one column. Throws only when a row actually carries an undecodable type. */
export function columnDecoder(col: ColumnInfo, hint: ColumnHint | undefined): ColumnDecoder {
  const unsigned = col.unsigned ?? hint?.unsigned ?? false;
  const meta = col.meta;
  const badDecimal = col.realType === ColumnType.NEWDECIMAL && !validDecimal(meta >> 8, meta & 0xff);
  if (badDecimal || (LENGTH_PREFIXED.has(col.realType) && (meta < 1 || meta > 4))) {
    return (r) => {
      throw new BinlogDecodeError(
        `event at position ${r.eventPosition}: column ${col.name ?? `@${col.index + 1}`} of type ${columnTypeName(col.realType)} has invalid TABLE_MAP metadata 0x${meta.toString(16)} (${badDecimal ? 'DECIMAL precision/scale out of range' : 'length prefix must be 1 to 4 bytes'}; corrupt TABLE_MAP)`,
        r.eventPosition,
      );
    };
  }
  switch (col.realType) {
    case ColumnType.TINY:
      return unsigned
        ? (r) => {
            if (r.pos >= r.end) throw truncated(r, 1);
            return r.buf[r.pos++];
          }
        : (r) => {
            if (r.pos >= r.end) throw truncated(r, 1);
            const v = r.buf[r.pos++];
            return v > 127 ? v - 256 : v;
          };
    case ColumnType.SHORT:
      return unsigned ? fixed(2, (b, p) => b.readUInt16LE(p)) : fixed(2, (b, p) => b.readInt16LE(p));
    case ColumnType.INT24:
      return unsigned ? fixed(3, (b, p) => b.readUIntLE(p, 3)) : fixed(3, (b, p) => b.readIntLE(p, 3));
    case ColumnType.LONG:
      return unsigned
        ? (r) => {
            const p = r.pos;
            if (!(p + 4 <= r.end)) throw truncated(r, 4);
            r.pos = p + 4;
            return r.buf.readUInt32LE(p);
          }
        : (r) => {
            const p = r.pos;
            if (!(p + 4 <= r.end)) throw truncated(r, 4);
            r.pos = p + 4;
            return r.buf.readInt32LE(p);
          };
    case ColumnType.LONGLONG:
      return unsigned
        ? (r) => {
            const p = r.pos;
            if (!(p + 8 <= r.end)) throw truncated(r, 8);
            r.pos = p + 8;
            return readUint64(r.buf, p);
          }
        : (r) => {
            const p = r.pos;
            if (!(p + 8 <= r.end)) throw truncated(r, 8);
            r.pos = p + 8;
            return readInt64(r.buf, p);
          };
    case ColumnType.FLOAT:
      return fixed(4, (b, p) => b.readFloatLE(p));
    case ColumnType.DOUBLE:
      return (r) => {
        const p = r.pos;
        if (!(p + 8 <= r.end)) throw truncated(r, 8);
        r.pos = p + 8;
        return r.buf.readDoubleLE(p);
      };
    case ColumnType.YEAR:
      return fixed(1, (b, p) => (b[p] === 0 ? 0 : 1900 + b[p]));
    case ColumnType.NULL:
      return () => null;
    case ColumnType.NEWDECIMAL: {
      const precision = meta >> 8;
      const scale = meta & 0xff;
      const size = decimalBinarySize(precision, scale);
      return (r) => {
        const p = r.pos;
        if (!(p + size <= r.end)) throw truncated(r, size);
        r.pos = p + size;
        return decodeDecimal(r.buf, p, precision, scale);
      };
    }
    case ColumnType.DATE:
    case ColumnType.NEWDATE:
      return fixed(3, decodeDate);
    case ColumnType.TIME:
      return fixed(3, decodeTimeOld);
    case ColumnType.TIME2:
      return fixed(3 + fracBytes(meta), (b, p) => decodeTime2(b, p, meta));
    case ColumnType.DATETIME:
      return fixed(8, decodeDatetimeOld);
    case ColumnType.DATETIME2: {
      const size = 5 + fracBytes(meta);
      return (r) => {
        const p = r.pos;
        if (!(p + size <= r.end)) throw truncated(r, size);
        r.pos = p + size;
        return decodeDatetime2(r.buf, p, meta);
      };
    }
    case ColumnType.TIMESTAMP:
      return fixed(4, (b, p) => new MysqlTimestamp(b.readUInt32LE(p), 0, 0));
    case ColumnType.TIMESTAMP2: {
      const size = 4 + fracBytes(meta);
      return (r) => {
        const p = r.pos;
        if (!(p + size <= r.end)) throw truncated(r, size);
        r.pos = p + size;
        return decodeTimestamp2(r.buf, p, meta);
      };
    }
    case ColumnType.BIT: {
      const size = (meta >> 8) + ((meta & 0xff) > 0 ? 1 : 0);
      return fixed(size, (b, p) => b.subarray(p, p + size));
    }
    case ColumnType.VARCHAR:
    case ColumnType.VAR_STRING:
      return stringColumn(meta < 256 ? 1 : 2, charsetDecoder(col, hint, false), hint?.json === true);
    case ColumnType.STRING: {
      const max = stringMaxLength(meta);
      const decode = charsetDecoder(col, hint, false);
      if (decode === null) return fixedBinary(max < 256 ? 1 : 2, max);
      return stringColumn(max < 256 ? 1 : 2, decode, hint?.json === true);
    }
    case ColumnType.ENUM: {
      const size = meta & 0xff;
      return size === 1 ? fixed(1, (b, p) => b[p]) : fixed(2, (b, p) => b.readUInt16LE(p));
    }
    case ColumnType.SET: {
      const size = meta & 0xff;
      return size >= 8
        ? fixed(size, (b, p) => b.readBigUInt64LE(p))
        : fixed(size, (b, p) => BigInt(b.readUIntLE(p, size)));
    }
    case ColumnType.BLOB:
    case ColumnType.TINY_BLOB:
    case ColumnType.MEDIUM_BLOB:
    case ColumnType.LONG_BLOB:
      return stringColumn(meta, charsetDecoder(col, hint, true), hint?.json === true);
    case ColumnType.JSON:
      return lengthPrefixed(meta, (b, s, e) => {
        try {
          return new MysqlJson(jsonBinaryToText(b, s, e));
        } catch (err) {
          throw new BinlogDecodeError(
            `JSON column ${col.name ?? `@${col.index + 1}`}: ${(err as Error).message} (value starts at event offset ${s})`,
            undefined,
            { cause: err },
          );
        }
      });
    case ColumnType.GEOMETRY:
      return lengthPrefixed(meta, asBuffer);
    case ColumnType.VECTOR:
      return lengthPrefixed(meta, (b, s, e) => {
        const out = new Float32Array((e - s) >> 2);
        for (let i = 0; i < out.length; i++) out[i] = b.readFloatLE(s + i * 4);
        return out;
      });
    default:
      return (r) => {
        throw new BinlogDecodeError(
          `event at position ${r.eventPosition}: cannot decode column ${col.name ?? `@${col.index + 1}`} of type ${columnTypeName(col.realType)} (${col.realType}) at offset ${r.pos}; this column type is not supported in row events`,
          r.eventPosition,
        );
      };
  }
}

/** DECIMAL(M,D) limits (MariaDB allows D up to 38). */
function validDecimal(precision: number, scale: number): boolean {
  return precision >= 1 && precision <= 65 && scale <= precision && scale <= 38;
}

/** Types whose value has a length prefix of `meta` (1-4) bytes. */
const LENGTH_PREFIXED = new Set<number>([
  ColumnType.BLOB,
  ColumnType.TINY_BLOB,
  ColumnType.MEDIUM_BLOB,
  ColumnType.LONG_BLOB,
  ColumnType.JSON,
  ColumnType.GEOMETRY,
  ColumnType.VECTOR,
]);

/** Advances past a column value without materialising it (for columns the caller did not ask for). */
export function columnSkipper(col: ColumnInfo): (r: ByteReader) => void {
  const meta = col.meta;
  if (
    (col.realType === ColumnType.NEWDECIMAL && !validDecimal(meta >> 8, meta & 0xff)) ||
    (LENGTH_PREFIXED.has(col.realType) && (meta < 1 || meta > 4))
  ) {
    const fail = columnDecoder(col, undefined);
    return (r) => void fail(r);
  }
  let size = -1;
  let lenBytes = 0;
  switch (col.realType) {
    case ColumnType.VARCHAR:
    case ColumnType.VAR_STRING:
      lenBytes = meta < 256 ? 1 : 2;
      break;
    case ColumnType.STRING:
      lenBytes = stringMaxLength(meta) < 256 ? 1 : 2;
      break;
    case ColumnType.BLOB:
    case ColumnType.TINY_BLOB:
    case ColumnType.MEDIUM_BLOB:
    case ColumnType.LONG_BLOB:
    case ColumnType.JSON:
    case ColumnType.GEOMETRY:
    case ColumnType.VECTOR:
      lenBytes = meta;
      break;
    default:
      size = fixedSize(col);
  }
  if (lenBytes > 0) {
    return (r) => {
      const len = readLen(r, lenBytes);
      if (r.pos + len > r.end) throw truncated(r, len);
      r.pos += len;
    };
  }
  if (size >= 0) {
    return (r) => {
      r.pos += size;
    };
  }
  const decode = columnDecoder(col, undefined);
  return (r) => void decode(r);
}

function fixedSize(col: ColumnInfo): number {
  const meta = col.meta;
  switch (col.realType) {
    case ColumnType.TINY:
    case ColumnType.YEAR:
      return 1;
    case ColumnType.SHORT:
      return 2;
    case ColumnType.INT24:
    case ColumnType.DATE:
    case ColumnType.NEWDATE:
    case ColumnType.TIME:
      return 3;
    case ColumnType.LONG:
    case ColumnType.FLOAT:
    case ColumnType.TIMESTAMP:
      return 4;
    case ColumnType.LONGLONG:
    case ColumnType.DOUBLE:
    case ColumnType.DATETIME:
      return 8;
    case ColumnType.NULL:
      return 0;
    case ColumnType.NEWDECIMAL:
      return decimalBinarySize(meta >> 8, meta & 0xff);
    case ColumnType.TIME2:
      return 3 + fracBytes(meta);
    case ColumnType.DATETIME2:
      return 5 + fracBytes(meta);
    case ColumnType.TIMESTAMP2:
      return 4 + fracBytes(meta);
    case ColumnType.BIT:
      return (meta >> 8) + ((meta & 0xff) > 0 ? 1 : 0);
    case ColumnType.ENUM:
    case ColumnType.SET:
      return meta & 0xff;
    default:
      return -1;
  }
}
