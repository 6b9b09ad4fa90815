/**
 * Reads the schema model from a live server's information_schema in a handful of set-based queries (not one per
 * table), producing the same ColumnDef/TableDef a SchemaTracker derives from the equivalent DDL. MariaDB and MySQL
 * differ in COLUMN_DEFAULT (MariaDB 10.2.7+ quotes string literals and writes NULL as text; MySQL leaves literals
 * bare and flags expressions with EXTRA=DEFAULT_GENERATED); both are normalised to the tracker's conventions
 * (see column-definition.ts).
 */

import { BLOB_TYPES, TEXT_TYPES } from '../../../model/column-types.js';
import type { ColumnDef, DatabaseDef, TableDef } from '../../../model/table-def.js';
import { tableId } from '../../../model/table-def.js';
import { readServerInfo, type ServerInfo, type SqlQueryable } from '../server-info.js';
import { charsetOfCollation, normalizeCharset, normalizeCollation, type ServerFlavor } from './charsets.js';
import { normalizeExpressionDefault, normalizeLiteralDefault } from './column-definition.js';
import type { SchemaTracker, SchemaTrackerOptions } from './schema-tracker.js';
import { deriveUniqueKey, isNotNullUnique } from './unique-key.js';

export type { SqlQueryable };

export interface LoadSchemaOptions {
  /** Only tables accepted here are returned. @default all non-system tables */
  tableFilter?: (database: string, table: string) => boolean;
  /** Restrict the queries to these databases (cheaper on servers with many schemas). @default all non-system */
  databases?: string[];
  /** Also read SHOW CREATE TABLE for each returned table (for schema-history DDL). @default false */
  includeCreateStatements?: boolean;
}

export interface LoadedSchema {
  server: ServerInfo;
  databases: DatabaseDef[];
  tables: TableDef[];
  /** SHOW CREATE TABLE text by table id, when requested. */
  createStatements: Map<string, string>;
}

const SYSTEM_DATABASES = ['information_schema', 'performance_schema', 'mysql', 'sys'];

type Row = Record<string, unknown>;

async function rows(conn: SqlQueryable, sql: string, values: unknown[] = []): Promise<Row[]> {
  const [result] = await conn.query(sql, values);
  return result as Row[];
}

const str = (v: unknown): string | null =>
  v === null || v === undefined ? null : Buffer.isBuffer(v) ? v.toString('utf8') : String(v);

/** SchemaTracker options that make DDL-derived definitions match what this server reports. */
export function trackerOptionsFor(server: ServerInfo): SchemaTrackerOptions {
  return {
    flavor: server.flavor,
    intDisplayWidth: server.intDisplayWidth,
    serverCharset: server.serverCharset,
    serverCollation: server.serverCollation,
    lowerCaseTableNames: server.lowerCaseTableNames,
  };
}

/** MySQL 8.0.30+: hides generated invisible primary keys (my_row_id) from information_schema unless turned ON. */
const GIPK_VARIABLE = 'show_gipk_in_create_table_and_information_schema';

/**
 * The session settings a schema-loading session needs: on MySQL 8.0.30+ with the variable OFF, GIPK columns are
 * missing from information_schema and SHOW CREATE TABLE but present in every row image. `gipk` is the variable's
 * value as SHOW VARIABLES reports it, or null when the server has no such variable (MariaDB, MySQL < 8.0.30).
 */
export function schemaSessionStatements(flavor: ServerFlavor, gipk: string | null): string[] {
  if (flavor !== 'mysql' || gipk === null || gipk.toUpperCase() === 'ON') return [];
  return [`SET SESSION ${GIPK_VARIABLE} = ON`];
}

/** Applies schemaSessionStatements on this connection (one SHOW VARIABLES on MySQL, nothing on MariaDB). */
export async function prepareSchemaSession(conn: SqlQueryable, server: Pick<ServerInfo, 'flavor'>): Promise<void> {
  if (server.flavor !== 'mysql') return;
  const [r] = await rows(conn, `SHOW VARIABLES LIKE '${GIPK_VARIABLE}'`);
  for (const sql of schemaSessionStatements(server.flavor, r ? str(r.Value) : null)) await conn.query(sql);
}

