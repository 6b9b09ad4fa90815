/**
 * Debezium's notifications for incremental (ad-hoc, signal) snapshots, kept beside the chunked runner: which
 * tables the current snapshot covers, its correlation id (the execute-snapshot signal's id) and each table's
 * maximum key. The runner only reports what happened (requested, table started, chunk emitted, table ended).
 */
import { randomUUID } from 'node:crypto';
import type { Connection } from 'mysql2/promise';
import type { TableDef } from '../../../model/table-def.js';
import type { IncrementalSnapshotNotifications, TableScanStatus } from '../../../notifications/notification.js';
import { quoteId } from './sql.js';

/** A stored key part as text, as Debezium prints key values (Objects.toString). */
type KeyPart = { i: string } | { d: string } | { s: string } | { b: string };

function keyText(k: KeyPart): string {
  return 'i' in k ? k.i : 'd' in k ? k.d : 's' in k ? k.s : k.b;
}

export class IncrementalNotes {
  private current: { id: string; tables: string[]; pending: Set<string> } | null = null;
  private readonly maxKeys = new Map<string, (string | null)[] | null>();

  constructor(private readonly notes: IncrementalSnapshotNotifications) {}

  /** Tables added by an execute-snapshot signal (`id`); STARTED only when no incremental snapshot is running. */
  requested(added: readonly string[], id?: string | null): void {
    if (added.length === 0) return;
    if (!this.current) {
      this.current = { id: id || randomUUID(), tables: [...added], pending: new Set(added) };
      this.notes.started(this.current.id, added);
      return;
    }
    for (const t of added) {
      if (!this.current.tables.includes(t)) this.current.tables.push(t);
      this.current.pending.add(t);
    }
  }

  covers(table: string): boolean {
    return this.current?.pending.has(table) ?? false;
  }

  /** Reads the table's maximum key (Debezium reports it with every chunk). */
  async tableStarted(conn: Connection, table: string, def: TableDef): Promise<void> {
    if (!this.covers(table)) return;
    const dot = table.indexOf('.');
    const from = `${quoteId(table.slice(0, dot))}.${quoteId(table.slice(dot + 1))}`;
    try {
      const [rows] = await conn.query({
        sql: `SELECT ${def.primaryKey.map(quoteId).join(', ')} FROM ${from} ORDER BY ${def.primaryKey.map((c) => `${quoteId(c)} DESC`).join(', ')} LIMIT 1`,
        rowsAsArray: true,
      });
      const row = (rows as unknown[][])[0];
      this.maxKeys.set(
        table,
        row ? row.map((v) => (v === null ? null : Buffer.isBuffer(v) ? v.toString('base64') : String(v))) : null,
      );
    } catch {
      this.maxKeys.set(table, null);
    }
  }

  /** A chunk of `selected` rows was emitted; `done` when it was the table's last. */
  chunkEmitted(table: string, selected: number, lastKey: readonly KeyPart[] | null, rows: number, done: boolean): void {
    const c = this.current;
    if (!c?.pending.has(table)) return;
    if (selected > 0 && lastKey)
      this.notes.inProgress(c.id, c.tables, table, this.maxKeys.get(table) ?? null, lastKey.map(keyText));
    if (done) this.tableEnded(table, rows, rows === 0 ? 'EMPTY' : 'SUCCEEDED');
  }

  tableEnded(table: string, rows: number, status: TableScanStatus): void {
    const c = this.current;
    if (!c?.pending.delete(table)) return;
    this.maxKeys.delete(table);
    this.notes.tableScanCompleted(c.id, c.tables, table, rows, status);
    if (c.pending.size === 0) {
      this.notes.completed(c.id);
      this.current = null;
    }
  }
}
