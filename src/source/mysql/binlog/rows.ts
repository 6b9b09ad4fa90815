/**
 * WRITE/UPDATE/DELETE rows events (v0/v1/v2), MySQL PARTIAL_UPDATE_ROWS and MariaDB compressed rows.
 * A `TableDecoder` is compiled once per TABLE_MAP: per-column closures plus the "all columns present" fast path.
 */

import type { CellValue, Row } from '../../../model/values.js';
import { ColumnType } from '../column-type.js';
import { ByteReader } from './byte-reader.js';
import { type ColumnDecoder, type ColumnHint, columnDecoder, columnSkipper } from './column-decoders.js';
import { BinlogDecodeError } from './errors.js';
import type { EventHeader, RowsEvent } from './events.js';
import { decodeJsonDiffs } from './json-binary.js';
import { mariadbUncompress } from './mariadb-compression.js';
import type { TableMapEvent } from './table-map.js';

export interface TableDecoder {
  table: TableMapEvent;
  decoders: ColumnDecoder[];
  /** Indexes of JSON columns (PARTIAL_UPDATE_ROWS has one partial bit per JSON column). */
  jsonColumns: number[];
  /** Columns left out by `include` (decoded as undefined), or null when all are wanted. */
  excluded: boolean[] | null;
}

export interface CompileOptions {
  hints?: Array<ColumnHint | undefined>;
  include?: (columnIndex: number) => boolean;
}

export function compileTableDecoder(table: TableMapEvent, opts: CompileOptions = {}): TableDecoder {
  const decoders: ColumnDecoder[] = new Array(table.columnCount);
  const jsonColumns: number[] = [];
  let excluded: boolean[] | null = null;
  for (const col of table.columns) {
    if (col.realType === ColumnType.JSON) jsonColumns.push(col.index);
    if (opts.include && !opts.include(col.index)) {
      excluded ??= new Array(table.columnCount).fill(false);
      excluded[col.index] = true;
      const skip = columnSkipper(col);
      decoders[col.index] = (r) => {
        skip(r);
        return undefined;
      };
    } else decoders[col.index] = columnDecoder(col, opts.hints?.[col.index]);
  }
  return { table, decoders, jsonColumns, excluded };
}

export type RowsKind = 'WRITE_ROWS' | 'UPDATE_ROWS' | 'DELETE_ROWS' | 'PARTIAL_UPDATE_ROWS';

/** Reads a columns-present bitmap into the list of present column indexes. */
function readPresent(r: ByteReader, width: number): { flags: boolean[]; indexes: number[] } {
  const bytes = Math.ceil(width / 8);
  // Checked before allocating: a corrupt column count must not size the arrays below.
  r.need(bytes, 'rows event column bitmap');
  const flags: boolean[] = new Array(width);
  const indexes: number[] = [];
  for (let i = 0; i < width; i++) {
    const on = (r.buf[r.pos + (i >> 3)] & (1 << (i & 7))) !== 0;
    flags[i] = on;
    if (on) indexes.push(i);
  }
  r.pos += bytes;
  return { flags, indexes };
}

function decodeImage(r: ByteReader, td: TableDecoder, width: number, present: number[]): Row {
  const n = present.length;
  const row: CellValue[] = new Array(width);
  if (n !== width) for (let i = 0; i < width; i++) row[i] = undefined;
  const buf = r.buf;
  const nullAt = r.pos;
  r.need((n + 7) >> 3, 'row image null bitmap');
  r.pos += (n + 7) >> 3;
  const decoders = td.decoders;
  const excluded = td.excluded;
  for (let k = 0; k < n; k++) {
    const i = present[k];
    if ((buf[nullAt + (k >> 3)] & (1 << (k & 7))) !== 0) row[i] = excluded?.[i] ? undefined : null;
    else row[i] = decoders[i](r);
  }
  if (!(r.pos <= r.end) || r.pos === nullAt) {
    throw new BinlogDecodeError(
      r.pos === nullAt
        ? `event at position ${r.eventPosition}: row image of ${td.table.database}.${td.table.table} at offset ${nullAt} has no columns and no bytes (corrupt columns-present bitmap)`
        : `event at position ${r.eventPosition}: row image of ${td.table.database}.${td.table.table} runs ${r.pos - r.end} bytes past the end of the event (table definition does not match the row data)`,
      r.eventPosition,
    );
  }
  return row;
}

