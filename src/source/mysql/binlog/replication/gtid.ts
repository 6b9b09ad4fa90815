/**
 * MySQL GTID sets in the binary form COM_BINLOG_DUMP_GTID expects (the server's Gtid_set::encode):
 *   n_sids u64, then per source: uuid (16 bytes), n_intervals u64, then [start u64, end u64 exclusive] each.
 * MySQL 8.4 tagged GTIDs (`uuid:tag:1-5`) need the newer, versioned encoding and are rejected for now.
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
  intervals: GtidInterval[];
}

const UUID_RE = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/** Parses `uuid:1-5:7,uuid2:3-9` (whitespace and newlines allowed, as in `@@gtid_executed`). */
export function parseMySqlGtidSet(text: string): GtidSource[] {
  const out: GtidSource[] = [];
  const compact = text.replace(/\s+/g, '');
  if (compact === '') return out;
  for (const part of compact.split(',')) {
    const [uuid, ...ranges] = part.split(':');
    if (!UUID_RE.test(uuid)) throw new SyntaxError(`invalid GTID set '${text}': '${uuid}' is not a server UUID`);
    if (ranges.length === 0) throw new SyntaxError(`invalid GTID set '${text}': '${uuid}' has no intervals`);
    const intervals: GtidInterval[] = [];
    for (const range of ranges) {
      const m = /^(\d+)(?:-(\d+))?$/.exec(range);
      if (!m) {
        throw new SyntaxError(
          /^[a-z_]/i.test(range)
            ? `GTID set '${text}' uses the tag '${range}': tagged GTIDs (MySQL 8.4) are not supported yet`
            : `invalid GTID set '${text}': bad interval '${range}'`,
        );
      }
      const start = BigInt(m[1]);
      const end = m[2] === undefined ? start : BigInt(m[2]);
      if (start < 1n || end < start) throw new SyntaxError(`invalid GTID set '${text}': bad interval '${range}'`);
      intervals.push({ start, end });
    }
    out.push({ uuid: uuid.toLowerCase(), intervals });
  }
  return out;
}

/** Encodes a MySQL GTID set for COM_BINLOG_DUMP_GTID. An empty set encodes as 8 zero bytes. */
export function encodeMySqlGtidSet(text: string): Buffer {
  const sources = parseMySqlGtidSet(text);
  const size = 8 + sources.reduce((n, s) => n + 16 + 8 + 16 * s.intervals.length, 0);
  const buf = Buffer.alloc(size);
  let off = buf.writeBigUInt64LE(BigInt(sources.length), 0);
  for (const s of sources) {
    off += buf.write(s.uuid.replace(/-/g, ''), off, 16, 'hex');
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
