/**
 * Pure binlog event decoder: bytes in, typed events out (no I/O).
 *
 * ```ts
 * const decoder = new BinlogDecoder({ verifyChecksum: true, columnHints, includeColumns });
 * const event = decoder.decode(eventBytes, position); // one whole event: 19-byte header + body [+ CRC32]
 * if (event.type === 'WRITE_ROWS') for (const row of event.rows) ...; // row[i]: CellValue (values.ts)
 * ```
 * State: the last FORMAT_DESCRIPTION (post-header lengths, checksum algorithm) and a TABLE_MAP cache
 * (table id → TableMapEvent + a compiled row decoder, reused while the TABLE_MAP bytes are unchanged).
 * - `setChecksum('CRC32'|'NONE')`: the live transport states the checksum before any FORMAT_DESCRIPTION arrives.
 * - `invalidateTableCache()`: drop compiled decoders after `columnHints` answers change (e.g. DDL).
 * - TRANSACTION_PAYLOAD events expose their inner events decoded (`events`).
 * - GTID_TAGGED_LOG_EVENT (MySQL 8.3+) decodes to the same `GtidEvent` as GTID_EVENT (`type: 'GTID'`, `tag` set,
 *   `gtid` = "uuid:tag:gno"; `header.typeCode` tells them apart).
 * - Rows: `rows: Row[]` (WRITE/DELETE) or `{ before, after }[]` (UPDATE / PARTIAL_UPDATE); absent columns in a
 *   partial image are `undefined`. Buffer values are views into the event buffer (no copy; BINARY(n) values stored
 *   shorter than n are padded copies).
 * Errors: BinlogDecodeError, BinlogChecksumError, BinlogUnsupportedEventError, BinlogEncryptedError (errors.ts),
 * each with the event position.
 */
import { crc32 } from 'node:zlib';
import { decompress as zstdDecompress } from 'fzstd';
import { CdcError } from '../../../common/errors.js';
import { ByteReader } from './byte-reader.js';
import type { ColumnHint } from './column-decoders.js';
import { BinlogChecksumError, BinlogDecodeError, BinlogEncryptedError, BinlogUnsupportedEventError } from './errors.js';
import { CHECKSUM_LENGTH, EventType, eventTypeName, HEADER_LENGTH, LOG_EVENT_IGNORABLE_F } from './event-types.js';
import type { BinlogEvent, ChecksumAlgorithm, EventHeader, FormatDescriptionEvent } from './events.js';
import { decodeGtid, decodeMariadbGtid, decodeMariadbGtidList, decodePreviousGtids, decodeTaggedGtid } from './gtid.js';
import { decodeQuery } from './query.js';
import { compileTableDecoder, decodeRowsEvent, type RowsKind, type TableDecoder } from './rows.js';
import { decodeTableMap, type TableMapEvent } from './table-map.js';

export type { ColumnHint } from './column-decoders.js';
export * from './errors.js';
export * from './events.js';

/** Upper bound for a TRANSACTION_PAYLOAD's uncompressed size (MySQL's max_allowed_packet / event limit). */
const MAX_PAYLOAD_BYTES = 1 << 30;

/** FORMAT_DESCRIPTION flag: the binlog was not closed cleanly (still in use or the server crashed). */
const BINLOG_IN_USE_F = 0x1;

export interface BinlogDecoderOptions {
  /** Verify CRC32 footers when the binlog has them (default true). */
  verifyChecksum?: boolean;
  /** Per-table column facts for servers that send no TABLE_MAP metadata (signedness, charset, JSON). */
  columnHints?: (database: string, table: string, columnCount: number) => Array<ColumnHint | undefined> | undefined;
  /** Decode only wanted columns; the others come out as `undefined` (their bytes are still skipped). */
  includeColumns?: (database: string, table: string, columnIndex: number, columnName: string | undefined) => boolean;
}

