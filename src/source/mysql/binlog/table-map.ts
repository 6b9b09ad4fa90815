/**
 * TABLE_MAP_EVENT: maps a table id to database/table and column types + metadata, including MySQL 8 /
 * MariaDB 10.5 optional metadata (binlog_row_metadata=MINIMAL|FULL).
 */
import { ColumnType } from '../column-type.js';
import type { ByteReader } from './byte-reader.js';
import { charsetOfCollation } from './charsets.js';
import type { EventHeader } from './events.js';

export interface ColumnInfo {
  index: number;
  /** Type code as written in the TABLE_MAP. */
  type: number;
  /** The real type: for STRING columns the type packed in the metadata (ENUM, SET or STRING); else `type`. */
  realType: number;
  /** Raw metadata as MySQL composes it (0 when the type has none). */
  meta: number;
  nullable: boolean;
  name?: string;
  /** From SIGNEDNESS metadata (numeric columns only). */
  unsigned?: boolean;
  /** Collation id, from (ENUM_AND_SET_)DEFAULT_CHARSET / COLUMN_CHARSET metadata. */
  collation?: number;
  /** Character set name derived from `collation`. */
  charset?: string;
  enumValues?: string[];
  setValues?: string[];
  geometryType?: number;
  /** From COLUMN_VISIBILITY metadata (false for INVISIBLE columns). */
  visible?: boolean;
  vectorDimensions?: number;
}

export interface TableMapEvent {
  type: 'TABLE_MAP';
  header: EventHeader;
  tableId: number;
  flags: number;
  database: string;
  table: string;
  columnCount: number;
  columns: ColumnInfo[];
  /** Primary key columns from SIMPLE_PRIMARY_KEY / PRIMARY_KEY_WITH_PREFIX (prefix 0 = whole column). */
  primaryKey?: Array<{ column: number; prefix: number }>;
  /** Which optional metadata field types were present (for diagnostics). */
  optionalMetadataFields: number[];
  /**
   * True for the pre-GA 5.1 layout that ends after the column types (no metadata block, no null bitmap): column
   * metadata is unknown, so row events for this table cannot be decoded.
   */
  noColumnMetadata?: boolean;
}

const OptionalMeta = {
  SIGNEDNESS: 1,
  DEFAULT_CHARSET: 2,
  COLUMN_CHARSET: 3,
  COLUMN_NAME: 4,
  SET_STR_VALUE: 5,
  ENUM_STR_VALUE: 6,
  GEOMETRY_TYPE: 7,
  SIMPLE_PRIMARY_KEY: 8,
  PRIMARY_KEY_WITH_PREFIX: 9,
  ENUM_AND_SET_DEFAULT_CHARSET: 10,
  ENUM_AND_SET_COLUMN_CHARSET: 11,
  COLUMN_VISIBILITY: 12,
  VECTOR_DIMENSIONALITY: 13,
} as const;

/** Reads the per-column metadata block entry for `type`. */
function readColumnMeta(r: ByteReader, type: number): number {
  switch (type) {
    case ColumnType.FLOAT:
    case ColumnType.DOUBLE:
    case ColumnType.BLOB:
    case ColumnType.TINY_BLOB:
    case ColumnType.MEDIUM_BLOB:
    case ColumnType.LONG_BLOB:
    case ColumnType.GEOMETRY:
    case ColumnType.JSON:
    case ColumnType.VECTOR:
    case ColumnType.TIME2:
    case ColumnType.DATETIME2:
    case ColumnType.TIMESTAMP2:
      return r.u8();
    case ColumnType.VARCHAR:
    case ColumnType.VAR_STRING:
    case ColumnType.BIT:
      return r.u16();
    case ColumnType.NEWDECIMAL:
    case ColumnType.STRING:
    case ColumnType.ENUM:
    case ColumnType.SET: {
      const hi = r.u8();
      return (hi << 8) | r.u8();
    }
    default:
      return 0;
  }
}

