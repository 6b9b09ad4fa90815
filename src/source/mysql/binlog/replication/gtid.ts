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

export interface GtidInterval {
  /** First transaction number, inclusive. */
  start: bigint;
  /** Last transaction number, inclusive. */
  end: bigint;
}

export interface GtidSource {
  /** Source server UUID, lower case with dashes. */
  uuid: string;
  /** GTID tag (MySQL 8.3+), lower case; '' for untagged GTIDs. */
  tag: string;
  intervals: GtidInterval[];
}

const UUID_RE = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
/** MySQL tag syntax (mysql::gtid::Tag): a letter or '_' then up to 31 letters, digits or '_'. */
const TAG_RE = /^[a-z_][a-z0-9_]{0,31}$/i;

/**
 * Parses `uuid:1-5:7,uuid2:3-9` and MySQL 8.4 tagged sets `uuid:1-5:tag:1-3:other:7` (whitespace and newlines
 * allowed, as in `@@gtid_executed`). One entry per (uuid, tag), in the order first seen; intervals of an entry
 * named twice are merged.
 */
export function parseMySqlGtidSet(text: string): GtidSource[] {
  const out: GtidSource[] = [];
  const byKey = new Map<string, GtidSource>();
  const compact = text.replace(/\s+/g, '');
  if (compact === '') return out;
  for (const part of compact.split(',')) {
    const [uuidText, ...pieces] = part.split(':');
    if (!UUID_RE.test(uuidText)) {
      throw new SyntaxError(`invalid GTID set '${text}': '${uuidText}' is not a server UUID`);
    }
    const uuid = formatUuid(uuidText);
    if (pieces.length === 0) throw new SyntaxError(`invalid GTID set '${text}': '${uuidText}' has no intervals`);
    let source: GtidSource | undefined;
    const entry = (tag: string): GtidSource => {
      const key = `${uuid}:${tag}`;
      let s = byKey.get(key);
      if (!s) {
        s = { uuid, tag, intervals: [] };
        byKey.set(key, s);
        out.push(s);
      }
      return s;
    };
    let pendingTag: string | null = null;
    for (const piece of pieces) {
      const m = /^(\d+)(?:-(\d+))?$/.exec(piece);
      if (!m) {
        if (!TAG_RE.test(piece)) throw new SyntaxError(`invalid GTID set '${text}': bad interval or tag '${piece}'`);
        if (pendingTag !== null)
          throw new SyntaxError(`invalid GTID set '${text}': tag '${pendingTag}' has no intervals`);
        pendingTag = piece.toLowerCase();
        continue;
      }
      if (pendingTag !== null) {
        source = entry(pendingTag);
        pendingTag = null;
      }
      source ??= entry('');
      const start = BigInt(m[1]);
      const end = m[2] === undefined ? start : BigInt(m[2]);
      if (start < 1n || end < start) throw new SyntaxError(`invalid GTID set '${text}': bad interval '${piece}'`);
      source.intervals.push({ start, end });
    }
    if (pendingTag !== null) throw new SyntaxError(`invalid GTID set '${text}': tag '${pendingTag}' has no intervals`);
  }
  for (const s of out) s.intervals = mergeIntervals(s.intervals);
  return out;
}

function formatUuid(text: string): string {
  const hex = text.replace(/-/g, '').toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function mergeIntervals(list: GtidInterval[]): GtidInterval[] {
  const sorted = [...list].sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  const merged: GtidInterval[] = [];
  for (const iv of sorted) {
    const last = merged[merged.length - 1];
    if (last && iv.start <= last.end + 1n) {
      if (iv.end > last.end) last.end = iv.end;
    } else merged.push({ ...iv });
  }
  return merged;
}

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

/** MariaDB GTID list `domain-server-seq[,...]`, as `@@gtid_binlog_pos` prints it (empty allowed). */
export function isMariaDbGtidList(text: string): boolean {
  const compact = text.replace(/\s+/g, '');
  return compact === '' || /^\d+-\d+-\d+(,\d+-\d+-\d+)*$/.test(compact);
}