// Post-header lengths of MySQL 5.7/8.0, used until a FORMAT_DESCRIPTION says otherwise.
const DEFAULT_POST_HEADER: Record<number, number> = {
  [EventType.QUERY]: 13,
  [EventType.ROTATE]: 8,
  [EventType.TABLE_MAP]: 8,
  [EventType.WRITE_ROWS_V1]: 8,
  [EventType.UPDATE_ROWS_V1]: 8,
  [EventType.DELETE_ROWS_V1]: 8,
  [EventType.WRITE_ROWS_V2]: 10,
  [EventType.UPDATE_ROWS_V2]: 10,
  [EventType.DELETE_ROWS_V2]: 10,
  [EventType.PARTIAL_UPDATE_ROWS]: 10,
  [EventType.PRE_GA_WRITE_ROWS]: 8,
  [EventType.PRE_GA_UPDATE_ROWS]: 8,
  [EventType.PRE_GA_DELETE_ROWS]: 8,
};

const ROWS_TYPES: Record<number, [RowsKind, 0 | 1 | 2, boolean]> = {
  [EventType.PRE_GA_WRITE_ROWS]: ['WRITE_ROWS', 0, false],
  [EventType.PRE_GA_UPDATE_ROWS]: ['UPDATE_ROWS', 0, false],
  [EventType.PRE_GA_DELETE_ROWS]: ['DELETE_ROWS', 0, false],
  [EventType.WRITE_ROWS_V1]: ['WRITE_ROWS', 1, false],
  [EventType.UPDATE_ROWS_V1]: ['UPDATE_ROWS', 1, false],
  [EventType.DELETE_ROWS_V1]: ['DELETE_ROWS', 1, false],
  [EventType.WRITE_ROWS_V2]: ['WRITE_ROWS', 2, false],
  [EventType.UPDATE_ROWS_V2]: ['UPDATE_ROWS', 2, false],
  [EventType.DELETE_ROWS_V2]: ['DELETE_ROWS', 2, false],
  [EventType.PARTIAL_UPDATE_ROWS]: ['PARTIAL_UPDATE_ROWS', 2, false],
  [EventType.MARIADB_WRITE_ROWS_COMPRESSED_V1]: ['WRITE_ROWS', 1, true],
  [EventType.MARIADB_UPDATE_ROWS_COMPRESSED_V1]: ['UPDATE_ROWS', 1, true],
  [EventType.MARIADB_DELETE_ROWS_COMPRESSED_V1]: ['DELETE_ROWS', 1, true],
  [EventType.MARIADB_WRITE_ROWS_COMPRESSED]: ['WRITE_ROWS', 2, true],
  [EventType.MARIADB_UPDATE_ROWS_COMPRESSED]: ['UPDATE_ROWS', 2, true],
  [EventType.MARIADB_DELETE_ROWS_COMPRESSED]: ['DELETE_ROWS', 2, true],
};

/** Known event types decoded only as raw bodies (legacy LOAD DATA, group replication, ...). */
const OTHER_TYPES = new Set<number>([
  EventType.START_V3,
  EventType.LOAD,
  EventType.SLAVE,
  EventType.CREATE_FILE,
  EventType.APPEND_BLOCK,
  EventType.EXEC_LOAD,
  EventType.DELETE_FILE,
  EventType.NEW_LOAD,
  EventType.BEGIN_LOAD_QUERY,
  EventType.EXECUTE_LOAD_QUERY,
  EventType.TRANSACTION_CONTEXT,
  EventType.VIEW_CHANGE,
]);

interface CachedTable {
  /** TABLE_MAP body bytes (post-header + body, no checksum): an identical re-map reuses the compiled decoder. */
  body: Buffer;
  decoder: TableDecoder;
}

export class BinlogDecoder {
  private readonly verify: boolean;
  private readonly options: BinlogDecoderOptions;
  private checksum: ChecksumAlgorithm = 'NONE';
  private fde: FormatDescriptionEvent | undefined;
  /** Old type code → current type code, for the pre-GA 5.1/5.2 "a_drop" builds that numbered events differently. */
  private typePermutation: readonly number[] | undefined;
  private readonly tables = new Map<number, CachedTable>();

