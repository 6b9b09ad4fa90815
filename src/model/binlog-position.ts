/**
 * A binlog position as a value: file name + byte position, and the server generation that orders positions across
 * servers (SourceOffset.server_generation). Compared and serialised here only. File names sort by their numeric
 * suffix as a number: `mysql-bin.1000000` follows `mysql-bin.999999` (a string comparison puts it first).
 */
import { CdcError } from '../common/errors.js';

/** Anything carrying binlog coordinates: offsets, schema history positions, snapshot watermarks. */
export interface PositionLike {
  readonly file: string;
  readonly pos: number;
  readonly server_generation?: number;
}

export class InvalidBinlogPositionError extends CdcError {
  constructor(message: string) {
    super('OFFSET_STORE', message);
  }
}

const SUFFIX = /^(.*)\.(\d+)$/;

/** What `BinlogPosition.of` accepts, checked without building one (anything else takes the validating path). */
function isPlain(p: PositionLike): boolean {
  const g = p.server_generation ?? 0;
  return (
    typeof p.file === 'string' &&
    p.file.length > 0 &&
    Number.isSafeInteger(p.pos) &&
    p.pos >= 0 &&
    Number.isSafeInteger(g) &&
    g >= 0
  );
}

export class BinlogPosition implements PositionLike {
  /** The name before the last `.<digits>` (the whole name when it has no numeric suffix). */
  private readonly base: string;
  /** The numeric suffix, or -1 when the name has none. */
  private readonly index: number;

  private constructor(
    readonly file: string,
    readonly pos: number,
    readonly generation: number,
  ) {
    const m = SUFFIX.exec(file);
    this.base = m ? m[1] : file;
    this.index = m ? Number(m[2]) : -1;
  }

  /** A validated position; throws InvalidBinlogPositionError naming the bad part. */
  static of(file: string, pos: number, generation = 0): BinlogPosition {
    if (typeof file !== 'string' || file.length === 0) {
      throw new InvalidBinlogPositionError(`binlog file name must be a non-empty string, got ${JSON.stringify(file)}`);
    }
    if (!Number.isSafeInteger(pos) || pos < 0) {
      throw new InvalidBinlogPositionError(`binlog position of ${file} must be a non-negative integer, got ${pos}`);
    }
    if (!Number.isSafeInteger(generation) || generation < 0) {
      throw new InvalidBinlogPositionError(`server generation must be a non-negative integer, got ${generation}`);
    }
    return new BinlogPosition(file, pos, generation);
  }

  static from(p: PositionLike): BinlogPosition {
    return p instanceof BinlogPosition ? p : BinlogPosition.of(p.file, p.pos, p.server_generation ?? 0);
  }

  /** Replication order of two positions: negative, 0 or positive. */
  static compare(a: PositionLike, b: PositionLike): number {
    // The common case, positions in one file of one server (the stream loop compares every event's end with the
    // last): the order is the byte order, with no file name to parse and no position objects to allocate.
    if (a.file === b.file && isPlain(a) && isPlain(b)) {
      const ga = a.server_generation ?? 0;
      if (ga === (b.server_generation ?? 0)) return a.pos - b.pos;
    }
    return BinlogPosition.from(a).compareTo(BinlogPosition.from(b));
  }

  get server_generation(): number {
    return this.generation;
  }

  /** Server generation first (another server's files come later, whatever their names), then file, then pos. */
  compareTo(other: BinlogPosition): number {
    if (this.generation !== other.generation) return this.generation - other.generation;
    if (this.file !== other.file) {
      if (this.base !== other.base) return this.base < other.base ? -1 : 1;
      if (this.index !== other.index) return this.index - other.index;
      return this.file < other.file ? -1 : 1;
    }
    return this.pos - other.pos;
  }

  isAtOrBefore(other: PositionLike): boolean {
    return this.compareTo(BinlogPosition.from(other)) <= 0;
  }

  /**
   * The file name as text that sorts like compareTo within one generation: names whose suffix is below 1000000
   * stay as the server writes them (six digits, so keys stored before stay comparable); larger suffixes become
   * `~<length><digits>`, which sorts after every six-digit suffix ('~' is above the digits) and by value among
   * themselves.
   */
  sortableFile(): string {
    const digits = String(this.index);
    if (this.index < 0 || digits.length <= 6) return this.file;
    return `${this.base}.~${String(digits.length).padStart(2, '0')}${digits}`;
  }

  /**
   * The generation as a prefix of sortable position text: empty for generation 0 (keys stored before generations
   * existed stay comparable), else `~<6 digits>|`, which sorts after any text starting with a binlog file name or a
   * digit ('~' is above both) and by generation among itself.
   */
  sortableGeneration(): string {
    return BinlogPosition.sortableGeneration(this.generation);
  }

  /** sortableGeneration of a generation on its own (validated like `of`), for position text built elsewhere. */
  static sortableGeneration(generation: number): string {
    if (!Number.isSafeInteger(generation) || generation < 0) {
      throw new InvalidBinlogPositionError(`server generation must be a non-negative integer, got ${generation}`);
    }
    return generation ? `~${String(generation).padStart(6, '0')}|` : '';
  }

  equals(other: PositionLike): boolean {
    return this.compareTo(BinlogPosition.from(other)) === 0;
  }

  toString(): string {
    return `${this.generation ? `server generation ${this.generation} ` : ''}${this.file}:${this.pos}`;
  }
}
