/**
 * Mutation fuzzing of the decoder on the real fixture binlogs (deterministic seed, a few seconds at most): bit
 * flips, overwritten bytes and length fields, corrupt packed integers, random type codes, wrong event sizes and
 * truncation. Decoding must either succeed or throw one of our typed errors naming the position — never an
 * untyped error, a hang or a runaway allocation.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { CdcError } from '../../../src/common/errors.js';
import { BinlogDecodeError, BinlogDecoder } from '../../../src/source/mysql/binlog/decoder.js';
import { readBinlogFile } from '../../../src/source/mysql/binlog/file-reader.js';
import { fixturesDir } from './helpers.js';

/** Every fixture binlog (all files with the v4 magic). */
function fixtureFiles(): Array<{ name: string; bytes: Buffer }> {
  const out: Array<{ name: string; bytes: Buffer }> = [];
  const root = fixturesDir();
  for (const dir of readdirSync(root)) {
    const d = path.join(root, dir);
    if (!statSync(d).isDirectory()) continue;
    for (const f of readdirSync(d)) {
      const bytes = readFileSync(path.join(d, f));
      if (bytes.length > 4 && bytes.readUInt32BE(0) === 0xfe62696e) out.push({ name: `${dir}/${f}`, bytes });
    }
  }
  return out;
}

/** Event boundaries by walking v4 headers. */
function boundaries(buf: Buffer): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let p = 4; p + 19 <= buf.length; ) {
    const size = buf.readUInt32LE(p + 9);
    if (size < 19 || p + size > buf.length) break;
    out.push([p, size]);
    p += size;
  }
  return out;
}