  constructor(options: BinlogDecoderOptions = {}) {
    this.options = options;
    this.verify = options.verifyChecksum ?? true;
  }

  /** The checksum algorithm in effect (from the last FORMAT_DESCRIPTION or `setChecksum`). */
  get checksumAlgorithm(): ChecksumAlgorithm {
    return this.checksum;
  }

  get formatDescription(): FormatDescriptionEvent | undefined {
    return this.fde;
  }

  /** The live transport knows the checksum (binlog_checksum) before the first FORMAT_DESCRIPTION. */
  setChecksum(alg: ChecksumAlgorithm | 'crc32' | 'none' | 0 | 1): void {
    this.checksum = alg === 1 || alg === 'CRC32' || alg === 'crc32' ? 'CRC32' : 'NONE';
  }

  /** The cached TABLE_MAP for a table id, if any. */
  tableMap(tableId: number): TableMapEvent | undefined {
    return this.tables.get(tableId)?.decoder.table;
  }

  /** Forget compiled row decoders (call after the schema behind `columnHints` changed). */
  invalidateTableCache(): void {
    this.tables.clear();
  }

  /**
   * Decodes exactly one whole event. `position` (the event's start offset in its binlog) is used in error
   * messages; by default it is derived from the header (nextPosition - eventSize).
   */
  decode(event: Buffer, position?: number): BinlogEvent {
    return this.decodeOne(event, position, false);
  }

  private decodeOne(event: Buffer, position: number | undefined, inner: boolean): BinlogEvent {
    if (event.length < HEADER_LENGTH) {
      throw new BinlogDecodeError(
        `event at position ${position ?? '?'}: ${event.length} bytes is shorter than the 19-byte event header`,
        position,
      );
    }
    const header: EventHeader = {
      timestamp: event.readUInt32LE(0),
      typeCode: this.typePermutation?.[event[4]] ?? event[4],
      serverId: event.readUInt32LE(5),
      eventSize: event.readUInt32LE(9),
      nextPosition: event.readUInt32LE(13),
      flags: event.readUInt16LE(17),
    };
    const pos = position ?? (header.nextPosition >= header.eventSize ? header.nextPosition - header.eventSize : 0);
    if (header.eventSize !== event.length) {
      throw new BinlogDecodeError(
        `event at position ${pos}: header says ${header.eventSize} bytes but ${event.length} were given (pass exactly one whole event)`,
        pos,
      );
    }
    try {
      if (header.typeCode === EventType.FORMAT_DESCRIPTION) return this.decodeFormatDescription(event, header, pos);
      let end = event.length;
      if (this.checksum === 'CRC32' && !inner) {
        end -= CHECKSUM_LENGTH;
        if (this.verify) this.verifyCrc(event, end, pos);
      }
      return this.decodeBody(new ByteReader(event, HEADER_LENGTH, end, pos), header);
    } catch (err) {
      if (err instanceof CdcError) {
        if (err instanceof BinlogDecodeError && err.position === undefined) {
          throw new BinlogDecodeError(
            `event at position ${pos} (${eventTypeName(header.typeCode)}): ${err.message}`,
            pos,
            {
              cause: err.cause,
            },
          );
        }
        throw err;
      }
      throw new BinlogDecodeError(
        `event at position ${pos} (${eventTypeName(header.typeCode)}): malformed event: ${(err as Error).message}`,
        pos,
        { cause: err },
      );
    }
  }

  /** `clearInUse`: the server computes a FORMAT_DESCRIPTION's CRC before setting LOG_EVENT_BINLOG_IN_USE_F. */
  private verifyCrc(event: Buffer, end: number, pos: number, clearInUse = 0): void {
    const expected = event.readUInt32LE(end);
    let actual: number;
    if (clearInUse) {
      const head = Buffer.from(event.subarray(0, HEADER_LENGTH));
      head[17] &= ~BINLOG_IN_USE_F;
      actual = crc32(event.subarray(HEADER_LENGTH, end), crc32(head)) >>> 0;
    } else actual = crc32(event.subarray(0, end)) >>> 0;
    if (expected !== actual) {
      throw new BinlogChecksumError(
        `event at position ${pos}: CRC32 mismatch (stored 0x${expected.toString(16)}, computed 0x${actual.toString(16)}); the binlog is corrupt or the checksum setting is wrong (binlog_checksum)`,
        pos,
        expected,
        actual,
      );
    }
  }

