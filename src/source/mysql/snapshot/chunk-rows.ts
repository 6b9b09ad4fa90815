/**
 * One chunk of the chunked snapshot, read whole and kept as the row packets' bytes until it is emitted. The rows of
 * a chunk wait for the stream to reach the chunk's high watermark; kept as decoded `Row`s (a string or number per
 * cell), every chunk outlived several young-generation collections and was promoted, so the chunked snapshot spent
 * two to three times the consistent snapshot's GC time. As bytes, a chunk is a few large off-heap buffers; its rows
 * are converted one at a time as they are emitted, and die young like the consistent snapshot's.
 */
import type { Connection } from 'mysql2/promise';
import type { TableDef } from '../../../model/table-def.js';
import type { Row } from '../../../model/values.js';
import { SnapshotError } from './errors.js';
import { convertRow, type RowLayout, rowLayout, scanError } from './table-scan.js';
import { type QueryConnectionInternals, type ResultField, TextQueryCommand } from './text-query.js';

/** Bytes per arena block; a longer row gets a block of its own (not pooled). */
const BLOCK_BYTES = 1 << 20;
/** Free blocks an arena keeps for the next chunks (a chunk read ahead and one being emitted, per thread). */
const MAX_FREE_BLOCKS = 64;

/**
 * Memory for the chunks' bytes, reused chunk after chunk. Freshly allocated per chunk (or holding on to the
 * driver's socket buffers), the bytes outlive young-generation collections as well, and every chunk's few MB of
 * promoted buffers made V8 run a full mark-compact every few chunks (51 instead of 5 over 1M rows).
 */
export class ChunkArena {
  private readonly free: Buffer[] = [];
  private readonly freeIndexes: Int32Array[] = [];

  take(bytes: number): Buffer {
    if (bytes > BLOCK_BYTES) return Buffer.allocUnsafeSlow(bytes);
    return this.free.pop() ?? Buffer.allocUnsafeSlow(BLOCK_BYTES);
  }

  give(blocks: Buffer[]): void {
    for (const b of blocks) if (b.length === BLOCK_BYTES && this.free.length < MAX_FREE_BLOCKS) this.free.push(b);
  }

  /** An index of at least `length` entries (its contents are undefined). */
  takeIndex(length: number): Int32Array {
    const i = this.freeIndexes.findIndex((a) => a.length >= length);
    if (i >= 0) return this.freeIndexes.splice(i, 1)[0];
    return new Int32Array(length);
  }

  giveIndex(index: Int32Array): void {
    if (this.freeIndexes.length < 8) this.freeIndexes.push(index);
  }
}

/**
 * The rows of one chunk as bytes. `index[i * (stride + 1)]` is the block of row i, the `stride` entries after it the
 * start and end offsets of its cells in that block (-1: NULL).
 */
export class ChunkRows {
  private blocks: Buffer[] = [];
  private index: Int32Array;
  private used = 0;
  private count = 0;
  private total = 0;
  private cut = false;
  /** Entries per row in `index`. */
  private readonly width: number;

  constructor(
    private readonly table: TableDef,
    private readonly sql: string,
    private readonly layout: RowLayout,
    private readonly arena: ChunkArena,
    /** Rows expected (the chunk's LIMIT): the index is sized for them once. */
    expected: number,
    /** Rows after the one whose bytes reach this are left out (the first row is always kept). */
    private readonly maxBytes = Number.POSITIVE_INFINITY,
  ) {
    this.width = 2 * layout.targets.length + 1;
    this.index = arena.takeIndex(Math.max(1, expected) * this.width);
  }

  get length(): number {
    return this.count;
  }

  /** Rows after the first that reached `maxBytes` were left out: the chunk ends before its LIMIT. */
  get truncated(): boolean {
    return this.cut;
  }

  /** Bytes of the rows' values (as the server sent them). */
  get bytes(): number {
    return this.total;
  }

  /** Copies one row (cells as TextQueryCommand reports them, valid only during the call) into the chunk. */
  add(buf: Buffer, cells: Int32Array): void {
    const n = this.count;
    const stride = this.width - 1;
    // The cells are in packet order: one copy of the span from the first value to the last holds them all.
    let from = -1;
    let to = -1;
    for (let i = 0; i < stride; i += 2) {
      if (cells[i] < 0) continue;
      if (from < 0) from = cells[i];
      to = cells[i + 1];
    }
    const span = from < 0 ? 0 : to - from;
    if (this.cut) return;
    if (n > 0 && this.total >= this.maxBytes) {
      this.cut = true;
      return;
    }
    let block = this.blocks.length - 1;
    if (block < 0 || this.used + span > this.blocks[block].length) {
      this.blocks.push(this.arena.take(span));
      block++;
      this.used = 0;
    }
    if (span > 0) buf.copy(this.blocks[block], this.used, from, to);
    if ((n + 1) * this.width > this.index.length) this.grow();
    const index = this.index;
    const base = n * this.width + 1;
    index[base - 1] = block;
    const shift = this.used - from;
    for (let i = 0; i < stride; i += 2) {
      if (cells[i] < 0) {
        index[base + i] = -1;
        index[base + i + 1] = -1;
      } else {
        index[base + i] = cells[i] + shift;
        index[base + i + 1] = cells[i + 1] + shift;
      }
    }
    this.used += span;
    this.total += span;
    this.count = n + 1;
  }

  /** Hands the chunk's memory back to the arena; the rows are gone. */
  release(): void {
    this.arena.give(this.blocks);
    this.arena.giveIndex(this.index);
    this.blocks = [];
    this.index = new Int32Array(0);
    this.count = 0;
  }

  /** Row i, converted now (a value that does not convert: the SnapshotError the scan would have raised). */
  row(i: number): Row {
    try {
      const base = i * this.width;
      return convertRow(this.layout, this.blocks[this.index[base]], this.index, base + 1);
    } catch (err) {
      throw scanError(this.table, this.sql, err);
    }
  }

  /** More rows than expected (not with a LIMIT): a larger index. */
  private grow(): void {
    const index = new Int32Array(Math.max(this.width, this.index.length * 2));
    index.set(this.index);
    this.index = index;
  }
}

/** Runs the chunk's SELECT and returns its rows as bytes (the whole result: a chunk is bounded by its LIMIT). */
export function readChunkRows(
  conn: Connection,
  table: TableDef,
  sql: string,
  arena: ChunkArena,
  opts: { expected: number; maxBytes?: number; signal?: AbortSignal },
): Promise<ChunkRows> {
  const { expected, maxBytes, signal } = opts;
  const inner = (conn as unknown as { connection?: QueryConnectionInternals }).connection;
  if (!inner || typeof inner.addCommand !== 'function') {
    throw new SnapshotError('snapshot needs a mysql2/promise Connection (no underlying callback connection found)');
  }
  return new Promise((resolve, reject) => {
    let rows: ChunkRows | null = null;
    const onAbort = () => reject(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    const done = (err: unknown) => {
      signal?.removeEventListener('abort', onAbort);
      if (err) reject(scanError(table, sql, err));
      else resolve(rows ?? new ChunkRows(table, sql, rowLayout(table, []), arena, 0));
    };
    inner.addCommand(
      new TextQueryCommand(sql, {
        onFields: (fields: ResultField[]) => {
          rows = new ChunkRows(table, sql, rowLayout(table, fields), arena, expected, maxBytes);
        },
        onRow: (buf, cells) => rows?.add(buf, cells),
        onEnd: () => done(null),
        onError: (err) => done(err),
      }),
    );
  });
}
