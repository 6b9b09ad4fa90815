/**
 * How one DDL statement becomes Debezium's schema-change events: each event is keyed by the database it touches
 * (the table's database, not the session's default), a multi-table RENAME or DROP TABLE gives one event per table
 * with its own text (`RENAME TABLE a TO b`, ``DROP TABLE `db`.`t` ``), DROP DATABASE gives one event without table changes, and `source.table`
 * lists the tables of the events of one database the way Debezium's HashSet iterates them.
 */
import type { SchemaHistoryEntry } from '../../../stores/schema-history.js';
import type { AppliedDdl } from './schema-tracker.js';

type TableChange = SchemaHistoryEntry['tableChanges'][number];

export interface SchemaChangeEventSpec {
  /** The record key's databaseName and source.db. */
  databaseName: string;
  ddl: string;
  tableChanges: TableChange[];
  /** Table names for source.table (null when empty). */
  tables: string[];
}

export type SchemaChangeHints = Pick<AppliedDdl, 'ddl' | 'database' | 'perTableDdl' | 'dropsDatabase'>;

const databaseOf = (id: string) => id.slice(0, id.indexOf('.'));
const tableOf = (id: string) => id.slice(id.indexOf('.') + 1);

export function schemaChangeEvents(
  hints: SchemaChangeHints,
  tableChanges: TableChange[],
  statement: string,
  defaultDatabase: string,
): SchemaChangeEventSpec[] {
  const ddl = hints.ddl ?? statement;
  const fallbackDb = hints.database ?? defaultDatabase ?? '';
  if (hints.dropsDatabase) return [{ databaseName: fallbackDb, ddl, tableChanges: [], tables: [] }];
  const events: Array<Omit<SchemaChangeEventSpec, 'tables'>> = [];
  const perTable = new Map((hints.perTableDdl ?? []).map((r) => [r.id, r.ddl]));
  if (perTable.size > 0) {
    for (const change of tableChanges) {
      events.push({ databaseName: databaseOf(change.id), ddl: perTable.get(change.id) ?? ddl, tableChanges: [change] });
    }
  } else {
    const first = tableChanges[0];
    events.push({ databaseName: first ? databaseOf(first.id) : fallbackDb, ddl, tableChanges });
  }
  // Debezium sets source.table once per run of events of one database, from a HashSet of their table ids.
  const out: SchemaChangeEventSpec[] = [];
  for (let i = 0; i < events.length; ) {
    let j = i;
    while (j < events.length && events[j].databaseName === events[i].databaseName) j++;
    const ids = events.slice(i, j).flatMap((e) => e.tableChanges.map((c) => c.id));
    const tables = javaHashSetOrder(ids).map(tableOf);
    for (let k = i; k < j; k++) out.push({ ...events[k], tables });
    i = j;
  }
  return out;
}

/** java.lang.String#hashCode. */
function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

/** Iteration order of a java.util.HashSet copied from these strings (`new HashSet<>(collection)`). */
export function javaHashSetOrder(values: string[]): string[] {
  const unique = [...new Set(values)];
  let buckets = 16;
  while (buckets < Math.floor(unique.length / 0.75) + 1) buckets *= 2;
  const bucket = (v: string) => {
    const h = javaStringHash(v);
    return (h ^ (h >>> 16)) & (buckets - 1);
  };
  return unique
    .map((v, i) => ({ v, i, b: bucket(v) }))
    .sort((x, y) => x.b - y.b || x.i - y.i)
    .map((x) => x.v);
}