  private postHeaderLength(typeCode: number): number {
    const fromFde = this.fde?.postHeaderLengths[typeCode - 1];
    return fromFde ?? DEFAULT_POST_HEADER[typeCode] ?? 0;
  }

  private decodeFormatDescription(event: Buffer, header: EventHeader, pos: number): FormatDescriptionEvent {
    const r = new ByteReader(event, HEADER_LENGTH, event.length, pos);
    r.need(57, 'FORMAT_DESCRIPTION body');
    const binlogVersion = r.u16();
    const raw = r.bytes(50);
    const nul = raw.indexOf(0);
    const serverVersion = raw.toString('latin1', 0, nul < 0 ? 50 : nul);
    const createTimestamp = r.u32();
    const headerLength = r.u8();
    const mariadb = /mariadb/i.test(serverVersion);
    const hasChecksumAlg = versionAtLeast(serverVersion, mariadb ? [5, 3, 0] : [5, 6, 1]);
    let end = event.length;
    let checksum: ChecksumAlgorithm = 'NONE';
    if (hasChecksumAlg) {
      end -= 1 + CHECKSUM_LENGTH;
      const alg = event[end];
      if (alg === 1) {
        checksum = 'CRC32';
        if (this.verify) this.verifyCrc(event, event.length - CHECKSUM_LENGTH, pos, header.flags & BINLOG_IN_USE_F);
      } else if (alg !== 0 && alg !== 0xff) {
        throw new BinlogDecodeError(
          `event at position ${pos}: unknown checksum algorithm ${alg} in FORMAT_DESCRIPTION`,
          pos,
        );
      }
    }
    let postHeaderLengths = Array.from(event.subarray(r.pos, end));
    const permutation = OLD_TYPE_PERMUTATION_VERSION.test(serverVersion) ? OLD_TYPE_PERMUTATION : undefined;
    if (permutation) {
      // The post-header lengths are indexed by the old codes too: reorder them to the current codes.
      const permuted = postHeaderLengths.slice();
      for (let old = 1; old < permutation.length && old <= postHeaderLengths.length; old++) {
        permuted[permutation[old] - 1] = postHeaderLengths[old - 1];
      }
      postHeaderLengths = permuted;
    }
    const fde: FormatDescriptionEvent = {
      type: 'FORMAT_DESCRIPTION',
      header,
      binlogVersion,
      serverVersion,
      createTimestamp,
      headerLength,
      postHeaderLengths,
      checksum,
      mariadb,
    };
    this.fde = fde;
    this.typePermutation = permutation;
    this.checksum = checksum;
    return fde;
  }

