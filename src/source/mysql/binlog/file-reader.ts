/**
 * Reads binlog files from disk: streams (never loads a whole file), checks the magic, reassembles events
 * across read chunks and decodes them with a BinlogDecoder. A truncated or corrupt file yields every event
 * that decoded, then throws a BinlogDecodeError naming the byte position and the reason.
 */
import { createReadStream } from 'node:fs';
import { open, readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { BinlogDecoder, type BinlogDecoderOptions } from './decoder.js';
import { BinlogDecodeError } from './errors.js';
import { HEADER_LENGTH } from './event-types.js';
import type { BinlogEvent } from './events.js';

export const BINLOG_MAGIC = Buffer.from([0xfe, 0x62, 0x69, 0x6e]);

export interface BinlogFileEntry {
  /** Byte offset of the event in its file. */
  position: number;
  event: BinlogEvent;
  /** The event's bytes, when `includeRaw` was set. */
  raw?: Buffer;
  /** File name (basename), set by readBinlogDirectory. */
  file?: string;
}

export interface ReadBinlogOptions {
  /** First event to yield (default 4). The FORMAT_DESCRIPTION at 4 is still read and applied. */
  startPosition?: number;
  /** Reuse a decoder (e.g. to keep state across files); otherwise one is created from `decoderOptions`. */
  decoder?: BinlogDecoder;
  decoderOptions?: BinlogDecoderOptions;
  includeRaw?: boolean;
  /** Read chunk size (default 256 KiB). */
  highWaterMark?: number;
}

async function readMagicAndFde(path: string, decoder: BinlogDecoder): Promise<number> {
  const fh = await open(path, 'r');
  try {
    const head = Buffer.alloc(4 + HEADER_LENGTH);
    const { bytesRead } = await fh.read(head, 0, head.length, 0);
    checkMagic(head.subarray(0, bytesRead), path);
    if (bytesRead < head.length) {
      throw new BinlogDecodeError(`${path}: truncated event header at position 4 (file ends at ${bytesRead})`, 4);
    }
    const size = head.readUInt32LE(4 + 9);
    const ev = Buffer.alloc(size);
    const r = await fh.read(ev, 0, size, 4);
    if (r.bytesRead < size) {
      throw new BinlogDecodeError(
        `${path}: truncated event at position 4: header says ${size} bytes, file has ${r.bytesRead}`,
        4,
      );
    }
    decoder.decode(ev, 4);
    return 4 + size;
  } finally {
    await fh.close();
  }
}

function checkMagic(head: Buffer, path: string): void {
  if (head.length < 4 || !head.subarray(0, 4).equals(BINLOG_MAGIC)) {
    throw new BinlogDecodeError(
      `${path}: not a binlog file: expected magic fe 62 69 6e at position 0, found ${head.subarray(0, 4).toString('hex') || 'nothing'}`,
      0,
    );
  }
}

export async function* readBinlogFile(path: string, opts: ReadBinlogOptions = {}): AsyncGenerator<BinlogFileEntry> {
  const decoder = opts.decoder ?? new BinlogDecoder(opts.decoderOptions);
  const start = opts.startPosition ?? 4;
  if (start < 4)
    throw new BinlogDecodeError(`${path}: start position ${start} is inside the magic header (minimum 4)`, start);
  if (start > 4) {
    const fdeEnd = await readMagicAndFde(path, decoder);
    if (start < fdeEnd) {
      throw new BinlogDecodeError(
        `${path}: start position ${start} is inside the FORMAT_DESCRIPTION event (4..${fdeEnd}); use 4 or an event boundary`,
        start,
      );
    }
  }
  const stream = createReadStream(path, { start: start > 4 ? start : 0, highWaterMark: opts.highWaterMark ?? 262144 });
  let pending: Buffer | null = null;
  let offset = start > 4 ? start : 0; // file offset of pending[0]
  let magicChecked = start > 4;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let buf: Buffer = pending ? Buffer.concat([pending, chunk]) : chunk;
      if (!magicChecked) {
        if (buf.length < 4) {
          pending = buf;
          continue;
        }
        checkMagic(buf, path);
        magicChecked = true;
        buf = buf.subarray(4);
        offset = 4;
      }
      let p = 0;
      while (buf.length - p >= HEADER_LENGTH) {
        const size = buf.readUInt32LE(p + 9);
        if (size < HEADER_LENGTH) {
          throw new BinlogDecodeError(
            `${path}: corrupt event header at position ${offset + p}: event size ${size} is smaller than the 19-byte header`,
            offset + p,
          );
        }
        if (buf.length - p < size) break;
        const raw = buf.subarray(p, p + size);
        const event = decoder.decode(raw, offset + p);
        yield opts.includeRaw ? { position: offset + p, event, raw } : { position: offset + p, event };
        p += size;
      }
      // Copy the leftover so the chunk it came from can be released.
      pending = p < buf.length ? Buffer.from(buf.subarray(p)) : null;
      offset += p;
    }
  } finally {
    stream.destroy();
  }
  if (!magicChecked) checkMagic(pending ?? Buffer.alloc(0), path);
  if (pending && pending.length > 0) {
    const reason =
      pending.length < HEADER_LENGTH
        ? `only ${pending.length} bytes remain, less than an event header`
        : `header says ${pending.readUInt32LE(9)} bytes but only ${pending.length} remain`;
    throw new BinlogDecodeError(`${path}: truncated event at position ${offset}: ${reason}`, offset);
  }
}

/** Binlog files of a directory in index order: the `*.index` file when present, else sorted names with the magic. */
export async function listBinlogFiles(dir: string): Promise<string[]> {
  const names = (await readdir(dir)).sort();
  const index = names.find((n) => n.endsWith('.index'));
  if (index) {
    const text = await readFile(join(dir, index), 'utf8');
    return text
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter((l) => l.length > 0)
      .map((l) => join(dir, basename(l)));
  }
  const files: string[] = [];
  for (const n of names) {
    const p = join(dir, n);
    const st = await stat(p);
    if (!st.isFile() || st.size < 4) continue;
    const fh = await open(p, 'r');
    try {
      const head = Buffer.alloc(4);
      await fh.read(head, 0, 4, 0);
      if (head.equals(BINLOG_MAGIC)) files.push(p);
    } finally {
      await fh.close();
    }
  }
  return files;
}

export interface ReadBinlogDirectoryOptions extends ReadBinlogOptions {
  /** Basename of the file to start in (default: the first); `startPosition` applies to that file only. */
  startFile?: string;
}

export async function* readBinlogDirectory(
  dir: string,
  opts: ReadBinlogDirectoryOptions = {},
): AsyncGenerator<BinlogFileEntry> {
  const files = await listBinlogFiles(dir);
  let started = opts.startFile === undefined;
  for (const path of files) {
    const file = basename(path);
    if (!started) {
      if (file !== opts.startFile) continue;
      started = true;
    }
    const isFirst = opts.startFile === undefined ? path === files[0] : file === opts.startFile;
    const fileOpts: ReadBinlogOptions = { ...opts, startPosition: isFirst ? opts.startPosition : 4 };
    for await (const entry of readBinlogFile(path, fileOpts)) {
      entry.file = file;
      yield entry;
    }
  }
  if (!started) throw new BinlogDecodeError(`${dir}: start file ${opts.startFile} is not among the binlog files`, 0);
}
