/**
 * GTID sets in both flavours, as value objects that parse, add a transaction and print in the server's own form.
 *  - MySQL: `3E11FA47-71CA-11E1-9E33-C80AA9429562:1-5:7,...` (8.4+ tags: `uuid:tag:1-3`); a transaction is `uuid[:tag]:n`.
 *  - MariaDB: `0-1-42,1-2-7`: per replication domain, the last `domain-server-seq`.
 */
export interface GtidSet {
  readonly flavor: 'mysql' | 'mariadb';
  /** Record a committed transaction's GTID (MySQL `uuid[:tag]:n`, MariaDB `d-s-n`). */
  add(gtid: string): void;
  toString(): string;
  clone(): GtidSet;
}

export class MysqlGtidSet implements GtidSet {
  readonly flavor = 'mysql' as const;
  /** `uuid` or `uuid:tag` (lower-case) → sorted, non-overlapping inclusive intervals. */
  private readonly sets = new Map<string, Array<[number, number]>>();

  /** Parses with parseMySqlGtidSet (the one MySQL GTID-set parser); throws SyntaxError on a malformed set. */
  static parse(text: string): MysqlGtidSet {
    const set = new MysqlGtidSet();
    for (const s of parseMySqlGtidSet(text)) {
      const source = s.tag ? `${s.uuid}:${s.tag}` : s.uuid;
      for (const iv of s.intervals) set.addInterval(source, Number(iv.start), Number(iv.end));
    }
    return set;
  }

  add(gtid: string): void {
    const i = gtid.lastIndexOf(':');
    const n = Number(gtid.slice(i + 1));
    this.addInterval(gtid.slice(0, i).toLowerCase(), n, n);
  }

  addInterval(source: string, from: number, to: number): void {
    const list = this.sets.get(source) ?? [];
    list.push([from, to]);
    list.sort((x, y) => x[0] - y[0]);
    const merged: Array<[number, number]> = [];
    for (const iv of list) {
      const last = merged[merged.length - 1];
      if (last && iv[0] <= last[1] + 1) last[1] = Math.max(last[1], iv[1]);
      else merged.push([iv[0], iv[1]]);
    }
    this.sets.set(source, merged);
  }

  contains(gtid: string): boolean {
    const i = gtid.lastIndexOf(':');
    const n = Number(gtid.slice(i + 1));
    return (this.sets.get(gtid.slice(0, i).toLowerCase()) ?? []).some(([a, b]) => n >= a && n <= b);
  }

  /** The transactions of this set that are not in `other`, printed (empty string when none). */
  minus(other: MysqlGtidSet): string {
    const out = new MysqlGtidSet();
    for (const [source, ivs] of this.sets) {
      const theirs = other.sets.get(source) ?? [];
      for (const [a, b] of ivs) {
        let from = a;
        for (const [x, y] of theirs) {
          if (y < from || x > b) continue;
          if (x > from) out.addInterval(source, from, x - 1);
          from = Math.max(from, y + 1);
        }
        if (from <= b) out.addInterval(source, from, b);
      }
    }
    return out.toString();
  }

  toString(): string {
    const byUuid = new Map<string, string[]>();
    for (const key of [...this.sets.keys()].sort()) {
      const [uuid, tag] = key.split(':');
      const ivs = this.sets.get(key)!.map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`));
      const parts = byUuid.get(uuid) ?? [];
      parts.push(tag ? `${tag}:${ivs.join(':')}` : ivs.join(':'));
      byUuid.set(uuid, parts);
    }
    return [...byUuid].map(([uuid, parts]) => `${uuid}:${parts.join(':')}`).join(',');
  }

  clone(): MysqlGtidSet {
    return MysqlGtidSet.parse(this.toString());
  }
}

export class MariaDbGtidSet implements GtidSet {
  readonly flavor = 'mariadb' as const;
  /** domain id → `domain-server-seq` of the last transaction in that domain. */
  private readonly domains = new Map<number, { server: number; seq: bigint }>();

  static parse(text: string): MariaDbGtidSet {
    const set = new MariaDbGtidSet();
    for (const part of text.replace(/\s+/g, '').split(',')) if (part) set.add(part);
    return set;
  }

  add(gtid: string): void {
    const m = /^(\d+)-(\d+)-(\d+)$/.exec(gtid);
    if (!m) throw new Error(`not a MariaDB GTID: '${gtid}' (expected domain-server-sequence, e.g. 0-1-42)`);
    this.domains.set(Number(m[1]), { server: Number(m[2]), seq: BigInt(m[3]) });
  }

  toString(): string {
    return [...this.domains.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([d, { server, seq }]) => `${d}-${server}-${seq}`)
      .join(',');
  }

  /** Domains where `other` is further on than this position, printed as `other` has them ('' when none). */
  behind(other: MariaDbGtidSet): string {
    return [...other.domains]
      .filter(([d, { seq }]) => (this.domains.get(d)?.seq ?? -1n) < seq)
      .map(([d, { server, seq }]) => `${d}-${server}-${seq}`)
      .join(',');
  }

  clone(): MariaDbGtidSet {
    return MariaDbGtidSet.parse(this.toString());
  }
}

export function parseGtidSet(text: string): GtidSet {
  return /^\s*\d+-\d+-\d+/.test(text) ? MariaDbGtidSet.parse(text) : MysqlGtidSet.parse(text);
}

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

/** MariaDB GTID list `domain-server-seq[,...]`, as `@@gtid_binlog_pos` prints it (empty allowed). */
export function isMariaDbGtidList(text: string): boolean {
  const compact = text.replace(/\s+/g, '');
  return compact === '' || /^\d+-\d+-\d+(,\d+-\d+-\d+)*$/.test(compact);
}