  private decodeBody(r: ByteReader, header: EventHeader): BinlogEvent {
    const type = header.typeCode;
    const rowsType = ROWS_TYPES[type];
    if (rowsType) {
      const tableIdSize = this.postHeaderLength(type) === 6 ? 4 : 6;
      if (rowsType[1] === 0 && r.remaining >= tableIdSize) {
        const tableId = tableIdSize === 6 ? r.buf.readUIntLE(r.pos, 6) : r.buf.readUInt32LE(r.pos);
        // Pre-GA row images follow the storage engine's record layout, which a TABLE_MAP without column
        // metadata does not describe: keep the raw body rather than decode garbage.
        if (this.tables.get(tableId)?.decoder.table.noColumnMetadata) {
          return { type: 'OTHER', header, name: eventTypeName(type), body: r.rest() };
        }
      }
      return decodeRowsEvent(
        r,
        header,
        rowsType[0],
        rowsType[1],
        tableIdSize,
        rowsType[2],
        (id) => this.tables.get(id)?.decoder,
      );
    }
    switch (type) {
      case EventType.TABLE_MAP:
        return this.decodeTableMapEvent(r, header);
      case EventType.QUERY:
        return decodeQuery(r, header, this.postHeaderLength(type), false);
      case EventType.MARIADB_QUERY_COMPRESSED:
        return decodeQuery(r, header, this.postHeaderLength(type) || 13, true);
      case EventType.XID:
        r.need(8, 'XID');
        return { type: 'XID', header, xid: r.u64() };
      case EventType.ROTATE:
        return this.decodeRotate(r, header);
      case EventType.GTID:
        return decodeGtid(r, header, false);
      case EventType.ANONYMOUS_GTID:
        return decodeGtid(r, header, true);
      case EventType.GTID_TAGGED:
        return decodeTaggedGtid(r, header);
      case EventType.PREVIOUS_GTIDS:
        return decodePreviousGtids(r, header);
      case EventType.TRANSACTION_PAYLOAD:
        return this.decodeTransactionPayload(r, header);
      case EventType.ROWS_QUERY:
        // The 1-byte length is truncated at 255; the text runs to the end of the event.
        r.skip(1);
        return { type: 'ROWS_QUERY', header, query: r.rest().toString('utf8') };
      case EventType.HEARTBEAT:
        return {
          type: 'HEARTBEAT',
          header,
          version: 1,
          logFile: r.rest().toString('utf8'),
          position: header.nextPosition,
        };
      case EventType.HEARTBEAT_V2:
        return this.decodeHeartbeatV2(r, header);
      case EventType.MARIADB_ANNOTATE_ROWS:
        return { type: 'MARIADB_ANNOTATE_ROWS', header, query: r.rest().toString('utf8') };
      case EventType.MARIADB_GTID:
        return decodeMariadbGtid(r, header);
      case EventType.MARIADB_GTID_LIST:
        return decodeMariadbGtidList(r, header);
      case EventType.MARIADB_BINLOG_CHECKPOINT: {
        r.need(4, 'BINLOG_CHECKPOINT name length');
        return { type: 'MARIADB_BINLOG_CHECKPOINT', header, logFile: r.utf8(r.u32()) };
      }
      case EventType.MARIADB_START_ENCRYPTION:
        throw new BinlogEncryptedError(
          `event at position ${r.eventPosition}: START_ENCRYPTION_EVENT: this MariaDB binlog is encrypted (encrypt_binlog=ON), which is unsupported; read it through the server (replication protocol decrypts) or set encrypt_binlog=OFF and rotate to a new binlog`,
          r.eventPosition,
        );
      case EventType.STOP:
        return { type: 'STOP', header };
      case EventType.INTVAR:
        r.need(9, 'INTVAR');
        return { type: 'INTVAR', header, subtype: r.u8(), value: r.u64() };
      case EventType.RAND:
        r.need(16, 'RAND');
        return { type: 'RAND', header, seed1: r.u64(), seed2: r.u64() };
      case EventType.USER_VAR:
        return this.decodeUserVar(r, header);
      case EventType.INCIDENT: {
        r.need(3, 'INCIDENT');
        const incident = r.u16();
        return { type: 'INCIDENT', header, incident, message: r.utf8(Math.min(r.u8(), r.remaining)) };
      }
      case EventType.XA_PREPARE: {
        r.need(13, 'XA_PREPARE');
        const onePhase = r.u8() !== 0;
        const formatId = r.u32();
        const gtridLen = r.u32();
        const bqualLen = r.u32();
        return { type: 'XA_PREPARE', header, onePhase, formatId, gtrid: r.bytes(gtridLen), bqual: r.bytes(bqualLen) };
      }
      case EventType.IGNORABLE:
        return { type: 'UNKNOWN_IGNORABLE', header, typeCode: type };
    }
    if (OTHER_TYPES.has(type)) return { type: 'OTHER', header, name: eventTypeName(type), body: r.rest() };
    if ((header.flags & LOG_EVENT_IGNORABLE_F) !== 0) return { type: 'UNKNOWN_IGNORABLE', header, typeCode: type };
    throw new BinlogUnsupportedEventError(
      `event at position ${r.eventPosition}: unknown event type ${type} (size ${header.eventSize}) not flagged ignorable; this server version writes events this decoder does not know — upgrade serverless-cdc or report the server version`,
      type,
      r.eventPosition,
    );
  }