/** STRING packs the real type (ENUM/SET/STRING) into the first metadata byte. */
function realTypeOf(type: number, meta: number): number {
  if (type !== ColumnType.STRING) return type;
  const b0 = meta >> 8;
  if (b0 === 0) return type;
  return (b0 & 0x30) !== 0x30 ? b0 | 0x30 : b0;
}

function isNumeric(t: number): boolean {
  return (
    t === ColumnType.TINY ||
    t === ColumnType.SHORT ||
    t === ColumnType.INT24 ||
    t === ColumnType.LONG ||
    t === ColumnType.LONGLONG ||
    t === ColumnType.NEWDECIMAL ||
    t === ColumnType.FLOAT ||
    t === ColumnType.DOUBLE
  );
}
function isCharacter(c: ColumnInfo): boolean {
  const t = c.realType;
  return (
    t === ColumnType.STRING ||
    t === ColumnType.VAR_STRING ||
    t === ColumnType.VARCHAR ||
    t === ColumnType.BLOB ||
    t === ColumnType.TINY_BLOB ||
    t === ColumnType.MEDIUM_BLOB ||
    t === ColumnType.LONG_BLOB
  );
}
function isEnumOrSet(c: ColumnInfo): boolean {
  return c.realType === ColumnType.ENUM || c.realType === ColumnType.SET;
}

/**
 * Decodes a TABLE_MAP body; `r` is positioned after the common header, `tableIdSize` is 6 (or 4 for 5.0).
 * `mariadb`: the binlog is MariaDB's, whose SIGNEDNESS bitmap also has a bit for YEAR columns.
 */
export function decodeTableMap(
  r: ByteReader,
  header: EventHeader,
  tableIdSize: number,
  mariadb = false,
): TableMapEvent {
  r.need(tableIdSize + 2, 'TABLE_MAP post-header');
  const tableId = tableIdSize === 6 ? r.u48() : r.u32();
  const flags = r.u16();
  const dbLen = r.u8();
  const database = r.utf8(dbLen);
  r.skip(1);
  const tblLen = r.u8();
  const table = r.utf8(tblLen);
  r.skip(1);
  const columnCount = r.packed();
  r.need(columnCount, 'TABLE_MAP column types');
  const columns: ColumnInfo[] = new Array(columnCount);
  const typesAt = r.pos;
  r.skip(columnCount);
  if (r.remaining === 0) {
    // Pre-GA 5.1 TABLE_MAP (e.g. the 5.1/5.2 "a_drop" builds): no metadata block and no null bitmap follow.
    for (let i = 0; i < columnCount; i++) {
      const type = r.buf[typesAt + i];
      columns[i] = { index: i, type, realType: type, meta: 0, nullable: true };
    }
    return {
      type: 'TABLE_MAP',
      header,
      tableId,
      flags,
      database,
      table,
      columnCount,
      columns,
      optionalMetadataFields: [],
      noColumnMetadata: true,
    };
  }
  const metaLen = r.packed();
  r.need(metaLen, 'TABLE_MAP metadata block');
  const metaEnd = r.pos + metaLen;
  for (let i = 0; i < columnCount; i++) {
    const type = r.buf[typesAt + i];
    const meta = readColumnMeta(r, type);
    columns[i] = { index: i, type, realType: realTypeOf(type, meta), meta, nullable: false };
  }
  r.pos = metaEnd;
  const nullBytes = (columnCount + 7) >> 3;
  r.need(nullBytes, 'TABLE_MAP null bitmap');
  for (let i = 0; i < columnCount; i++) columns[i].nullable = (r.buf[r.pos + (i >> 3)] & (1 << (i & 7))) !== 0;
  r.skip(nullBytes);

  const ev: TableMapEvent = {
    type: 'TABLE_MAP',
    header,
    tableId,
    flags,
    database,
    table,
    columnCount,
    columns,
    optionalMetadataFields: [],
  };
  while (r.remaining > 0) {
    const fieldType = r.u8();
    const len = r.packed();
    r.need(len, `TABLE_MAP optional metadata field ${fieldType}`);
    const end = r.pos + len;
    ev.optionalMetadataFields.push(fieldType);
    readOptionalField(r, end, fieldType, ev, mariadb);
    r.pos = end;
  }
  return ev;
}

