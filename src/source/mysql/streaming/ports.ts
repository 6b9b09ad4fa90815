/**
 * What the streaming source needs from its neighbours, narrowed to the calls it makes. The stream runner wires
 * the real implementations from the capture context (decoder, schema tracker, history, event builders) in
 * binlog-stream-runner.ts; tests may wire others.
 */
import type { SourceInfo } from '../../../events/envelope.js';
import type { TransactionContext } from '../../../events/transaction.js';
import type { SinkRecord } from '../../../model/sink-record.js';
import type { TableDef } from '../../../model/table-def.js';
import type { Row } from '../../../model/values.js';
import type { SchemaHistoryEntry } from '../../../stores/schema-history.js';
import type { SchemaChangeHints } from '../schema/change-events.js';

export type { SourceInfo };

/** Builds the records of one table's row changes (compiled once per table definition). */
export interface TableRecordBuilder {
  insert(after: Row, source: SourceInfo, tx?: TransactionContext): SinkRecord[];
  update(before: Row, after: Row, source: SourceInfo, tx?: TransactionContext): SinkRecord[];
  delete(before: Row, source: SourceInfo, tx?: TransactionContext): SinkRecord[];
  read(row: Row, source: SourceInfo, tx?: TransactionContext): SinkRecord[];
  /** TRUNCATE: op 't', keyless (empty when skipped.operations has t). */
  truncate?(source: SourceInfo, tx?: TransactionContext): SinkRecord[];
}

export interface RecordFactory {
  forTable(table: TableDef): TableRecordBuilder;
  /** `sourceTables`: source.table names when they differ from the entry's table changes. */
  schemaChange(entry: SchemaHistoryEntry, source: SourceInfo, sourceTables?: string[]): SinkRecord | null;
  heartbeat(tsMs: number): SinkRecord;
  /** Transaction metadata context; null when `provide.transaction.metadata` is off. */
  transactions: TransactionContext | null;
}

export interface AppliedDdlResult extends SchemaChangeHints {
  tableChanges: SchemaHistoryEntry['tableChanges'];
  /** Ids of the tables a TRUNCATE emptied (op 't' events, no schema change). */
  truncated?: string[];
  /** True when the statement is not DDL that changes captured structure (e.g. GRANT, CREATE VIEW). */
  ignored: boolean;
  /** Tables whose definition must be re-read from the server (the DDL alone does not define them). */
  needsReload?: string[];
  /** Ids of the tables a table statement names, captured or not (absent for other statements). */
  namedTables?: string[];
}

export interface SchemaPort {
  getTable(db: string, table: string): TableDef | undefined;
  /** Apply a DDL statement; throws a typed error when it cannot be parsed (per skip.unparseable.ddl). */
  applyDdl(
    ddl: string,
    defaultDatabase: string,
    position: { file: string; pos: number },
    session?: { ansiQuotes?: boolean },
  ): AppliedDdlResult;
  /** True when the server says db.table is a SEQUENCE (MariaDB logs NEXTVAL as a row change of it). */
  isSequence?(db: string, table: string): Promise<boolean>;
  /** Re-read tables from the server (after DDL the parser could not model exactly). */
  reload?(tableIds: string[]): Promise<SchemaHistoryEntry['tableChanges']>;
}