/** Small deterministic PRNG (mulberry32). */
function prng(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

const INTERESTING_U32 = [0, 1, 0xff, 0xffff, 0x10000, 0x7fffffff, 0xffffffff];
const INTERESTING_U8 = [0, 1, 0x7f, 0x80, 0xfb, 0xfc, 0xfd, 0xfe, 0xff];

/** Mutates one event of a copy of `file` (the FDE one time in ten); returns the copy and what was done. */
function mutate(file: Buffer, events: Array<[number, number]>, rnd: (n: number) => number): [Buffer, string] {
  const buf = Buffer.from(file);
  const [p, size] = rnd(10) === 0 ? events[0] : events[1 + rnd(events.length - 1)];
  const body = Math.max(1, size - 19);
  const at = () => p + 19 + rnd(body);
  switch (rnd(8)) {
    case 7: {
      // Zeroed bytes: e.g. an empty columns-present bitmap (a row image of no bytes must not loop forever).
      const o = at();
      const n = 1 + rnd(4);
      buf.fill(0, o, Math.min(o + n, p + size));
      return [buf, `${n} zero bytes @${o} of event @${p}`];
    }
    case 0: {
      const n = 1 + rnd(4);
      for (let i = 0; i < n; i++) buf[at()] ^= 1 << rnd(8);
      return [buf, `${n} bit flips in event @${p}`];
    }
    case 1: {
      const o = at();
      buf[o] = INTERESTING_U8[rnd(INTERESTING_U8.length)];
      return [buf, `byte @${o} of event @${p}`];
    }
    case 2: {
      const o = at();
      if (o + 4 <= p + size) buf.writeUInt32LE(INTERESTING_U32[rnd(INTERESTING_U32.length)], o);
      return [buf, `u32 length field @${o} of event @${p}`];
    }
    case 3: {
      // A packed integer claiming 2^56: lengths and column counts must be sanity-checked before allocating.
      const o = at();
      Buffer.from([0xfe, 0, 0, 0, 0, 0, 0, 1, 0]).copy(buf, o, 0, Math.min(9, p + size - o));
      return [buf, `huge packed integer @${o} of event @${p}`];
    }
    case 4:
      buf[p + 4] = rnd(256);
      return [buf, `type code ${buf[p + 4]} for event @${p}`];
    case 5:
      buf.writeUInt32LE(19 + rnd(size + 64), p + 9);
      return [buf, `event size ${buf.readUInt32LE(p + 9)} for event @${p}`];
    default: {
      const cut = 4 + rnd(file.length - 4);
      return [buf.subarray(0, cut), `truncated at ${cut}`];
    }
  }
}

/** Decodes a (mutated) file in memory the way the file reader walks it. */
function decodeFile(buf: Buffer, verifyChecksum: boolean): void {
  const decoder = new BinlogDecoder({ verifyChecksum });
  for (let p = 4; p + 19 <= buf.length; ) {
    const size = buf.readUInt32LE(p + 9);
    if (size < 19) {
      throw new BinlogDecodeError(`corrupt event header at position ${p}: size ${size}`, p);
    }
    decoder.decode(buf.subarray(p, p + size), p);
    p += size;
  }
}

/**
 * A RangeError/TypeError wrapped as "malformed event" (or as a JSON column error) means a read the decoder did
 * not bounds-check, or a runaway recursion. Exempt: the zstd library's own failures.
 */
function internalCause(err: CdcError): boolean {
  if (!(err.cause instanceof RangeError || err.cause instanceof TypeError)) return false;
  return !/zstd decompression failed/.test(err.message);
}

const ITERATIONS_PER_FILE = 200;

describe('binlog decoder fuzzing (mutated real fixtures)', () => {
  it('every mutation decodes or fails with a typed, positioned error; no hang', () => {
    const files = fixtureFiles();
    assert.ok(files.length >= 10, 'fixture binlogs found');
    const rnd = prng(0x5eed);
    const failures: string[] = [];
    let typed = 0;
    let ok = 0;
    let slowest = 0;
    for (const { name, bytes } of files) {
      const events = boundaries(bytes);
      if (events.length < 2) continue;
      for (let i = 0; i < ITERATIONS_PER_FILE; i++) {
        const [buf, what] = mutate(bytes, events, rnd);
        const started = performance.now();
        try {
          decodeFile(buf, rnd(2) === 0);
          ok++;
        } catch (err) {
          if (!(err instanceof CdcError)) failures.push(`${name}, ${what}: untyped ${(err as Error).stack}`);
          else if (!/position \d+/.test(err.message))
            failures.push(`${name}, ${what}: no position in "${err.message}"`);
          else if (internalCause(err)) failures.push(`${name}, ${what}: unchecked read: ${err.message}`);
          else typed++;
        }
        const ms = performance.now() - started;
        slowest = Math.max(slowest, ms);
        if (ms > 500) failures.push(`${name}, ${what}: took ${Math.round(ms)} ms`);
      }
    }
    assert.deepEqual(failures, []);
    assert.ok(typed > 0 && ok > 0, `both outcomes occur (ok ${ok}, typed errors ${typed})`);
  });

  it('binary JSON values: mutations inside the row events of the JSON fixture fail typed, never unchecked', () => {
    const bytes = readFileSync(path.join(fixturesDir(), 'rust_mysql_common/json.binlog.000001'));
    // Row events (WRITE/UPDATE/DELETE_ROWS v2, PARTIAL_UPDATE_ROWS): where the JSON values are.
    const rowEvents = boundaries(bytes).filter(([p]) => [30, 31, 32, 39].includes(bytes[p + 4]));
    assert.ok(rowEvents.length > 0, 'row events found');
    const rnd = prng(0x150);
    const failures: string[] = [];
    let jsonErrors = 0;
    for (let i = 0; i < 3000; i++) {
      const buf = Buffer.from(bytes);
      const [p, size] = rowEvents[rnd(rowEvents.length)];
      const o = p + 19 + rnd(size - 19 - 4); // not the checksum
      const what = `mutation ${i} @${o} of event @${p}`;
      switch (rnd(3)) {
        case 0:
          buf[o] ^= 1 << rnd(8);
          break;
        case 1:
          buf[o] = INTERESTING_U8[rnd(INTERESTING_U8.length)];
          break;
        default:
          if (o + 2 <= p + size - 4) buf.writeUInt16LE([0, 1, 2, 4, 0x7fff, 0xffff][rnd(6)], o);
      }
      try {
        decodeFile(buf, false);
      } catch (err) {
        if (!(err instanceof CdcError)) failures.push(`${what}: untyped ${(err as Error).stack}`);
        else if (!/position \d+/.test(err.message)) failures.push(`${what}: no position in "${err.message}"`);
        else if (internalCause(err)) failures.push(`${what}: unchecked read: ${err.message}`);
        else if (/JSON/.test(err.message)) jsonErrors++;
      }
    }
    assert.deepEqual(failures, []);
    assert.ok(jsonErrors > 0, 'some mutations hit the JSON decoder');
  });

  it('readBinlogFile on a truncated file yields every complete event, then a typed error naming the position', async () => {
    const bytes = readFileSync(path.join(fixturesDir(), 'mysql-binlog-connector-java/mysql-bin.checksum-crc32'));
    const events = boundaries(bytes);
    const dir = await mkdtemp(path.join(tmpdir(), 'cdc-fuzz-'));
    try {
      const rnd = prng(42);
      for (let i = 0; i < 8; i++) {
        // Cut inside a random event (not at a boundary).
        const [p, size] = events[1 + rnd(events.length - 1)];
        const cut = p + 1 + rnd(size - 1);
        const file = path.join(dir, `cut-${cut}`);
        writeFileSync(file, bytes.subarray(0, cut));
        const seen: number[] = [];
        let error: unknown;
        try {
          for await (const e of readBinlogFile(file, { highWaterMark: 1 + rnd(4096) })) seen.push(e.position);
        } catch (err) {
          error = err;
        }
        assert.deepEqual(
          seen,
          events.filter(([q]) => q < p).map(([q]) => q),
          `cut at ${cut}: all events before it`,
        );
        assert.ok(error instanceof BinlogDecodeError, `cut at ${cut}: typed error, got ${String(error)}`);
        assert.equal(error.position, p);
        assert.match(error.message, new RegExp(`truncated event at position ${p}\\b`));
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
