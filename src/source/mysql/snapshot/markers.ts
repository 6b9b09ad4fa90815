/**
 * Debezium's `source.snapshot` marker for each snapshot row. Knowing whether a row is the last one of its table,
 * or of the whole snapshot, needs one row of look-ahead, so the sequencer holds exactly one row back; empty
 * tables at the end therefore still leave a correct 'last' on the last real row (Debezium's MySQL connector marks
 * the last record it emitted, too). 'first' is positional as in Debezium: only the first row of the first table;
 * when that table is empty, the next table's first row is 'first_in_data_collection'.
 */
import type { TableDef } from '../../../model/table-def.js';
import type { Row } from '../../../model/values.js';

export type SnapshotMarker = 'first' | 'first_in_data_collection' | 'true' | 'last_in_data_collection' | 'last';

interface Held {
  table: TableDef;
  row: Row;
  /** source.ts_ms of the row: the time read from the server when its table's scan began. */
  tsMs: number;
  firstOverall: boolean;
  firstInTable: boolean;
  lastInTable: boolean;
}

/** Precedence: last > first > last_in_data_collection > first_in_data_collection > true. */
export function markerFor(h: Omit<Held, 'table' | 'row' | 'tsMs'>, lastOverall: boolean): SnapshotMarker {
  if (lastOverall) return 'last';
  if (h.firstOverall) return 'first';
  if (h.lastInTable) return 'last_in_data_collection';
  if (h.firstInTable) return 'first_in_data_collection';
  return 'true';
}

export class MarkerSequencer {
  private held: Held | null = null;
  private current: TableDef | null = null;
  private rowsInTable = 0;
  private tablesBegun = 0;
  private tableTsMs = 0;
  /** Tables whose scan ended but whose onTableDone waits for their held last row to be emitted. */
  private pendingDone: Array<{ table: TableDef; rows: number }> = [];

  constructor(
    private readonly emit: (table: TableDef, row: Row, marker: SnapshotMarker, tsMs: number) => Promise<void>,
    private readonly tableDone: (table: TableDef, rows: number) => Promise<void>,
  ) {}

  /** `tsMs`: the table's source.ts_ms (Debezium reads CURRENT_TIMESTAMP once per table). */
  beginTable(table: TableDef, tsMs = Date.now()): void {
    this.current = table;
    this.rowsInTable = 0;
    this.tablesBegun++;
    this.tableTsMs = tsMs;
  }

  /**
   * Awaiting it is the backpressure: it resolves when the previous row has been emitted. The common case (a row
   * follows a row of the same table) hands back the emit's own promise, without async frames of its own per row.
   */
  row(row: Row): Promise<void> {
    const table = this.current;
    if (!table) return Promise.reject(new Error('MarkerSequencer.row() before beginTable()'));
    const next: Held = {
      table,
      row,
      tsMs: this.tableTsMs,
      firstOverall: this.tablesBegun === 1 && this.rowsInTable === 0,
      firstInTable: this.rowsInTable === 0,
      lastInTable: false,
    };
    this.rowsInTable++;
    const h = this.held;
    if (h === null || this.pendingDone.length > 0) return this.flushThenHold(next);
    // The caller awaits this row before the next row or endTable(), so holding `next` already is unobservable.
    this.held = next;
    return this.emit(h.table, h.row, markerFor(h, false), h.tsMs);
  }

  private async flushThenHold(next: Held): Promise<void> {
    await this.flushHeld(false);
    this.held = next;
  }

  async endTable(): Promise<number> {
    const table = this.current;
    if (!table) throw new Error('MarkerSequencer.endTable() before beginTable()');
    const rows = this.rowsInTable;
    this.current = null;
    if (this.held && this.held.table === table) this.held.lastInTable = true;
    this.pendingDone.push({ table, rows });
    if (!this.held) await this.flushDone();
    return rows;
  }

  /** Emits the held row as 'last' and every outstanding onTableDone. */
  async finish(): Promise<void> {
    await this.flushHeld(true);
  }

  private async flushHeld(lastOverall: boolean): Promise<void> {
    const h = this.held;
    if (h) {
      this.held = null;
      await this.emit(h.table, h.row, markerFor(h, lastOverall), h.tsMs);
    }
    await this.flushDone();
  }

  private async flushDone(): Promise<void> {
    while (this.pendingDone.length > 0) {
      const d = this.pendingDone.shift()!;
      await this.tableDone(d.table, d.rows);
    }
  }
}
