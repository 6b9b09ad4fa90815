/**
 * Wires the event layer (src/events) to a resolved configuration: one compiled TableEventBuilder per table
 * definition (rebuilt automatically when DDL produces a new definition object), schema change, heartbeat and
 * transaction metadata builders.
 */
import type { CdcConfig } from '../../config/types.js';
import { TableEventBuilder } from '../../events/envelope.js';
import { HeartbeatBuilder } from '../../events/heartbeat.js';
import type { EventOptions } from '../../events/options.js';
import { SchemaChangeEventBuilder } from '../../events/schema-change.js';
import { TransactionContext } from '../../events/transaction.js';
import type { TableDef } from '../../model/table-def.js';
import type { SchemaHistoryEntry } from '../../stores/schema-history.js';
import type { RecordFactory, SourceInfo } from './streaming/ports.js';

export function eventOptionsFromConfig(config: CdcConfig, connectorName: 'mysql' | 'mariadb' = 'mysql'): EventOptions {
  const e = config.events;
  const c = config.columns;
  return {
    topicPrefix: config.topicPrefix,
    connectorName,
    decimalHandlingMode: e.decimalHandlingMode,
    timePrecisionMode: e.timePrecisionMode,
    bigintUnsignedHandlingMode: e.bigintUnsignedHandlingMode,
    binaryHandlingMode: e.binaryHandlingMode,
    enableTimeAdjuster: e.enableTimeAdjuster,
    schemasEnable: e.valueSchemasEnable,
    tombstonesOnDelete: e.tombstonesOnDelete,
    skippedOperations: [...e.skippedOperations],
    provideTransactionMetadata: e.provideTransactionMetadata,
    ...(config.filters.columnInclude ? { columnIncludeList: [...config.filters.columnInclude] } : {}),
    ...(config.filters.columnExclude ? { columnExcludeList: [...config.filters.columnExclude] } : {}),
    columnTruncate: c.truncateToChars.map((r) => ({ length: r.length, columns: [...r.columns] })),
    columnMaskWithChars: c.maskWithChars.map((r) => ({ length: r.length, columns: [...r.columns] })),
    columnMaskHash: c.maskHash.map((r) => ({
      algorithm: r.nodeAlgorithm,
      salt: r.salt,
      version: r.version,
      columns: [...r.columns],
    })),
    ...(c.propagateSourceType ? { columnPropagateSourceType: [...c.propagateSourceType] } : {}),
    ...(c.datatypePropagateSourceType ? { datatypePropagateSourceType: [...c.datatypePropagateSourceType] } : {}),
    messageKeyColumns: e.messageKeyColumns.map((m) => ({ table: m.table, columns: [...m.columns] })),
  };
}

export function createRecordFactory(config: CdcConfig, options: EventOptions): RecordFactory {
  const builders = new WeakMap<TableDef, TableEventBuilder>();
  const schemaChanges = new SchemaChangeEventBuilder(options);
  const heartbeats = new HeartbeatBuilder({
    topicPrefix: config.topicPrefix,
    schemasEnable: config.events.valueSchemasEnable,
    heartbeatTopicPrefix: config.topics.heartbeatPrefix,
  });
  const transactions = config.events.provideTransactionMetadata
    ? new TransactionContext({ topicPrefix: config.topicPrefix, schemasEnable: config.events.valueSchemasEnable })
    : null;
  return {
    forTable(table) {
      let b = builders.get(table);
      if (!b) {
        b = new TableEventBuilder(table, options);
        builders.set(table, b);
      }
      return b;
    },
    schemaChange(entry: SchemaHistoryEntry, source: SourceInfo, sourceTables?: string[]) {
      return schemaChanges.build({
        ...(sourceTables ? { sourceTables } : {}),
        databaseName: entry.databaseName,
        ddl: entry.ddl,
        source,
        tsMs: entry.ts_ms,
        tableChanges: entry.tableChanges.map((c) => {
          const dot = c.id.indexOf('.');
          return { type: c.type, table: c.table, database: c.id.slice(0, dot), name: c.id.slice(dot + 1) };
        }),
      });
    },
    heartbeat: (tsMs) => heartbeats.build(tsMs),
    transactions,
  };
}
