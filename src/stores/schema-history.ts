import type { SourceOffset } from '../model/source-offset.js';
import type { TableDef } from '../model/table-def.js';

/**
 * Schema history (Debezium's SchemaHistory: record / recover / exists / initializeStorage). Each entry is one DDL
 * (or a snapshot of the schema) with its binlog position and the resulting definitions of the tables it touched,
 * so recovering "up to offset X" rebuilds the schema exactly as it was at X.
 */
export interface SchemaHistoryEntry {
  /** Monotonic sequence assigned by the writer; orders entries for recovery. */
  seq: number;
  /** Position of the DDL in the binlog (or of the snapshot). */
  position: Pick<SourceOffset, 'file' | 'pos' | 'gtids' | 'server_generation'>;
  ts_ms: number;
  /** Default database of the statement (QUERY event), may be empty. */
  databaseName: string;
  ddl: string;
  /** Tables created/altered by the DDL with their full resulting definition; dropped ones listed by id. */
  tableChanges: Array<{
    type: 'CREATE' | 'ALTER' | 'DROP';
    id: string;
    table: TableDef | null;
    /** A renamed table's id before the statement (an ALTER under its new id). */
    previousId?: string;
  }>;
}

export interface SchemaHistory {
  /** Create tables/files if needed; idempotent. */
  initializeStorage(): Promise<void>;
  /** True when any history has been recorded for this connector. */
  exists(): Promise<boolean>;
  record(entry: SchemaHistoryEntry): Promise<void>;
  /** All entries at or before `upTo` (by binlog order), in sequence order; all entries when omitted. */
  recover(upTo?: Pick<SourceOffset, 'file' | 'pos'>): Promise<SchemaHistoryEntry[]>;
  close(): Promise<void>;
}
