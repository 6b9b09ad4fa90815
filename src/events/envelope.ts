/**
 * Data change events: the compiled per-table TableEventBuilder turning CellValue rows into Debezium MySQL
 * connector records (Envelope: before, after, source, transaction, op, ts_ms, ts_us, ts_ns — the field order
 * of Debezium's envelope schema), with keys, primary-key-change handling, tombstones and skipped operations.
 */

import { CdcError } from '../common/errors.js';
import type { SinkRecord } from '../model/sink-record.js';
import { recordSize } from '../model/sink-record.js';
import type { TableDef } from '../model/table-def.js';
import { type CellValue, MysqlJson, MysqlJsonPartial, type Row } from '../model/values.js';
import { columnMapping, isColumnIncluded } from './column-filters.js';
import { columnInfo } from './column-info.js';
import { type ConnectField, type ConnectSchema, schemaToJson, withSchema } from './connect-schema.js';
import { createFieldConverter, numberText } from './converters.js';
import { EVENT_ID_HEADER, eventIdHeader } from './event-id.js';
import { applyJsonDiffs } from './json-diff.js';
import { createKeyEncoder, type KeyEncoder } from './key.js';
import { type EventOptions, type ResolvedOptions, resolveOptions } from './options.js';
import { type CellText, compileRowWriter, type RowWriter } from './row-writer.js';
import { adjustSchemaName, dataChangeTopic } from './topics.js';
import { TRANSACTION_BLOCK_SCHEMA, type TransactionContext, transactionBlockJson } from './transaction.js';

/** `source.snapshot` values (io.debezium.connector.SnapshotRecord, lower-cased). */
export type SnapshotMarker =
  | 'true'
  | 'first'
  | 'first_in_data_collection'
  | 'last_in_data_collection'
  | 'last'
  | 'false'
  | 'incremental';

/** Where a row change came from; becomes the `source` block (db and table come from the builder's table). */
export interface SourceInfo {
  /** Time of the change at the source, epoch milliseconds (binlog event timestamp). */
  tsMs: number;
  /** Same in microseconds when known (e.g. original_commit_timestamp); defaults to tsMs * 1000. */
  tsUs?: number;
  /** Defaults to 'false' (streaming). */
  snapshot?: SnapshotMarker;
  serverId: number;
  /** GTID of the current transaction, when GTIDs are on. */
  gtid?: string | null;
  file: string;
  pos: number;
  /** Row number within the rows event. */
  row: number;
  thread?: number | null;
  /** The originating SQL (binlog_rows_query_log_events + include.query). */
  query?: string | null;
  /**
   * Origin of the event's stable id (event-id.ts), JSON-string-safe: each record gets the header `__cdc.id` =
   * `<id>/<part>`. No header when absent.
   */
  id?: string;
}

const SNAPSHOT_VALUES = 'true,first,first_in_data_collection,last_in_data_collection,last,false,incremental';

function sourceField(field: string, type: ConnectSchema['type'], optional: boolean): ConnectField {
  return { field, schema: { type, optional } };
}

/** The fields every Debezium connector's `Source` block starts with (CommonSourceInfoStructMaker), in order. */
export function commonSourceFields(): ConnectField[] {
  return [
    sourceField('version', 'string', false),
    sourceField('connector', 'string', false),
    sourceField('name', 'string', false),
    sourceField('ts_ms', 'int64', false),
    {
      field: 'snapshot',
      schema: {
        type: 'string',
        optional: true,
        name: 'io.debezium.data.Enum',
        version: 1,
        parameters: { allowed: SNAPSHOT_VALUES },
        default: 'false',
      },
    },
    sourceField('db', 'string', false),
    sourceField('sequence', 'string', true),
    sourceField('ts_us', 'int64', true),
    sourceField('ts_ns', 'int64', true),
  ];
}

