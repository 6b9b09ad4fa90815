/** Byte-level helpers for converters: Kafka Connect Decimal bytes, float32 text, addresses, UUIDs. */

/**
 * Unscaled value of a decimal string at `scale` ("-12.5", 2 → -1250n). MySQL values already carry the column's
 * scale; other inputs are padded or truncated to it (Kafka Connect's Decimal requires the schema scale).
 */
export function unscaledDecimal(text: string, scale: number): bigint {
  let s = text.trim();
  let neg = false;
  if (s.charCodeAt(0) === 45 /* - */) {
    neg = true;
    s = s.slice(1);
  } else if (s.charCodeAt(0) === 43 /* + */) s = s.slice(1);
  const dot = s.indexOf('.');
  const intPart = dot < 0 ? s : s.slice(0, dot);
  let frac = dot < 0 ? '' : s.slice(dot + 1);
  if (frac.length < scale) frac = frac.padEnd(scale, '0');
  else if (frac.length > scale) frac = frac.slice(0, scale);
  const v = BigInt((intPart || '0') + frac);
  return neg ? -v : v;
}

/** Minimal big-endian two's-complement bytes, as java.math.BigInteger.toByteArray() (Connect's Decimal encoding). */
export function twosComplementBytes(v: bigint): Buffer {
  const magnitude = v < 0n ? -v - 1n : v;
  const bitLength = magnitude === 0n ? 0 : magnitude.toString(2).length;
  const n = Math.floor(bitLength / 8) + 1;
  const modulus = 1n << BigInt(n * 8);
  const u = v < 0n ? modulus + v : v;
  return Buffer.from(u.toString(16).padStart(n * 2, '0'), 'hex');
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
/** base64 of every 12-bit group: two characters (half the lookups and concatenations of single characters). */
export const B64_PAIRS: readonly string[] = Array.from({ length: 4096 }, (_, i) => B64[i >> 6] + B64[i & 63]);
const decimalBytes: number[] = [0, 0, 0, 0, 0, 0, 0, 0];

/** Character codes of the base64 alphabet, for texts built in one String.fromCharCode call. */
const B64_CODES: readonly number[] = Array.from(B64, (c) => c.charCodeAt(0));

/**
 * Big-endian two's-complement bytes (as few as BigInteger.toByteArray() gives) of a decimal string's unscaled value
 * into `decimalBytes`, without BigInt, slices or a Buffer, for values of up to 15 digits written at exactly `scale`
 * (nearly all money columns, as the binlog and snapshot give them): their count, or 0 for the BigInt path.
 */
function smallDecimalBytes(text: string, scale: number): number {
  const len = text.length;
  let i = 0;
  const c0 = text.charCodeAt(0);
  if (c0 === 45 /* - */ || c0 === 43 /* + */) i = 1;
  let magnitude = 0;
  let digits = 0;
  let fracLen = -1;
  for (; i < len; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      magnitude = magnitude * 10 + (c - 48);
      digits++;
      if (fracLen >= 0) fracLen++;
    } else if (c === 46 /* . */ && fracLen < 0) fracLen = 0;
    else return 0;
  }
  if (fracLen < 0) fracLen = 0;
  // Up to 15 digits a double is exact; other scales pad or truncate (the BigInt path).
  if (digits > 15 || fracLen !== scale) return 0;
  const neg = c0 === 45 && magnitude !== 0;
  // Two's complement of a negative n is the complement of the bytes of -n-1 (exact, unlike 2^k + n).
  const u = neg ? magnitude - 1 : magnitude;
  const flip = neg ? 255 : 0;
  const bytes = decimalBytes;
  if (u < 0x80000000) {
    // 32-bit integer arithmetic: the double path's % and / are several times slower, and most values fit.
    const n = u < 0x80 ? 1 : u < 0x8000 ? 2 : u < 0x800000 ? 3 : 4;
    for (let k = n - 1, x = u; k >= 0; k--, x >>>= 8) bytes[k] = (x & 255) ^ flip;
    return n;
  }
  // Fewest bytes whose signed range holds the value, like BigInteger.toByteArray().
  let n = 5;
  while (u >= 2 ** (8 * n - 1)) n++;
  let x = u;
  for (let k = n - 1; k >= 0; k--) {
    const b = x % 256;
    bytes[k] = b ^ flip;
    x = (x - b) / 256;
  }
  return n;
}

