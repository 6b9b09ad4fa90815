import type { ColumnDef } from '../model/table-def.js';

/**
 * What Debezium's MySQL DDL parser would record for a column (io.debezium.relational.Column): upper-case type
 * name with signedness modifiers, java.sql.Types code, declared length/scale. Derived once per column from the
 * information_schema-style ColumnDef; used by converters (type choice, fsp) and schema change events.
 */
export interface ColumnInfo {
  /** Lower-case base type, e.g. 'int', 'varchar', 'geomcollection'. */
  base: string;
  /** Debezium's typeName, e.g. 'INT UNSIGNED', 'VARCHAR', 'DECIMAL'. */
  typeName: string;
  jdbcType: number;
  /** Declared length/precision/fsp, or null when the type text has none (Debezium's UNSET). */
  length: number | null;
  scale: number | null;
  unsigned: boolean;
  /** Character column per java.sql.Types (CHAR/VARCHAR family, incl. ENUM/SET): masking applies. */
  isCharacter: boolean;
  /** BLOB/TEXT family: omitted from NOBLOB images, replaced by the unavailable-value placeholder. */
  isBlobOrText: boolean;
}

/** java.sql.Types codes used by the MySQL connector. */
export const JdbcType = {
  BIT: -7,
  TINYINT: -6,
  SMALLINT: 5,
  INTEGER: 4,
  BIGINT: -5,
  FLOAT: 6,
  REAL: 7,
  DOUBLE: 8,
  NUMERIC: 2,
  DECIMAL: 3,
  CHAR: 1,
  VARCHAR: 12,
  NCHAR: -15,
  NVARCHAR: -9,
  DATE: 91,
  TIME: 92,
  TIMESTAMP: 93,
  TIMESTAMP_WITH_TIMEZONE: 2014,
  BINARY: -2,
  VARBINARY: -3,
  BLOB: 2004,
  BOOLEAN: 16,
  OTHER: 1111,
} as const;

// Mirrors MySqlAntlrDdlParser's DataTypeEntry table: TEXT types are VARCHAR, ENUM/SET are CHAR, TIMESTAMP is
// TIMESTAMP_WITH_TIMEZONE, YEAR is INTEGER, spatial/JSON/VECTOR are OTHER.
const JDBC_BY_TYPE: Record<string, number> = {
  bit: JdbcType.BIT,
  bool: JdbcType.BOOLEAN,
  boolean: JdbcType.BOOLEAN,
  tinyint: JdbcType.TINYINT,
  smallint: JdbcType.SMALLINT,
  mediumint: JdbcType.INTEGER,
  int: JdbcType.INTEGER,
  integer: JdbcType.INTEGER,
  bigint: JdbcType.BIGINT,
  serial: JdbcType.BIGINT,
  real: JdbcType.REAL,
  float: JdbcType.FLOAT,
  double: JdbcType.DOUBLE,
  decimal: JdbcType.DECIMAL,
  dec: JdbcType.DECIMAL,
  fixed: JdbcType.DECIMAL,
  numeric: JdbcType.NUMERIC,
  char: JdbcType.CHAR,
  varchar: JdbcType.VARCHAR,
  tinytext: JdbcType.VARCHAR,
  text: JdbcType.VARCHAR,
  mediumtext: JdbcType.VARCHAR,
  longtext: JdbcType.VARCHAR,
  nchar: JdbcType.NCHAR,
  nvarchar: JdbcType.NVARCHAR,
  enum: JdbcType.CHAR,
  set: JdbcType.CHAR,
  binary: JdbcType.BINARY,
  varbinary: JdbcType.VARBINARY,
  tinyblob: JdbcType.BLOB,
  blob: JdbcType.BLOB,
  mediumblob: JdbcType.BLOB,
  longblob: JdbcType.BLOB,
  date: JdbcType.DATE,
  time: JdbcType.TIME,
  datetime: JdbcType.TIMESTAMP,
  timestamp: JdbcType.TIMESTAMP_WITH_TIMEZONE,
  year: JdbcType.INTEGER,
};

const CHARACTER_JDBC = new Set<number>([JdbcType.CHAR, JdbcType.VARCHAR, JdbcType.NCHAR, JdbcType.NVARCHAR]);
const BLOB_OR_TEXT = new Set([
  'tinyblob',
  'blob',
  'mediumblob',
  'longblob',
  'tinytext',
  'text',
  'mediumtext',
  'longtext',
]);
const PAREN_ARGS = /^[a-z0-9_ ]+\(([^)]*)\)/i;

export function columnInfo(col: ColumnDef): ColumnInfo {
  // Debezium's DDL path types BOOLEAN and MariaDB JSON columns by the name the statement wrote (no length).
  const declared = col.declaredType?.toLowerCase();
  const base = declared ?? col.dataType.toLowerCase();
  const typeText = declared ?? col.columnType.toLowerCase();
  const zerofill = /\bzerofill\b/.test(typeText);
  const unsigned = col.unsigned || zerofill || /\bunsigned\b/.test(typeText);
  const modifiers = zerofill ? ' UNSIGNED ZEROFILL' : unsigned ? ' UNSIGNED' : '';
  const jdbcType = JDBC_BY_TYPE[base] ?? JdbcType.OTHER;

  let length: number | null = null;
  let scale: number | null = null;
  if (base === 'enum') length = 1;
  else if (base === 'set') length = Math.max(0, (col.enumValues?.length ?? 0) * 2 - 1);
  else {
    const m = PAREN_ARGS.exec(typeText);
    if (m) {
      const [l, s] = m[1].split(',').map((p) => Number.parseInt(p.trim(), 10));
      if (Number.isFinite(l)) length = l;
      if (s !== undefined && Number.isFinite(s)) scale = s;
    }
  }
  if (col.implicitWidth) length = null;
  if (scale === null && col.scale !== null && (base === 'decimal' || base === 'numeric')) scale = col.scale;

  return {
    base,
    typeName: base.toUpperCase() + modifiers,
    jdbcType,
    length,
    scale,
    unsigned,
    isCharacter: CHARACTER_JDBC.has(jdbcType),
    isBlobOrText: BLOB_OR_TEXT.has(base),
  };
}

/** Fractional-second precision of a temporal column (0 when none is declared). */
export function fsp(col: ColumnDef, info: ColumnInfo): number {
  return info.length ?? col.length ?? 0;
}