  private decodeTableMapEvent(r: ByteReader, header: EventHeader): TableMapEvent {
    const tableIdSize = this.postHeaderLength(EventType.TABLE_MAP) === 6 ? 4 : 6;
    const body = r.buf.subarray(r.pos, r.end);
    if (body.length >= tableIdSize) {
      const tableId = tableIdSize === 6 ? body.readUIntLE(0, 6) : body.readUInt32LE(0);
      const cached = this.tables.get(tableId);
      // Transactions re-send the same TABLE_MAP: reuse the decoded map and its compiled row decoder.
      if (cached?.body.equals(body)) return { ...cached.decoder.table, header };
    }
    const ev = decodeTableMap(r, header, tableIdSize, this.fde?.mariadb ?? false);
    const { columnHints, includeColumns } = this.options;
    const hints = columnHints?.(ev.database, ev.table, ev.columnCount);
    const include = includeColumns
      ? (i: number) => includeColumns(ev.database, ev.table, i, ev.columns[i].name)
      : undefined;
    // Keep a private copy: the caller may reuse the event buffer.
    this.tables.set(ev.tableId, { body: Buffer.from(body), decoder: compileTableDecoder(ev, { hints, include }) });
    return ev;
  }

  private decodeRotate(r: ByteReader, header: EventHeader): BinlogEvent {
    r.need(8, 'ROTATE position');
    const position = r.u64n();
    let name = r.rest();
    // A ROTATE read without knowing the checksum setting (e.g. the first artificial ROTATE of a MariaDB
    // dump, or MariaDB files where a trailing checksum follows) can carry 4 extra bytes: cut at a NUL or
    // at the first byte that cannot belong to a file name.
    let cut = 0;
    while (cut < name.length && name[cut] >= 0x20 && name[cut] < 0x7f) cut++;
    if (cut < name.length) name = name.subarray(0, cut);
    return { type: 'ROTATE', header, position, nextFile: name.toString('utf8') };
  }

  private decodeHeartbeatV2(r: ByteReader, header: EventHeader): BinlogEvent {
    let logFile = '';
    let position = header.nextPosition;
    while (r.remaining > 0) {
      const field = r.u8();
      if (field === 0) break;
      const len = r.packed();
      const end = r.pos + len;
      if (field === 1) logFile = r.utf8(len);
      else if (field === 2) position = r.packed();
      r.pos = end;
    }
    return { type: 'HEARTBEAT', header, version: 2, logFile, position };
  }

  private decodeUserVar(r: ByteReader, header: EventHeader): BinlogEvent {
    r.need(5, 'USER_VAR');
    const name = r.utf8(r.u32());
    const isNull = r.u8() !== 0;
    if (isNull) return { type: 'USER_VAR', header, name, valueType: null, charset: null, value: null, unsigned: false };
    r.need(9, 'USER_VAR value header');
    const valueType = r.u8();
    const charset = r.u32();
    const value = r.bytes(r.u32());
    const unsigned = r.remaining > 0 ? (r.u8() & 1) !== 0 : false;
    return { type: 'USER_VAR', header, name, valueType, charset, value, unsigned };
  }