/** base64 of decimalBytes[0..n), n <= 7, quoted as a JSON string or bare: one string built in one call. */
function bytesBase64(n: number, quoted: boolean): string {
  const b = decimalBytes;
  const c = b64Chars;
  let m = 0;
  for (let k = 0; k < n; k += 3) {
    const rest = n - k;
    const t = (b[k] << 16) | (rest > 1 ? b[k + 1] << 8 : 0) | (rest > 2 ? b[k + 2] : 0);
    c[m] = B64_CODES[t >> 18];
    c[m + 1] = B64_CODES[(t >> 12) & 63];
    c[m + 2] = rest > 1 ? B64_CODES[(t >> 6) & 63] : 61; /* = */
    c[m + 3] = rest > 2 ? B64_CODES[t & 63] : 61;
    m += 4;
  }
  const q = 34; /* " */
  // Fixed-arity calls (one per length) stay fast; n <= 7 bytes is at most 12 characters.
  if (m === 4)
    return quoted ? String.fromCharCode(q, c[0], c[1], c[2], c[3], q) : String.fromCharCode(c[0], c[1], c[2], c[3]);
  if (m === 8) {
    return quoted
      ? String.fromCharCode(q, c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], q)
      : String.fromCharCode(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]);
  }
  return quoted
    ? String.fromCharCode(q, c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10], c[11], q)
    : String.fromCharCode(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10], c[11]);
}
const b64Chars: number[] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];

/**
 * base64 of the Connect Decimal bytes of a decimal string at `scale`: twosComplementBytes(unscaledDecimal(...)),
 * with a fast path for values of up to 15 digits (smallDecimalBytes), which the hot path converts per row.
 */
export function decimalBase64(text: string, scale: number): string {
  const n = smallDecimalBytes(text, scale);
  return n > 0 ? bytesBase64(n, false) : twosComplementBytes(unscaledDecimal(text, scale)).toString('base64');
}

/** decimalBase64 as a JSON string (base64 never needs escaping), built as one string rather than three. */
export function decimalBase64Json(text: string, scale: number): string {
  const n = smallDecimalBytes(text, scale);
  return n > 0 ? bytesBase64(n, true) : `"${twosComplementBytes(unscaledDecimal(text, scale)).toString('base64')}"`;
}

/** Decode Connect Decimal bytes back to an unscaled bigint (for tests and consumers). */
export function bytesToUnscaled(buf: Buffer): bigint {
  if (buf.length === 0) return 0n;
  const u = BigInt(`0x${buf.toString('hex')}`);
  return buf[0] & 0x80 ? u - (1n << BigInt(buf.length * 8)) : u;
}

/**
 * Shortest decimal text that reads back as the same float32, as Java's Float.toString does for Connect FLOAT32
 * (so 1.1f is written 1.1, not 1.100000023841858).
 */
export function float32Text(x: number): string {
  const f = Math.fround(x);
  if (!Number.isFinite(f)) return 'null';
  if (f === 0) return '0';
  const a = f < 0 ? -f : f;
  // The 9 significant digits of |f| (enough for any float32) and the decimal exponent of the first one.
  let all: number;
  let exp: number;
  if (a >= 1 && a < 1e9) {
    // a * 10^(8 - exp) is exact (24 bits of a times 5^(8 - exp) <= 5^8, 19 bits), so rounding it half up gives
    // toPrecision(9)'s digits without the string; Math.log10 may miss at a power of ten, hence the checks.
    exp = Math.floor(Math.log10(a));
    if (a < POW10[exp]) exp--;
    else if (exp < 8 && a >= POW10[exp + 1]) exp++;
    all = Math.round(a * POW10[8 - exp]);
    if (all === 1e9) {
      all = 1e8;
      exp++;
    }
  } else {
    const nine = a.toPrecision(9);
    const e9 = nine.indexOf('e');
    let digits: string;
    if (e9 >= 0) {
      digits = nine.charAt(0) + nine.slice(2, e9);
      exp = Number(nine.slice(e9 + 1));
    } else if (nine.charCodeAt(0) === 48 /* 0 */) {
      // 0.000ddddddddd
      let z = 2;
      while (nine.charCodeAt(z) === 48) z++;
      digits = nine.slice(z);
      exp = 1 - z;
    } else {
      const dot = nine.indexOf('.');
      digits = dot < 0 ? nine : nine.slice(0, dot) + nine.slice(dot + 1);
      exp = (dot < 0 ? nine.length : dot) - 1;
    }
    all = Number(digits);
  }
  // p digits are the first p of the nine, rounded half up (as toPrecision rounds): the nearest 9-digit decimal lies
  // on the same side of every p-digit rounding boundary as |f| itself unless it is that boundary (digit p + 1 is 5
  // and the rest zeros), where only toPrecision(p) knows which way |f| lies.
  for (let p = 1; p <= 9; p++) {
    let candidate: number;
    const unit = POW10[9 - p];
    let n = Math.floor(all / unit);
    const rest = all - n * unit;
    const half = unit / 2;
    if (p < 9 && rest === half) {
      candidate = Number(f.toPrecision(p));
    } else {
      if (rest > half) n++;
      const k = exp - p + 1;
      // One correctly rounded operation on exact operands equals parsing the decimal text.
      const m = k >= 0 && k <= 22 ? n * POW10[k] : k < 0 && k >= -22 ? n / POW10[-k] : Number(`${n}e${k}`);
      if (Math.fround(f < 0 ? -m : m) === f) return decimalText(f < 0, n, k);
      continue;
    }
    if (Math.fround(candidate) === f) return String(candidate);
  }
  return String(f);
}

