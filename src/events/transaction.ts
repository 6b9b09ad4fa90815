/**
 * Transaction metadata (provide.transaction.metadata): BEGIN/END records on `<prefix>.transaction` and the
 * per-event `transaction` block, with Debezium's TransactionMonitor semantics — BEGIN is emitted lazily with the
 * first captured event (transactions without captured events produce nothing), END carries the totals.
 */
import type { SinkRecord } from '../model/sink-record.js';
import { recordSize } from '../model/sink-record.js';
import { type ConnectSchema, schemaToJson, struct, withSchema } from './connect-schema.js';
import { EVENT_ID_HEADER, eventIdHeader, jsonStringBody } from './event-id.js';
import { adjustSchemaName, transactionTopic } from './topics.js';

/** The `transaction` field of a change event value. */
export interface TransactionBlock {
  id: string;
  total_order: number;
  data_collection_order: number;
}

/**
 * Debezium's MySQL transaction id: the GTID when GTIDs are on, else `file=<binlog file>,pos=<position of BEGIN>`
 * (BinlogOffsetContext.NON_GTID_TRANSACTION_ID_FORMAT).
 */
export function transactionId(source: { gtid?: string | null; file: string; pos: number }): string {
  return source.gtid ? source.gtid : `file=${source.file},pos=${source.pos}`;
}

/** Schema of the envelope's `transaction` block (SchemaFactory.transactionBlockSchema). */
export const TRANSACTION_BLOCK_SCHEMA: ConnectSchema = {
  ...struct(
    'event.block',
    [
      { field: 'id', schema: { type: 'string', optional: false } },
      { field: 'total_order', schema: { type: 'int64', optional: false } },
      { field: 'data_collection_order', schema: { type: 'int64', optional: false } },
    ],
    true,
    1,
  ),
};

export interface TransactionContextOptions {
  topicPrefix: string;
  schemasEnable?: boolean;
  schemaNameAdjustmentMode?: 'none' | 'avro';
}

export class TransactionContext {
  readonly topic: string;
  private readonly keySchemaJson: string;
  private readonly valueSchemaJson: string;
  private readonly schemasEnable: boolean;
  private pendingId: string | null = null;
  private pendingTsMs = 0;
  private openId: string | null = null;
  private total = 0;
  private readonly perCollection = new Map<string, number>();

  constructor(options: TransactionContextOptions) {
    this.topic = transactionTopic(options.topicPrefix);
    this.schemasEnable = options.schemasEnable ?? false;
    const adjust = (n: string) => adjustSchemaName(n, options.schemaNameAdjustmentMode ?? 'none');
    this.keySchemaJson = schemaToJson(
      struct(
        adjust('io.debezium.connector.common.TransactionMetadataKey'),
        [{ field: 'id', schema: { type: 'string', optional: false } }],
        false,
        1,
      ),
    );
    this.valueSchemaJson = schemaToJson(
      struct(
        adjust('io.debezium.connector.common.TransactionMetadataValue'),
        [
          { field: 'status', schema: { type: 'string', optional: false } },
          { field: 'id', schema: { type: 'string', optional: false } },
          { field: 'event_count', schema: { type: 'int64', optional: true } },
          {
            field: 'data_collections',
            schema: {
              type: 'array',
              items: struct(
                'event.collection',
                [
                  { field: 'data_collection', schema: { type: 'string', optional: false } },
                  { field: 'event_count', schema: { type: 'int64', optional: false } },
                ],
                true,
                1,
              ),
              optional: true,
            },
          },
          { field: 'ts_ms', schema: { type: 'int64', optional: false } },
        ],
        false,
        1,
      ),
    );
  }

  /** A source transaction starts (GTID/BEGIN). Nothing is emitted until its first captured event. */
  begin(id: string, tsMs: number): void {
    this.pendingId = id;
    this.pendingTsMs = tsMs;
    this.openId = null;
    this.total = 0;
    this.perCollection.clear();
  }

  /** True between begin() and end(). */
  get inTransaction(): boolean {
    return this.pendingId !== null;
  }

  /**
   * Count one emitted data event for `dataCollection` (`db.table`). Returns its block, and the BEGIN record when
   * this is the transaction's first event (emit it before the data record). Null block outside a transaction.
   */
  event(dataCollection: string): { block: TransactionBlock | null; begin: SinkRecord | null } {
    if (this.pendingId === null) return { block: null, begin: null };
    let begin: SinkRecord | null = null;
    if (this.openId === null) {
      this.openId = this.pendingId;
      begin = this.record(
        this.openId,
        'begin',
        `{"status":"BEGIN","id":${JSON.stringify(this.openId)},"event_count":null,"data_collections":null,"ts_ms":${this.pendingTsMs}}`,
      );
    }
    this.total++;
    const order = (this.perCollection.get(dataCollection) ?? 0) + 1;
    this.perCollection.set(dataCollection, order);
    return { block: { id: this.openId, total_order: this.total, data_collection_order: order }, begin };
  }

  /** The transaction commits: the END record, or null when it had no captured events. */
  end(tsMs: number): SinkRecord | null {
    const id = this.openId;
    const total = this.total;
    const collections = [...this.perCollection]
      .map(([c, n]) => `{"data_collection":${JSON.stringify(c)},"event_count":${n}}`)
      .join(',');
    this.pendingId = null;
    this.openId = null;
    this.total = 0;
    this.perCollection.clear();
    if (id === null) return null;
    return this.record(
      id,
      'end',
      `{"status":"END","id":${JSON.stringify(id)},"event_count":${total},"data_collections":[${collections}],"ts_ms":${tsMs}}`,
    );
  }

  /** A BEGIN/END record; its stable id (event-id.ts) is `<transaction id>/begin|end/0`. */
  private record(id: string, status: 'begin' | 'end', valuePayload: string): SinkRecord {
    const keyPayload = `{"id":${JSON.stringify(id)}}`;
    const key = this.schemasEnable ? withSchema(this.keySchemaJson, keyPayload) : keyPayload;
    const value = this.schemasEnable ? withSchema(this.valueSchemaJson, valuePayload) : valuePayload;
    const headers = { [EVENT_ID_HEADER]: eventIdHeader(`${jsonStringBody(id)}/${status}`, 0) };
    return { topic: this.topic, key, value, headers, sizeBytes: recordSize(key, value, headers) };
  }
}

/** JSON text of a transaction block. */
export function transactionBlockJson(block: TransactionBlock | null): string {
  if (block === null) return 'null';
  return `{"id":${JSON.stringify(block.id)},"total_order":${block.total_order},"data_collection_order":${block.data_collection_order}}`;
}
