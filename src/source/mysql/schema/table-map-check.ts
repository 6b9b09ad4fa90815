/**
 * Cross-checks the schema model against a TABLE_MAP event, the binlog's own statement of the table shape. Pure: the
 * engine decides what to do with mismatches (`inconsistent.schema.handling.mode`: fail / warn / skip).
 */

import { BLOB_TYPES, GEOMETRY_TYPES, TEXT_TYPES } from '../../../model/column-types.js';
import type { ColumnDef, TableDef } from '../../../model/table-def.js';
import { ColumnType, columnTypeName as typeName } from '../column-type.js';
import { rowEndIndex } from './system-versioning.js';
import { isNotNullUnique } from './unique-key.js';

/** What a TABLE_MAP event says, independent of the decoder's own types. */
export interface TableMapInfo {
  columnCount: number;
  /** Wire type code per column (ColumnType); ENUM/SET usually arrive as STRING with the real type in metadata. */
  columnTypes: number[];
  /** binlog_row_metadata=FULL only. */
  columnNames?: string[];
  /**
   * UNSIGNED flags. Either one entry per column, or (as in the binlog's SIGNEDNESS field) one per numeric column
   * in column order; `true` means UNSIGNED.
   */
  signedness?: boolean[];
  /** ENUM members: one entry per column (null for non-ENUM columns), or one per ENUM column in order. */
  enumValues?: Array<string[] | null>;
  /** SET members, same layout as enumValues. */
  setValues?: Array<string[] | null>;
  /** Column indexes of the primary key, in key order. */
  primaryKey?: number[];
}

export type TableMapMismatchKind =
  | 'COLUMN_COUNT'
  | 'COLUMN_TYPE'
  | 'COLUMN_NAME'
  | 'SIGNEDNESS'
  | 'ENUM_VALUES'
  | 'SET_VALUES'
  | 'PRIMARY_KEY';

export interface TableMapMismatch {
  kind: TableMapMismatchKind;
  /** 0-based column index, when about one column. */
  column?: number;
  expected: string;
  actual: string;
  message: string;
}

const T = ColumnType;

/** The type codes a column of this data type may carry in TABLE_MAP (old and new temporal/decimal encodings). */
export function expectedTypeCodes(col: Pick<ColumnDef, 'dataType'>): number[] | null {
  switch (col.dataType) {
    case 'tinyint':
      return [T.TINY];
    case 'smallint':
      return [T.SHORT];
    case 'mediumint':
      return [T.INT24];
    case 'int':
    case 'integer':
      return [T.LONG];
    case 'bigint':
      return [T.LONGLONG];
    case 'float':
      return [T.FLOAT];
    case 'double':
      return [T.DOUBLE];
    case 'decimal':
      return [T.NEWDECIMAL, T.DECIMAL];
    case 'bit':
      return [T.BIT];
    case 'date':
      return [T.DATE, T.NEWDATE];
    case 'time':
      return [T.TIME2, T.TIME];
    case 'datetime':
      return [T.DATETIME2, T.DATETIME];
    case 'timestamp':
      return [T.TIMESTAMP2, T.TIMESTAMP];
    case 'year':
      return [T.YEAR];
    case 'char':
    case 'binary':
    case 'uuid':
    case 'inet4':
    case 'inet6':
      return [T.STRING];
    case 'enum':
      return [T.STRING, T.ENUM];
    case 'set':
      return [T.STRING, T.SET];
    case 'varchar':
    case 'varbinary':
      return [T.VARCHAR, T.VAR_STRING];
    case 'json':
      return [T.JSON, T.BLOB];
    case 'vector':
      return [T.VECTOR, T.VARCHAR];
    default:
      if (TEXT_TYPES.has(col.dataType) || BLOB_TYPES.has(col.dataType))
        return [T.BLOB, T.TINY_BLOB, T.MEDIUM_BLOB, T.LONG_BLOB];
      if (GEOMETRY_TYPES.has(col.dataType)) return [T.GEOMETRY];
      return null; // unknown/new type: do not guess
  }
}

const NUMERIC_CODES = new Set<number>([
  T.TINY,
  T.SHORT,
  T.INT24,
  T.LONG,
  T.LONGLONG,
  T.NEWDECIMAL,
  T.DECIMAL,
  T.FLOAT,
  T.DOUBLE,
]);

