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

/** Reads `n` big-endian bytes at `pos`, each XOR-ed with `mask` (0 or 0xff). */
function readBE(buf: Buffer, pos: number, n: number, mask: number): number {
  let v = 0;
  for (let i = 0; i < n; i++) v = v * 256 + (buf[pos + i] ^ mask);
  return v;
}

export function decodeDecimal(buf: Buffer, pos: number, precision: number, scale: number): string {
  const intg = precision - scale;
  const intg0 = (intg / 9) | 0;
  const intg0x = intg % 9;
  const frac0 = (scale / 9) | 0;
  const frac0x = scale % 9;
  const negative = (buf[pos] & 0x80) === 0;
  const mask = negative ? 0xff : 0;
  // The first byte carries the sign bit; read it with the bit flipped back.
  const first = buf[pos] ^ 0x80;
  let p = pos;
  let intText = '';
  const readGroup = (n: number): number => {
    let v: number;
    if (p === pos) {
      v = (first ^ mask) & 0xff;
      for (let i = 1; i < n; i++) v = v * 256 + (buf[pos + i] ^ mask);
    } else v = readBE(buf, p, n, mask);
    p += n;
    return v;
  };
  if (intg0x > 0) {
    const v = readGroup(DIG2BYTES[intg0x]);
    if (v !== 0) intText = String(v);
  }
  for (let i = 0; i < intg0; i++) {
    const v = readGroup(4);
    intText = intText === '' ? (v === 0 ? '' : String(v)) : intText + String(v).padStart(9, '0');
  }
  if (intText === '') intText = '0';
  let fracText = '';
  for (let i = 0; i < frac0; i++) fracText += String(readGroup(4)).padStart(9, '0');
  if (frac0x > 0) fracText += String(readGroup(DIG2BYTES[frac0x])).padStart(frac0x, '0');
  const text = scale > 0 ? `${intText}.${fracText}` : intText;
  if (negative && /[1-9]/.test(text)) return `-${text}`;
  return text;
}
