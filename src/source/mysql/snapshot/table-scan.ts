/**
 * Streams one SELECT row by row over the text protocol (TextQueryCommand: the row packets' bytes, no mysql2 row
 * objects) and converts each row into the neutral `Row` in the table's column order. Rows are handed over one at a
 * time: while the consumer's promise is pending converted rows queue up to `highWaterMark`, then the connection
 * stops reading its socket and the server blocks on its write, so memory stays bounded however large the table is.
 */
import type { Connection } from 'mysql2/promise';
import { BLOB_TYPES, GEOMETRY_TYPES } from '../../../model/column-types.js';
import type { ColumnDef, TableDef } from '../../../model/table-def.js';
import type { Row } from '../../../model/values.js';
import { CONNECTION_LOST_ERRNOS, ER } from '../server-errors.js';
import { describeSqlError, SnapshotError, sqlError } from './errors.js';
import { quoteId, quoteTable } from './sql.js';
import { cellDecoder, type QueryConnectionInternals, type ResultField, TextQueryCommand } from './text-query.js';
import {
  type ByteConverter,
  byteConverterFor,
  MYSQL_TYPE_JSON,
  nativeJsonConverter,
  type RawValue,
  type TextConverter,
  textConverterFor,
} from './text-values.js';

/** Columns whose text-protocol value must stay bytes (decoding them as text would be lossy). */
const BYTE_TYPES = new Set([
  'binary',
  'varbinary',
  ...BLOB_TYPES,
  'bit',
  'json', // MySQL sends JSON with the binary charset; the converter decodes it as UTF-8
  ...GEOMETRY_TYPES,
  'vector',
]);

export function wantsBytes(col: ColumnDef): boolean {
  return BYTE_TYPES.has(col.dataType.toLowerCase()) || col.charset === 'binary';
}

/**
 * `SELECT <every column, in definition order> FROM db.t`: explicit so invisible columns are included. FLOAT is
 * selected widened to DOUBLE: the text protocol prints FLOAT with only 6 significant digits (3.4028234e38 →
 * "3.40282e38"), while the binlog carries the exact 32-bit value; the DOUBLE text is exact.
 */
export function defaultSelect(table: TableDef): string {
  if (table.columns.length === 0) return `SELECT * FROM ${quoteTable(table.database, table.name)}`;
  const cols = table.columns.map((c) => {
    const q = quoteId(c.name);
    return c.dataType.toLowerCase() === 'float' ? `${q} + 0e0 AS ${q}` : q;
  });
  return `SELECT ${cols.join(', ')} FROM ${quoteTable(table.database, table.name)}`;
}

const YIELD_EVERY_MS = 10;

/** The callback-API connection under a mysql2/promise one: its internals run commands (not in the typings). */
function connectionInternals(conn: Connection): QueryConnectionInternals {
  const inner = (conn as unknown as { connection?: QueryConnectionInternals }).connection;
  if (!inner || typeof inner.addCommand !== 'function' || typeof inner.pause !== 'function') {
    throw new SnapshotError('snapshot needs a mysql2/promise Connection (no underlying callback connection found)');
  }
  return inner;
}

export interface ScanStats {
  rows: number;
  /** Most rows decoded by the driver but not yet handed to the consumer at any moment. */
  peakBufferedRows: number;
  /** Result columns the SELECT did not return (only possible with an override); filled with null. */
  missingColumns: string[];
}

/** How one result column becomes a cell of the Row. */
interface Target {
  pos: number;
  conv: TextConverter;
  /** Bytes (a copy, so a queued row does not pin the network buffer) or text. */
  bytes: boolean;
  decode: (buf: Buffer, start: number, end: number) => string;
  /** `conv(decode(...))` straight from the bytes, for the types that have one (byteConverterFor). */
  fromBytes: ByteConverter | undefined;
}

/** How a result row's cells become a `Row` of the table (built from the result's field list). */
export interface RowLayout {
  /** Result column i → how it becomes a cell; null: not a column of the table. */
  readonly targets: ReadonlyArray<Target | null>;
  /** Table columns the result does not return (filled with null). */
  readonly missing: readonly ColumnDef[];
  readonly width: number;
}

export function rowLayout(table: TableDef, fields: ResultField[]): RowLayout {
  const byName = new Map(table.columns.map((c) => [c.name.toLowerCase(), c]));
  const seen = new Set<string>();
  const targets = fields.map((f): Target | null => {
    const col = byName.get(f.name.toLowerCase());
    if (!col) return null;
    seen.add(col.name);
    const json = f.columnType === MYSQL_TYPE_JSON;
    const conv = json ? nativeJsonConverter : textConverterFor(col);
    const bytes = wantsBytes(col);
    const decode = cellDecoder(f.characterSet);
    const fromBytes = json || bytes ? undefined : byteConverterFor(col, conv, decode);
    return { pos: col.position, conv, bytes, decode, fromBytes };
  });
  return { targets, missing: table.columns.filter((c) => !seen.has(c.name)), width: table.columns.length };
}

/**
 * Converts one row: result column i's bytes are `buf[cells[base + 2i], cells[base + 2i + 1])` (start -1: NULL).
 * Byte values are copied, so the row does not pin `buf`. Throws what a converter throws.
 */