/**
 * String(x) for x = ±n × 10^k with n of at most 10 digits: x's shortest round-trip digits are n's (two decimals of
 * so few digits are never within one double apart), so Number.prototype.toString's layout rules apply to them.
 */
function decimalText(negative: boolean, n: number, k: number): string {
  while (n % 10 === 0) {
    n /= 10;
    k++;
  }
  const d = String(n);
  const len = d.length;
  // Position of the decimal point relative to the digits' start (ECMA-262 Number::toString's n).
  const point = len + k;
  let out: string;
  if (len <= point && point <= 21) out = d + '0'.repeat(point - len);
  else if (0 < point && point <= 21) out = `${d.slice(0, point)}.${d.slice(point)}`;
  else if (-6 < point && point <= 0) out = `0.${'0'.repeat(-point)}${d}`;
  else {
    const e = point - 1;
    out = `${len === 1 ? d : `${d[0]}.${d.slice(1)}`}e${e < 0 ? '-' : '+'}${Math.abs(e)}`;
  }
  return negative ? `-${out}` : out;
}

const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i);

/** float32Text as first written: the reference its fast path is tested against. */
export function float32TextGeneral(x: number): string {
  const f = Math.fround(x);
  if (!Number.isFinite(f)) return 'null';
  for (let p = 1; p < 10; p++) {
    const candidate = Number(f.toPrecision(p));
    if (Math.fround(candidate) === f) return String(candidate);
  }
  return String(f);
}

/** Java's Base64.getUrlEncoder(): URL alphabet, padding kept (Node's 'base64url' drops it). */
export function base64UrlSafe(buf: Buffer): string {
  return buf.toString('base64').replaceAll('+', '-').replaceAll('/', '_');
}

/**
 * The binlog logs MariaDB's fixed-size UUID/INET4/INET6 like BINARY(n): trailing zero bytes stripped. Pad them
 * back on the right before formatting.
 */
function fixed(buf: Buffer, size: number): Buffer {
  if (buf.length >= size) return buf;
  const out = Buffer.alloc(size);
  buf.copy(out);
  return out;
}

export function uuidText(buf: Buffer): string {
  const h = fixed(buf, 16).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

export function inet4Text(b: Buffer): string {
  const buf = fixed(b, 4);
  return `${buf[0]}.${buf[1]}.${buf[2]}.${buf[3]}`;
}

/** RFC 5952 text (longest zero run compressed, IPv4-mapped tail) as MariaDB prints INET6. */
export function inet6Text(b: Buffer): string {
  const buf = fixed(b, 16);
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((buf[i] << 8) | buf[i + 1]);
  const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  if (mapped) return `::ffff:${inet4Text(buf.subarray(12, 16))}`;
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i > 1) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

/**
 * Java modified UTF-8 (DataOutput.writeUTF): NUL as C0 80, supplementary characters as two 3-byte surrogates.
 * Needed for Debezium's v1 hashing, which hashes the Java serialisation of the String.
 */
export function modifiedUtf8(s: string): Buffer {
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x01 && c <= 0x7f) out.push(c);
    else if (c <= 0x7ff) out.push(0xc0 | (c >> 6), 0x80 | (c & 0x3f));
    else out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f));
  }
  return Buffer.from(out);
}

/** Bytes of `new ObjectOutputStream(bos).writeObject(string)`: stream header, TC_STRING/TC_LONGSTRING, length. */
export function javaSerializedString(s: string): Buffer {
  const utf = modifiedUtf8(s);
  if (utf.length <= 0xffff) {
    const head = Buffer.from([0xac, 0xed, 0x00, 0x05, 0x74, utf.length >> 8, utf.length & 0xff]);
    return Buffer.concat([head, utf]);
  }
  const head = Buffer.alloc(13);
  head.set([0xac, 0xed, 0x00, 0x05, 0x7c]);
  head.writeBigInt64BE(BigInt(utf.length), 5);
  return Buffer.concat([head, utf]);
}