/** Lists every difference between the model and the TABLE_MAP event; empty when they agree. */
export function checkTableMap(table: TableDef, map: TableMapInfo): TableMapMismatch[] {
  const out: TableMapMismatch[] = [];
  const id = `${table.database}.${table.name}`;
  const add = (m: Omit<TableMapMismatch, 'message'>, message: string) =>
    out.push({ ...m, message: `${id}: ${message}` });
  // Implicit system versioning: the server logs its hidden row_start/row_end after the modelled columns.
  const hidden = table.systemVersioned && table.systemVersioned.rowEnd === null ? 2 : 0;
  if (map.columnCount !== table.columns.length + hidden) {
    add(
      { kind: 'COLUMN_COUNT', expected: String(table.columns.length), actual: String(map.columnCount) },
      `the schema model has ${table.columns.length} columns but the binlog TABLE_MAP has ${map.columnCount}`,
    );
    return out; // per-column comparisons would only repeat the shift
  }
  table.columns.forEach((col, i) => {
    const codes = expectedTypeCodes(col);
    const actual = map.columnTypes[i];
    if (codes && actual !== undefined && !codes.includes(actual)) {
      add(
        { kind: 'COLUMN_TYPE', column: i, expected: col.columnType, actual: typeName(actual) },
        `column ${i} (${col.name}) is ${col.columnType} in the model but ${typeName(actual)} in the binlog`,
      );
    }
    const name = map.columnNames?.[i];
    if (name !== undefined && name.toLowerCase() !== col.name.toLowerCase()) {
      add(
        { kind: 'COLUMN_NAME', column: i, expected: col.name, actual: name },
        `column ${i} is named ${col.name} in the model but ${name} in the binlog`,
      );
    }
  });
  if (map.signedness) {
    const numeric = table.columns.map((c, i) => ({ c, i })).filter(({ i }) => NUMERIC_CODES.has(map.columnTypes[i]));
    const perColumn = map.signedness.length === table.columns.length && numeric.length !== table.columns.length;
    const targets = perColumn
      ? numeric.map(({ c, i }) => ({ c, i, flag: map.signedness![i] }))
      : numeric.map(({ c, i }, k) => ({ c, i, flag: map.signedness![k] }));
    for (const { c, i, flag } of targets) {
      if (flag === undefined || flag === c.unsigned) continue;
      add(
        {
          kind: 'SIGNEDNESS',
          column: i,
          expected: c.unsigned ? 'unsigned' : 'signed',
          actual: flag ? 'unsigned' : 'signed',
        },
        `column ${i} (${c.name}) is ${c.unsigned ? 'unsigned' : 'signed'} in the model but ${flag ? 'unsigned' : 'signed'} in the binlog`,
      );
    }
  }
  compareMembers(table, map.enumValues, 'enum', 'ENUM_VALUES', add);
  compareMembers(table, map.setValues, 'set', 'SET_VALUES', add);
  if (map.primaryKey) {
    // A system-versioned table's server key also holds ROW END (history versions share the key): not ours.
    const rowEnd = rowEndIndex(table);
    const actual = map.primaryKey.filter((i) => i !== rowEnd).map((i) => table.columns[i]?.name ?? `#${i}`);
    const expected = table.primaryKey;
    const sameNames = (names: string[]) =>
      actual.length === names.length && actual.every((n, k) => n.toLowerCase() === names[k].toLowerCase());
    // Without a PRIMARY KEY the server logs its first NOT NULL unique index; any such index of the model is the
    // same table shape (after ALTERs the model may not know which of several the server put first).
    const uniqueShape =
      table.primaryKeyIndex !== undefined &&
      table.uniqueKeys.some((k) => sameNames(k.columns) && isNotNullUnique(table, k.columns));
    if (!sameNames(expected) && !uniqueShape) {
      add(
        { kind: 'PRIMARY_KEY', expected: expected.join(','), actual: actual.join(',') },
        `primary key is (${expected.join(', ')}) in the model but (${actual.join(', ')}) in the binlog`,
      );
    }
  }
  return out;
}

function compareMembers(
  table: TableDef,
  values: Array<string[] | null> | undefined,
  dataType: 'enum' | 'set',
  kind: 'ENUM_VALUES' | 'SET_VALUES',
  add: (m: Omit<TableMapMismatch, 'message'>, message: string) => void,
): void {
  if (!values) return;
  const cols = table.columns.map((c, i) => ({ c, i })).filter(({ c }) => c.dataType === dataType);
  const perColumn = values.length === table.columns.length && cols.length !== table.columns.length;
  cols.forEach(({ c, i }, k) => {
    const actual = perColumn ? values[i] : values[k];
    if (!actual) return;
    const expected = c.enumValues ?? [];
    if (actual.length !== expected.length || actual.some((v, j) => v !== expected[j])) {
      add(
        { kind, column: i, expected: JSON.stringify(expected), actual: JSON.stringify(actual) },
        `column ${i} (${c.name}) ${dataType.toUpperCase()} members differ: model ${JSON.stringify(expected)}, binlog ${JSON.stringify(actual)}`,
      );
    }
  });
}
