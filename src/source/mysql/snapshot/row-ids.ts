/**
 * Stable ids of snapshot rows (src/events/event-id.ts): the snapshot's position, the table and the row's index in
 * the table's scan. A snapshot re-taken at the same position reads the same rows in the same (clustered index)
 * order, so its rows get the same ids; one taken at another position holds other facts and gets other ids.
 */
import { snapshotIdPrefix } from '../../../events/event-id.js';
import type { TableDef } from '../../../model/table-def.js';

export class SnapshotRowIds {
  private readonly tables = new Map<string, { prefix: string; rows: number }>();

  /** The id origin of the next row of `table` read at `position`. */
  next(table: TableDef, position: { file: string; pos: number }): string {
    const id = `${table.database}.${table.name}`;
    let t = this.tables.get(id);
    if (!t) {
      t = { prefix: snapshotIdPrefix('snapshot', position, id), rows: 0 };
      this.tables.set(id, t);
    }
    return t.prefix + t.rows++;
  }
}
