/**
 * Stable event ids (header `__cdc.id`, docs/delivery.md): the same text every time an event is delivered again
 * after a crash, and different for any two different events, so a consumer can drop repeats.
 *
 * An id is `<origin>/<part>`, where the origin names the row change (or other fact) and `<part>` numbers the
 * records one change produces (a delete and its tombstone; a key change's delete, tombstone and create):
 * - streamed row change: `<txn>/<event>/<row>` — `<txn>` is the transaction's id as in Debezium's transaction
 *   metadata (the GTID, else `file=<binlog file>,pos=<position of its first event>`), `<event>` the rows event's
 *   index within the transaction (counting every rows event, captured or not) and `<row>` the row's index within
 *   its rows event. Two updates of one row in one transaction differ in `<event>`.
 * - truncate: `<txn>/truncate/<n>`; schema change: `<txn>/ddl/<n>` (`<n>`: which event of the statement).
 * - snapshot row: `file=<f>,pos=<p>/snapshot/<db>.<table>/<n>` — the snapshot's binlog position, the table and the
 *   row's index in the table's scan; a chunked (incremental) snapshot row: `.../incremental/<db>.<table>/<c>.<n>`
 *   with the chunk's high watermark as the position, `<c>` the chunk's number and `<n>` the row's index in it.
 *   A snapshot row never shares an origin with a streamed change (different shape), even at the same position.
 *
 * Origins are kept as JSON-string-safe text (escaped once when built), so a header value is one concatenation.
 */

/** The header every change event carries its id in (Kafka header; `headers` of the record line form). */
export const EVENT_ID_HEADER = '__cdc.id';

/**
 * The header naming the server generation a record was read in (SourceOffset.server_generation, JSON number), on
 * records read after a failover only (generation 0 has none): a consumer ordering by (file, pos) compares it first.
 */
export const SERVER_GENERATION_HEADER = '__cdc.server_generation';

const NEEDS_ESCAPE = /["\\\u0000-\u001f\u2028\u2029]/;

/** `text` as it appears between the quotes of a JSON string. */
export function jsonStringBody(text: string): string {
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text).slice(1, -1) : text;
}

/** The position form of an origin (Debezium's non-GTID transaction id format). */
export function positionText(file: string, pos: number): string {
  return `file=${file},pos=${pos}`;
}

/** Origin prefix of the rows of one rows event: append the row's index. `txn` is a Debezium transaction id. */
export function rowsEventIdPrefix(txn: string, rowsEvent: number): string {
  return `${jsonStringBody(txn)}/${rowsEvent}/`;
}

/** Origin prefix of a table's snapshot rows: append the row's index in the scan (or `<chunk>.<n>`). */
export function snapshotIdPrefix(
  kind: 'snapshot' | 'incremental',
  position: { file: string; pos: number },
  tableId: string,
): string {
  return `${jsonStringBody(positionText(position.file, position.pos))}/${kind}/${jsonStringBody(tableId)}/`;
}

/** Origin of a non-row event of a transaction (`truncate`, `ddl`): `<txn>/<kind>/<n>`. */
export function statementId(txn: string, kind: 'truncate' | 'ddl', n: number): string {
  return `${jsonStringBody(txn)}/${kind}/${n}`;
}

/** The header value (JSON text) of the `part`-th record of the event whose origin is `origin`. */
export function eventIdHeader(origin: string, part: number): string {
  // One concatenation fewer for the parts a row change has (every record carries one).
  return part < PART_ENDS.length ? `"${origin}${PART_ENDS[part]}` : `"${origin}/${part}"`;
}

/** `/<part>"`, the end of a header value, for the parts a row change can have. */
const PART_ENDS = ['/0"', '/1"', '/2"', '/3"'];

/** The parts of a streamed row change's id; null for any other id (snapshot rows, truncates, schema changes). */
export interface RowChangeId {
  txn: string;
  event: number;
  row: number;
  part: number;
}

const ROW_CHANGE_ID = /^([^/]+)\/(\d+)\/(\d+)\/(\d+)$/;

export function parseRowChangeId(id: string): RowChangeId | null {
  const m = ROW_CHANGE_ID.exec(id);
  if (!m) return null;
  return { txn: m[1], event: Number(m[2]), row: Number(m[3]), part: Number(m[4]) };
}
