/**
 * Debezium-compatible MySQL change events: pure functions and compiled builders turning decoded rows
 * (CellValue, see src/model/values.ts) and table definitions into serialised SinkRecords.
 *
 * Typical use by the streaming engine:
 * - create one {@link TableEventBuilder} per table version (rebuild after DDL) and call
 *   `insert/update/delete/read/truncate` per row with a {@link SourceInfo};
 * - with `provideTransactionMetadata`, drive a {@link TransactionContext} (`begin` on GTID/BEGIN, pass it to the
 *   builder methods, `end` on XID/COMMIT) and send the BEGIN/END records it returns;
 * - {@link SchemaChangeEventBuilder} for DDL, {@link HeartbeatBuilder} for heartbeats.
 *
 * Options mirror the Debezium connector properties ({@link EventOptions}).
 */
export {
  base64UrlSafe,
  bytesToUnscaled,
  float32Text,
  twosComplementBytes,
  unscaledDecimal,
} from './binary.js';
export { type ColumnMapping, columnMapping, hashMapper, isColumnIncluded } from './column-filters.js';
export { type ColumnInfo, columnInfo, JdbcType } from './column-info.js';
export {
  type ConnectField,
  type ConnectSchema,
  type ConnectType,
  type JsonValue,
  schemaToJson,
  toJsonText,
} from './connect-schema.js';
export { createFieldConverter, type FieldConverter, parseDefault, zonedTimestampText } from './converters.js';
export {
  PartialJsonUpdateError,
  PK_UPDATE_NEWKEY_HEADER,
  PK_UPDATE_OLDKEY_HEADER,
  renderSource,
  type SnapshotMarker,
  type SourceInfo,
  sourceSchema,
  TableEventBuilder,
} from './envelope.js';
export {
  EVENT_ID_HEADER,
  eventIdHeader,
  parseRowChangeId,
  positionText,
  type RowChangeId,
  rowsEventIdPrefix,
  snapshotIdPrefix,
  statementId,
} from './event-id.js';
export { HeartbeatBuilder, type HeartbeatOptions } from './heartbeat.js';
export { applyJsonDiffs, JsonDiffError, type PathLeg, parseJsonPath } from './json-diff.js';
export { createKeyEncoder, type KeyEncoder, keyColumns, parseMessageKeyColumns } from './key.js';
export {
  type BigintUnsignedHandlingMode,
  type BinaryHandlingMode,
  type ColumnRule,
  DEFAULT_SOURCE_VERSION,
  DEFAULT_UNAVAILABLE_VALUE_PLACEHOLDER,
  type DecimalHandlingMode,
  type EventOptions,
  type ResolvedOptions,
  resolveOptions,
  type SkippableOperation,
  type TimePrecisionMode,
} from './options.js';
export {
  columnChange,
  doubleQuotedTableId,
  SchemaChangeEventBuilder,
  type SchemaChangeInput,
  type TableChange,
  tableChangeJson,
} from './schema-change.js';
export {
  adjustSchemaName,
  dataChangeTopic,
  heartbeatTopic,
  sanitizeTopicName,
  schemaChangeTopic,
  transactionTopic,
} from './topics.js';
export {
  TRANSACTION_BLOCK_SCHEMA,
  type TransactionBlock,
  TransactionContext,
  type TransactionContextOptions,
  transactionBlockJson,
  transactionId,
} from './transaction.js';
