/**
 * WRITE/UPDATE/DELETE rows events (v0/v1/v2), MySQL PARTIAL_UPDATE_ROWS and MariaDB compressed rows.
 * A `TableDecoder` is compiled once per TABLE_MAP: per-column closures, and once the table is hot, a generated
 * decoder of the whole row image (every column present, the common case).
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
  /** The generated decoder of a whole row image (compileFullImage), once the table is hot; null before. */
  fullImage: FullImageDecoder | null;
  /** Whole row images the column loop still decodes before `fullImage` is compiled (0: never compiled). */
  untilCompiled: number;
}

/** Decodes a row image holding every column (its null bitmap at `nullAt`, the values after it at `r.pos`). */
type FullImageDecoder = (r: ByteReader, nullAt: number) => Row;

/**
 * Whole images a table's column loop decodes before its generated decoder is compiled: a table seen now and then
 * never pays for the compilation (new Function, then V8 optimising it), one streamed in bulk pays once.
 */
const HOT_IMAGES = 256;
/** Above this many columns the generated function grows past what V8 optimises well; the loop stays. */
const MAX_COMPILED_COLUMNS = 200;
/** Distinct source per decoder: closures of one source text would share type feedback across tables. */
let serial = 0;

/**
 * The column loop of decodeImage for a row image holding every column, as generated code: a loop calling
 * `decoders[i](r)` is one call site seeing every column's decoder, which V8 calls megamorphically and inlines none
 * of; here each column has a call site of its own that sees one decoder, so the optimiser inlines it. Cells are
 * read in column order, exactly as the loop reads them; only column indexes and bit masks go into the source.
 */
function compileFullImage(decoders: readonly ColumnDecoder[], excluded: readonly boolean[] | null): FullImageDecoder {
  const n = decoders.length;
  const consts: string[] = [];
  const cells: string[] = [];
  for (let i = 0; i < n; i++) {
    consts.push(`d${i} = D[${i}]`);
    cells.push(`(b[nullAt + ${i >> 3}] & ${1 << (i & 7)}) !== 0 ? ${excluded?.[i] ? 'undefined' : 'null'} : d${i}(r)`);
  }
  const source = `"use strict"; // full row image decoder ${++serial}
const ${consts.join(', ')};
return (r, nullAt) => {
  const b = r.buf;
  return [
    ${cells.join(',\n    ')},
  ];
};`;
  return new Function('D', source)(decoders.slice()) as FullImageDecoder;
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
  const untilCompiled = table.columnCount > 0 && table.columnCount <= MAX_COMPILED_COLUMNS ? HOT_IMAGES : 0;
  return { table, decoders, jsonColumns, excluded, fullImage: null, untilCompiled };
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
  const buf = r.buf;
  const nullAt = r.pos;
  r.need((n + 7) >> 3, 'row image null bitmap');
  r.pos += (n + 7) >> 3;
  let row: CellValue[];
  if (n === width && td.fullImage !== null) row = td.fullImage(r, nullAt);
  else {
    if (n === width && td.untilCompiled > 0 && --td.untilCompiled === 0)
      td.fullImage = compileFullImage(td.decoders, td.excluded);
    row = new Array(width);
    if (n !== width) for (let i = 0; i < width; i++) row[i] = undefined;
    const decoders = td.decoders;
    const excluded = td.excluded;
    for (let k = 0; k < n; k++) {
      const i = present[k];
      if ((buf[nullAt + (k >> 3)] & (1 << (k & 7))) !== 0) row[i] = excluded?.[i] ? undefined : null;
      else row[i] = decoders[i](r);
    }
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
  // Its own decoders for the partial columns: never the table's compiled decoder.
  return decodeImage(r, { ...td, decoders, fullImage: null, untilCompiled: 0 }, width, present);
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
