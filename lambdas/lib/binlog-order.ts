/**
 * A sortable text form of a change's position, so DynamoDB can compare positions in a condition expression
 * (`#order < :order`): binlog (file number, event position, row), snapshot reads before streamed changes at the same
 * position, then `transaction.total_order` (when transaction metadata is on) and finally the Kinesis sequence
 * number (+ KPL sub-sequence) as tie-breakers.
 *
 * Why the tie-breakers: like Debezium, `source.pos` is the position of the transaction's first event, and `row` is
 * the row within its rows event, so two statements changing one row in one transaction share (file, pos, row). Per
 * key, the capture publishes changes in binlog order to one shard, so the Kinesis sequence number orders them;
 * redelivering the same Kinesis record gives an equal order (a no-op write). GTIDs are ignored; binlog file names
 * are compared by their numeric suffix, so positions from servers with different binlog base names do not compare.
 */
import type { Json } from '../../src/transforms/json.js';
import { isObject, type JsonObject } from '../../src/transforms/record.js';

const pad = (v: string, n: number) => (v.length >= n ? v : '0'.repeat(n - v.length) + v);

function digits(v: Json | undefined): string {
  if (typeof v === 'bigint') return v >= 0n ? v.toString() : '0';
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return String(v);
  if (typeof v === 'string' && /^\d+$/.test(v)) return v;
  return '0';
}

export class PositionError extends Error {
  override name = 'PositionError';
}

/** The order text of a change event; throws PositionError when the source block has no binlog position. */
export function changeOrder(
  envelope: JsonObject & { op: string; source: JsonObject },
  sequenceNumber: string,
  subSequence: number,
): string {
  const s = envelope.source;
  if (typeof s.file !== 'string' || (typeof s.pos !== 'number' && typeof s.pos !== 'bigint'))
    throw new PositionError(
      'the source block has no binlog file/pos; only MySQL/MariaDB change events can be materialised',
    );
  const file = /(\d+)$/.exec(s.file)?.[1] ?? '0';
  const snapshot = envelope.op === 'r' || (typeof s.snapshot === 'string' && s.snapshot !== 'false') ? '0' : '1';
  const tx = isObject(envelope.transaction) ? envelope.transaction.total_order : undefined;
  return [
    pad(file.replace(/^0+(?=\d)/, ''), 12),
    pad(digits(s.pos), 20),
    pad(digits(s.row), 10),
    snapshot,
    pad(digits(tx), 20),
    sequenceOrder(sequenceNumber, subSequence),
  ].join('.');
}

/** Kinesis sequence number + KPL sub-sequence as fixed-width text (sequence numbers have up to 129 digits). */
export function sequenceOrder(sequenceNumber: string, subSequence: number): string {
  return `${pad(sequenceNumber, 129)}.${pad(String(subSequence), 10)}`;
}