/** io.debezium.connector.mysql.Source schema, field order as BinlogSourceInfoStructMaker builds it. */
export function sourceSchema(connector: 'mysql' | 'mariadb'): ConnectSchema {
  const f = sourceField;
  return {
    type: 'struct',
    fields: [
      ...commonSourceFields(),
      f('table', 'string', true),
      f('server_id', 'int64', false),
      f('gtid', 'string', true),
      f('file', 'string', false),
      f('pos', 'int64', false),
      f('row', 'int32', false),
      f('thread', 'int64', true),
      f('query', 'string', true),
    ],
    optional: false,
    name: `io.debezium.connector.${connector}.Source`,
    version: 1,
  };
}

/**
 * The envelope is built by concatenation, which V8 keeps as a tree of string pieces (a rope) until something
 * flattens it. Records wait in the change queue, where thousands of ropes mean millions of small live objects for
 * the GC to trace, copy and promote (a 50-column record is ~270 of them); flattening once here turns each into one
 * sequential string and leaves the pieces to die young.
 */
export function flatten(s: string): string {
  // trim flattens its subject before scanning it (ours have no white space at their ends: it stops at once), for
  // ~10 ns a call where a regular expression test cost ~100 ns (Node 22, short ropes). s.charCodeAt(0) does not
  // flatten: V8 reads a rope's first character without flattening it. V8 concatenates results shorter than 13
  // characters into flat strings, so short ones need no call.
  if (s.length < 13) return s;
  const t = s.trim();
  return t.length === s.length ? t : s;
}

/** Nanoseconds from the text of a whole count of microseconds (`0`, not `0000`, which is not JSON). */
function nanosText(micros: string): string {
  return micros === '0' ? '0' : `${micros}000`;
}

function optionalString(s: string | null | undefined): string {
  return s === null || s === undefined ? 'null' : JSON.stringify(s);
}

/** The `source` block as JSON text for any event (schema changes use a table list or null table). */
export function renderSource(opts: ResolvedOptions, db: string, table: string | null, s: SourceInfo): string {
  const us = s.tsUs ?? s.tsMs * 1000;
  const ms = s.tsUs === undefined ? s.tsMs : Math.floor(us / 1000);
  return (
    `{"version":${JSON.stringify(opts.sourceVersion)},"connector":${JSON.stringify(opts.connectorName)},` +
    `"name":${JSON.stringify(opts.topicPrefix)},"ts_ms":${ms},"snapshot":"${s.snapshot ?? 'false'}",` +
    `"db":${JSON.stringify(db)},"sequence":null,"ts_us":${us},"ts_ns":${nanosText(String(us))},"table":${optionalString(table)},` +
    `"server_id":${s.serverId},"gtid":${optionalString(s.gtid)},"file":${JSON.stringify(s.file)},"pos":${s.pos},` +
    `"row":${s.row},"thread":${s.thread ?? 'null'},"query":${optionalString(s.query)}}`
  );
}

/**
 * A partial JSON update (binlog_row_value_options=PARTIAL_JSON) that cannot be turned into the full document: the
 * before image lacks the column (binlog_row_image=MINIMAL/NOBLOB) or the diff does not fit it. The streamer treats
 * it like an undecodable event (event.deserialization.failure.handling.mode).
 */
export class PartialJsonUpdateError extends CdcError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('BINLOG_DECODE', message, options);
  }
}

/** Header names Debezium sets on primary key changes. */
export const PK_UPDATE_NEWKEY_HEADER = '__debezium.newkey';
export const PK_UPDATE_OLDKEY_HEADER = '__debezium.oldkey';

type Op = 'c' | 'u' | 'd' | 'r' | 't';

/** The envelope from `,"transaction":null` to `"ts_ms":`, per op (no transaction metadata). */
const NO_TX_OP_TEXT: Record<Op, string> = {
  c: flatten(',"transaction":null,"op":"c","ts_ms":'),
  u: flatten(',"transaction":null,"op":"u","ts_ms":'),
  d: flatten(',"transaction":null,"op":"d","ts_ms":'),
  r: flatten(',"transaction":null,"op":"r","ts_ms":'),
  t: flatten(',"transaction":null,"op":"t","ts_ms":'),
};