export function convertRow(layout: RowLayout, buf: Buffer, cells: Int32Array, base: number): Row {
  const { targets, missing } = layout;
  const row: Row = new Array(layout.width);
  for (let i = 0; i < targets.length; i++) {
    const t = targets[i];
    if (t === null) continue;
    const start = cells[base + 2 * i];
    if (start >= 0 && t.fromBytes !== undefined) {
      row[t.pos] = t.fromBytes(buf, start, cells[base + 2 * i + 1]);
      continue;
    }
    let raw: RawValue;
    if (start < 0) raw = null;
    else if (t.bytes) raw = Buffer.from(buf.subarray(start, cells[base + 2 * i + 1]));
    else raw = t.decode(buf, start, cells[base + 2 * i + 1]);
    row[t.pos] = t.conv(raw);
  }
  for (const c of missing) row[c.position] = null;
  return row;
}

/** Raised inside the packet handler by a value that does not convert; rethrown by the scan loop. */
export class RowConversionError extends Error {}

export async function scanTable(
  conn: Connection,
  table: TableDef,
  sql: string,
  opts: { highWaterMark: number; signal?: AbortSignal; onRow: (row: Row) => Promise<void> },
): Promise<ScanStats> {
  const internals = connectionInternals(conn);
  const highWaterMark = Math.max(1, opts.highWaterMark);

  // Rows converted by the packet handler, waiting for the consumer (a FIFO with a moving head).
  let queue: Row[] = [];
  let head = 0;
  let ended = false;
  let failure: Error | null = null;
  let paused = false;
  /** Set once the scan stopped early: rows still arriving are dropped so the connection drains. */
  let discard = false;
  let wake: (() => void) | null = null;
  const signal = () => {
    const w = wake;
    wake = null;
    w?.();
  };

  let layout: RowLayout = { targets: [], missing: [], width: table.columns.length };
  let decoded = 0;
  const command = new TextQueryCommand(sql, {
    onFields: (fields: ResultField[]) => {
      layout = rowLayout(table, fields);
    },
    onRow: (buf, cells) => {
      if (discard || failure) return;
      let row: Row;
      try {
        row = convertRow(layout, buf, cells, 0);
      } catch (err) {
        failure = new RowConversionError((err as Error).message, { cause: err });
        signal();
        return;
      }
      decoded++;
      queue.push(row);
      if (!paused && queue.length - head >= highWaterMark) {
        // Stop reading the socket: the server blocks on its write until the consumer caught up.
        paused = true;
        internals.pause();
      }
      signal();
    },
    onEnd: () => {
      ended = true;
      signal();
    },
    onError: (err) => {
      if (!failure) failure = err;
      ended = true;
      signal();
    },
  });
  internals.addCommand(command);

  const stats: ScanStats = { rows: 0, peakBufferedRows: 0, missingColumns: [] };
  // Errors from the consumer (the emitter/sink) propagate untouched; only the read itself is wrapped.
  let inConsumer = false;
  let lastYield = performance.now();
  try {
    for (;;) {
      if (opts.signal?.aborted) throw opts.signal.reason;
      if (head === queue.length) {
        // Rows read before a failure are still handed over, in order.
        if (failure) throw failure;
        if (ended) break;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        continue;
      }
      if (decoded - stats.rows > stats.peakBufferedRows) stats.peakBufferedRows = decoded - stats.rows;
      const row = queue[head];
      queue[head++] = undefined as unknown as Row;
      if (head > 1024 && head * 2 > queue.length) {
        queue = queue.slice(head);
        head = 0;
      }
      if (paused && queue.length - head <= highWaterMark >> 1) {
        paused = false;
        internals.resume();
      }
      stats.rows++;
      // Buffered rows are consumed through microtasks only; yield now and then so timers (lease renewal,
      // heartbeats) and other sockets are served during long scans.
      if ((stats.rows & 255) === 0 && performance.now() - lastYield > YIELD_EVERY_MS) {
        await new Promise((r) => setImmediate(r));
        lastYield = performance.now();
      }
      inConsumer = true;
      await opts.onRow(row);
      inConsumer = false;
    }
  } catch (err) {
    if (inConsumer || opts.signal?.aborted) throw err;
    throw scanError(table, sql, err instanceof RowConversionError ? err.cause : err);
  } finally {
    if (!ended) {
      // Stopped early: let the rest of the result drain into nothing so the connection stays usable.
      discard = true;
      queue = [];
      head = 0;
    }
    if (paused) {
      paused = false;
      internals.resume();
    }
  }
  stats.missingColumns = layout.missing.map((c) => c.name);
  return stats;
}

export function scanError(table: TableDef, sql: string, err: unknown): SnapshotError {
  const e = sqlError(err);
  const name = `${table.database}.${table.name}`;
  if (e.errno === ER.TABLE_DEF_CHANGED) {
    return new SnapshotError(
      `${name} was altered while the snapshot read it (${describeSqlError(err)}). Restart the snapshot; ` +
        'snapshot.locking.mode=extended blocks DDL for the whole snapshot.',
      { cause: err, retriable: true },
    );
  }
  // No server errno: the connection broke (mysql2 PROTOCOL_CONNECTION_LOST, ECONNRESET, ...).
  const retriable = e.errno === undefined || CONNECTION_LOST_ERRNOS.has(e.errno);
  return new SnapshotError(`reading ${name} failed: ${describeSqlError(err)} (statement: ${sql.slice(0, 200)})`, {
    cause: err,
    retriable,
  });
}
