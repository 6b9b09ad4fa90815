/**
 * The key of a table without a PRIMARY KEY: the first unique index whose columns are all NOT NULL. The server
 * treats that index as the primary key (it is what a TABLE_MAP's primary-key field names), and Debezium's DDL
 * parser takes it as the table's key; with none, the table is keyless.
 */
import type { TableDef } from '../../../model/table-def.js';

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** True when every column of the index exists and is NOT NULL. */
export function isNotNullUnique(table: TableDef, columns: string[]): boolean {
  return (
    columns.length > 0 &&
    columns.every((name) => {
      const col = table.columns.find((c) => same(c.name, name));
      return col !== undefined && !col.nullable;
    })
  );
}

/**
 * Sets `primaryKey`/`primaryKeyIndex` from the unique indexes when the table has no declared PRIMARY KEY.
 * `order` lists index names in the server's (or the DDL's) order; indexes it does not name follow in
 * `uniqueKeys` order. A key already taken from an index that still qualifies is kept (the server keeps it first).
 */
export function deriveUniqueKey(table: TableDef, order: readonly string[] = []): void {
  if (table.primaryKey.length > 0 && table.primaryKeyIndex === undefined) return; // a declared PRIMARY KEY
  const byName = (name: string) => table.uniqueKeys.find((k) => same(k.name, name));
  const current = table.primaryKeyIndex === undefined ? undefined : byName(table.primaryKeyIndex);
  const ordered = [
    ...(current ? [current] : []),
    ...order.map(byName).filter((k) => k !== undefined),
    ...table.uniqueKeys,
  ];
  const chosen = ordered.find((k) => isNotNullUnique(table, k.columns));
  if (chosen) {
    table.primaryKey = [...chosen.columns];
    table.primaryKeyIndex = chosen.name;
  } else {
    table.primaryKey = [];
    delete table.primaryKeyIndex;
  }
}