/** The envelope from `"op"` to `"ts_ms":`, per op. */
const OP_TEXT: Record<Op, string> = {
  c: flatten(',"op":"c","ts_ms":'),
  u: flatten(',"op":"u","ts_ms":'),
  d: flatten(',"op":"d","ts_ms":'),
  r: flatten(',"op":"r","ts_ms":'),
  t: flatten(',"op":"t","ts_ms":'),
};

/**
 * The `source` block of the last row, split around what changes from row to row (pos, row): consecutive rows of a
 * rows event (and often of a transaction) share every other field, so the two constant parts are built once.
 */
interface SourceCache {
  tsMs: number;
  tsUs: number | undefined;
  snapshot: SnapshotMarker | undefined;
  serverId: number;
  gtid: string | null | undefined;
  file: string;
  thread: number | null | undefined;
  query: string | null | undefined;
  /** Up to and including `"pos":`. */
  head: string;
  /** `,"source":` and head: the envelope's text from after `after` to the position. */
  sourceHead: string;
  /** From `,"thread":` to the closing brace. */
  tail: string;
  /** The position `at` and `atClose` are for (rows of one rows event share it). */
  pos: number;
  /** sourceHead, the position and `,"row":`. */
  at: string;
  /** The same after the closing brace of an open row text (RowWriter with close ''). */
  atClose: string;
}

/**
 * Compiled event builder for one version of one table. Build it once per TableDef version (after each DDL) and
 * reuse it for every row: converters, filters, masks, schema JSON and constant JSON fragments are fixed here.
 */
export class TableEventBuilder {
  readonly topic: string;
  /** `db.table`: SinkRecord.table and the transaction data collection name. */
  readonly tableId: string;
  readonly keySchema: ConnectSchema | null;
  readonly valueSchema: ConnectSchema;
  readonly envelopeSchema: ConnectSchema;
  private readonly opts: ResolvedOptions;
  private readonly key: KeyEncoder | null;
  private readonly keySchemaJson: string;
  private readonly envelopeSchemaJson: string;
  private readonly positions: number[];
  private readonly prefixes: string[];
  /** Per emitted column: cell → JSON text (conversion, masking and writing in one closure). */
  private readonly texts: CellText[];
  private readonly writer: RowWriter;
  private readonly sourcePrefix: string;
  private readonly sourceTable: string;
  private readonly skipOp: Record<Op, boolean>;
  /** `{"schema":<envelope schema>,"payload":` when schemas are enabled, else `` (payload only). */
  private readonly valueOpen: string;
  private readonly valueClose: string;
  /** The value up to the before image, and up to the after image when there is no before image. */
  private readonly openBefore: string;
  private readonly openNoBefore: string;
  private readonly tombstones: boolean;
  private readonly transactions: boolean;
  private source: SourceCache | null = null;
  /** The envelope's last processing time and its texts (ts_us and ts_ns digits, ts_ms digits). */
  private nowUs = Number.NaN;
  private usText = '';
  private nsText = '';
  private msText = '';
  /** The value's text from the ts_ms digits to its end. */
  private timeText = '';
  /**
   * Without transaction metadata, the text after the row number (source tail, op, time) changes only with the
   * source block, the op and the clock reading: kept joined for the records that share them.
   */
  private suffix = '';
  private suffixSource: SourceCache | null = null;
  private suffixOp: Op | null = null;
  private suffixNowUs = Number.NaN;
  /** Row positions of the emitted JSON columns (the only ones a partial JSON update needs resolving for). */
  private readonly jsonPositions: number[];
  /** Per emitted column: the before image's text of the update being built (afterJson reuses unchanged ones). */
  private readonly beforeTexts: string[];
  private readonly keyPositions: readonly number[];

