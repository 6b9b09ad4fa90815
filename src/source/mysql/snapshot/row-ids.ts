/**
 * Stable ids of snapshot rows (src/events/event-id.ts): the snapshot's position, the table and the row's index in
 * the table's scan. A snapshot re-taken at the same position reads the same rows in the same (clustered index)
 * order, so its rows get the same ids; one taken at another position holds other facts and gets other ids.
 */
import { snapshotIdPrefix } from '../../../events/event-id.js';
import type { TableDef } from '../../../model/table-def.js';

export class SnapshotRowIds {
  private readonly tables = new Map<TableDef, { prefix: string; rows: number }>();
  /** Rows arrive table by table: the last table's entry, without a map lookup per row. */
  private lastTable: TableDef | null = null;
  private lastEntry = { prefix: '', rows: 0 };

  /** The id origin of the next row of `table` read at `position`. */
  next(table: TableDef, position: { file: string; pos: number }): string {
    let t = this.lastTable === table ? this.lastEntry : this.tables.get(table);
    if (!t) {
      t = { prefix: snapshotIdPrefix('snapshot', position, `${table.database}.${table.name}`), rows: 0 };
      this.tables.set(table, t);
    }
    this.lastTable = table;
    this.lastEntry = t;
    return t.prefix + t.rows++;
  }
}
