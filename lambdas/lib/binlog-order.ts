/**
 * A sortable text form of a change's position, so DynamoDB can compare positions in a condition expression
 * (`#order < :order`): binlog file number and position (`source.file`, `source.pos`: the transaction's start, or a
 * snapshot's position), then snapshot reads before streamed changes at the same position, then — from the stable
 * event id (header `__cdc.id`, src/events/event-id.ts) — the rows event within the transaction, the row within it
 * and the record's part. Every part comes from the source, so a re-delivered event has exactly the order it had
 * the first time (an equal order is a repeat: not applied again), and two changes of one row in one transaction
 * (an update twice, a delete then a re-insert) are ordered as the binlog has them.
 *
 * Snapshot rows of one key at one position are one fact (equal order). Records without an id (the Kinesis sink's
 * `value` payload drops headers) fall back to `row`, `transaction.total_order` and the Kinesis sequence number
 * (+ KPL sub-sequence): the order of publication, which a re-delivery after a capture crash does not keep, so
 * such a stream converges but may briefly apply an older change again (docs/delivery.md).
 *
 * The server generation comes first (header `__cdc.server_generation`, on records read after a failover): the new
 * server's binlog files start anew, so its changes must sort after the old server's whatever their file and pos
 * (BinlogPosition.sortableGeneration, the same prefix the DynamoDB offset store's key has; generation 0 adds
 * nothing, so orders stored before stay comparable).
 *
 * GTIDs are not ordered and not used; binlog file names are compared by their numeric suffix, so positions from
 * servers with different binlog base names do not compare.
 */
import { parseRowChangeId } from '../../src/events/event-id.js';
import { BinlogPosition } from '../../src/model/binlog-position.js';
import { type Json, stringifyJson } from '../../src/transforms/json.js';
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

/**
 * The order text of a change event; throws PositionError when the source block has no binlog position or the
 * server generation is not a non-negative integer.
 */
export function changeOrder(
  envelope: JsonObject & { op: string; source: JsonObject },
  eventId: string | undefined,
  sequenceNumber: string,
  subSequence: number,
  serverGeneration: Json = 0,
): string {
  const s = envelope.source;
  if (typeof s.file !== 'string' || (typeof s.pos !== 'number' && typeof s.pos !== 'bigint'))
    throw new PositionError(
      'the source block has no binlog file/pos; only MySQL/MariaDB change events can be materialised',
    );
  if (typeof serverGeneration !== 'number' || !Number.isSafeInteger(serverGeneration) || serverGeneration < 0)
    throw new PositionError(
      `the server generation (header __cdc.server_generation) must be a non-negative integer, got ${stringifyJson(serverGeneration)}`,
    );
  const generation = BinlogPosition.sortableGeneration(serverGeneration);
  const file = /(\d+)$/.exec(s.file)?.[1] ?? '0';
  const position = `${generation}${pad(file.replace(/^0+(?=\d)/, ''), 12)}.${pad(digits(s.pos), 20)}`;
  if (envelope.op === 'r' || (typeof s.snapshot === 'string' && s.snapshot !== 'false')) return `${position}.0`;
  const id = eventId === undefined ? null : parseRowChangeId(eventId);
  if (id) return `${position}.1.${pad(String(id.event), 10)}.${pad(String(id.row), 10)}.${pad(String(id.part), 3)}`;
  const tx = isObject(envelope.transaction) ? envelope.transaction.total_order : undefined;
  return `${position}.1.~${pad(digits(s.row), 10)}.${pad(digits(tx), 20)}.${sequenceOrder(sequenceNumber, subSequence)}`;
}

/** Kinesis sequence number + KPL sub-sequence as fixed-width text (sequence numbers have up to 129 digits). */
export function sequenceOrder(sequenceNumber: string, subSequence: number): string {
  return `${pad(sequenceNumber, 129)}.${pad(String(subSequence), 10)}`;
}
