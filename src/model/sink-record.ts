/** One change record as the pipeline carries it from the source to the sink, already serialised. */
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

export function recordSize(key: string | null, value: string | null, headers?: Record<string, string>): number {
  let n = (key?.length ?? 0) + (value?.length ?? 0);
  if (headers) for (const k in headers) n += k.length + headers[k].length;
  return n;
}