  constructor(
    readonly table: TableDef,
    options: EventOptions | ResolvedOptions,
  ) {
    // resolveOptions is idempotent, so already-resolved options pass through unchanged.
    const opts = resolveOptions(options);
    this.opts = opts;
    this.tableId = `${table.database}.${table.name}`;
    this.topic = dataChangeTopic(opts.topicPrefix, table.database, table.name);
    const adjust = (n: string) => adjustSchemaName(n, opts.schemaNameAdjustmentMode);

    this.key = createKeyEncoder(table, adjust(`${this.topic}.Key`), opts);
    this.keySchema = this.key?.schema ?? null;
    this.keySchemaJson = this.keySchema ? schemaToJson(this.keySchema) : 'null';
    this.keyPositions = this.key?.positions ?? [];

    const fields: ConnectField[] = [];
    this.positions = [];
    this.prefixes = [];
    this.texts = [];
    this.jsonPositions = [];
    for (const col of table.columns) {
      const fqn = `${this.tableId}.${col.name}`;
      if (!isColumnIncluded(fqn, opts)) continue;
      const info = columnInfo(col);
      const fc = createFieldConverter(col, opts, info);
      const mapping = columnMapping(fqn, this.tableId, col, info, fc.schema, opts);
      let text: CellText = fc;
      if (mapping) {
        fc.schema.parameters = { ...fc.schema.parameters, ...mapping.parameters };
        const map = mapping.map;
        if (map) {
          // Masks and truncation apply to the converted value (null and absent cells included).
          const { convert, write } = fc;
          const mapped = (v: CellValue) => write(map(convert(v)));
          text = { present: mapped, nullText: mapped(null), missingText: mapped(undefined) };
        }
      }
      fields.push({ field: col.name, schema: fc.schema });
      this.prefixes.push(flatten(`${this.positions.length === 0 ? '{' : ','}${JSON.stringify(col.name)}:`));
      this.positions.push(col.position);
      if (info.base === 'json') this.jsonPositions.push(col.position);
      this.texts.push(text);
    }
    this.beforeTexts = this.texts.map(() => '');
    // Open struct texts: emit() joins each closing brace to the constant text after it.
    this.writer = compileRowWriter(this.prefixes, this.texts, this.positions, '');
    this.valueSchema = { type: 'struct', fields, optional: true, name: adjust(`${this.topic}.Value`) };
    this.envelopeSchema = {
      type: 'struct',
      fields: [
        { field: 'before', schema: this.valueSchema },
        { field: 'after', schema: this.valueSchema },
        { field: 'source', schema: sourceSchema(opts.connectorName) },
        { field: 'transaction', schema: TRANSACTION_BLOCK_SCHEMA },
        { field: 'op', schema: { type: 'string', optional: false } },
        { field: 'ts_ms', schema: { type: 'int64', optional: true } },
        { field: 'ts_us', schema: { type: 'int64', optional: true } },
        { field: 'ts_ns', schema: { type: 'int64', optional: true } },
      ],
      optional: false,
      name: adjust(`${this.topic}.Envelope`),
      version: 2,
    };
    this.envelopeSchemaJson = schemaToJson(this.envelopeSchema);
    this.sourcePrefix = `{"version":${JSON.stringify(opts.sourceVersion)},"connector":${JSON.stringify(opts.connectorName)},"name":${JSON.stringify(opts.topicPrefix)},"ts_ms":`;
    this.sourceTable = `,"db":${JSON.stringify(table.database)},"sequence":null,`;
    // Snapshot reads ('r') are never skipped.
    this.skipOp = { c: false, u: false, d: false, r: false, t: false };
    for (const op of opts.skippedOperations) if (op in this.skipOp) this.skipOp[op as Op] = true;
    this.valueOpen = opts.schemasEnable ? flatten(`{"schema":${this.envelopeSchemaJson},"payload":`) : '';
    this.valueClose = opts.schemasEnable ? '}' : '';
    this.openBefore = flatten(`${this.valueOpen}{"before":`);
    this.openNoBefore = flatten(`${this.valueOpen}{"before":null,"after":`);
    this.tombstones = opts.tombstonesOnDelete;
    this.transactions = opts.provideTransactionMetadata;
  }

