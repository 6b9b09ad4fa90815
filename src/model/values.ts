/**
 * The neutral representation of decoded MySQL column values, shared by the binlog decoder and the snapshot
 * reader. It keeps every value exact and server-faithful (zero dates, negative TIME, unsigned 64-bit);
 * mapping to Debezium's types belongs to src/events/.
 *
 * | column type                         | CellValue                                                       |
 * |-------------------------------------|-----------------------------------------------------------------|
 * | TINYINT..INT, MEDIUMINT, YEAR       | number (signedness already applied)                             |
 * | BIGINT                              | number when |v| <= 2^53-1, else bigint (exact)                  |
 * | FLOAT, DOUBLE                       | number                                                          |
 * | DECIMAL                             | string, exact, with the column's scale ("-12.50")               |
 * | BIT(n)                              | Buffer, big-endian, ceil(n/8) bytes                             |
 * | DATE                                | MysqlDate                                                       |
 * | DATETIME                            | MysqlDateTime                                                   |
 * | TIMESTAMP                           | MysqlTimestamp (UTC epoch seconds + micros; 0/0 = zero value)   |
 * | TIME                                | MysqlTime (signed microseconds)                                 |
 * | CHAR/VARCHAR/TEXT (non-binary)      | string, decoded from the column charset                         |
 * | BINARY/VARBINARY/BLOB, binary chars | Buffer                                                          |
 * | ENUM                                | number: 1-based index (0 = the '' error value)                  |
 * | SET                                 | bigint bitmask (bit i = i-th member)                            |
 * | JSON                                | MysqlJson (JSON text; MariaDB stores text, MySQL binary → text) |
 * | GEOMETRY                            | Buffer: 4-byte little-endian SRID + WKB, as MySQL stores it     |
 * | VECTOR (MySQL 9)                    | Float32Array                                                    |
 * | MariaDB UUID / INET4 / INET6        | Buffer (fixed-size binary; the schema layer knows the type)     |
 * | column absent from a partial image  | undefined                                                       |
 * | SQL NULL                            | null                                                            |
 */

export class MysqlDate {
  constructor(
    readonly year: number,
    readonly month: number,
    readonly day: number,
  ) {}
  /** True for '0000-00-00' and any date with a zero month or day, which no calendar can represent. */
  get isZero(): boolean {
    return this.month === 0 || this.day === 0;
  }
  /** Days since 1970-01-01 (proleptic Gregorian), or null for zero dates. */
  toEpochDays(): number | null {
    if (this.isZero) return null;
    return Math.floor(utcMillis(this.year, this.month, this.day, 0, 0, 0) / 86_400_000);
  }
  toString(): string {
    return `${pad(this.year, 4)}-${pad(this.month, 2)}-${pad(this.day, 2)}`;
  }
}

export class MysqlDateTime {
  constructor(
    readonly year: number,
    readonly month: number,
    readonly day: number,
    readonly hour: number,
    readonly minute: number,
    readonly second: number,
    readonly micros: number,
    readonly fsp: number,
  ) {}
  get isZero(): boolean {
    return this.month === 0 || this.day === 0;
  }
  /** Microseconds since the epoch, reading the wall-clock value as UTC (Debezium's convention), or null. */
  toEpochMicros(): number | null {
    if (this.isZero) return null;
    return utcMillis(this.year, this.month, this.day, this.hour, this.minute, this.second) * 1000 + this.micros;
  }
  toString(): string {
    const base = `${pad(this.year, 4)}-${pad(this.month, 2)}-${pad(this.day, 2)} ${pad(this.hour, 2)}:${pad(this.minute, 2)}:${pad(this.second, 2)}`;
    return this.fsp > 0 ? `${base}.${fraction(this.micros, this.fsp)}` : base;
  }
}

export class MysqlTimestamp {
  constructor(
    /** Seconds since the epoch, UTC. */
    readonly seconds: number,
    readonly micros: number,
    readonly fsp: number,
  ) {}
  get isZero(): boolean {
    return this.seconds === 0 && this.micros === 0;
  }
  toEpochMicros(): number {
    return this.seconds * 1_000_000 + this.micros;
  }
  /** ISO-8601 in UTC with the column's fractional digits, e.g. 2024-01-02T03:04:05.120Z. */
  toIsoString(): string {
    const d = new Date(this.seconds * 1000);
    const base = d.toISOString().slice(0, 19);
    return this.fsp > 0 ? `${base}.${fraction(this.micros, this.fsp)}Z` : `${base}Z`;
  }
  toString(): string {
    return this.toIsoString();
  }
}

