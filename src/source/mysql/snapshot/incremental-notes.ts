/**
 * Debezium's notifications for incremental snapshots (execute-snapshot signals, and `snapshot.chunked`'s tables,
 * which Debezium users get the same way: an incremental snapshot after the schema), kept beside the chunked runner:
 * which tables the current snapshot still reads, its correlation id (the execute-snapshot signal's id, else a
 * random one) and each table's maximum key. The runner only reports what happened (requested, resumed, table
 * started, chunk emitted, table ended, paused, resumed, stopped).
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
  /** The running snapshot: its correlation id and the tables still to be read, in request order. */
  private current: { id: string; pending: Set<string> } | null = null;
  private readonly maxKeys = new Map<string, (string | null)[] | null>();

  constructor(private readonly notes: IncrementalSnapshotNotifications) {}

  /** The running snapshot's correlation id (kept in the offset, so a resumed snapshot keeps it). */
  get id(): string | null {
    return this.current?.id ?? null;
  }

  /**
   * Tables added by an execute-snapshot signal (`id`), or by `snapshot.chunked`; STARTED only when no snapshot is
   * running (later tables join it, as in Debezium).
   */
  requested(added: readonly string[], id?: string | null): void {
    if (added.length === 0) return;
    if (!this.current) {
      this.current = { id: id || randomUUID(), pending: new Set(added) };
      this.notes.started(this.current.id, added);
      return;
    }
    for (const t of added) this.current.pending.add(t);
  }

  /** A snapshot resumed after a restart: it keeps its id (`id` from the offset) and sends no second STARTED. */
  resumed(tables: readonly string[], id: string): void {
    if (tables.length === 0) return;
    if (!this.current) this.current = { id, pending: new Set(tables) };
    else for (const t of tables) this.current.pending.add(t);
  }

  /** Debezium's `data_collections`: the tables still to be read (the current one included). */
  private remaining(): string[] {
    return [...(this.current?.pending ?? [])];
  }

  paused(): void {
    if (this.current) this.notes.paused(this.current.id, this.remaining());
  }

  unpaused(): void {
    if (this.current) this.notes.resumed(this.current.id, this.remaining());
  }

  /** A stop-snapshot signal removed `tables` (null: all of them). Stopped tables get no TABLE_SCAN_COMPLETED. */
  stopped(tables: readonly string[] | null): void {
    const c = this.current;
    if (!c) return;
    if (tables === null) {
      this.notes.aborted(c.id);
      this.current = null;
      this.maxKeys.clear();
      return;
    }
    this.notes.aborted(c.id, tables);
    for (const t of tables) {
      c.pending.delete(t);
      this.maxKeys.delete(t);
    }
    if (c.pending.size === 0) this.current = null;
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
      this.notes.inProgress(c.id, this.remaining(), table, this.maxKeys.get(table) ?? null, lastKey.map(keyText));
    if (done) this.tableEnded(table, rows, rows === 0 ? 'EMPTY' : 'SUCCEEDED');
  }

  tableEnded(table: string, rows: number, status: TableScanStatus): void {
    const c = this.current;
    if (!c?.pending.has(table)) return;
    const tables = this.remaining();
    c.pending.delete(table);
    this.maxKeys.delete(table);
    this.notes.tableScanCompleted(c.id, tables, table, rows, status);
    if (c.pending.size === 0) {
      this.notes.completed(c.id);
      this.current = null;
    }
  }
}