  private decodeTransactionPayload(r: ByteReader, header: EventHeader): BinlogEvent {
    let compression = 0;
    let payloadSize = 0;
    let uncompressedSize = 0;
    for (;;) {
      if (r.remaining <= 0) throw new BinlogDecodeError('TRANSACTION_PAYLOAD header has no end mark');
      const field = r.packed();
      if (field === 0) break;
      const len = r.packed();
      const end = r.pos + len;
      const value = r.packed();
      if (field === 1) payloadSize = value;
      else if (field === 2) compression = value;
      else if (field === 3) uncompressedSize = value;
      r.pos = end;
    }
    const data = r.rest();
    let payload: Buffer;
    if (compression === 0) {
      // The output buffer is sized from the header, so bound it first: zstd cannot expand a block more than
      // ~32768x (an RLE block), and no transaction payload exceeds the 1 GiB event limit.
      if (uncompressedSize <= 0 || uncompressedSize > MAX_PAYLOAD_BYTES || uncompressedSize > data.length * 32768) {
        throw new BinlogDecodeError(
          `TRANSACTION_PAYLOAD: implausible uncompressed size ${uncompressedSize} for ${data.length} compressed bytes`,
        );
      }
      let out: Uint8Array;
      try {
        out = zstdDecompress(data, new Uint8Array(uncompressedSize));
      } catch (err) {
        throw new BinlogDecodeError(
          `TRANSACTION_PAYLOAD: zstd decompression failed: ${(err as Error).message}`,
          undefined,
          {
            cause: err,
          },
        );
      }
      payload = Buffer.from(out.buffer, out.byteOffset, out.byteLength);
    } else if (compression === 255) payload = data;
    else throw new BinlogDecodeError(`TRANSACTION_PAYLOAD: unknown compression type ${compression}`);
    const events: BinlogEvent[] = [];
    let p = 0;
    while (p < payload.length) {
      if (p + HEADER_LENGTH > payload.length) {
        throw new BinlogDecodeError(`TRANSACTION_PAYLOAD: truncated inner event header at payload offset ${p}`);
      }
      const size = payload.readUInt32LE(p + 9);
      if (size < HEADER_LENGTH || p + size > payload.length) {
        throw new BinlogDecodeError(`TRANSACTION_PAYLOAD: inner event at payload offset ${p} has invalid size ${size}`);
      }
      events.push(this.decodeOne(payload.subarray(p, p + size), r.eventPosition, true));
      p += size;
    }
    return {
      type: 'TRANSACTION_PAYLOAD',
      header,
      compression: compression === 0 ? 'ZSTD' : 'NONE',
      payloadSize,
      uncompressedSize,
      events,
    };
  }
}

/**
 * Pre-GA trees (mysql-5.1-wl2325 "a_drop5p"/"a_drop6p" builds) gave TABLE_MAP, the row events, XID and the
 * LOAD DATA query events other type codes; MySQL maps them back with this table (old code → current code) when
 * the FORMAT_DESCRIPTION names such a server version (same version test as the server's).
 */
const OLD_TYPE_PERMUTATION: readonly number[] = [
  EventType.UNKNOWN,
  EventType.START_V3,
  EventType.QUERY,
  EventType.STOP,
  EventType.ROTATE,
  EventType.INTVAR,
  EventType.LOAD,
  EventType.SLAVE,
  EventType.CREATE_FILE,
  EventType.APPEND_BLOCK,
  EventType.EXEC_LOAD,
  EventType.DELETE_FILE,
  EventType.NEW_LOAD,
  EventType.RAND,
  EventType.USER_VAR,
  EventType.FORMAT_DESCRIPTION,
  EventType.TABLE_MAP,
  EventType.PRE_GA_WRITE_ROWS,
  EventType.PRE_GA_UPDATE_ROWS,
  EventType.PRE_GA_DELETE_ROWS,
  EventType.XID,
  EventType.BEGIN_LOAD_QUERY,
  EventType.EXECUTE_LOAD_QUERY,
];
const OLD_TYPE_PERMUTATION_VERSION = /^5\.(?:1\.[1-5]-a_drop5|1\.4-a_drop6|2\.[0-2]-a_drop6)/;

function versionAtLeast(version: string, min: [number, number, number]): boolean {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (!m) return true;
  for (let i = 0; i < 3; i++) {
    const v = Number(m[i + 1]);
    if (v !== min[i]) return v > min[i];
  }
  return true;
}