function readOptionalField(r: ByteReader, end: number, fieldType: number, ev: TableMapEvent, mariadb: boolean): void {
  const cols = ev.columns;
  switch (fieldType) {
    case OptionalMeta.SIGNEDNESS: {
      // One bit per numeric column, most significant bit first. MariaDB gives YEAR (a TINY underneath) a bit too.
      let bit = 0;
      for (const c of cols) {
        if (!isNumeric(c.type) && !(mariadb && c.type === ColumnType.YEAR)) continue;
        c.unsigned = (r.buf[r.pos + (bit >> 3)] & (0x80 >> (bit & 7))) !== 0;
        bit++;
      }
      return;
    }
    case OptionalMeta.DEFAULT_CHARSET:
    case OptionalMeta.ENUM_AND_SET_DEFAULT_CHARSET: {
      const targets = cols.filter(fieldType === OptionalMeta.DEFAULT_CHARSET ? isCharacter : isEnumOrSet);
      const dflt = r.packed();
      for (const c of targets) setCollation(c, dflt);
      while (r.pos < end) {
        const idx = r.packed();
        const coll = r.packed();
        if (targets[idx]) setCollation(targets[idx], coll);
      }
      return;
    }
    case OptionalMeta.COLUMN_CHARSET:
    case OptionalMeta.ENUM_AND_SET_COLUMN_CHARSET: {
      const targets = cols.filter(fieldType === OptionalMeta.COLUMN_CHARSET ? isCharacter : isEnumOrSet);
      for (let i = 0; i < targets.length && r.pos < end; i++) setCollation(targets[i], r.packed());
      return;
    }
    case OptionalMeta.COLUMN_NAME:
      for (let i = 0; i < cols.length && r.pos < end; i++) cols[i].name = r.utf8(r.packed());
      return;
    case OptionalMeta.SET_STR_VALUE:
    case OptionalMeta.ENUM_STR_VALUE: {
      const want = fieldType === OptionalMeta.SET_STR_VALUE ? ColumnType.SET : ColumnType.ENUM;
      for (const c of cols) {
        if (c.realType !== want || r.pos >= end) continue;
        const n = r.packed();
        // Each value takes at least its length byte: a larger count is corruption (checked before allocating).
        r.need(n, 'TABLE_MAP ENUM/SET value list');
        const values: string[] = new Array(n);
        for (let i = 0; i < n; i++) values[i] = r.utf8(r.packed());
        if (want === ColumnType.SET) c.setValues = values;
        else c.enumValues = values;
      }
      return;
    }
    case OptionalMeta.GEOMETRY_TYPE:
      for (const c of cols) if (c.type === ColumnType.GEOMETRY && r.pos < end) c.geometryType = r.packed();
      return;
    case OptionalMeta.SIMPLE_PRIMARY_KEY: {
      const pk: Array<{ column: number; prefix: number }> = [];
      while (r.pos < end) pk.push({ column: r.packed(), prefix: 0 });
      ev.primaryKey = pk;
      return;
    }
    case OptionalMeta.PRIMARY_KEY_WITH_PREFIX: {
      const pk: Array<{ column: number; prefix: number }> = [];
      while (r.pos < end) pk.push({ column: r.packed(), prefix: r.packed() });
      ev.primaryKey = pk;
      return;
    }
    case OptionalMeta.COLUMN_VISIBILITY:
      for (let i = 0; i < cols.length; i++) cols[i].visible = (r.buf[r.pos + (i >> 3)] & (0x80 >> (i & 7))) !== 0;
      return;
    case OptionalMeta.VECTOR_DIMENSIONALITY:
      for (const c of cols) if (c.type === ColumnType.VECTOR && r.pos < end) c.vectorDimensions = r.packed();
      return;
    default:
      // Newer servers may add fields; their TLV length lets us skip them safely.
      return;
  }
}

function setCollation(c: ColumnInfo, collation: number): void {
  c.collation = collation;
  c.charset = charsetOfCollation(collation);
}
