/** Decoders for MySQL temporal column formats (old and 5.6.4+ "2" formats) and packed JSON temporals. */
import { MysqlDate, MysqlDateTime, MysqlTime, MysqlTimestamp } from '../../../model/values.js';

/** Bytes of the fractional part for fsp 0..6. */
export function fracBytes(fsp: number): number {
  return (fsp + 1) >> 1;
}

/** Reads the fractional seconds of a *2 type as microseconds. */
function readFrac(buf: Buffer, pos: number, fsp: number): number {
  // Byte reads, not readUInt16BE/readUIntBE: those check their arguments on every call, and this runs per cell.
  switch (fsp) {
    case 1:
    case 2:
      return buf[pos] * 10000;
    case 3:
    case 4:
      return ((buf[pos] << 8) | buf[pos + 1]) * 100;
    case 5:
    case 6:
      return (buf[pos] << 16) | (buf[pos + 1] << 8) | buf[pos + 2];
    default:
      return 0;
  }
}

/** DATE: 3 bytes little-endian, day:5 month:4 year:15. */
export function decodeDate(buf: Buffer, pos: number): MysqlDate {
  const v = buf[pos] | (buf[pos + 1] << 8) | (buf[pos + 2] << 16);
  return new MysqlDate(v >>> 9, (v >> 5) & 15, v & 31);
}

/**
 * DATETIME2: 5 bytes big-endian (offset 2^39) + fraction. The 40-bit integer is year*13+month (17 bits), day (5),
 * hour (5), minute (6), second (6), read straight from the bytes in 32-bit integer arithmetic: the 40-bit value's
 * double division and modulo were most of a cell's decode time.
 */
export function decodeDatetime2(buf: Buffer, pos: number, fsp: number): MysqlDateTime {
  const b0 = buf[pos];
  // The sign bit is set for every value MySQL writes; anything else keeps the general arithmetic.
  if (b0 < 0x80) return decodeDatetime2Signed(buf, pos, fsp);
  const b2 = buf[pos + 2];
  const ym = ((b0 & 0x7f) << 10) | (buf[pos + 1] << 2) | (b2 >> 6);
  const hms = ((b2 & 1) << 16) | (buf[pos + 3] << 8) | buf[pos + 4];
  return new MysqlDateTime(
    (ym / 13) | 0,
    ym % 13,
    (b2 >> 1) & 31,
    hms >> 12,
    (hms >> 6) & 63,
    hms & 63,
    readFrac(buf, pos + 5, fsp),
    fsp,
  );
}

/** DATETIME2 below the offset (never written by MySQL): the same fields of the negative integer. */
function decodeDatetime2Signed(buf: Buffer, pos: number, fsp: number): MysqlDateTime {
  const intPart = buf.readUIntBE(pos, 5) - 0x8000000000;
  const ymd = Math.floor(intPart / 131072); // >> 17 (value exceeds 32 bits)
  const hms = intPart % 131072;
  const ym = ymd >> 5;
  return new MysqlDateTime(
    (ym / 13) | 0,
    ym % 13,
    ymd & 31,
    hms >> 12,
    (hms >> 6) & 63,
    hms & 63,
    readFrac(buf, pos + 5, fsp),
    fsp,
  );
}

/** Old DATETIME: 8-byte little-endian integer YYYYMMDDhhmmss. */
export function decodeDatetimeOld(buf: Buffer, pos: number): MysqlDateTime {
  let v = Number(buf.readBigUInt64LE(pos));
  const second = v % 100;
  v = (v - second) / 100;
  const minute = v % 100;
  v = (v - minute) / 100;
  const hour = v % 100;
  v = (v - hour) / 100;
  const day = v % 100;
  v = (v - day) / 100;
  const month = v % 100;
  const year = (v - month) / 100;
  return new MysqlDateTime(year, month, day, hour, minute, second, 0, 0);
}

/** TIMESTAMP2: 4 bytes big-endian seconds + fraction. */
export function decodeTimestamp2(buf: Buffer, pos: number, fsp: number): MysqlTimestamp {
  const seconds = ((buf[pos] << 24) | (buf[pos + 1] << 16) | (buf[pos + 2] << 8) | buf[pos + 3]) >>> 0;
  return new MysqlTimestamp(seconds, readFrac(buf, pos + 4, fsp), fsp);
}

/** TIME2: 3 bytes big-endian (offset 2^23) + fraction; negative values store the fraction complemented. */
export function decodeTime2(buf: Buffer, pos: number, fsp: number): MysqlTime {
  let packed: number; // sign * (hms-int << 24 | micros), as MySQL's packed time
  switch (fsp) {
    case 1:
    case 2: {
      let intPart = buf.readUIntBE(pos, 3) - 0x800000;
      let frac = buf[pos + 3];
      if (intPart < 0 && frac !== 0) {
        intPart++;
        frac -= 0x100;
      }
      packed = intPart * 16777216 + frac * 10000;
      break;
    }
    case 3:
    case 4: {
      let intPart = buf.readUIntBE(pos, 3) - 0x800000;
      let frac = buf.readUInt16BE(pos + 3);
      if (intPart < 0 && frac !== 0) {
        intPart++;
        frac -= 0x10000;
      }
      packed = intPart * 16777216 + frac * 100;
      break;
    }
    case 5:
    case 6:
      packed = buf.readUIntBE(pos, 6) - 0x800000000000;
      break;
    default:
      packed = (buf.readUIntBE(pos, 3) - 0x800000) * 16777216;
  }
  return new MysqlTime(packedTimeToMicros(packed), fsp);
}

function packedTimeToMicros(packed: number): number {
  const neg = packed < 0;
  const abs = neg ? -packed : packed;
  const hms = Math.floor(abs / 16777216);
  const micros = abs % 16777216;
  const hour = (hms >> 12) & 0x3ff;
  const minute = (hms >> 6) & 63;
  const second = hms & 63;
  const total = ((hour * 60 + minute) * 60 + second) * 1_000_000 + micros;
  return neg ? -total : total;
}

/** Old TIME: 3-byte little-endian signed integer ±HHMMSS. */
export function decodeTimeOld(buf: Buffer, pos: number): MysqlTime {
  let v = buf[pos] | (buf[pos + 1] << 8) | (buf[pos + 2] << 16);
  if (v & 0x800000) v -= 0x1000000;
  const neg = v < 0;
  const a = neg ? -v : v;
  const total = (Math.floor(a / 10000) * 3600 + (Math.floor(a / 100) % 100) * 60 + (a % 100)) * 1_000_000;
  return new MysqlTime(neg ? -total : total, 0);
}

/** MySQL "packed" longlong temporal (JSON opaque DATE/DATETIME/TIMESTAMP): returns [y,mo,d,h,mi,s,us]. */
export function unpackDatetimePacked(v: bigint): number[] {
  const neg = v < 0n;
  const a = neg ? -v : v;
  const micros = Number(a & 0xffffffn);
  const intPart = Number(a >> 24n);
  const ymd = Math.floor(intPart / 131072);
  const hms = intPart % 131072;
  const ym = ymd >> 5;
  return [(ym / 13) | 0, ym % 13, ymd & 31, hms >> 12, (hms >> 6) & 63, hms & 63, micros];
}

/** MySQL packed longlong TIME → signed microseconds. */
export function unpackTimePacked(v: bigint): number {
  return packedTimeToMicros(Number(v));
}