  /** The value struct (before/after) of a row as JSON text, with filtering, conversion and masking applied. */
  rowJson(row: Row): string {
    return `${this.writer.row(row)}}`;
  }

  /** True when every key column's cell is identical in both rows (so the key texts are equal). */
  private sameKeyCells(before: Row, after: Row): boolean {
    const positions = this.keyPositions;
    for (let i = 0; i < positions.length; i++) if (before[positions[i]] !== after[positions[i]]) return false;
    return true;
  }

  /** Key payload JSON text of a row, or null for keyless tables. */
  keyJson(row: Row): string | null {
    return this.key ? this.key.encode(row) : null;
  }

  /** INSERT → op 'c'. */
  insert(after: Row, source: SourceInfo, tx?: TransactionContext): SinkRecord[] {
    const out: SinkRecord[] = [];
    this.emit(out, 'c', this.keyJson(after), null, this.writer.row(after), source, tx, undefined, 0);
    return out;
  }

  /** Snapshot row → op 'r' (source.snapshot should say which snapshot row it is). */
  read(row: Row, source: SourceInfo, tx?: TransactionContext): SinkRecord[] {
    const out: SinkRecord[] = [];
    this.emit(out, 'r', this.keyJson(row), null, this.writer.row(row), source, tx, undefined, 0);
    return out;
  }

  /** UPDATE → op 'u', or delete + tombstone + create with key headers when the key changed. */
  update(before: Row, after: Row, source: SourceInfo, tx?: TransactionContext): SinkRecord[] {
    const out: SinkRecord[] = [];
    after = this.withFullJson(before, after, source);
    const oldKey = this.keyJson(before);
    const newKey = oldKey !== null && this.sameKeyCells(before, after) ? oldKey : this.keyJson(after);
    // The after image reuses the before image's texts of unchanged cells (RowWriter.after); both are open texts.
    const beforeJson = this.writer.before(before, this.beforeTexts);
    const afterJson = this.writer.after(before, after, this.beforeTexts);
    if (oldKey === null || oldKey === newKey) {
      this.emit(out, 'u', newKey, beforeJson, afterJson, source, tx, undefined, 0);
      return out;
    }
    // Parts: the delete 0, its tombstone 1, the create 2 (event-id.ts).
    this.emit(out, 'd', oldKey, beforeJson, null, source, tx, { [PK_UPDATE_NEWKEY_HEADER]: newKey ?? 'null' }, 0);
    this.emit(out, 'c', newKey, null, afterJson, source, tx, { [PK_UPDATE_OLDKEY_HEADER]: oldKey }, 2);
    return out;
  }

  /**
   * Partial JSON updates → full documents: Debezium emits the whole JSON value in `after`, so each MysqlJsonPartial
   * is applied to the before image's document. Returns `after` itself when it holds no partial value.
   */
  private withFullJson(before: Row, after: Row, source: SourceInfo): Row {
    let out = after;
    for (const p of this.jsonPositions) {
      const v = after[p];
      if (!(v instanceof MysqlJsonPartial)) continue;
      const where = `${this.tableId}.${this.table.columns.find((c) => c.position === p)?.name ?? `#${p}`} at ${source.file}:${source.pos} row ${source.row}`;
      const old = before[p];
      if (!(old instanceof MysqlJson)) {
        throw new PartialJsonUpdateError(
          `partial JSON update of ${where}: the before image ${old === null ? 'has SQL NULL' : 'does not contain the column'}, so the full document cannot be rebuilt; log full before images (binlog_row_image=FULL) or full JSON values (binlog_row_value_options='')`,
        );
      }
      try {
        if (out === after) out = after.slice();
        out[p] = new MysqlJson(applyJsonDiffs(old.text || 'null', v.diffs));
      } catch (err) {
        throw new PartialJsonUpdateError(`partial JSON update of ${where}: ${(err as Error).message}`, { cause: err });
      }
    }
    return out;
  }

