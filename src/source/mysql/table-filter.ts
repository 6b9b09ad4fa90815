/**
 * Debezium's table selection: database include/exclude lists match the database name, table lists match
 * `db.table` (anchored, case-insensitive; compiled by src/config). System schemas are never captured.
 */
import type { FiltersConfig } from '../../config/types.js';

const SYSTEM_DATABASES = new Set(['mysql', 'information_schema', 'performance_schema', 'sys']);

export type TableFilter = (db: string, table: string) => boolean;

export function createTableFilter(filters: Pick<FiltersConfig, keyof FiltersConfig>): TableFilter {
  const cache = new Map<string, boolean>();
  const any = (list: readonly RegExp[], s: string) => list.some((r) => r.test(s));
  const decide = (db: string, table: string): boolean => {
    if (SYSTEM_DATABASES.has(db.toLowerCase())) return false;
    if (filters.databaseInclude && !any(filters.databaseInclude, db)) return false;
    if (filters.databaseExclude && any(filters.databaseExclude, db)) return false;
    const id = `${db}.${table}`;
    if (filters.tableInclude && !any(filters.tableInclude, id)) return false;
    if (filters.tableExclude && any(filters.tableExclude, id)) return false;
    return true;
  };
  // The last table asked about: consecutive rows events are nearly always of one table, and its names are the same
  // strings (the decoder's cached TABLE_MAP), so the answer needs neither a key string built nor hashed.
  let lastDb: string | null = null;
  let lastTable = '';
  let last = false;
  return (db, table) => {
    if (db === lastDb && table === lastTable) return last;
    const id = `${db}\u0000${table}`;
    let v = cache.get(id);
    if (v === undefined) {
      v = decide(db, table);
      if (cache.size > 100_000) cache.clear();
      cache.set(id, v);
    }
    lastDb = db;
    lastTable = table;
    last = v;
    return v;
  };
}

/** Whether any table of `db` could be captured (for database-level DDL and schema loading). */
export function createDatabaseFilter(filters: Pick<FiltersConfig, 'databaseInclude' | 'databaseExclude'>) {
  return (db: string): boolean => {
    if (SYSTEM_DATABASES.has(db.toLowerCase())) return false;
    if (filters.databaseInclude && !filters.databaseInclude.some((r) => r.test(db))) return false;
    if (filters.databaseExclude?.some((r) => r.test(db))) return false;
    return true;
  };
}