/** PARTIAL_UPDATE_ROWS after-image: value_options, partial-JSON bitmap, then the usual image. */
function decodePartialAfterImage(r: ByteReader, td: TableDecoder, width: number, present: number[]): Row {
  const options = r.packed();
  let partialBits: Buffer | undefined;
  if (options & 1) partialBits = r.bytes((td.jsonColumns.length + 7) >> 3);
  if (!partialBits) return decodeImage(r, td, width, present);
  const partial = new Set<number>();
  td.jsonColumns.forEach((col, j) => {
    if (partialBits[j >> 3] & (1 << (j & 7))) partial.add(col);
  });
  const saved = td.decoders;
  const decoders = saved.slice();
  for (const col of partial) {
    const lenBytes = td.table.columns[col].meta;
    decoders[col] = (rr) => {
      if (lenBytes < 1 || lenBytes > 4) return saved[col](rr); // corrupt metadata: the regular decoder reports it
      rr.need(lenBytes, 'partial JSON length');
      const len = rr.buf.readUIntLE(rr.pos, lenBytes);
      const start = rr.pos + lenBytes;
      rr.need(lenBytes + len, 'partial JSON value');
      rr.pos = start + len;
      try {
        return decodeJsonDiffs(rr.buf, start, start + len);
      } catch (err) {
        const c = td.table.columns[col];
        throw new BinlogDecodeError(
          `partial JSON column ${c.name ?? `@${col + 1}`}: ${(err as Error).message} (value starts at event offset ${start})`,
          undefined,
          { cause: err },
        );
      }
    };
  }
  return decodeImage(r, { ...td, decoders }, width, present);
}

export function decodeRowsEvent(
  r: ByteReader,
  header: EventHeader,
  kind: RowsKind,
  version: 0 | 1 | 2,
  tableIdSize: number,
  compressed: boolean,
  lookup: (tableId: number) => TableDecoder | undefined,
): RowsEvent {
  r.need(tableIdSize + 2, 'rows event post-header');
  const tableId = tableIdSize === 6 ? r.u48() : r.u32();
  const flags = r.u16();
  let extraData: Buffer | undefined;
  if (version === 2) {
    const extraLen = r.u16();
    if (extraLen > 2) extraData = r.bytes(extraLen - 2);
  }
  const width = r.packed();
  const before = readPresent(r, width);
  const isUpdate = kind === 'UPDATE_ROWS' || kind === 'PARTIAL_UPDATE_ROWS';
  const after = isUpdate ? readPresent(r, width) : before;
  const td = lookup(tableId);
  if (!td) {
    throw new BinlogDecodeError(
      `event at position ${r.eventPosition}: rows event for table id ${tableId} without a preceding TABLE_MAP; start reading at a transaction boundary (a GTID/BEGIN event), not mid-transaction`,
      r.eventPosition,
    );
  }
  if (td.table.columnCount !== width) {
    throw new BinlogDecodeError(
      `event at position ${r.eventPosition}: rows event has ${width} columns but TABLE_MAP for ${td.table.database}.${td.table.table} has ${td.table.columnCount}`,
      r.eventPosition,
    );
  }
  if (compressed) {
    const data = mariadbUncompress(r.rest(), r.eventPosition);
    r = new ByteReader(data, 0, data.length, r.eventPosition);
  }
  const base = {
    header,
    tableId,
    table: td.table,
    flags,
    version,
    extraData,
    columnCount: width,
    columnsPresent: before.flags,
    compressed,
  };
  if (kind === 'WRITE_ROWS' || kind === 'DELETE_ROWS') {
    const rows: Row[] = [];
    while (r.pos < r.end) rows.push(decodeImage(r, td, width, before.indexes));
    return { type: kind, ...base, rows };
  }
  const rows: Array<{ before: Row; after: Row }> = [];
  while (r.pos < r.end) {
    const b = decodeImage(r, td, width, before.indexes);
    const a =
      kind === 'PARTIAL_UPDATE_ROWS'
        ? decodePartialAfterImage(r, td, width, after.indexes)
        : decodeImage(r, td, width, after.indexes);
    rows.push({ before: b, after: a });
  }
  return { type: kind, ...base, columnsPresentAfter: after.flags, rows };
}
