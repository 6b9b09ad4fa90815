/**
 * Debezium's blocking ad-hoc snapshot (`execute-snapshot` with `"type":"blocking"`): the stream loop stops reading
 * the binlog at a transaction boundary, the requested tables are read in one consistent read view (START
 * TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY: no locks, no writes) and emitted as `op: r` with Debezium's
 * snapshot markers (first/true/last_in_data_collection/last), then streaming resumes where it paused.
 *
 * As in Debezium, changes committed between the pause and the read view are streamed again after the snapshot
 * rows (they are older than the rows), so consumers converge on the table; readers needing no interleaving of
 * `r` with `c/u/d` get exactly that. Not resumable: a crash mid-snapshot resumes streaming, the request is lost.
 *
 * Notifications are Debezium's for a blocking snapshot: it runs as an on-demand initial snapshot, so they are the
 * `Initial Snapshot` ones (STARTED, IN_PROGRESS and TABLE_SCAN_COMPLETED per table, then COMPLETED, or ABORTED).
 */
import type { Connection } from 'mysql2/promise';
import type { Logger } from '../../../common/logger.js';
import type { QueueItem } from '../../../model/queue-item.js';
import type { TableDef } from '../../../model/table-def.js';
import type { InitialSnapshotNotifications } from '../../../notifications/notification.js';
import type { RecordFactory, SourceInfo } from '../streaming/ports.js';
import { MarkerSequencer } from './markers.js';
import { serverTimeMs } from './server.js';
import { defaultSelect, scanTable } from './table-scan.js';

export interface BlockingSnapshotOptions {
  connect(): Promise<Connection>;
  tables: readonly TableDef[];
  records: RecordFactory;
  emit(item: QueueItem): Promise<void>;
  /** Where the stream paused: the position the rows carry. */
  at: { file: string; pos: number };
  selectOverrides: ReadonlyMap<string, string>;
  fetchSize?: number;
  logger: Logger;
  signal: AbortSignal;
  /**
   * Debezium's initial snapshot notifications (notification.enabled.channels); absent = off. Unlike the initial
   * snapshot's, every `data_collections` lists the requested tables only (as Debezium's blocking snapshot does).
   */
  notifications?: InitialSnapshotNotifications | null;
}

export async function runBlockingSnapshot(opts: BlockingSnapshotOptions): Promise<{ rows: number; ms: number }> {
  const t0 = performance.now();
  const conn = await opts.connect();
  const abort = () => conn.destroy();
  opts.signal.addEventListener('abort', abort, { once: true });
  let rows = 0;
  const notes = opts.notifications ?? null;
  const dataTables = opts.tables.map((t) => `${t.database}.${t.name}`);
  notes?.started();
  let completed = false;
  try {
    await conn.query("SET SESSION time_zone = '+00:00'");
    await conn.query('SET SESSION net_write_timeout = 86400');
    await conn.query('SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    await conn.query('START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY');
    const source = (tsMs: number, marker: SourceInfo['snapshot']): SourceInfo => ({
      tsMs,
      snapshot: marker,
      serverId: 0,
      gtid: null,
      file: opts.at.file,
      pos: opts.at.pos,
      row: 0,
      thread: null,
      query: null,
    });
    const sequencer = new MarkerSequencer(
      async (table, row, marker, tsMs) => {
        for (const record of opts.records.forTable(table).read(row, source(tsMs, marker)))
          await opts.emit({ record, offset: null });
        rows++;
      },
      async (table, n) => {
        opts.logger.info('blocking snapshot: table done', { table: `${table.database}.${table.name}`, rows: n });
        notes?.tableCompleted(`${table.database}.${table.name}`, n, dataTables, 'SUCCEEDED');
      },
    );
    for (const table of opts.tables) {
      const id = `${table.database}.${table.name}`;
      notes?.tableInProgress(id, dataTables);
      sequencer.beginTable(table, await serverTimeMs(conn));
      await scanTable(conn, table, opts.selectOverrides.get(id) ?? defaultSelect(table), {
        highWaterMark: opts.fetchSize ?? 1024,
        signal: opts.signal,
        onRow: (row) => sequencer.row(row),
      });
      await sequencer.endTable();
    }
    await sequencer.finish();
    await conn.query('COMMIT');
    notes?.completed();
    completed = true;
  } finally {
    if (!completed) notes?.aborted();
    opts.signal.removeEventListener('abort', abort);
    await conn.end().catch(() => conn.destroy());
  }
  return { rows, ms: Math.round(performance.now() - t0) };
}
