/**
 * The in-memory schema model: what the capture knows about each captured table at a binlog position.
 * Built from the server (information_schema / SHOW CREATE TABLE), updated from DDL, checked against TABLE_MAP
 * metadata, and persisted in schema history. Plain data (JSON-serialisable) so history can store it as is.
 */
export interface ColumnDef {
  name: string;
  /** 0-based ordinal position in the table (matches the binlog column index). */
  position: number;
  /** Lower-case MySQL data type name as in information_schema.COLUMNS.DATA_TYPE: 'int', 'varchar', 'decimal', 'enum', ... */
  dataType: string;
  /** Full column type as in information_schema.COLUMNS.COLUMN_TYPE, e.g. 'decimal(10,2) unsigned', "enum('a','b')". */
  columnType: string;
  /** Character length for strings, precision for numerics, fsp for temporal types; null when not applicable. */
  length: number | null;
  /** Scale for DECIMAL; null otherwise. */
  scale: number | null;
  unsigned: boolean;
  nullable: boolean;
  /** Character set for character columns ('utf8mb4', 'latin1', 'binary', ...); null for non-character columns. */
  charset: string | null;
  collation: string | null;
  /** Default value as SQL text (unquoted literal), or null when none/NULL. `hasDefault` distinguishes them. */
  defaultValue: string | null;
  hasDefault: boolean;
  autoIncrement: boolean;
  /** Members of ENUM / SET, in declaration order. */
  enumValues: string[] | null;
  generated: boolean;
  invisible: boolean;
  comment: string | null;
  /**
   * The type as a CREATE/ALTER statement wrote it, when Debezium's DDL path types the column by that name rather
   * than by what the server stores: BOOL/BOOLEAN (stored as tinyint(1)) and MariaDB's JSON (stored as longtext).
   * Absent for columns read from information_schema, as Debezium's snapshot reads SHOW CREATE TABLE's stored type.
   */
  declaredType?: 'BOOL' | 'BOOLEAN' | 'JSON';
  /**
   * An integer column whose statement wrote no display width (`id INT`): the server stores its default
   * (`int(11)`), but Debezium's DDL path records what the statement says, a null length. Absent for columns read
   * from information_schema (the snapshot reads the stored `int(11)`).
   */
  implicitWidth?: true;
}

export interface TableDef {
  database: string;
  name: string;
  columns: ColumnDef[];
  /**
   * The table's key columns in key order: the PRIMARY KEY, or else the first unique index whose columns are all
   * NOT NULL (what the server logs as the key and Debezium uses); empty when the table has neither.
   */
  primaryKey: string[];
  /** Name of the unique index `primaryKey` comes from when the table has no PRIMARY KEY; absent otherwise. */
  primaryKeyIndex?: string;
  /** Unique keys (name → columns), for message.key.columns fallbacks and chunking. */
  uniqueKeys: Array<{ name: string; columns: string[] }>;
  charset: string | null;
  /**
   * MariaDB system-versioned table: a row whose ROW END is not the maximum is a history version, not a table row.
   * `rowEnd` names the period's end column, or is null for implicit versioning, where the server appends hidden
   * `row_start`/`row_end` columns after the modelled ones (rows carry two more values than `columns`).
   */
  systemVersioned?: { rowEnd: string | null };
  /** Table default collation (inherited by character columns added later); optional for older history entries. */
  collation?: string | null;
  comment: string | null;
}

/** A database (schema) and the defaults its new tables inherit. */
export interface DatabaseDef {
  name: string;
  charset: string;
  collation: string;
}

export function tableId(database: string, table: string): string {
  return `${database}.${table}`;
}
