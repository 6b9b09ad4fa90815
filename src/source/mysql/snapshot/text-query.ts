/**
 * A text-protocol query (COM_QUERY) as a mysql2 command object that reads its result set's packets itself: each
 * row reaches the handler as the packet's bytes, cut into cells by their length prefixes, instead of through
 * mysql2's per-cell typeCast wrappers, object-mode stream and async iterator, which cost more than converting the
 * values on large scans. Strings are decoded exactly as mysql2 decodes them (its own decoder and charset table).
 * mysql2 is pinned to an exact version; these are its internals, as for the replication commands.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Mysql2Command, Mysql2ConnectionInternals, Mysql2Packet } from '../binlog/replication/protocol.js';

/** One result column (the parts of a ColumnDefinition41 packet the scan needs). */
export interface ResultField {
  name: string;
  /** Result-set column type (MYSQL_TYPE_*). */
  columnType: number;
  /** Collation id of the value bytes (63 = binary). */
  characterSet: number;
}

export interface TextQueryHandlers {
  onFields(fields: ResultField[]): void;
  /**
   * One row: `cells` holds, per column, the start and end offsets of its bytes in `buf` (start -1: SQL NULL).
   * Both are only valid during the call.
   */
  onRow(buf: Buffer, cells: Int32Array): void;
  onEnd(): void;
  onError(err: Error): void;
}

/** The connection internals a query command uses beyond the replication commands' ones. */
export interface QueryConnectionInternals extends Mysql2ConnectionInternals {
  config: { clientFlags: number };
  serverCapabilityFlags?: number;
  _mariadbExtendedMetadata?: boolean;
  pause(): void;
  resume(): void;
}

const COM_QUERY = 0x03;
const CLIENT_QUERY_ATTRIBUTES = 1 << 27;

const mysql2Dir = dirname(createRequire(import.meta.url).resolve('mysql2'));
const internal = createRequire(join(mysql2Dir, 'index.js'));
/** mysql2's collation id → Node encoding name, and its string decoder (iconv-lite for the rare legacy ones). */
const charsetEncodings = internal('./lib/constants/charset_encodings.js') as Record<number, string>;
const stringParser = internal('./lib/parsers/string.js') as {
  decode(buf: Buffer, encoding: string, start: number, end: number): string;
};

/** Node's Buffer methods under toString(), which mysql2's decoder calls where they exist (not in the typings). */
interface NativeSlices extends Buffer {
  utf8Slice(start: number, end: number): string;
  latin1Slice(start: number, end: number): string;
  asciiSlice(start: number, end: number): string;
}
const NATIVE_SLICES = ['utf8Slice', 'latin1Slice', 'asciiSlice'].every(
  (m) => typeof (Buffer.prototype as unknown as Record<string, unknown>)[m] === 'function',
);

/**
 * A cell's text as mysql2's field.string() returns it: the native slice its decoder calls for utf8/latin1/ascii
 * (without its per-call bounds normalisation: the cells are in range), its decoder (iconv-lite) for the rare others.
 * (Building short ASCII texts a character at a time made a string per character: a third of a scan's garbage.)
 */
export function cellDecoder(characterSet: number): (buf: Buffer, start: number, end: number) => string {
  const encoding = charsetEncodings[characterSet] ?? 'utf8';
  switch (NATIVE_SLICES ? encoding : '') {
    case 'utf8':
      return (buf, start, end) => (buf as NativeSlices).utf8Slice(start, end);
    case 'latin1':
    case 'binary':
      return (buf, start, end) => (buf as NativeSlices).latin1Slice(start, end);
    case 'ascii':
      return (buf, start, end) => (buf as NativeSlices).asciiSlice(start, end);
    default:
      return (buf, start, end) => stringParser.decode(buf, encoding, start, end);
  }
}

class QueryPacket {
  readonly buffer: Buffer;
  constructor(sql: string, withAttributes: boolean) {
    const head = withAttributes ? 3 : 1;
    const body = Buffer.byteLength(sql, 'utf8');
    this.buffer = Buffer.allocUnsafe(4 + head + body);
    this.buffer[4] = COM_QUERY;
    // CLIENT_QUERY_ATTRIBUTES: parameter_count 0, parameter_set_count 1.
    if (withAttributes) {
      this.buffer[5] = 0;
      this.buffer[6] = 1;
    }
    this.buffer.write(sql, 4 + head, 'utf8');
  }
  length(): number {
    return this.buffer.length;
  }
  writeHeader(sequenceId: number): void {
    this.buffer.writeUIntLE(this.buffer.length - 4, 0, 3);
    this.buffer[3] = sequenceId;
  }
}

type State = 'start' | 'header' | 'fields' | 'fieldsEof' | 'rows' | 'done';

/** Reads the length-encoded integer at `cursor[0]` and moves `cursor[0]` past it. */
function lenenc(buf: Buffer, cursor: Int32Array): number {
  const p = cursor[0];
  const b = buf[p];
  if (b < 0xfb) {
    cursor[0] = p + 1;
    return b;
  }
  if (b === 0xfc) {
    cursor[0] = p + 3;
    return buf[p + 1] | (buf[p + 2] << 8);
  }
  if (b === 0xfd) {
    cursor[0] = p + 4;
    return buf[p + 1] | (buf[p + 2] << 8) | (buf[p + 3] << 16);
  }
  cursor[0] = p + 9;
  // 8-byte lengths beyond 2^53 cannot occur in a packet.
  return buf.readUInt32LE(p + 1) + buf.readUInt32LE(p + 5) * 2 ** 32;
}