export async function loadSchema(conn: SqlQueryable, options: LoadSchemaOptions = {}): Promise<LoadedSchema> {
  const server = await readServerInfo(conn);
  await prepareSchemaSession(conn, server);
  const params: unknown[] = [];
  let where: string;
  if (options.databases && options.databases.length > 0) {
    where = `IN (${options.databases.map(() => '?').join(',')})`;
    params.push(...options.databases);
  } else {
    where = `NOT IN (${SYSTEM_DATABASES.map(() => '?').join(',')})`;
    params.push(...SYSTEM_DATABASES);
  }
  const accept = (db: string, t: string) => (options.tableFilter ? options.tableFilter(db, t) : true);

  const databases: DatabaseDef[] = (
    await rows(
      conn,
      `SELECT SCHEMA_NAME AS name, DEFAULT_CHARACTER_SET_NAME AS cs, DEFAULT_COLLATION_NAME AS coll
         FROM information_schema.SCHEMATA WHERE SCHEMA_NAME ${where} ORDER BY SCHEMA_NAME`,
      params,
    )
  ).map((r) => ({
    name: str(r.name) ?? '',
    charset: normalizeCharset(str(r.cs) ?? server.serverCharset),
    collation: normalizeCollation(str(r.coll) ?? server.serverCollation),
  }));

  const tables = new Map<string, TableDef>();
  for (const r of await rows(
    conn,
    `SELECT TABLE_SCHEMA AS db, TABLE_NAME AS name, TABLE_COLLATION AS coll, TABLE_COMMENT AS comment,
            TABLE_TYPE AS type
       FROM information_schema.TABLES
      WHERE TABLE_SCHEMA ${where} AND TABLE_TYPE IN ('BASE TABLE', 'SYSTEM VERSIONED')
      ORDER BY TABLE_SCHEMA, TABLE_NAME`,
    params,
  )) {
    const db = str(r.db) ?? '';
    const name = str(r.name) ?? '';
    if (!accept(db, name)) continue;
    const collation = str(r.coll) ? normalizeCollation(str(r.coll)!) : null;
    tables.set(tableId(db, name), {
      database: db,
      name,
      columns: [],
      primaryKey: [],
      uniqueKeys: [],
      charset: collation ? charsetOfCollation(collation, server.serverCharset) : null,
      collation,
      comment: str(r.comment) || null,
      // Implicit until a ROW END column is listed (implicit period columns are hidden from information_schema).
      ...(str(r.type) === 'SYSTEM VERSIONED' ? { systemVersioned: { rowEnd: null } } : {}),
    });
  }

  for (const r of await rows(
    conn,
    `SELECT TABLE_SCHEMA AS db, TABLE_NAME AS tbl, COLUMN_NAME AS name, ORDINAL_POSITION AS pos,
            COLUMN_DEFAULT AS def, IS_NULLABLE AS nullable, DATA_TYPE AS dataType, COLUMN_TYPE AS columnType,
            CHARACTER_MAXIMUM_LENGTH AS charLen, DATETIME_PRECISION AS fsp, CHARACTER_SET_NAME AS cs,
            COLLATION_NAME AS coll, EXTRA AS extra, COLUMN_COMMENT AS comment, GENERATION_EXPRESSION AS genExpr
       FROM information_schema.COLUMNS WHERE TABLE_SCHEMA ${where}
      ORDER BY TABLE_SCHEMA, TABLE_NAME, ORDINAL_POSITION`,
    params,
  )) {
    const table = tables.get(tableId(str(r.db) ?? '', str(r.tbl) ?? ''));
    if (!table) continue;
    table.columns.push(columnFromInformationSchema(r, table.columns.length, server.flavor));
    if (table.systemVersioned && str(r.genExpr)?.toUpperCase() === 'ROW END')
      table.systemVersioned.rowEnd = str(r.name);
  }

  const uniques = new Map<string, Map<string, string[]>>();
  for (const r of await rows(
    conn,
    `SELECT TABLE_SCHEMA AS db, TABLE_NAME AS tbl, INDEX_NAME AS idx, COLUMN_NAME AS col
       FROM information_schema.STATISTICS WHERE TABLE_SCHEMA ${where} AND NON_UNIQUE = 0
      ORDER BY TABLE_SCHEMA, TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX`,
    params,
  )) {
    const id = tableId(str(r.db) ?? '', str(r.tbl) ?? '');
    const col = str(r.col);
    if (!tables.has(id) || col === null) continue; // functional key parts have no column
    const byIndex = uniques.get(id) ?? new Map<string, string[]>();
    uniques.set(id, byIndex);
    const idx = str(r.idx) ?? '';
    byIndex.set(idx, [...(byIndex.get(idx) ?? []), col]);
  }
  for (const [id, byIndex] of uniques) {
    const table = tables.get(id)!;
    for (const [name, columns] of byIndex) {
      if (name === 'PRIMARY') table.primaryKey = columns;
      else table.uniqueKeys.push({ name, columns });
    }
    table.uniqueKeys.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
  for (const table of tables.values()) {
    // The server appends ROW END to a system-versioned table's unique keys (history versions share the key).
    const rowEnd = table.systemVersioned?.rowEnd?.toLowerCase();
    if (rowEnd) {
      const keep = (c: string) => c.toLowerCase() !== rowEnd;
      table.primaryKey = table.primaryKey.filter(keep);
      for (const k of table.uniqueKeys) k.columns = k.columns.filter(keep);
    }
    if (table.primaryKey.length > 0) continue;
    // Without a PRIMARY KEY the first NOT NULL unique index is the key; only SHOW INDEX gives the server's order.
    const candidates = table.uniqueKeys.filter((k) => isNotNullUnique(table, k.columns));
    const order = candidates.length > 1 ? await indexOrder(conn, table) : [];
    deriveUniqueKey(table, order);
  }

  const createStatements = new Map<string, string>();
  if (options.includeCreateStatements) {
    for (const t of tables.values()) {
      const [r] = await rows(conn, `SHOW CREATE TABLE ${quoteIdent(t.database)}.${quoteIdent(t.name)}`);
      const text = str(r['Create Table']);
      if (text) createStatements.set(tableId(t.database, t.name), text);
    }
  }
  return { server, databases, tables: [...tables.values()], createStatements };
}

/** Index names of a table in the server's key order (the order SHOW CREATE TABLE lists them in). */
async function indexOrder(conn: SqlQueryable, table: TableDef): Promise<string[]> {
  const names: string[] = [];
  for (const r of await rows(conn, `SHOW INDEX FROM ${quoteIdent(table.database)}.${quoteIdent(table.name)}`)) {
    const name = str(r.Key_name);
    if (name !== null && !names.includes(name)) names.push(name);
  }
  return names;
}

/** Seeds a tracker with loaded databases and tables (replacing same-named ones). */
export function seedTracker(tracker: SchemaTracker, loaded: Pick<LoadedSchema, 'databases' | 'tables'>): void {
  for (const d of loaded.databases) tracker.putDatabase(d);
  for (const t of loaded.tables) tracker.putTable(t);
}

export function quoteIdent(name: string): string {
  return `\`${name.replaceAll('`', '``')}\``;
}

const PAREN_LENGTH_TYPES = new Set([
  'tinyint',
  'smallint',
  'mediumint',
  'int',
  'bigint',
  'decimal',
  'float',
  'double',
  'bit',
  'year',
  'vector',
]);
const CHAR_LENGTH_TYPES = new Set([
  'char',
  'varchar',
  'binary',
  'varbinary',
  ...TEXT_TYPES,
  ...BLOB_TYPES,
  'enum',
  'set',
]);

/** One information_schema.COLUMNS row → ColumnDef, following column-definition.ts conventions. */
export function columnFromInformationSchema(r: Row, position: number, flavor: ServerFlavor): ColumnDef {
  const dataType = (str(r.dataType) ?? '').toLowerCase();
  const columnType = str(r.columnType) ?? dataType;
  const extra = (str(r.extra) ?? '').toLowerCase();
  const isEnum = dataType === 'enum' || dataType === 'set';
  const paren = /^[a-z]+\((\d+)(?:,(\d+))?\)/.exec(columnType);
  let length: number | null = null;
  let scale: number | null = null;
  if (PAREN_LENGTH_TYPES.has(dataType)) {
    length = paren ? Number(paren[1]) : null;
    if (dataType === 'decimal' || dataType === 'float' || dataType === 'double')
      scale = paren?.[2] !== undefined ? Number(paren[2]) : null;
  } else if (CHAR_LENGTH_TYPES.has(dataType))
    length = r.charLen === null || r.charLen === undefined ? null : Number(r.charLen);
  else if (dataType === 'time' || dataType === 'datetime' || dataType === 'timestamp') length = Number(r.fsp ?? 0);
  const col: ColumnDef = {
    name: str(r.name) ?? '',
    position,
    dataType,
    columnType,
    length,
    scale,
    unsigned: !isEnum && /\bunsigned\b/.test(columnType),
    nullable: str(r.nullable) === 'YES',
    charset: str(r.cs) ? normalizeCharset(str(r.cs)!) : null,
    collation: str(r.coll) ? normalizeCollation(str(r.coll)!) : null,
    defaultValue: null,
    hasDefault: false,
    autoIncrement: extra.includes('auto_increment'),
    enumValues: isEnum ? parseEnumValues(columnType) : null,
    generated: /\b(virtual|stored|persistent)\b/.test(extra),
    invisible: /\binvisible\b/.test(extra),
    comment: str(r.comment) || null,
  };
  if (col.autoIncrement || col.generated) return col;
  const raw = str(r.def);
  if (flavor === 'mariadb') {
    if (raw === null) return col;
    col.hasDefault = true;
    if (raw === 'NULL') return col;
    if (raw.startsWith("'") && raw.endsWith("'") && raw.length >= 2)
      col.defaultValue = normalizeLiteralDefault(col, unquote(raw));
    else if (/^[-+]?[\d.]/.test(raw) || /^b'/i.test(raw)) col.defaultValue = normalizeLiteralDefault(col, raw);
    else col.defaultValue = normalizeExpressionDefault(raw);
    return col;
  }
  if (raw === null) {
    col.hasDefault = col.nullable;
    return col;
  }
  col.hasDefault = true;
  col.defaultValue = extra.includes('default_generated')
    ? normalizeExpressionDefault(raw)
    : normalizeLiteralDefault(col, raw);
  return col;
}

/** 'abc' with '' or backslash escapes → abc. */
function unquote(quoted: string): string {
  const body = quoted.slice(1, -1);
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === "'" && body[i + 1] === "'") {
      out += "'";
      i++;
    } else if (c === '\\' && i + 1 < body.length) {
      const e = body[++i];
      out += ({ n: '\n', t: '\t', r: '\r', '0': '\0', b: '\b', Z: '\x1a' } as Record<string, string>)[e] ?? e;
    } else out += c;
  }
  return out;
}

/** enum('a','it''s','x,y') → ['a', "it's", 'x,y']. */
export function parseEnumValues(columnType: string): string[] {
  const open = columnType.indexOf('(');
  const out: string[] = [];
  let i = open + 1;
  while (i > 0 && i < columnType.length) {
    if (columnType[i] !== "'") {
      i++;
      if (columnType[i - 1] === ')') break;
      continue;
    }
    let v = '';
    i++;
    while (i < columnType.length) {
      if (columnType[i] === "'" && columnType[i + 1] === "'") {
        v += "'";
        i += 2;
      } else if (columnType[i] === '\\' && i + 1 < columnType.length) {
        v += columnType[i + 1];
        i += 2;
      } else if (columnType[i] === "'") {
        i++;
        break;
      } else v += columnType[i++];
    }
    out.push(v);
  }
  return out;
}
