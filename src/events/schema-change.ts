/**
 * Schema change events for consumers (include.schema.changes) on the `<topic.prefix>` topic, shaped like
 * Debezium's SchemaChangeKey/SchemaChangeValue with ConnectTableChangeSerializer's table structs.
 */
import { redactSqlSecrets } from '../common/redact-sql.js';
import type { SinkRecord } from '../model/sink-record.js';
import { recordSize } from '../model/sink-record.js';
import type { ColumnDef, TableDef } from '../model/table-def.js';
import { columnInfo } from './column-info.js';
import { type ConnectSchema, schemaToJson, struct, toJsonText, withSchema } from './connect-schema.js';
import { renderSource, type SourceInfo, sourceSchema } from './envelope.js';
import { EVENT_ID_HEADER, eventIdHeader } from './event-id.js';
import { type EventOptions, type ResolvedOptions, resolveOptions } from './options.js';
import { adjustSchemaName, schemaChangeTopic } from './topics.js';

export interface TableChange {
  type: 'CREATE' | 'ALTER' | 'DROP';
  /** The table after the change (for DROP, its last definition when known). */
  table: TableDef | null;
  /** Database and table names, needed when `table` is null. */
  database?: string;
  name?: string;
}

export interface SchemaChangeInput {
  /** Database the DDL applies to (the record key). */
  databaseName: string;
  ddl: string;
  tableChanges: TableChange[];
  source: SourceInfo;
  /** Event time; defaults to source.tsMs (Debezium uses the event's timestamp). */
  tsMs?: number;
  /** source.table names; defaults to the tables of `tableChanges`. */
  sourceTables?: string[];
}

/** `"db"."table"` (TableId.toDoubleQuotedString). */
export function doubleQuotedTableId(database: string, table: string): string {
  return `"${database}"."${table}"`;
}

/** One column as ConnectTableChangeSerializer writes it (field order of schemaHistoryColumnSchema). */
export function columnChange(col: ColumnDef): Record<string, unknown> {
  const info = columnInfo(col);
  return {
    name: col.name,
    jdbcType: info.jdbcType,
    nativeType: null,
    typeName: info.typeName,
    typeExpression: info.typeName,
    charsetName: info.base === 'json' ? null : col.charset,
    length: info.length,
    scale: info.scale,
    position: col.position + 1,
    optional: col.nullable,
    // The DDL parser marks AUTO_INCREMENT (and ON UPDATE) columns as generated too.
    autoIncremented: col.autoIncrement,
    generated: col.autoIncrement || col.generated,
    comment: col.comment ? col.comment : null,
    defaultValueExpression: col.hasDefault && col.defaultValue !== null ? col.defaultValue : null,
    // Debezium keeps ENUM/SET members as quoted DDL literals.
    enumValues:
      col.enumValues && col.enumValues.length > 0 ? col.enumValues.map((v) => `'${v.replaceAll("'", "''")}'`) : null,
  };
}

export function tableChangeJson(change: TableChange): string {
  const t = change.table;
  const db = t?.database ?? change.database ?? '';
  const name = t?.name ?? change.name ?? '';
  const table =
    t === null
      ? 'null'
      : `{"defaultCharsetName":${JSON.stringify(t.charset)},"primaryKeyColumnNames":${JSON.stringify(t.primaryKey)},` +
        `"columns":[${t.columns.map((c) => JSON.stringify(columnChange(c))).join(',')}],"comment":${JSON.stringify(t.comment ? t.comment : null)}}`;
  return `{"type":"${change.type}","id":${JSON.stringify(doubleQuotedTableId(db, name))},"table":${table}}`;
}

