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

  static parse(text: string): MysqlGtidSet {
    const set = new MysqlGtidSet();
    for (const part of text.replace(/\s+/g, '').split(',')) {
      if (!part) continue;
      const pieces = part.split(':');
      const uuid = pieces[0].toLowerCase();
      let tag = '';
      for (const piece of pieces.slice(1)) {
        if (/^\d/.test(piece)) {
          const [a, b] = piece.split('-');
          set.addInterval(tag ? `${uuid}:${tag}` : uuid, Number(a), Number(b ?? a));
        } else tag = piece.toLowerCase();
      }
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
