/**
 * A small forward cursor over one event's bytes. No copies: `bytes()` returns subarrays of the event buffer.
 * `end` excludes the checksum footer, so decoders can use `remaining` for "rest of the event" fields.
 */
import { BinlogDecodeError } from './errors.js';

export class ByteReader {
  constructor(
    public buf: Buffer,
    public pos: number,
    public end: number,
    /** Binlog position of the event, for error messages. */
    public eventPosition = 0,
  ) {}

  get remaining(): number {
    return this.end - this.pos;
  }

  /** Throws a positioned decode error unless `n` more bytes are available. */
  need(n: number, what: string): void {
    if (!(n >= 0) || this.pos + n > this.end) {
      throw new BinlogDecodeError(
        `event at position ${this.eventPosition}: truncated ${what}: need ${n} bytes at offset ${this.pos}, only ${this.end - this.pos} left`,
        this.eventPosition,
      );
    }
  }

  /** Throws a positioned decode error: `n` bytes at `pos` would run past the end of the event. */
  private overrun(n: number): never {
    this.need(n, 'field');
    throw new BinlogDecodeError(`event at position ${this.eventPosition}: read past the end`, this.eventPosition);
  }

  u8(): number {
    if (this.pos >= this.end) this.overrun(1);
    return this.buf[this.pos++];
  }
  u16(): number {
    if (this.pos + 2 > this.end) this.overrun(2);
    const v = this.buf.readUInt16LE(this.pos);
    this.pos += 2;
    return v;
  }
  u24(): number {
    if (this.pos + 3 > this.end) this.overrun(3);
    const b = this.buf;
    const p = this.pos;
    this.pos = p + 3;
    return b[p] | (b[p + 1] << 8) | (b[p + 2] << 16);
  }
  u32(): number {
    if (this.pos + 4 > this.end) this.overrun(4);
    const v = this.buf.readUInt32LE(this.pos);
    this.pos += 4;
    return v;
  }
  u48(): number {
    if (this.pos + 6 > this.end) this.overrun(6);
    const v = this.buf.readUIntLE(this.pos, 6);
    this.pos += 6;
    return v;
  }
  /** Unsigned 64-bit as a number: exact up to 2^53 (positions, sizes, counters). */
  u64n(): number {
    if (this.pos + 8 > this.end) this.overrun(8);
    const lo = this.buf.readUInt32LE(this.pos);
    const hi = this.buf.readUInt32LE(this.pos + 4);
    this.pos += 8;
    return hi * 4294967296 + lo;
  }
  u64(): bigint {
    if (this.pos + 8 > this.end) this.overrun(8);
    const v = this.buf.readBigUInt64LE(this.pos);
    this.pos += 8;
    return v;
  }
  i64(): bigint {
    if (this.pos + 8 > this.end) this.overrun(8);
    const v = this.buf.readBigInt64LE(this.pos);
    this.pos += 8;
    return v;
  }

  /** MySQL length-encoded ("packed") integer as a number; 0xfb (NULL marker) reads as 0. */
  packed(): number {
    const b = this.u8();
    if (b < 0xfb) return b;
    if (b === 0xfc) return this.u16();
    if (b === 0xfd) return this.u24();
    if (b === 0xfe) return this.u64n();
    if (b === 0xfb) return 0;
    throw new BinlogDecodeError(
      `event at position ${this.eventPosition}: invalid packed integer prefix 0xff at offset ${this.pos - 1}`,
      this.eventPosition,
    );
  }

  bytes(n: number): Buffer {
    this.need(n, 'field');
    const s = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return s;
  }
  rest(): Buffer {
    const s = this.buf.subarray(this.pos, this.end);
    this.pos = this.end;
    return s;
  }
  skip(n: number): void {
    this.need(n, 'field');
    this.pos += n;
  }
  utf8(n: number): string {
    this.need(n, 'string');
    const s = this.buf.toString('utf8', this.pos, this.pos + n);
    this.pos += n;
    return s;
  }
  /** A string up to the next NUL (or the end); the NUL is consumed. */
  cstring(): string {
    let i = this.pos;
    const end = this.end;
    const b = this.buf;
    while (i < end && b[i] !== 0) i++;
    const s = b.toString('utf8', this.pos, i);
    this.pos = i < end ? i + 1 : i;
    return s;
  }
}
