/** GTID events and GTID sets: MySQL (incl. 8.4 tagged GTIDs) and MariaDB. */
import type { ByteReader } from './byte-reader.js';
import { BinlogDecodeError } from './errors.js';
import type { EventHeader, GtidEvent, MariadbGtidEvent, MariadbGtidListEvent, PreviousGtidsEvent } from './events.js';

const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

export function formatUuid(buf: Buffer, pos: number): string {
  let s = '';
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) s += '-';
    s += HEX[buf[pos + i]];
  }
  return s;
}

/** mysql::serialization variable-length unsigned integer (used by tagged GTIDs). */
export function readVarlenUint(r: ByteReader): number {
  const first = r.buf[r.pos];
  let ones = 0;
  while (ones < 8 && first & (1 << ones)) ones++;
  if (ones === 8) {
    r.need(9, 'varlen integer');
    r.skip(1);
    return r.u64n();
  }
  const n = ones + 1;
  r.need(n, 'varlen integer');
  const v = r.buf.readUIntLE(r.pos, Math.min(n, 6)) + (n > 6 ? r.buf.readUIntLE(r.pos + 6, n - 6) * 2 ** 48 : 0);
  r.skip(n);
  return Math.floor(v / 2 ** n);
}

export function decodeGtid(r: ByteReader, header: EventHeader, anonymous: boolean): GtidEvent {
  r.need(25, 'GTID post-header');
  const commitFlag = (r.u8() & 1) !== 0;
  const uuid = formatUuid(r.buf, r.pos);
  r.skip(16);
  const gno = Number(r.i64());
  const ev: GtidEvent = {
    type: anonymous ? 'ANONYMOUS_GTID' : 'GTID',
    header,
    commitFlag,
    uuid,
    gno,
    gtid: `${uuid}:${gno}`,
  };
  // 5.6 stops here (25-byte post-header); 5.7+ adds the logical clock (type 2 marker).
  if (r.remaining >= 17 && r.buf[r.pos] === 2) {
    r.skip(1);
    ev.lastCommitted = Number(r.i64());
    ev.sequenceNumber = Number(r.i64());
  }
  if (r.remaining >= 7) {
    const [immediate, hasOriginal] = readCommitTs(r);
    ev.immediateCommitTimestamp = immediate;
    ev.originalCommitTimestamp = hasOriginal ? readCommitTs(r)[0] : immediate;
  }
  if (r.remaining >= 1) ev.transactionLength = r.packed();
  if (r.remaining >= 4) {
    const v = r.u32();
    ev.immediateServerVersion = v & 0x7fffffff;
    ev.originalServerVersion = v & 0x80000000 && r.remaining >= 4 ? r.u32() : ev.immediateServerVersion;
  }
  return ev;
}

/** Field ids of GTID_TAGGED_LOG_EVENT (Gtid_event::define_fields, libs/mysql/binlog/event/control_events.h). */
const TaggedField = {
  FLAGS: 0,
  UUID: 1,
  GNO: 2,
  TAG: 3,
  LAST_COMMITTED: 4,
  SEQUENCE_NUMBER: 5,
  IMMEDIATE_COMMIT_TS: 6,
  ORIGINAL_COMMIT_TS: 7,
  TRANSACTION_LENGTH: 8,
  IMMEDIATE_SERVER_VERSION: 9,
  ORIGINAL_SERVER_VERSION: 10,
  COMMIT_GROUP_TICKET: 11,
} as const;

/** mysql::serialization signed varlen integer: zig-zag (sign in bit 0), then the unsigned encoding. */
export function readVarlenInt(r: ByteReader): number {
  const u = readVarlenUint(r);
  const magnitude = Math.floor(u / 2);
  return u % 2 === 1 ? -magnitude - 1 : magnitude;
}

/**
 * GTID_TAGGED_LOG_EVENT (type 42, MySQL 8.3+): the same facts as GTID_EVENT in mysql::serialization form
 * (libs/mysql/serialization/readme.md):
 *   serialization format version (varlen, 1) · message size (varlen; bytes from the version byte to the end of
 *   the last field) · last non-ignorable field id (varlen) · { field id (varlen) · field data }.
 * Field data: flags u8 and the 16 UUID bytes as varlen unsigned integers each; gno, last_committed and
 * sequence_number as signed varlen; the tag as varlen length + bytes; timestamps, transaction length and server
 * versions as unsigned varlen. Optional fields (original commit timestamp / server version, commit group ticket)
 * are left out when equal to their immediate counterparts / unused; unknown (newer) field ids are skipped by size.
 */
