/**
 * Debezium Vitess connector records: the data change envelope (before, after, source, transaction, op, ts_ms,
 * ts_us, ts_ns) with the `io.debezium.connector.vitess.Source` block (version, connector "vitess", name, ts_ms,
 * snapshot, db "", sequence, ts_us, ts_ns, keyspace, table, shard, vgtid), keys from the FIELD event's primary key
 * flags, tombstones after deletes, and schema change records for DDL (include.schema.changes).
 * Topic naming, schema JSON and heartbeats come from src/events.
 */
import { type ConnectField, type ConnectSchema, schemaToJson, withSchema } from '../../events/connect-schema.js';
import { commonSourceFields, flatten } from '../../events/envelope.js';
import { EVENT_ID_HEADER, eventIdHeader, jsonStringBody } from '../../events/event-id.js';
import { adjustSchemaName, dataChangeTopic, schemaChangeTopic } from '../../events/topics.js';
import type { SinkRecord } from '../../model/sink-record.js';
import { recordSize } from '../../model/sink-record.js';
import type { ProtoField } from './vgtid.js';
import { type VitessColumn, type VitessTypeOptions, vitessColumns } from './vitess-types.js';

export interface VitessEventOptions extends VitessTypeOptions {
  topicPrefix: string;
  topicDelimiter: string;
  sourceVersion: string;
  schemasEnable: boolean;
  tombstonesOnDelete: boolean;
  /** skipped.operations (c, u, d, t). */
  skippedOperations: ReadonlySet<string>;
  schemaNameAdjustmentMode: 'none' | 'avro';
  /** Wall clock in epoch microseconds for the envelope's ts_*. */
  clockMicros?: () => number;
}

/** Where a change came from (the Vitess `source` block). */
export interface VitessSourceInfo {
  /** Commit time of the transaction at the source, epoch milliseconds. */
  tsMs: number;
  snapshot: 'true' | 'false' | 'last';
  shard: string;
  /** VGTID JSON text after this transaction. */
  vgtid: string;
  /**
   * Origin of the change's stable id (src/events/event-id.ts), JSON-string-safe; with `idByKey` the key JSON is
   * appended (copy-phase rows, named by their key). No `__cdc.id` header when absent (or keyless with idByKey).
   */
  id?: string;
  idByKey?: boolean;
}

/** io.debezium.connector.vitess.Source, field order of VitessSourceInfoStructMaker. */
export const VITESS_SOURCE_SCHEMA: ConnectSchema = {
  type: 'struct',
  fields: [
    ...commonSourceFields(),
    { field: 'keyspace', schema: { type: 'string', optional: false } },
    { field: 'table', schema: { type: 'string', optional: false } },
    { field: 'shard', schema: { type: 'string', optional: false } },
    { field: 'vgtid', schema: { type: 'string', optional: false } },
  ],
  optional: false,
  name: 'io.debezium.connector.vitess.Source',
  version: 1,
};

function wallClockMicros(): number {
  return Math.floor((performance.timeOrigin + performance.now()) * 1000);
}

export function vitessSourceJson(o: VitessEventOptions, keyspace: string, table: string, s: VitessSourceInfo): string {
  const us = s.tsMs * 1000;
  return (
    `{"version":${JSON.stringify(o.sourceVersion)},"connector":"vitess","name":${JSON.stringify(o.topicPrefix)},` +
    `"ts_ms":${s.tsMs},"snapshot":"${s.snapshot}","db":"","sequence":null,"ts_us":${us},"ts_ns":${us}000,` +
    `"keyspace":${JSON.stringify(keyspace)},"table":${JSON.stringify(table)},"shard":${JSON.stringify(s.shard)},` +
    `"vgtid":${JSON.stringify(s.vgtid)}}`
  );
}

type Op = 'c' | 'u' | 'd' | 'r';

/** Compiled builder for one table as described by one FIELD event. */
export class VitessTableEvents {
  readonly topic: string;
  readonly tableId: string;
  private readonly columns: (VitessColumn | null)[];
  private readonly keyColumns: number[];
  private readonly keySchemaJson: string;
  private readonly envelopeSchemaJson: string;
  private readonly clock: () => number;

