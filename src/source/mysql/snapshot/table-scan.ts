/**
 * Streams one SELECT row by row over the text protocol and converts each row into the neutral `Row` in the
 * table's column order. Rows are pulled one at a time: while the consumer's promise is pending the stream buffer
 * fills to `highWaterMark` rows, then mysql2 pauses the socket and the server blocks on its write, so memory
 * stays bounded however large the table is.
 */
import type { Connection as CallbackConnection } from 'mysql2';
import type { Connection } from 'mysql2/promise';
import type { ColumnDef, TableDef } from '../../../model/table-def.js';
import type { Row } from '../../../model/values.js';
import { describeSqlError, SnapshotError, sqlError } from './errors.js';
import { quoteId, quoteTable } from './sql.js';
import {
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
  'tinyblob',
  'blob',
  'mediumblob',
  'longblob',
  'bit',
  'json', // MySQL sends JSON with the binary charset; the converter decodes it as UTF-8
  'geometry',
  'point',
  'linestring',
  'polygon',
  'multipoint',
  'multilinestring',
  'multipolygon',
  'geometrycollection',
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

const ER_TABLE_DEF_CHANGED = 1412;
const YIELD_EVERY_MS = 10;

/** The callback-API connection under a mysql2/promise one: only it offers query().stream() (not in the typings). */
function callbackConnection(conn: Connection): CallbackConnection {
  const inner = (conn as unknown as { connection?: CallbackConnection }).connection;
  if (!inner || typeof inner.query !== 'function') {
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

interface StreamField {
  name: string;
  string(): string | null;
  buffer(): Buffer | null;
}

export async function scanTable(
  conn: Connection,
  table: TableDef,
  sql: string,
  opts: { highWaterMark: number; signal?: AbortSignal; onRow: (row: Row) => Promise<void> },
): Promise<ScanStats> {
  const byName = new Map(table.columns.map((c) => [c.name.toLowerCase(), c]));
  const bytes = new Set(table.columns.filter(wantsBytes).map((c) => c.name.toLowerCase()));
  // typeCast runs per cell: decide per result column name once, not with a lower-casing per value.
  const asBytes = new Map<string, boolean>();
  const query = callbackConnection(conn).query({
    sql,
    rowsAsArray: true,
    typeCast: (field: StreamField) => {
      let b = asBytes.get(field.name);
      if (b === undefined) {
        b = bytes.has(field.name.toLowerCase());
        asBytes.set(field.name, b);
      }
      return b ? field.buffer() : field.string();
    },
  });
  const stream = query.stream({ highWaterMark: opts.highWaterMark });

  // Result column i → (table column position, converter); built from the result's field list.
  let targets: Array<{ pos: number; conv: TextConverter } | null> = [];
  let missing: ColumnDef[] = [];
  stream.on('fields', (fields: Array<{ name: string; columnType?: number }>) => {
    const seen = new Set<string>();
    targets = fields.map((f) => {
      const col = byName.get(f.name.toLowerCase());
      if (!col) return null;
      seen.add(col.name);
      const conv = f.columnType === MYSQL_TYPE_JSON ? nativeJsonConverter : textConverterFor(col);
      return { pos: col.position, conv };
    });
    missing = table.columns.filter((c) => !seen.has(c.name));
  });
  let decoded = 0;
  stream.on('result', () => {
    decoded++;
  });

  const stats: ScanStats = { rows: 0, peakBufferedRows: 0, missingColumns: [] };
  // Errors from the consumer (the emitter/sink) propagate untouched; only the read itself is wrapped.
  let inConsumer = false;
  let lastYield = performance.now();
  try {
    for await (const raw of stream as AsyncIterable<RawValue[]>) {
      if (opts.signal?.aborted) throw opts.signal.reason;
      if (decoded - stats.rows > stats.peakBufferedRows) stats.peakBufferedRows = decoded - stats.rows;
      const row: Row = new Array(table.columns.length);
      for (let i = 0; i < raw.length; i++) {
        const t = targets[i];
        if (t) row[t.pos] = t.conv(raw[i]);
      }
      for (const c of missing) row[c.position] = null;
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
    throw scanError(table, sql, err);
  }
  stats.missingColumns = missing.map((c) => c.name);
  return stats;
}

const LOST_CONNECTION = new Set([2006, 2013]);

function scanError(table: TableDef, sql: string, err: unknown): SnapshotError {
  const e = sqlError(err);
  const name = `${table.database}.${table.name}`;
  if (e.errno === ER_TABLE_DEF_CHANGED) {
    return new SnapshotError(
      `${name} was altered while the snapshot read it (${describeSqlError(err)}). Restart the snapshot; ` +
        'snapshot.locking.mode=extended blocks DDL for the whole snapshot.',
      { cause: err, retriable: true },
    );
  }
  // No server errno: the connection broke (mysql2 PROTOCOL_CONNECTION_LOST, ECONNRESET, ...).
  const retriable = e.errno === undefined || LOST_CONNECTION.has(e.errno);
  return new SnapshotError(`reading ${name} failed: ${describeSqlError(err)} (statement: ${sql.slice(0, 200)})`, {
    cause: err,
    retriable,
  });
}