export function decodeTaggedGtid(r: ByteReader, header: EventHeader): GtidEvent {
  const start = r.pos;
  r.need(3, 'GTID_TAGGED message header');
  const version = readVarlenUint(r);
  const size = readVarlenUint(r);
  // Last non-ignorable field id + 1 (0 when all are ignorable): a newer server's field we must understand.
  const lastNonIgnorable = readVarlenUint(r);
  if (lastNonIgnorable > TaggedField.COMMIT_GROUP_TICKET + 1) {
    throw new BinlogDecodeError(
      `GTID_TAGGED event has non-ignorable field ${lastNonIgnorable - 1} this decoder does not know (serialization version ${version}); upgrade serverless-cdc`,
    );
  }
  const end = start + size;
  if (size < r.pos - start || end > r.end) {
    throw new BinlogDecodeError(
      `GTID_TAGGED message size ${size} does not fit the event (${r.end - start} bytes; serialization version ${version})`,
    );
  }
  const saved = r.end;
  r.end = end;
  let commitFlag = false;
  let uuid = '';
  let gno = 0;
  let tag = '';
  let immediate: number | undefined;
  let original: number | undefined;
  let immediateVersion: number | undefined;
  let originalVersion: number | undefined;
  const ev = { type: 'GTID', header } as GtidEvent;
  let lastId = -1;
  while (r.remaining > 0) {
    const id = readVarlenUint(r);
    if (id <= lastId) throw new BinlogDecodeError(`GTID_TAGGED field id ${id} after field id ${lastId}`);
    lastId = id;
    switch (id) {
      case TaggedField.FLAGS:
        commitFlag = (readVarlenUint(r) & 1) !== 0;
        break;
      case TaggedField.UUID: {
        const bytes = Buffer.alloc(16);
        for (let i = 0; i < 16; i++) {
          const b = readVarlenUint(r);
          if (b > 0xff) throw new BinlogDecodeError(`GTID_TAGGED uuid byte ${i} is ${b}, not a byte`);
          bytes[i] = b;
        }
        uuid = formatUuid(bytes, 0);
        break;
      }
      case TaggedField.GNO:
        gno = readVarlenInt(r);
        break;
      case TaggedField.TAG: {
        const len = readVarlenUint(r);
        r.need(len, 'GTID_TAGGED tag');
        tag = r.buf.toString('utf8', r.pos, r.pos + len).toLowerCase();
        r.skip(len);
        break;
      }
      case TaggedField.LAST_COMMITTED:
        ev.lastCommitted = readVarlenInt(r);
        break;
      case TaggedField.SEQUENCE_NUMBER:
        ev.sequenceNumber = readVarlenInt(r);
        break;
      case TaggedField.IMMEDIATE_COMMIT_TS:
        immediate = readVarlenUint(r);
        break;
      case TaggedField.ORIGINAL_COMMIT_TS:
        original = readVarlenUint(r);
        break;
      case TaggedField.TRANSACTION_LENGTH:
        ev.transactionLength = readVarlenUint(r);
        break;
      case TaggedField.IMMEDIATE_SERVER_VERSION:
        immediateVersion = readVarlenUint(r);
        break;
      case TaggedField.ORIGINAL_SERVER_VERSION:
        originalVersion = readVarlenUint(r);
        break;
      case TaggedField.COMMIT_GROUP_TICKET:
        readVarlenUint(r);
        break;
      default:
        // An ignorable field from a newer server: its encoding is unknown, so skip the rest of the message.
        r.pos = end;
    }
  }
  r.end = saved;
  r.pos = end;
  if (uuid === '') throw new BinlogDecodeError('GTID_TAGGED event without a source uuid');
  ev.commitFlag = commitFlag;
  ev.uuid = uuid;
  if (tag) ev.tag = tag;
  ev.gno = gno;
  ev.gtid = tag ? `${uuid}:${tag}:${gno}` : `${uuid}:${gno}`;
  if (immediate !== undefined) {
    ev.immediateCommitTimestamp = immediate;
    ev.originalCommitTimestamp = original ?? immediate;
  }
  if (immediateVersion !== undefined) {
    ev.immediateServerVersion = immediateVersion;
    ev.originalServerVersion = originalVersion ?? immediateVersion;
  }
  return ev;
}

/** 7-byte commit timestamp (µs); the top bit of the 7th byte says a second timestamp follows. */
function readCommitTs(r: ByteReader): [number, boolean] {
  const lo = r.u32();
  const hi = r.u24();
  const more = (hi & 0x800000) !== 0;
  return [(hi & 0x7fffff) * 4294967296 + lo, more];
}

interface Tsid {
  uuid: string;
  tag: string;
  intervals: Array<[number, number]>;
}

