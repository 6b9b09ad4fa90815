/**
 * MySQL binary DECIMAL (NEWDECIMAL) → exact decimal text with exactly `scale` fraction digits.
 * Layout: groups of 9 digits in 4 big-endian bytes, a shorter leading/trailing group for the remainder;
 * the sign is the inverted top bit of the first byte, and negative values have every byte inverted.
 */
const DIG2BYTES = [0, 1, 1, 2, 2, 3, 3, 4, 4, 4];

export function decimalBinarySize(precision: number, scale: number): number {
  const intg = precision - scale;
  return ((intg / 9) | 0) * 4 + DIG2BYTES[intg % 9] + ((scale / 9) | 0) * 4 + DIG2BYTES[scale % 9];
}

/**
 * Reads `n` big-endian bytes at `pos`, each XOR-ed with `mask` (0 or 0xff); the byte at `signAt` (the value's
 * first byte) also gets its stored-inverted sign bit flipped back.
 */
function readBE(buf: Buffer, pos: number, n: number, mask: number, signAt: number): number {
  let v = 0;
  for (let i = 0; i < n; i++) {
    const at = pos + i;
    v = v * 256 + ((at === signAt ? buf[at] ^ 0x80 : buf[at]) ^ mask);
  }
  return v;
}

const ZEROS = ['', '0', '00', '000', '0000', '00000', '000000', '0000000', '00000000'];

/** `v` (below 10^width) as exactly `width` digits, without padStart (a runtime call on the hot path). */
function digits(v: number, width: number): string {
  const s = String(v);
  return s.length >= width ? s : ZEROS[width - s.length] + s;
}

// Hot path (every DECIMAL cell of every row): no closures, no regex. A closure here cost more than the decoding
// itself once bundlers wrap every function expression (esbuild keepNames → a defineProperty per call).
export function decodeDecimal(buf: Buffer, pos: number, precision: number, scale: number): string {
  const intg = precision - scale;
  const intg0 = (intg / 9) | 0;
  const intg0x = intg % 9;
  const frac0 = (scale / 9) | 0;
  const frac0x = scale % 9;
  const negative = (buf[pos] & 0x80) === 0;
  const mask = negative ? 0xff : 0;
  let p = pos;
  let intText = '';
  let nonZero = false;
  if (intg0x > 0) {
    const n = DIG2BYTES[intg0x];
    const v = readBE(buf, p, n, mask, pos);
    p += n;
    if (v !== 0) {
      intText = String(v);
      nonZero = true;
    }
  }
  for (let i = 0; i < intg0; i++) {
    const v = readBE(buf, p, 4, mask, pos);
    p += 4;
    if (intText === '') {
      if (v !== 0) intText = String(v);
    } else intText += digits(v, 9);
    if (v !== 0) nonZero = true;
  }
  if (intText === '') intText = '0';
  if (scale === 0) return negative && nonZero ? `-${intText}` : intText;
  let fracText = '';
  for (let i = 0; i < frac0; i++) {
    const v = readBE(buf, p, 4, mask, pos);
    p += 4;
    if (v !== 0) nonZero = true;
    fracText += digits(v, 9);
  }
  if (frac0x > 0) {
    const n = DIG2BYTES[frac0x];
    const v = readBE(buf, p, n, mask, pos);
    if (v !== 0) nonZero = true;
    fracText += digits(v, frac0x);
  }
  return negative && nonZero ? `-${intText}.${fracText}` : `${intText}.${fracText}`;
}
