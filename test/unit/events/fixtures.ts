/** Test fixtures for src/events: compact ColumnDef/TableDef builders and a fixed source position. */
import type { SourceInfo } from '../../../src/events/index.js';
import type { ColumnDef, TableDef } from '../../../src/model/table-def.js';

export function col(name: string, columnType: string, extra: Partial<ColumnDef> = {}): ColumnDef {
  const dataType = columnType.split(/[ (]/)[0].toLowerCase();
  const lengthMatch = /\((\d+)(?:,(\d+))?\)/.exec(columnType);
  const character = /char|text|enum|set/.test(dataType);
  return {
    name,
    position: 0,
    dataType,
    columnType,
    length: lengthMatch ? Number(lengthMatch[1]) : null,
    scale: lengthMatch?.[2] !== undefined ? Number(lengthMatch[2]) : null,
    unsigned: /unsigned/.test(columnType),
    nullable: true,
    charset: character ? 'utf8mb4' : null,
    collation: character ? 'utf8mb4_0900_ai_ci' : null,
    defaultValue: null,
    hasDefault: false,
    autoIncrement: false,
    enumValues: null,
    generated: false,
    invisible: false,
    comment: null,
    ...extra,
  };
}

export function table(database: string, name: string, columns: ColumnDef[], primaryKey: string[] = []): TableDef {
  return {
    database,
    name,
    columns: columns.map((c, i) => ({ ...c, position: i })),
    primaryKey,
    uniqueKeys: [],
    charset: 'utf8mb4',
    comment: null,
  };
}

/** The tutorial's inventory.customers table. */
export const customers = table(
  'inventory',
  'customers',
  [
    col('id', 'int', { nullable: false, autoIncrement: true }),
    col('first_name', 'varchar(255)', { nullable: false }),
    col('last_name', 'varchar(255)', { nullable: false }),
    col('email', 'varchar(255)', { nullable: false }),
  ],
  ['id'],
);

export const source: SourceInfo = {
  tsMs: 1465491411000,
  serverId: 223344,
  gtid: null,
  file: 'mysql-bin.000003',
  pos: 154,
  row: 0,
  thread: 7,
  query: null,
};

export const fixedClock = () => 1465491411815437;