  /** DELETE → op 'd', followed by a tombstone when tombstonesOnDelete. */
  delete(before: Row, source: SourceInfo, tx?: TransactionContext): SinkRecord[] {
    const out: SinkRecord[] = [];
    this.emit(out, 'd', this.keyJson(before), this.writer.row(before), null, source, tx, undefined, 0);
    return out;
  }

  /** TRUNCATE → op 't' with a null key (skipped unless skippedOperations leaves 't' out). */
  truncate(source: SourceInfo, tx?: TransactionContext): SinkRecord[] {
    const out: SinkRecord[] = [];
    this.emit(out, 't', null, null, null, source, tx, undefined, 0);
    return out;
  }

  /** The `source` block as JSON text. */
  sourceJson(s: SourceInfo): string {
    const c = this.sourceCache(s);
    return `${c.head}${s.pos},"row":${s.row}${c.tail}`;
  }

  private sourceCache(s: SourceInfo): SourceCache {
    let c = this.source;
    if (
      c === null ||
      c.tsMs !== s.tsMs ||
      c.tsUs !== s.tsUs ||
      c.file !== s.file ||
      c.gtid !== s.gtid ||
      c.query !== s.query ||
      c.thread !== s.thread ||
      c.serverId !== s.serverId ||
      c.snapshot !== s.snapshot
    ) {
      c = this.sourceParts(s);
      this.source = c;
    }
    return c;
  }

  private sourceParts(s: SourceInfo): SourceCache {
    const us = s.tsUs ?? s.tsMs * 1000;
    const ms = s.tsUs === undefined ? s.tsMs : Math.floor(us / 1000);
    const head =
      `${this.sourcePrefix}${ms},"snapshot":"${s.snapshot ?? 'false'}"${this.sourceTable}"ts_us":${us},"ts_ns":${nanosText(String(us))},` +
      `"table":${JSON.stringify(this.table.name)},"server_id":${s.serverId},"gtid":${optionalString(s.gtid)},` +
      `"file":${JSON.stringify(s.file)},"pos":`;
    const tail = `,"thread":${s.thread ?? 'null'},"query":${optionalString(s.query)}}`;
    return {
      tsMs: s.tsMs,
      tsUs: s.tsUs,
      snapshot: s.snapshot,
      serverId: s.serverId,
      gtid: s.gtid,
      file: s.file,
      thread: s.thread,
      query: s.query,
      head: flatten(head),
      sourceHead: flatten(`,"source":${head}`),
      tail: flatten(tail),
      pos: Number.NaN,
      at: '',
      atClose: '',
    };
  }

