/**
 * The statements of Debezium's table-structure phase (BinlogSnapshotChangeEventSource.readTableStructure), in its
 * order: the server's default charset as a SET, a DROP TABLE IF EXISTS per captured table, then per database
 * DROP DATABASE IF EXISTS / CREATE DATABASE ... CHARSET ... COLLATE ... / USE, followed by the SHOW CREATE TABLE
 * text of each of its tables. Each becomes a schema-history entry and, with include.schema.changes, a schema
 * change event, so a consumer of the schema topic sees what a Debezium snapshot writes there.
 */
import type { Connection, RowDataPacket } from 'mysql2/promise';
import type { DatabaseDef, TableDef } from '../../../model/table-def.js';
import type { SchemaHistoryEntry } from '../../../stores/schema-history.js';
import { quoteId, quoteTable } from './sql.js';

export type SnapshotDdl = Pick<SchemaHistoryEntry, 'databaseName' | 'ddl' | 'tableChanges'>;

/** character_set_server and collation_server, the variables Debezium records before the tables. */
export async function readServerCharsetVariables(conn: Connection): Promise<Record<string, string>> {
  const [rows] = await conn.query<RowDataPacket[]>(
    "SHOW VARIABLES WHERE Variable_name IN ('character_set_server', 'collation_server')",
  );
  const out: Record<string, string> = {};
  for (const r of rows) out[String(r.Variable_name)] = r.Value === null ? '' : String(r.Value);
  return out;
}

/** `SET a=x, b=y;` with names sorted, values holding ',' or ';' quoted (Debezium's setStatementFor). */
export function setStatementFor(vars: Record<string, string>): string {
  const parts = Object.keys(vars)
    .sort()
    .map((name) => {
      const v = vars[name] ?? '';
      return `${name}=${/[,;]/.test(v) ? `'${v}'` : v}`;
    });
  return `SET ${parts.join(', ')};`;
}

export interface SnapshotSchemaInput {
  serverVariables: Record<string, string>;
  databases: DatabaseDef[];
  /** The captured tables, in snapshot order. */
  tables: TableDef[];
  /** 'db.table' → SHOW CREATE TABLE text. */
  createStatements: Map<string, string>;
}

export function snapshotSchemaStatements(input: SnapshotSchemaInput): SnapshotDdl[] {
  const out: SnapshotDdl[] = [];
  if (Object.keys(input.serverVariables).length > 0) {
    out.push({ databaseName: '', ddl: setStatementFor(input.serverVariables), tableChanges: [] });
  }
  for (const t of input.tables) {
    out.push({
      databaseName: t.database,
      ddl: `DROP TABLE IF EXISTS ${quoteTable(t.database, t.name)}`,
      tableChanges: [{ type: 'DROP', id: `${t.database}.${t.name}`, table: null }],
    });
  }
  const byDb = new Map<string, TableDef[]>();
  for (const t of input.tables) {
    const list = byDb.get(t.database) ?? [];
    list.push(t);
    byDb.set(t.database, list);
  }
  const locales = new Map(input.databases.map((d) => [d.name, d]));
  for (const [db, tables] of byDb) {
    const q = quoteId(db);
    const d = locales.get(db);
    const create = `CREATE DATABASE ${q}${d?.charset ? ` CHARSET ${d.charset}` : ''}${d?.collation ? ` COLLATE ${d.collation}` : ''}`;
    out.push({ databaseName: db, ddl: `DROP DATABASE IF EXISTS ${q}`, tableChanges: [] });
    out.push({ databaseName: db, ddl: create, tableChanges: [] });
    out.push({ databaseName: db, ddl: `USE ${q}`, tableChanges: [] });
    for (const t of tables) {
      const id = `${t.database}.${t.name}`;
      out.push({
        databaseName: db,
        ddl: input.createStatements.get(id) ?? '',
        tableChanges: [{ type: 'CREATE', id, table: t }],
      });
    }
  }
  return out;
}
