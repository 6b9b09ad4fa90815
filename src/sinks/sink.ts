import type { SinkRecord } from '../model/sink-record.js';
import type { DeliveryStatus } from './delivery-status.js';

/**
 * The sink seam. The engine hands a sink batches of already-serialised records, one batch at a time, and
 * advances the stored offset only after `send` resolves: a resolved `send` means every record in the batch is
 * durably accepted by the destination. Sinks must keep per-key order within a batch and across batches.
 */
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
