/**
 * Debezium's notifications (io.debezium.pipeline.notification): what the capture reports about its snapshots,
 * with Debezium's field names, aggregate types, status names and `additional_data` keys, so a consumer of
 * Debezium's notification topic reads these unchanged.
 */
import { randomUUID } from 'node:crypto';

export interface Notification {
  /** Random per notification for the initial snapshot; the execute-snapshot signal's id for incremental ones. */
  readonly id: string;
  readonly aggregate_type: string;
  readonly type: string;
  /** String values only, as Debezium's `Map<String, String>`. */
  readonly additional_data: Readonly<Record<string, string>>;
  /** Epoch milliseconds. */
  readonly timestamp: number;
}

/** Where notifications go: the channels behind it. Never throws and never blocks the snapshot. */
export interface Notifier {
  notify(notification: Notification): void;
}

export const NOOP_NOTIFIER: Notifier = { notify() {} };

export const INITIAL_SNAPSHOT = 'Initial Snapshot';
export const INCREMENTAL_SNAPSHOT = 'Incremental Snapshot';
/** Debezium's LIST_DELIMITER for `data_collections`. */
const LIST_DELIMITER = ',';

/** Debezium's TableScanCompletionStatus values (incremental snapshots use all of them, initial ones two). */
export type TableScanStatus = 'SUCCEEDED' | 'EMPTY' | 'NO_PRIMARY_KEY' | 'SKIPPED' | 'SQL_EXCEPTION' | 'UNKNOWN_SCHEMA';

interface Context {
  /** `connector_name`: Debezium's logical name, i.e. topic.prefix. */
  readonly connectorName: string;
  readonly now?: () => number;
}

function build(
  ctx: Context,
  aggregateType: string,
  type: string,
  data: Record<string, string>,
  id: string = randomUUID(),
): Notification {
  return {
    id,
    aggregate_type: aggregateType,
    type,
    additional_data: { ...data, connector_name: ctx.connectorName },
    timestamp: (ctx.now ?? Date.now)(),
  };
}

/** Debezium's InitialSnapshotNotificationService: the consistent snapshot before streaming. */
export class InitialSnapshotNotifications {
  constructor(
    private readonly notifier: Notifier,
    private readonly ctx: Context,
  ) {}

  started(): void {
    this.notifier.notify(build(this.ctx, INITIAL_SNAPSHOT, 'STARTED', {}));
  }

  /** A table's scan starts; `tables` are the tables whose rows the snapshot reads. */
  tableInProgress(table: string, tables: readonly string[]): void {
    this.notifier.notify(
      build(this.ctx, INITIAL_SNAPSHOT, 'IN_PROGRESS', {
        current_collection_in_progress: table,
        data_collections: tables.join(LIST_DELIMITER),
      }),
    );
  }

  /** A table's scan ended; `tables` are all captured tables of the snapshot. */
  tableCompleted(table: string, rows: number, tables: readonly string[], status: 'SUCCEEDED' | 'SQL_EXCEPTION'): void {
    const data: Record<string, string> =
      status === 'SUCCEEDED'
        ? {
            scanned_collection: table,
            data_collections: tables.join(LIST_DELIMITER),
            total_rows_scanned: String(rows),
            status,
          }
        : { scanned_collection: table, status };
    this.notifier.notify(build(this.ctx, INITIAL_SNAPSHOT, 'TABLE_SCAN_COMPLETED', data));
  }

  completed(): void {
    this.notifier.notify(build(this.ctx, INITIAL_SNAPSHOT, 'COMPLETED', {}));
  }

  aborted(): void {
    this.notifier.notify(build(this.ctx, INITIAL_SNAPSHOT, 'ABORTED', {}));
  }

  skipped(): void {
    this.notifier.notify(build(this.ctx, INITIAL_SNAPSHOT, 'SKIPPED', {}));
  }
}

/**
 * Debezium's IncrementalSnapshotNotificationService: ad-hoc (signal) snapshots read in chunks while streaming.
 * Every notification of one snapshot carries the id of the execute-snapshot signal that started it.
 */
export class IncrementalSnapshotNotifications {
  constructor(
    private readonly notifier: Notifier,
    private readonly ctx: Context,
  ) {}

  started(id: string, tables: readonly string[]): void {
    this.send(id, 'STARTED', { data_collections: tables.join(LIST_DELIMITER) });
  }

  /**
   * A chunk was emitted. Keys are the primary-key values joined with ',' (Debezium's Objects.toString of each
   * part; `<null>` for a null part, `"<null>"` for an unknown maximum key).
   */
  inProgress(
    id: string,
    tables: readonly string[],
    table: string,
    maximumKey: readonly (string | null)[] | null,
    lastProcessedKey: readonly (string | null)[],
  ): void {
    const join = (k: readonly (string | null)[]) => k.map((x) => x ?? '<null>').join(',');
    this.send(id, 'IN_PROGRESS', {
      data_collections: tables.join(LIST_DELIMITER),
      current_collection_in_progress: table,
      maximum_key: maximumKey ? join(maximumKey) : '"<null>"',
      last_processed_key: join(lastProcessedKey),
    });
  }

  tableScanCompleted(
    id: string,
    tables: readonly string[],
    table: string,
    rows: number,
    status: TableScanStatus,
  ): void {
    this.send(id, 'TABLE_SCAN_COMPLETED', {
      data_collections: tables.join(LIST_DELIMITER),
      scanned_collection: table,
      total_rows_scanned: String(rows),
      status,
    });
  }

  completed(id: string): void {
    this.send(id, 'COMPLETED', {});
  }

  /** A pause-snapshot signal was acted on; `tables` are the ones still to be read. */
  paused(id: string, tables: readonly string[]): void {
    this.send(id, 'PAUSED', { data_collections: tables.join(LIST_DELIMITER) });
  }

  /** A resume-snapshot signal was acted on; `tables` are the ones still to be read. */
  resumed(id: string, tables: readonly string[]): void {
    this.send(id, 'RESUMED', { data_collections: tables.join(LIST_DELIMITER) });
  }

  /** A stop-snapshot signal: `tables` are the ones it named (none: the whole snapshot was stopped). */
  aborted(id: string, tables?: readonly string[]): void {
    this.send(id, 'ABORTED', tables ? { data_collections: tables.join(LIST_DELIMITER) } : {});
  }

  private send(id: string, type: string, data: Record<string, string>): void {
    this.notifier.notify(build(this.ctx, INCREMENTAL_SNAPSHOT, type, data, id));
  }
}
