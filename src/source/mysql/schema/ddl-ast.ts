/**
 * The structural DDL subset that matters to change data capture, as produced by ddl-parser.ts. Only what changes
 * table/column shape is kept; everything else (index types, storage options, partitioning) is parsed and dropped.
 */
export interface QualifiedName {
  /** Explicit database qualifier, or null to use the statement's default database. */
  database: string | null;
  name: string;
}

/** A column data type as written (before information_schema-style normalisation). */
export interface TypeSpec {
  /** Upper-cased type keyword(s) as written, aliases unresolved: 'INT', 'CHAR VARYING', 'DOUBLE PRECISION', 'SERIAL'. */
  name: string;
  /** Numeric arguments in parentheses ((10,2) → ['10','2']); empty when absent. */
  args: string[];
  /** ENUM/SET members, unescaped. */
  values: string[] | null;
  unsigned: boolean;
  zerofill: boolean;
  /** CHARACTER SET as written (lower-cased), 'binary' included. */
  charset: string | null;
  collation: string | null;
  /** The BINARY attribute on a character type (`varchar(10) binary`): use the charset's _bin collation. */
  binaryAttr: boolean;
  /** NATIONAL / NCHAR / NVARCHAR: charset utf8mb3. */
  national: boolean;
}

export type DefaultSpec =
  | { kind: 'null' }
  | { kind: 'literal'; text: string; introducer?: string }
  | { kind: 'expr'; text: string };

export interface ColumnSpec {
  name: string;
  type: TypeSpec;
  /** true = NULL, false = NOT NULL, undefined = not stated. */
  nullable?: boolean;
  default?: DefaultSpec;
  autoIncrement: boolean;
  primaryKey: boolean;
  unique: boolean;
  comment: string | null;
  generated: 'VIRTUAL' | 'STORED' | null;
  invisible: boolean;
  /** MariaDB `GENERATED ALWAYS AS ROW START|END`: the table's system-versioning period column. */
  rowPeriod?: 'START' | 'END';
  /** MariaDB column-level `WITH SYSTEM VERSIONING` (makes the table system-versioned). */
  systemVersioning?: boolean;
}

export interface KeySpec {
  kind: 'PRIMARY' | 'UNIQUE' | 'INDEX' | 'FOREIGN' | 'CHECK' | 'FULLTEXT' | 'SPATIAL';
  name: string | null;
  /** Plain column key parts; functional key parts are omitted (they add hidden columns that are not in binlogs). */
  columns: string[];
  /** MariaDB `ADD PRIMARY KEY IF NOT EXISTS`, `ADD UNIQUE KEY IF NOT EXISTS u`, `CREATE INDEX IF NOT EXISTS`. */
  ifNotExists?: boolean;
}

export interface TableOptionsSpec {
  /** MariaDB `WITH SYSTEM VERSIONING`. */
  systemVersioning?: boolean;
  charset?: string;
  collation?: string;
  comment?: string;
}

export type ColumnPosition = { kind: 'FIRST' } | { kind: 'AFTER'; column: string };

export type AlterSpec =
  | { kind: 'ADD_COLUMN'; column: ColumnSpec; position?: ColumnPosition; ifNotExists: boolean }
  | { kind: 'DROP_COLUMN'; name: string; ifExists: boolean }
  | { kind: 'CHANGE_COLUMN'; oldName: string; column: ColumnSpec; position?: ColumnPosition; ifExists: boolean }
  | { kind: 'RENAME_COLUMN'; oldName: string; newName: string }
  | { kind: 'SET_DEFAULT'; name: string; default: DefaultSpec }
  | { kind: 'DROP_DEFAULT'; name: string }
  | { kind: 'SET_VISIBILITY'; name: string; invisible: boolean }
  | { kind: 'ADD_KEY'; key: KeySpec; ifNotExists: boolean }
  | { kind: 'DROP_PRIMARY_KEY' }
  | { kind: 'DROP_KEY'; name: string; ifExists: boolean }
  | { kind: 'RENAME_KEY'; oldName: string; newName: string }
  | { kind: 'RENAME_TABLE'; to: QualifiedName }
  | { kind: 'CONVERT_CHARSET'; charset: string; collation: string | null }
  | { kind: 'OPTIONS'; options: TableOptionsSpec }
  /** Recognised and without effect on the column model (ALGORITHM, LOCK, partitions, ENGINE, FORCE, ...). */
  | { kind: 'NOOP'; what: string }
  /** Recognised, but the effect cannot be derived from the text (system versioning, ...): re-read the table. */
  | { kind: 'RELOAD'; what: string };

export type DdlStatement =
  | {
      kind: 'CREATE_TABLE';
      table: QualifiedName;
      ifNotExists: boolean;
      orReplace: boolean;
      temporary: boolean;
      columns: ColumnSpec[];
      keys: KeySpec[];
      options: TableOptionsSpec;
      /** CREATE TABLE ... SELECT: extra columns come from the query, so the definition must be re-read. */
      asSelect: boolean;
    }
  | {
      kind: 'CREATE_TABLE_LIKE';
      table: QualifiedName;
      like: QualifiedName;
      ifNotExists: boolean;
      orReplace: boolean;
      temporary: boolean;
    }
  | { kind: 'ALTER_TABLE'; table: QualifiedName; specs: AlterSpec[] }
  | {
      kind: 'DROP_TABLE';
      tables: QualifiedName[];
      temporary: boolean;
      ifExists: boolean;
      /** Offsets of `DROP TABLE [IF EXISTS] ` in the statement text, and RESTRICT/CASCADE when written. */
      prefix?: [number, number];
      dropType?: 'RESTRICT' | 'CASCADE';
    }
  | {
      kind: 'RENAME_TABLE';
      /** `span`: offsets of the `a TO b` clause in the statement text; `start`: offset of RENAME. */
      pairs: Array<{ from: QualifiedName; to: QualifiedName; span?: [number, number] }>;
      start?: number;
    }
  | { kind: 'TRUNCATE_TABLE'; table: QualifiedName }
  | { kind: 'CREATE_INDEX'; table: QualifiedName; key: KeySpec }
  | { kind: 'DROP_INDEX'; table: QualifiedName; name: string }
  | { kind: 'CREATE_DATABASE'; name: string; ifNotExists: boolean; orReplace: boolean; options: TableOptionsSpec }
  | { kind: 'ALTER_DATABASE'; name: string | null; options: TableOptionsSpec }
  | { kind: 'DROP_DATABASE'; name: string; ifExists: boolean }
  | { kind: 'USE'; database: string }
  /** Safely ignorable for the schema model (views, routines, users, grants, DML, transaction control...). */
  | { kind: 'IGNORED'; what: string };