/** PREVIOUS_GTIDS body → MySQL GTID set text. Tagged format (8.3+) carries a tag per (uuid, tag) entry. */
export function decodePreviousGtids(r: ByteReader, header: EventHeader): PreviousGtidsEvent {
  r.need(8, 'PREVIOUS_GTIDS count');
  const format = r.buf[r.pos + 7];
  let count: number;
  if (format === 1) {
    count = r.buf.readUIntLE(r.pos + 1, 6);
    r.skip(8);
  } else count = r.u64n();
  const tsids: Tsid[] = [];
  for (let i = 0; i < count; i++) {
    r.need(16, 'PREVIOUS_GTIDS uuid');
    const uuid = formatUuid(r.buf, r.pos);
    r.skip(16);
    let tag = '';
    if (format === 1) tag = r.utf8(readVarlenUint(r));
    r.need(8, 'PREVIOUS_GTIDS interval count');
    const n = r.u64n();
    r.need(n * 16, 'PREVIOUS_GTIDS intervals');
    const intervals: Array<[number, number]> = [];
    for (let k = 0; k < n; k++) intervals.push([r.u64n(), r.u64n()]);
    tsids.push({ uuid, tag, intervals });
  }
  return { type: 'PREVIOUS_GTIDS', header, gtidSet: formatGtidSet(tsids) };
}

function formatIntervals(intervals: Array<[number, number]>): string {
  // Stored end is exclusive.
  return intervals.map(([s, e]) => (e - 1 === s ? `${s}` : `${s}-${e - 1}`)).join(':');
}

/** "uuid:1-5:7,uuid2:tag:1-3" — entries of one uuid are merged, untagged intervals first, tags in order. */
export function formatGtidSet(tsids: Tsid[]): string {
  const byUuid = new Map<string, Tsid[]>();
  for (const t of tsids) {
    const list = byUuid.get(t.uuid) ?? [];
    list.push(t);
    byUuid.set(t.uuid, list);
  }
  const parts: string[] = [];
  for (const [uuid, list] of byUuid) {
    list.sort((a, b) => (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0));
    let s = uuid;
    for (const t of list) {
      if (t.intervals.length === 0) continue;
      s += t.tag ? `:${t.tag}:${formatIntervals(t.intervals)}` : `:${formatIntervals(t.intervals)}`;
    }
    parts.push(s);
  }
  return parts.join(',');
}

const FL_STANDALONE = 1;
const FL_GROUP_COMMIT_ID = 2;
const FL_TRANSACTIONAL = 4;
const FL_DDL = 32;
const FL_PREPARED_XA = 64;
const FL_COMPLETED_XA = 128;

export function decodeMariadbGtid(r: ByteReader, header: EventHeader): MariadbGtidEvent {
  r.need(13, 'MariaDB GTID post-header');
  const sequence = r.u64n();
  const domainId = r.u32();
  const flags = r.u8();
  const ev: MariadbGtidEvent = {
    type: 'MARIADB_GTID',
    header,
    domainId,
    serverId: header.serverId,
    sequence,
    gtid: `${domainId}-${header.serverId}-${sequence}`,
    flags,
    standalone: (flags & FL_STANDALONE) !== 0,
    transactional: (flags & FL_TRANSACTIONAL) !== 0,
    ddl: (flags & FL_DDL) !== 0,
  };
  if (flags & FL_GROUP_COMMIT_ID) {
    r.need(8, 'MariaDB GTID commit id');
    ev.commitId = r.u64();
  }
  if (flags & (FL_PREPARED_XA | FL_COMPLETED_XA)) {
    r.need(6, 'MariaDB GTID XID');
    const formatId = r.u32();
    const gtridLen = r.u8();
    const bqualLen = r.u8();
    ev.xid = { formatId, gtrid: r.bytes(gtridLen), bqual: r.bytes(bqualLen) };
  }
  return ev;
}

export function decodeMariadbGtidList(r: ByteReader, header: EventHeader): MariadbGtidListEvent {
  r.need(4, 'MariaDB GTID_LIST count');
  const word = r.u32();
  const count = word & 0x0fffffff;
  if (r.remaining < count * 16) {
    throw new BinlogDecodeError(
      `event at position ${r.eventPosition}: GTID_LIST announces ${count} GTIDs but only ${r.remaining} bytes follow`,
      r.eventPosition,
    );
  }
  const gtids: MariadbGtidListEvent['gtids'] = [];
  for (let i = 0; i < count; i++) gtids.push({ domainId: r.u32(), serverId: r.u32(), sequence: r.u64n() });
  return {
    type: 'MARIADB_GTID_LIST',
    header,
    flags: word >>> 28,
    gtids,
    gtidList: gtids.map((g) => `${g.domainId}-${g.serverId}-${g.sequence}`).join(','),
  };
}
