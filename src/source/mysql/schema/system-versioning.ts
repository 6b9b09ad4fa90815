/**
 * MariaDB system-versioned tables keep old row versions in the table itself: an UPDATE logs the new current row
 * plus an INSERT of the old version (ROW END = now), a DELETE logs an UPDATE that closes the row's ROW END. The
 * table as queried holds only rows whose ROW END is the maximum, so changes are reported against those: history
 * versions are not rows of the table, and closing a current row is its delete.
 */

import type { TableDef } from '../../../model/table-def.js';
import type { CellValue, Row } from '../../../model/values.js';
import { MysqlTimestamp } from '../../../model/values.js';

type Op = 'c' | 'u' | 'd';

/** Index of ROW END in a row image; -1 for tables without system versioning. */
export function rowEndIndex(table: TableDef): number {
  const sv = table.systemVersioned;
  if (!sv) return -1;
  if (sv.rowEnd === null) return table.columns.length + 1; // hidden row_start, row_end follow the columns
  return table.columns.findIndex((c) => c.name.toLowerCase() === sv.rowEnd?.toLowerCase());
}

/** ROW END of a current row: TIMESTAMP(6)'s maximum (32-bit, or 64-bit since MariaDB 11.5), or BIGINT's. */
export function isCurrent(v: CellValue): boolean {
  if (v instanceof MysqlTimestamp) return v.micros === 999999 && (v.seconds === 2147483647 || v.seconds === 4294967295);
  if (typeof v === 'bigint') return v === 18446744073709551615n;
  return v === undefined; // not in the image (MINIMAL): cannot tell, keep the change
}

/** The change a row event makes to the table as queried, or null when it only touches history versions. */
export function versionedChange(op: Op, index: number, before: Row | null, after: Row | null): Op | null {
  if (index < 0) return op;
  const current = (row: Row | null) => row !== null && isCurrent(row[index]);
  if (op === 'c') return current(after) ? 'c' : null;
  if (op === 'd') return current(before) ? 'd' : null;
  if (!current(before)) return null;
  return current(after) ? 'u' : 'd';
}
