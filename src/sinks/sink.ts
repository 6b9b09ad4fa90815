import type { DeliveryStatus } from './delivery-status.js';

/**
 * The sink seam. The engine hands a sink batches of already-serialised records, one batch at a time, and
 * advances the stored offset only after `send` resolves: a resolved `send` means every record in the batch is
 * durably accepted by the destination. Sinks must keep per-key order within a batch and across batches.
 */
export interface SinkRecord {
  /** Destination name: Debezium topic naming, `<topic.prefix>.<db>.<table>`, `<prefix>.transaction`, ... */
  topic: string;
  /** JSON text of the key (Debezium's key struct), or null for keyless tables. */
  key: string | null;
  /** JSON text of the value (the envelope), or null for a tombstone. */
  value: string | null;
  /** Debezium's headers, e.g. `__debezium.oldkey`; values are JSON text. */
  headers?: Record<string, string>;
  /** Table id `db.table` the record belongs to, when it belongs to one (for routing and null-key partitioning). */
  table?: string;
  /** Approximate size in bytes (key + value + headers), for queue accounting and batching. */
  sizeBytes: number;
}

export interface Sink {
  readonly name: string;
  /** Prepare destinations (e.g. check that streams exist). Fail with an actionable error if they cannot be used. */
  start(): Promise<void>;
  /** Deliver a batch; resolves when all records are durably accepted, rejects with a SinkError otherwise. */
  send(records: SinkRecord[]): Promise<void>;
  close(): Promise<void>;
  /** Outage state of a sink that retries inside `send` (Kinesis), for logs, metrics and `/health`. */
  deliveryStatus?(): DeliveryStatus;
}

export function recordSize(key: string | null, value: string | null, headers?: Record<string, string>): number {
  let n = (key?.length ?? 0) + (value?.length ?? 0);
  if (headers) for (const k in headers) n += k.length + headers[k].length;
  return n;
}