  constructor(
    readonly keyspace: string,
    readonly table: string,
    fields: readonly ProtoField[],
    private readonly o: VitessEventOptions,
    enumAsText: boolean,
  ) {
    this.topic = dataChangeTopic(o.topicPrefix, keyspace, table, o.topicDelimiter);
    this.tableId = `${keyspace}.${table}`;
    this.clock = o.clockMicros ?? wallClockMicros;
    const adjust = (n: string) => adjustSchemaName(n, o.schemaNameAdjustmentMode);
    this.columns = vitessColumns(fields, o, enumAsText);
    // Primary key columns; without one, the first unique key column (VStreamOutputMessageDecoder.resolveTable).
    let keys = this.columns.flatMap((c, i) => (c?.isKey ? [i] : []));
    if (keys.length === 0) {
      const u = this.columns.findIndex((c) => c?.isUniqueKey);
      if (u >= 0) keys = [u];
    }
    this.keyColumns = keys;
    const valueFields: ConnectField[] = [];
    for (const c of this.columns) if (c) valueFields.push({ field: c.name, schema: c.schema });
    const value: ConnectSchema = {
      type: 'struct',
      fields: valueFields,
      optional: true,
      name: adjust(`${this.topic}.Value`),
    };
    const keySchema: ConnectSchema | null =
      keys.length === 0
        ? null
        : {
            type: 'struct',
            fields: keys.map((i) => {
              const c = this.columns[i] as VitessColumn;
              return { field: c.name, schema: { ...c.schema, optional: false } };
            }),
            optional: false,
            name: adjust(`${this.topic}.Key`),
          };
    this.keySchemaJson = keySchema ? schemaToJson(keySchema) : 'null';
    this.envelopeSchemaJson = schemaToJson({
      type: 'struct',
      fields: [
        { field: 'before', schema: value },
        { field: 'after', schema: value },
        { field: 'source', schema: VITESS_SOURCE_SCHEMA },
        {
          field: 'transaction',
          schema: {
            type: 'struct',
            fields: [
              { field: 'id', schema: { type: 'string', optional: false } },
              { field: 'total_order', schema: { type: 'int64', optional: false } },
              { field: 'data_collection_order', schema: { type: 'int64', optional: false } },
            ],
            optional: true,
            name: 'event.block',
            version: 1,
          },
        },
        { field: 'op', schema: { type: 'string', optional: false } },
        { field: 'ts_ms', schema: { type: 'int64', optional: true } },
        { field: 'ts_us', schema: { type: 'int64', optional: true } },
        { field: 'ts_ns', schema: { type: 'int64', optional: true } },
      ],
      optional: false,
      name: adjust(`${this.topic}.Envelope`),
      version: 2,
    });
  }

  /** Number of cells a ROW image of this table must have. */
  get width(): number {
    return this.columns.length;
  }

  private rowJson(cells: readonly (Buffer | null)[]): string {
    let out = '';
    for (let i = 0; i < this.columns.length; i++) {
      const c = this.columns[i];
      if (!c) continue;
      out += `${out === '' ? '{' : ','}${JSON.stringify(c.name)}:${c.toJson(cells[i] ?? null)}`;
    }
    return out === '' ? '{}' : `${out}}`;
  }

  private keyJson(cells: readonly (Buffer | null)[]): string | null {
    if (this.keyColumns.length === 0) return null;
    let out = '';
    for (const i of this.keyColumns) {
      const c = this.columns[i] as VitessColumn;
      out += `${out === '' ? '{' : ','}${JSON.stringify(c.name)}:${c.toJson(cells[i] ?? null)}`;
    }
    return `${out}}`;
  }

  /** Records of one row change: insert (`r` in a copy phase emitted as reads), update, or delete (+ tombstone). */
  change(
    before: readonly (Buffer | null)[] | null,
    after: readonly (Buffer | null)[] | null,
    source: VitessSourceInfo,
    readOp: boolean,
  ): SinkRecord[] {
    const out: SinkRecord[] = [];
    if (before === null && after !== null) this.emit(out, readOp ? 'r' : 'c', this.keyJson(after), null, after, source);
    else if (before !== null && after !== null) this.emit(out, 'u', this.keyJson(after), before, after, source);
    else if (before !== null) this.emit(out, 'd', this.keyJson(before), before, null, source);
    return out;
  }

