/** Discovers the tables a snapshot captures. */
import type { Connection, RowDataPacket } from 'mysql2/promise';

export interface CapturedTable {
  db: string;
  table: string;
  /** Storage engine, lower case ('innodb', 'myisam', ...); null when the server does not say. */
  engine: string | null;
  /** True when the engine gives MVCC reads, i.e. START TRANSACTION WITH CONSISTENT SNAPSHOT covers the table. */
  transactional: boolean;
}

const SYSTEM_SCHEMAS = ['mysql', 'information_schema', 'performance_schema', 'sys'];
const MVCC_ENGINES = new Set(['innodb', 'xtradb', 'rocksdb', 'tokudb']);

export function isTransactionalEngine(engine: string | null): boolean {
  return engine !== null && MVCC_ENGINES.has(engine.toLowerCase());
}

/**
 * Base tables (including MariaDB system-versioned ones; views and sequences carry no rows to capture) accepted by
 * `filter`, ordered by database then table name so runs are reproducible.
 */
export async function listCapturedTables(
  conn: Connection,
  filter: (db: string, table: string) => boolean,
): Promise<CapturedTable[]> {
  const [rows] = await conn.query<RowDataPacket[]>(
    `SELECT TABLE_SCHEMA AS db, TABLE_NAME AS t, ENGINE AS engine FROM information_schema.TABLES
      WHERE TABLE_TYPE IN ('BASE TABLE', 'SYSTEM VERSIONED') AND TABLE_SCHEMA NOT IN (?)
      ORDER BY TABLE_SCHEMA, TABLE_NAME`,
    [SYSTEM_SCHEMAS],
  );
  const out: CapturedTable[] = [];
  for (const r of rows) {
    const db = String(r.db);
    const table = String(r.t);
    if (!filter(db, table)) continue;
    const engine = r.engine === null || r.engine === undefined ? null : String(r.engine).toLowerCase();
    out.push({ db, table, engine, transactional: isTransactionalEngine(engine) });
  }
  return out;
}
