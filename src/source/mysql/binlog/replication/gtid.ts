/**
 * MySQL GTID sets in the binary form COM_BINLOG_DUMP_GTID expects (the server's Gtid_set::encode,
 * sql/rpl_gtid_set.cc):
 *  - untagged sets (every server): n_sids u64, then per source: uuid (16 bytes), n_intervals u64, then
 *    [start u64, end u64 exclusive] each;
 *  - sets with any tagged GTID (`uuid:tag:1-5`, MySQL 8.3+): the tagged format. The first u64 becomes
 *    `1 << 56 | n_sids << 8 | 1` (encode_nsids_format: the format code in the top and bottom bytes), and every
 *    (uuid, tag) entry carries its tag between the uuid and the interval count as a mysql::serialization string
 *    (varlen length, i.e. `length << 1` for tags up to 32 characters, then the lower-case bytes; untagged: 0x00).
 *    Entries are ordered by uuid, then tag, as the server sorts its TSIDs. Servers before 8.3 reject this format,
 *    but they cannot have produced a tagged GTID either.
 */
import { parseMySqlGtidSet } from '../../gtid.js';

/** Encodes a MySQL GTID set for COM_BINLOG_DUMP_GTID. An empty set encodes as 8 zero bytes. */
export function encodeMySqlGtidSet(text: string): Buffer {
  const sources = parseMySqlGtidSet(text).sort((a, b) =>
    a.uuid !== b.uuid ? (a.uuid < b.uuid ? -1 : 1) : a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0,
  );
  const tagged = sources.some((s) => s.tag !== '');
  // Tags are at most 32 ASCII characters, so their varlen length is a single byte (length << 1).
  const size = 8 + sources.reduce((n, s) => n + 16 + (tagged ? 1 + s.tag.length : 0) + 8 + 16 * s.intervals.length, 0);
  const buf = Buffer.alloc(size);
  const count = BigInt(sources.length);
  let off = buf.writeBigUInt64LE(tagged ? (1n << 56n) | (count << 8n) | 1n : count, 0);
  for (const s of sources) {
    off += buf.write(s.uuid.replace(/-/g, ''), off, 16, 'hex');
    if (tagged) {
      buf[off++] = s.tag.length << 1;
      off += buf.write(s.tag, off, 'latin1');
    }
    off = buf.writeBigUInt64LE(BigInt(s.intervals.length), off);
    for (const i of s.intervals) {
      off = buf.writeBigUInt64LE(i.start, off);
      off = buf.writeBigUInt64LE(i.end + 1n, off);
    }
  }
  return buf;
}
