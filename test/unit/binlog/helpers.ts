/** Test helpers: locate the shared binlog fixtures and build events byte by byte. */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32 } from 'node:zlib';
import { BinlogDecoder, type BinlogEvent } from '../../../src/source/mysql/binlog/decoder.js';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** The shared fixtures directory; fails loudly when missing (never skips). */
export function fixturesDir(): string {
  const dir = path.resolve(repoRoot, '../shared/fixtures/binlog');
  if (!existsSync(dir)) {
    throw new Error(
      `binlog fixtures not found at ${dir}: the tests need the shared fixtures checked out next to the repository (../shared/fixtures/binlog)`,
    );
  }
  return dir;
}

export function fixture(rel: string): string {
  const p = path.join(fixturesDir(), rel);
  if (!existsSync(p)) throw new Error(`binlog fixture missing: ${p}`);
  return p;
}

/** Decodes a whole binlog file in memory by walking v4 headers. */
export function decodeAll(
  file: string,
  decoder = new BinlogDecoder(),
): Array<{ position: number; event: BinlogEvent }> {
  const buf = readFileSync(file);
  const out: Array<{ position: number; event: BinlogEvent }> = [];
  for (let p = 4; p < buf.length; ) {
    const size = buf.readUInt32LE(p + 9);
    out.push({ position: p, event: decoder.decode(buf.subarray(p, p + size), p) });
    p += size;
  }
  return out;
}

export interface BuildOptions {
  crc?: boolean;
  flags?: number;
  position?: number;
  serverId?: number;
  timestamp?: number;
}

/** A whole v4 event: 19-byte header + body (+ CRC32 footer). */
export function buildEvent(typeCode: number, body: Buffer | number[], opts: BuildOptions = {}): Buffer {
  const b = Buffer.isBuffer(body) ? body : Buffer.from(body);
  const size = 19 + b.length + (opts.crc ? 4 : 0);
  const h = Buffer.alloc(19);
  h.writeUInt32LE(opts.timestamp ?? 1700000000, 0);
  h[4] = typeCode;
  h.writeUInt32LE(opts.serverId ?? 1, 5);
  h.writeUInt32LE(size, 9);
  h.writeUInt32LE((opts.position ?? 4) + size, 13);
  h.writeUInt16LE(opts.flags ?? 0, 17);
  const ev = Buffer.concat([h, b]);
  if (!opts.crc) return ev;
  const c = Buffer.alloc(4);
  c.writeUInt32LE(crc32(ev) >>> 0, 0);
  return Buffer.concat([ev, c]);
}

/** Packed (length-encoded) integer. */
export function packed(n: number): number[] {
  if (n < 251) return [n];
  if (n < 0x10000) return [0xfc, n & 0xff, n >> 8];
  return [0xfd, n & 0xff, (n >> 8) & 0xff, n >> 16];
}

export function u16(n: number): number[] {
  return [n & 0xff, (n >> 8) & 0xff];
}
export function u32(n: number): number[] {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0, 0);
  return [...b];
}
export function u48(n: number): number[] {
  const b = Buffer.alloc(6);
  b.writeUIntLE(n, 0, 6);
  return [...b];
}
export function u64(n: bigint | number): number[] {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(n), 0);
  return [...b];
}
export function str(s: string): number[] {
  return [...Buffer.from(s, 'utf8')];
}

export interface ColSpec {
  type: number;
  meta?: number[];
}

/** TABLE_MAP body (6-byte table id) with optional metadata TLVs. */
export function tableMapBody(
  tableId: number,
  db: string,
  table: string,
  cols: ColSpec[],
  optional: Array<[number, number[]]> = [],
): number[] {
  const meta = cols.flatMap((c) => c.meta ?? []);
  const nullBits = new Array((cols.length + 7) >> 3).fill(0xff);
  return [
    ...u48(tableId),
    ...u16(1),
    db.length,
    ...str(db),
    0,
    table.length,
    ...str(table),
    0,
    ...packed(cols.length),
    ...cols.map((c) => c.type),
    ...packed(meta.length),
    ...meta,
    ...nullBits,
    ...optional.flatMap(([t, v]) => [t, ...packed(v.length), ...v]),
  ];
}

/** Rows event v2 body for `width` columns, all present, with the given raw row images. */
export function rowsV2Body(
  tableId: number,
  width: number,
  images: number[][],
  opts: { update?: boolean } = {},
): number[] {
  const bitmap = new Array((width + 7) >> 3).fill(0xff);
  return [
    ...u48(tableId),
    ...u16(1),
    ...u16(2),
    ...packed(width),
    ...bitmap,
    ...(opts.update ? bitmap : []),
    ...images.flat(),
  ];
}

/** mysql::serialization unsigned varlen integer (libs/mysql/serialization/readme.md), for values < 2^53. */
export function varlen(n: number): number[] {
  const bits = n === 0 ? 0 : Math.floor(Math.log2(n)) + 1;
  const bytes = bits === 0 ? 1 : 1 + Math.floor((bits - 1) / 7); // 7 value bits per byte
  if (bytes > 7) throw new Error('test helper: value too large');
  const v = n * 2 ** bytes + (2 ** (bytes - 1) - 1);
  const out: number[] = [];
  for (let i = 0, x = v; i < bytes; i++, x = Math.floor(x / 256)) out.push(x % 256);
  return out;
}

/** Minimal GTID_TAGGED_LOG_EVENT body: flags, uuid, gno, tag (the fields a transaction start needs). */
export function taggedGtidBody(uuidHex: string, tag: string, gno: number): number[] {
  const fields = [
    ...[0, ...varlen(1)],
    ...[1 << 1, ...[...Buffer.from(uuidHex.replace(/-/g, ''), 'hex')].flatMap((b) => varlen(b))],
    ...[2 << 1, ...varlen(gno * 2)],
    ...[3 << 1, ...varlen(tag.length), ...str(tag)],
  ];
  const size = 3 + fields.length;
  if (size >= 128) throw new Error('test helper: message too long for a one-byte size');
  return [...varlen(1), ...varlen(size), ...varlen(0), ...fields];
}