  private emit(
    out: SinkRecord[],
    op: Op,
    keyPayload: string | null,
    before: readonly (Buffer | null)[] | null,
    after: readonly (Buffer | null)[] | null,
    source: VitessSourceInfo,
  ): void {
    if (op !== 'r' && this.o.skippedOperations.has(op)) return;
    const nowUs = this.clock();
    const payload =
      `{"before":${before ? this.rowJson(before) : 'null'},"after":${after ? this.rowJson(after) : 'null'},` +
      `"source":${vitessSourceJson(this.o, this.keyspace, this.table, source)},"transaction":null,"op":"${op}",` +
      `"ts_ms":${Math.floor(nowUs / 1000)},"ts_us":${nowUs},"ts_ns":${nowUs}000}`;
    const schemas = this.o.schemasEnable;
    // Flat, as the MySQL builder's: queued records made of string pieces cost the GC per piece (envelope.ts flatten).
    const key = keyPayload === null ? null : flatten(schemas ? withSchema(this.keySchemaJson, keyPayload) : keyPayload);
    const value = flatten(schemas ? withSchema(this.envelopeSchemaJson, payload) : payload);
    const origin =
      source.id === undefined
        ? undefined
        : source.idByKey
          ? keyPayload === null
            ? undefined
            : source.id + jsonStringBody(keyPayload)
          : source.id;
    const headers = origin === undefined ? undefined : { [EVENT_ID_HEADER]: eventIdHeader(origin, 0) };
    const record: SinkRecord = { topic: this.topic, key, value, table: this.tableId, sizeBytes: 0 };
    if (headers) record.headers = headers;
    record.sizeBytes = recordSize(key, value, headers);
    out.push(record);
    if (op === 'd' && this.o.tombstonesOnDelete) {
      const tomb: SinkRecord = { topic: this.topic, key, value: null, table: this.tableId, sizeBytes: 0 };
      if (origin !== undefined) tomb.headers = { [EVENT_ID_HEADER]: eventIdHeader(origin, 1) };
      tomb.sizeBytes = recordSize(key, null, tomb.headers);
      out.push(tomb);
    }
  }
}

const SCHEMA_CHANGE_KEY_SCHEMA: ConnectSchema = {
  type: 'struct',
  fields: [{ field: 'databaseName', schema: { type: 'string', optional: false } }],
  optional: false,
  name: 'io.debezium.connector.vitess.SchemaChangeKey',
  version: 1,
};

const SCHEMA_CHANGE_VALUE_SCHEMA: ConnectSchema = {
  type: 'struct',
  fields: [
    { field: 'source', schema: VITESS_SOURCE_SCHEMA },
    { field: 'ts_ms', schema: { type: 'int64', optional: false } },
    { field: 'databaseName', schema: { type: 'string', optional: true } },
    { field: 'schemaName', schema: { type: 'string', optional: true } },
    { field: 'ddl', schema: { type: 'string', optional: true } },
    {
      field: 'tableChanges',
      schema: {
        type: 'array',
        items: { type: 'struct', fields: [], optional: false, name: 'io.debezium.connector.schema.Change', version: 1 },
        optional: false,
      },
    },
  ],
  optional: false,
  name: 'io.debezium.connector.vitess.SchemaChangeValue',
  version: 1,
};

/** The table a DDL statement names (DdlMetadataExtractor's job), or '' when it names none we can see. */
export function ddlTable(statement: string): string {
  const m =
    /^\s*(?:create|alter|drop|truncate|rename)\s+(?:temporary\s+)?table\s+(?:if\s+(?:not\s+)?exists\s+)?((?:`[^`]+`|[\w$]+)(?:\.(?:`[^`]+`|[\w$]+))?)/i.exec(
      statement,
    );
  if (!m) return '';
  const parts = m[1].split('.').map((p) => p.replace(/^`|`$/g, ''));
  return parts[parts.length - 1];
}

/**
 * A DDL as a schema change record on the `<topic.prefix>` topic, keyed by the keyspace. Vitess keeps no schema
 * history, so `tableChanges` is empty (as Debezium's Vitess connector sends it).
 */
export function schemaChangeRecord(
  o: VitessEventOptions,
  keyspace: string,
  ddl: string,
  source: VitessSourceInfo,
): SinkRecord {
  const topic = schemaChangeTopic(o.topicPrefix);
  const keyPayload = `{"databaseName":${JSON.stringify(keyspace)}}`;
  const payload =
    `{"source":${vitessSourceJson(o, keyspace, ddlTable(ddl), source)},"ts_ms":${source.tsMs},` +
    `"databaseName":${JSON.stringify(keyspace)},"schemaName":null,"ddl":${JSON.stringify(ddl)},"tableChanges":[]}`;
  const key = o.schemasEnable ? withSchema(schemaToJson(SCHEMA_CHANGE_KEY_SCHEMA), keyPayload) : keyPayload;
  const value = o.schemasEnable ? withSchema(schemaToJson(SCHEMA_CHANGE_VALUE_SCHEMA), payload) : payload;
  if (source.id === undefined) return { topic, key, value, sizeBytes: recordSize(key, value) };
  const headers = { [EVENT_ID_HEADER]: eventIdHeader(source.id, 0) };
  return { topic, key, value, headers, sizeBytes: recordSize(key, value, headers) };
}