function schemaChangeSchemas(opts: ResolvedOptions): { key: ConnectSchema; value: ConnectSchema } {
  const adjust = (n: string) => adjustSchemaName(n, opts.schemaNameAdjustmentMode);
  const s = (type: ConnectSchema['type'], optional: boolean): ConnectSchema => ({ type, optional });
  const column = struct(
    adjust('io.debezium.connector.schema.Column'),
    [
      { field: 'name', schema: s('string', false) },
      { field: 'jdbcType', schema: s('int32', false) },
      { field: 'nativeType', schema: s('int32', true) },
      { field: 'typeName', schema: s('string', false) },
      { field: 'typeExpression', schema: s('string', true) },
      { field: 'charsetName', schema: s('string', true) },
      { field: 'length', schema: s('int32', true) },
      { field: 'scale', schema: s('int32', true) },
      { field: 'position', schema: s('int32', false) },
      { field: 'optional', schema: s('boolean', true) },
      { field: 'autoIncremented', schema: s('boolean', true) },
      { field: 'generated', schema: s('boolean', true) },
      { field: 'comment', schema: s('string', true) },
      { field: 'defaultValueExpression', schema: s('string', true) },
      { field: 'enumValues', schema: { type: 'array', items: s('string', false), optional: true } },
    ],
    false,
    1,
  );
  const table = struct(
    adjust('io.debezium.connector.schema.Table'),
    [
      { field: 'defaultCharsetName', schema: s('string', true) },
      { field: 'primaryKeyColumnNames', schema: { type: 'array', items: s('string', false), optional: true } },
      { field: 'columns', schema: { type: 'array', items: column, optional: false } },
      { field: 'comment', schema: s('string', true) },
    ],
    true,
    1,
  );
  const change = struct(
    adjust('io.debezium.connector.schema.Change'),
    [
      { field: 'type', schema: s('string', false) },
      { field: 'id', schema: s('string', false) },
      { field: 'table', schema: table },
    ],
    false,
    1,
  );
  const connector = opts.connectorName;
  return {
    key: struct(
      adjust(`io.debezium.connector.${connector}.SchemaChangeKey`),
      [{ field: 'databaseName', schema: s('string', false) }],
      false,
      1,
    ),
    value: struct(
      adjust(`io.debezium.connector.${connector}.SchemaChangeValue`),
      [
        { field: 'source', schema: sourceSchema(connector) },
        { field: 'ts_ms', schema: s('int64', false) },
        { field: 'databaseName', schema: s('string', true) },
        { field: 'schemaName', schema: s('string', true) },
        { field: 'ddl', schema: s('string', true) },
        { field: 'tableChanges', schema: { type: 'array', items: change, optional: false } },
      ],
      false,
      1,
    ),
  };
}

/** Builds schema change records; create once per connector. */
export class SchemaChangeEventBuilder {
  readonly topic: string;
  private readonly opts: ResolvedOptions;
  private readonly keySchemaJson: string;
  private readonly valueSchemaJson: string;

  constructor(options: EventOptions) {
    this.opts = resolveOptions(options);
    this.topic = schemaChangeTopic(this.opts.topicPrefix);
    const schemas = schemaChangeSchemas(this.opts);
    this.keySchemaJson = schemaToJson(schemas.key);
    this.valueSchemaJson = schemaToJson(schemas.value);
  }

  build(input: SchemaChangeInput): SinkRecord {
    const tables =
      input.sourceTables ?? input.tableChanges.map((c) => c.table?.name ?? c.name).filter((n): n is string => !!n);
    const source = renderSource(
      this.opts,
      input.databaseName,
      tables.length > 0 ? tables.join(',') : null,
      input.source,
    );
    const keyPayload = `{"databaseName":${JSON.stringify(input.databaseName)}}`;
    const valuePayload =
      `{"source":${source},"ts_ms":${input.tsMs ?? input.source.tsMs},"databaseName":${JSON.stringify(input.databaseName)},` +
      `"schemaName":null,"ddl":${toJsonText(redactSqlSecrets(input.ddl))},"tableChanges":[${input.tableChanges.map(tableChangeJson).join(',')}]}`;
    const schemas = this.opts.schemasEnable;
    const key = schemas ? withSchema(this.keySchemaJson, keyPayload) : keyPayload;
    const value = schemas ? withSchema(this.valueSchemaJson, valuePayload) : valuePayload;
    if (input.source.id === undefined) return { topic: this.topic, key, value, sizeBytes: recordSize(key, value) };
    const headers = { [EVENT_ID_HEADER]: eventIdHeader(input.source.id, 0) };
    return { topic: this.topic, key, value, headers, sizeBytes: recordSize(key, value, headers) };
  }
}