  /** `before` and `after` are open struct texts (no closing brace), null for none. */
  private emit(
    out: SinkRecord[],
    op: Op,
    keyPayload: string | null,
    before: string | null,
    after: string | null,
    source: SourceInfo,
    tx: TransactionContext | undefined,
    headers: Record<string, string> | undefined,
    part: number,
  ): void {
    if (this.skipOp[op]) return;
    // Constant pieces are kept joined: each concatenation is a heap object for flatten() to walk.
    let txOp = NO_TX_OP_TEXT[op];
    const withTx = tx !== undefined && this.transactions;
    if (withTx) {
      const t = tx.event(this.tableId);
      if (t.begin) out.push(t.begin);
      txOp = `,"transaction":${transactionBlockJson(t.block)}${OP_TEXT[op]}`;
    }
    // The envelope's ts_ms (when the connector processed the event) is never earlier than source.ts_ms.
    const nowUs = Math.max(this.opts.clockMicros(), source.tsUs ?? source.tsMs * 1000);
    // ts_ms, ts_us and ts_ns from one printed number: for a whole count of microseconds >= 1000, the milliseconds
    // are its digits but the last three.
    if (nowUs !== this.nowUs) {
      // Consecutive records usually share the clock reading (wallClockMicros): its texts are kept.
      this.nowUs = nowUs;
      this.usText = numberText(nowUs);
      this.nsText = nanosText(this.usText);
      this.msText =
        nowUs >= 1000 && nowUs < 1e21 && Math.floor(nowUs) === nowUs
          ? this.usText.slice(0, -3)
          : String(Math.floor(nowUs / 1000));
      this.timeText = flatten(`${this.msText},"ts_us":${this.usText},"ts_ns":${this.nsText}}${this.valueClose}`);
    }
    const c = this.sourceCache(source);
    if (c.pos !== source.pos) {
      c.pos = source.pos;
      c.at = flatten(`${c.sourceHead}${source.pos},"row":`);
      c.atClose = flatten(`}${c.at}`);
    }
    let suffix: string;
    if (!withTx) {
      if (this.suffixSource !== c || this.suffixOp !== op || this.suffixNowUs !== nowUs) {
        this.suffixSource = c;
        this.suffixOp = op;
        this.suffixNowUs = nowUs;
        this.suffix = flatten(`${c.tail}${txOp}${this.timeText}`);
      }
      suffix = this.suffix;
    } else suffix = `${c.tail}${txOp}${this.timeText}`;
    // Each concatenation is a node for flatten() to walk: the closing braces of the open row texts go with the
    // constant text after them.
    let body: string;
    if (before === null)
      body = after === null ? `${this.openNoBefore}null${c.at}` : this.openNoBefore + after + c.atClose;
    else
      body =
        after === null
          ? `${this.openBefore}${before}},"after":null${c.at}`
          : `${this.openBefore}${before}},"after":${after}${c.atClose}`;
    const value = flatten(body + source.row + suffix);
    const key =
      keyPayload === null
        ? null
        : flatten(this.opts.schemasEnable ? withSchema(this.keySchemaJson, keyPayload) : keyPayload);
    const id = source.id;
    if (id !== undefined && headers === undefined) {
      // The common case, kept cheap: one small literal, its size added without walking it.
      const idValue = flatten(eventIdHeader(id, part));
      const size = recordSize(key, value) + EVENT_ID_HEADER.length + idValue.length;
      out.push({
        topic: this.topic,
        key,
        value,
        headers: { '__cdc.id': idValue },
        table: this.tableId,
        sizeBytes: size,
      });
    } else {
      const record: SinkRecord = { topic: this.topic, key, value, table: this.tableId, sizeBytes: 0 };
      const recordHeaders = id === undefined ? headers : withId(headers, id, part);
      if (recordHeaders) record.headers = recordHeaders;
      record.sizeBytes = recordSize(key, value, recordHeaders);
      out.push(record);
    }
    if (op === 'd' && this.tombstones) {
      // The tombstone copies the delete's key and headers (EventDispatcher: record.newRecord(..., record.headers())),
      // with an id of its own: a consumer dropping repeats by id must not drop it as the delete's repeat.
      const tomb: SinkRecord = { topic: this.topic, key, value: null, table: this.tableId, sizeBytes: 0 };
      const tombHeaders = id === undefined ? headers : withId(headers, id, part + 1);
      if (tombHeaders) tomb.headers = tombHeaders;
      tomb.sizeBytes = recordSize(key, null, tombHeaders);
      out.push(tomb);
    }
  }
}

/** `headers` plus the event id header (a new object: the delete and its tombstone share `headers`). */
function withId(headers: Record<string, string> | undefined, id: string, part: number): Record<string, string> {
  const value = flatten(eventIdHeader(id, part));
  return headers ? { ...headers, [EVENT_ID_HEADER]: value } : { [EVENT_ID_HEADER]: value };
}