function skipLenencString(buf: Buffer, cursor: Int32Array): void {
  const n = lenenc(buf, cursor);
  cursor[0] += n;
}

/**
 * Runs one query returning one result set. `execute` is called by mysql2 for each packet of the reply; the
 * handler sees fields once, then rows, then exactly one of onEnd/onError.
 */
export class TextQueryCommand implements Mysql2Command {
  private state: State = 'start';
  private fieldCount = 0;
  private readonly fields: ResultField[] = [];
  private cells = new Int32Array(0);
  private readonly cursor = new Int32Array(1);

  constructor(
    private readonly sql: string,
    private readonly handlers: TextQueryHandlers,
  ) {}

  execute(packet: Mysql2Packet | undefined, connection: Mysql2ConnectionInternals): boolean {
    try {
      return this.step(packet, connection as QueryConnectionInternals);
    } catch (err) {
      // A packet this reader cannot parse: the rest of the reply cannot be told apart, so the connection is closed
      // rather than handed on mid-result to the next command.
      connection.stream.destroy();
      return this.fail(err instanceof Error ? err : new Error(String(err)));
    }
  }

  private step(packet: Mysql2Packet | undefined, conn: QueryConnectionInternals): boolean {
    const connection = conn;
    if (this.state === 'start') {
      this.state = 'header';
      const flags = conn.config.clientFlags & (conn.serverCapabilityFlags ?? 0);
      connection._resetSequenceId();
      connection.writePacket(new QueryPacket(this.sql, (flags & CLIENT_QUERY_ATTRIBUTES) !== 0));
      return false;
    }
    if (packet === undefined || this.state === 'done') return this.state === 'done';
    const buf = packet.buffer;
    const first = packet.start + 4;
    const marker = buf[first];
    if (marker === 0xff) return this.fail(packet.asError(connection.clientEncoding));
    switch (this.state) {
      case 'header': {
        if (marker === 0x00) {
          // An OK packet: the statement returned no result set.
          this.handlers.onFields([]);
          return this.end();
        }
        if (marker === 0xfb) return this.fail(new Error('the server asked for a LOCAL INFILE; not a SELECT'));
        this.cursor[0] = first;
        this.fieldCount = lenenc(buf, this.cursor);
        this.cells = new Int32Array(this.fieldCount * 2);
        this.state = 'fields';
        return false;
      }
      case 'fields': {
        this.fields.push(this.field(buf, first, conn));
        if (this.fields.length === this.fieldCount) this.state = 'fieldsEof';
        return false;
      }
      case 'fieldsEof':
        // mysql2 never negotiates CLIENT_DEPRECATE_EOF, so an EOF packet ends the column definitions.
        if (marker !== 0xfe) return this.fail(new Error('expected an EOF packet after the column definitions'));
        this.state = 'rows';
        this.handlers.onFields(this.fields);
        return false;
      case 'rows': {
        if (marker === 0xfe && packet.end - first < 9) return this.end();
        this.row(buf, first, packet.end);
        return false;
      }
      default:
        return false;
    }
  }

  onResult(err: Error): void {
    if (this.state === 'done') return;
    this.fail(err);
  }

  stateName(): string {
    return this.state;
  }

  private row(buf: Buffer, pos: number, end: number): void {
    const cells = this.cells;
    const cursor = this.cursor;
    cursor[0] = pos;
    for (let i = 0; i < cells.length; i += 2) {
      const p = cursor[0];
      if (buf[p] === 0xfb) {
        cells[i] = -1;
        cells[i + 1] = -1;
        cursor[0] = p + 1;
        continue;
      }
      const n = lenenc(buf, cursor);
      const s = cursor[0];
      cells[i] = s;
      cells[i + 1] = s + n;
      cursor[0] = s + n;
    }
    if (cursor[0] > end) {
      this.fail(new Error(`a result row packet is shorter than its ${this.fieldCount} cells`));
      return;
    }
    this.handlers.onRow(buf, cells);
  }

  private field(buf: Buffer, pos: number, conn: QueryConnectionInternals): ResultField {
    const cursor = this.cursor;
    cursor[0] = pos;
    // catalog, schema, table, org_table, then the name.
    for (let i = 0; i < 4; i++) skipLenencString(buf, cursor);
    const nameLength = lenenc(buf, cursor);
    const nameStart = cursor[0];
    cursor[0] += nameLength;
    skipLenencString(buf, cursor); // org_name
    if (conn._mariadbExtendedMetadata) skipLenencString(buf, cursor); // MariaDB extended type info
    const p = cursor[0] + 1; // after the length of the fixed-length fields (always 0x0c)
    const characterSet = buf.readUInt16LE(p);
    // Like mysql2: the name in its column's encoding, or the connection's for binary columns.
    const encoding = charsetEncodings[characterSet];
    const name = stringParser.decode(
      buf,
      encoding === undefined || encoding === 'binary' ? (conn.clientEncoding ?? 'utf8') : encoding,
      nameStart,
      nameStart + nameLength,
    );
    return { name, characterSet, columnType: buf[p + 6] };
  }

  private end(): boolean {
    this.state = 'done';
    this.handlers.onEnd();
    return true;
  }

  private fail(err: Error): boolean {
    if (this.state === 'done') return true;
    this.state = 'done';
    this.handlers.onError(err);
    return true;
  }
}
