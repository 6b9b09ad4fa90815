/**
 * What the streaming source needs from its neighbours, narrowed to the calls it makes. The MySQL source wires
 * the real implementations (decoder, replication client, schema tracker, event builders) in mysql-source.ts;
 * tests may wire others.
 */
import type { SinkRecord } from '../../../sinks/sink.js';
import type { SchemaHistoryEntry } from '../../../stores/schema-history.js';
import type { TableDef } from '../schema/model.js';
import type { Row } from '../values.js';

/** Debezium's `source` block fields that vary per event. */
export interface SourceInfo {
  tsMs: number;
  snapshot: string;
  db: string;
  table: string;
  serverId: number;
  gtid: string | null;
  file: string;
  pos: number;
  row: number;
  thread: number | null;
  query: string | null;
}

/** Builds the records of one table's row changes (compiled once per table definition). */
export interface TableRecordBuilder {
  insert(after: Row, source: SourceInfo): SinkRecord[];
  update(before: Row, after: Row, source: SourceInfo): SinkRecord[];
  delete(before: Row, source: SourceInfo): SinkRecord[];
  read(row: Row, source: SourceInfo): SinkRecord[];
}

export interface RecordFactory {
  forTable(table: TableDef): TableRecordBuilder;
  schemaChange(entry: SchemaHistoryEntry, source: SourceInfo): SinkRecord | null;
  heartbeat(tsMs: number): SinkRecord;
  /** Transaction metadata: null when `provide.transaction.metadata` is off. */
  transactionBegin?(id: string, tsMs: number): SinkRecord | null;
  transactionEnd?(id: string, tsMs: number, counts: Map<string, number>): SinkRecord | null;
}

export interface AppliedDdlResult {
  tableChanges: SchemaHistoryEntry['tableChanges'];
  /** True when the statement is not DDL that changes captured structure (e.g. GRANT, CREATE VIEW). */
  ignored: boolean;
}

export interface SchemaPort {
  getTable(db: string, table: string): TableDef | undefined;
  /** Apply a DDL statement; throws a typed error when it cannot be parsed (per skip.unparseable.ddl). */
  applyDdl(ddl: string, defaultDatabase: string, position: { file: string; pos: number }): AppliedDdlResult;
}