export class MysqlTime {
  constructor(
    /** Signed microseconds, e.g. -838:59:59 = -3020399000000. */
    readonly micros: number,
    readonly fsp: number,
  ) {}
  toString(): string {
    const neg = this.micros < 0;
    let us = Math.abs(this.micros);
    const frac = us % 1_000_000;
    us = (us - frac) / 1_000_000;
    const s = us % 60;
    const m = ((us - s) / 60) % 60;
    const h = Math.floor(us / 3600);
    const base = `${neg ? '-' : ''}${pad(h, 2)}:${pad(m, 2)}:${pad(s, 2)}`;
    return this.fsp > 0 ? `${base}.${fraction(frac, this.fsp)}` : base;
  }
}

/** JSON column value as JSON text: MySQL binary JSON rendered compactly (see binlog/json-binary.ts); MariaDB's text as stored. */
export class MysqlJson {
  // The UTF-8 bytes `text` was decoded from, when the decoder had them: a converter escapes those for its JSON
  // text instead of the string (see events/json-escape.ts jsonUtf8). Private, so MysqlJson values still compare by
  // `text` alone (deep equality looks at own properties). The buffer is the event's, as Buffer cells already are.
  #utf8: Buffer | null = null;
  #start = 0;
  #end = 0;
  constructor(readonly text: string) {}
  /** A document decoded from buf[start, end) as UTF-8: `text` must be exactly that decode. */
  static fromUtf8(text: string, buf: Buffer, start: number, end: number): MysqlJson {
    const j = new MysqlJson(text);
    j.#utf8 = buf;
    j.#start = start;
    j.#end = end;
    return j;
  }
  /** The UTF-8 source bytes' buffer (see fromUtf8), or null; they are at [utf8Start, utf8End). */
  get utf8(): Buffer | null {
    return this.#utf8;
  }
  get utf8Start(): number {
    return this.#start;
  }
  get utf8End(): number {
    return this.#end;
  }
  toString(): string {
    return this.text;
  }
}

/** A MySQL 8 partial JSON update (binlog_row_value_options=PARTIAL_JSON): operations on the before-image. */
export interface JsonDiff {
  op: 'replace' | 'insert' | 'remove';
  path: string;
  value?: MysqlJson;
}
export class MysqlJsonPartial {
  constructor(readonly diffs: JsonDiff[]) {}
}

export type CellValue =
  | null
  | undefined
  | number
  | bigint
  | string
  | Buffer
  | MysqlDate
  | MysqlDateTime
  | MysqlTimestamp
  | MysqlTime
  | MysqlJson
  | MysqlJsonPartial
  | Float32Array;

export type Row = CellValue[];

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}
function fraction(micros: number, fsp: number): string {
  return String(micros).padStart(6, '0').slice(0, fsp);
}
/** Day number (days since 1970-01-01) of the last civil date utcMillis computed: rows often share a date. */
let lastDayKey = -1;
let lastDayNumber = 0;

/**
 * Date.UTC(y, mo - 1, d, h, mi, s) as plain arithmetic for the common case (years 100..9999, months 1..12; days,
 * hours, minutes and seconds roll over linearly as in Date.UTC): the proleptic Gregorian days-from-civil count.
 * Date.UTC maps years 0..99 to 1900..1999; MySQL allows years 0..99 as such, so those take the Date path.
 */
export function utcMillis(y: number, mo: number, d: number, h: number, mi: number, s: number): number {
  if (y >= 100 && y <= 9999 && mo >= 1 && mo <= 12 && d >= 0 && d <= 31) {
    const key = (y * 16 + mo) * 32 + d;
    if (key !== lastDayKey) {
      const yy = mo <= 2 ? y - 1 : y;
      const era = Math.floor(yy / 400);
      const yoe = yy - era * 400;
      const doy = Math.floor((153 * (mo > 2 ? mo - 3 : mo + 9) + 2) / 5) + d - 1;
      const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
      lastDayNumber = era * 146_097 + doe - 719_468;
      lastDayKey = key;
    }
    return ((lastDayNumber * 24 + h) * 60 + mi) * 60_000 + s * 1000;
  }
  const t = Date.UTC(y, mo - 1, d, h, mi, s);
  if (y >= 100) return t;
  const dt = new Date(t);
  dt.setUTCFullYear(y);
  return dt.getTime();
}
