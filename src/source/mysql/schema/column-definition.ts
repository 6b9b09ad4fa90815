/**
 * Turns a parsed column definition into a ColumnDef exactly as information_schema.COLUMNS presents it, so a table
 * created by DDL in the binlog models the same as one read from the server by schema-loader.ts.
 *
 * Conventions shared with the loader (documented on ColumnDef):
 * - `length`: for integer/decimal/float/bit types the first number in COLUMN_TYPE's parentheses (display width on
 *   MariaDB and MySQL 5.7, absent → null on MySQL 8.0.19+ for plain integers); CHARACTER_MAXIMUM_LENGTH for
 *   character/binary/ENUM/SET types; fsp for TIME/DATETIME/TIMESTAMP (0 when none); null otherwise.
 * - `hasDefault`: an INSERT that omits the column stores `defaultValue`. Nullable columns without a DEFAULT clause
 *   have an implicit DEFAULT NULL (hasDefault true, defaultValue null); NOT NULL columns without one, AUTO_INCREMENT
 *   and generated columns have none (hasDefault false).
 * - `defaultValue`: unquoted literal text normalised to the column type ('1.50' for decimal(5,2), '2020-01-01
 *   00:00:00' for datetime, b'101' for bit), 'CURRENT_TIMESTAMP' / 'CURRENT_TIMESTAMP(6)' for the current-time
 *   functions, other expressions as their SQL text without outer parentheses.
 */

import { GEOMETRY_TYPES } from '../../../model/column-types.js';
import type { ColumnDef } from '../../../model/table-def.js';
import {
  charsetMaxLen,
  charsetOfCollation,
  defaultCollation,
  normalizeCharset,
  normalizeCollation,
  type ServerFlavor,
} from './charsets.js';
import type { ColumnSpec, DefaultSpec, TypeSpec } from './ddl-ast.js';

export interface ColumnContext {
  flavor: ServerFlavor;
  /** Integer display widths in COLUMN_TYPE (MariaDB, MySQL 5.7): 'int(11)'. MySQL 8.0.19+ prints 'int'. */
  intDisplayWidth: boolean;
  /** The table's default charset and collation (inherited by character columns). */
  tableCharset: string;
  tableCollation: string;
}

const INT_TYPES: Record<string, { type: string; signed: number; unsigned: number }> = {
  TINYINT: { type: 'tinyint', signed: 4, unsigned: 3 },
  INT1: { type: 'tinyint', signed: 4, unsigned: 3 },
  SMALLINT: { type: 'smallint', signed: 6, unsigned: 5 },
  INT2: { type: 'smallint', signed: 6, unsigned: 5 },
  MEDIUMINT: { type: 'mediumint', signed: 9, unsigned: 8 },
  MIDDLEINT: { type: 'mediumint', signed: 9, unsigned: 8 },
  INT3: { type: 'mediumint', signed: 9, unsigned: 8 },
  INT: { type: 'int', signed: 11, unsigned: 10 },
  INTEGER: { type: 'int', signed: 11, unsigned: 10 },
  INT4: { type: 'int', signed: 11, unsigned: 10 },
  BIGINT: { type: 'bigint', signed: 20, unsigned: 20 },
  INT8: { type: 'bigint', signed: 20, unsigned: 20 },
};

const TEXT_SIZES: Array<[string, string, number]> = [
  ['tinytext', 'tinyblob', 255],
  ['text', 'blob', 65535],
  ['mediumtext', 'mediumblob', 16777215],
  ['longtext', 'longblob', 4294967295],
];

interface ResolvedType {
  dataType: string;
  columnType: string;
  length: number | null;
  scale: number | null;
  unsigned: boolean;
  /** Character types get charset/collation; binary ones get none. */
  character: boolean;
  enumValues: string[] | null;
  /** SERIAL / BOOL side effects. */
  serial?: boolean;
  forcedCharset?: string;
  forcedCollation?: string;
  /** ColumnDef.declaredType. */
  declaredType?: 'BOOL' | 'BOOLEAN' | 'JSON';
  /** ColumnDef.implicitWidth. */
  implicitWidth?: true;
}

/** Resolves the column type (aliases, defaults, binary charset) the way the server stores it. */
export function resolveType(spec: TypeSpec, ctx: ColumnContext): ResolvedType {
  const name = spec.name;
  const num = (k: number): number | null => (spec.args[k] === undefined ? null : Number(spec.args[k]));
  const sign = (base: string) => `${base}${spec.unsigned ? ' unsigned' : ''}${spec.zerofill ? ' zerofill' : ''}`;
  const plain = (dataType: string, columnType = dataType): ResolvedType => ({
    dataType,
    columnType,
    length: null,
    scale: null,
    unsigned: false,
    character: false,
    enumValues: null,
  });
  const charset = spec.national ? 'utf8mb3' : spec.charset ? normalizeCharset(spec.charset) : null;
  const isBinaryCharset = charset === 'binary';

  if (name === 'SERIAL') {
    const width = ctx.intDisplayWidth ? 20 : null;
    return {
      ...plain('bigint', `bigint${width ? `(${width})` : ''} unsigned`),
      length: width,
      unsigned: true,
      serial: true,
    };
  }
  if (name === 'BOOL' || name === 'BOOLEAN') {
    return { ...plain('tinyint', 'tinyint(1)'), length: 1, declaredType: name };
  }
  const intInfo = INT_TYPES[name];
  if (intInfo) {
    const explicit = num(0);
    let width: number | null = explicit ?? (spec.unsigned ? intInfo.unsigned : intInfo.signed);
    // MySQL 8.0.19+ drops display widths except with ZEROFILL and for tinyint(1) (boolean convention).
    if (!ctx.intDisplayWidth && !spec.zerofill && !(intInfo.type === 'tinyint' && explicit === 1)) width = null;
    return {
      ...plain(intInfo.type, sign(`${intInfo.type}${width !== null ? `(${width})` : ''}`)),
      length: width,
      unsigned: spec.unsigned,
      ...(explicit === null && width !== null ? { implicitWidth: true as const } : {}),
    };
  }
  if (name === 'DECIMAL' || name === 'DEC' || name === 'NUMERIC' || name === 'FIXED') {
    const m = num(0) ?? 10;
    const d = num(1) ?? 0;
    return { ...plain('decimal', sign(`decimal(${m},${d})`)), length: m, scale: d, unsigned: spec.unsigned };
  }
  if (name === 'FLOAT' || name === 'FLOAT4' || name === 'FLOAT8' || name === 'DOUBLE' || name === 'REAL') {
    let dt = name === 'FLOAT' || name === 'FLOAT4' ? 'float' : 'double';
    const m = num(0);
    const d = num(1);
    if (dt === 'float' && m !== null && d === null) {
      // FLOAT(p): precision in bits picks FLOAT or DOUBLE, and the p is not kept.
      dt = m > 24 ? 'double' : 'float';
      return { ...plain(dt, sign(dt)), unsigned: spec.unsigned };
    }
    const args = m !== null && d !== null ? `(${m},${d})` : '';
    return {
      ...plain(dt, sign(`${dt}${args}`)),
      length: args ? m : null,
      scale: args ? d : null,
      unsigned: spec.unsigned,
    };
  }
  if (name === 'BIT') {
    const n = num(0) ?? 1;
    return { ...plain('bit', `bit(${n})`), length: n };
  }
  if (name === 'DATE') return plain('date');
  if (name === 'TIME' || name === 'DATETIME' || name === 'TIMESTAMP') {
    const fsp = num(0) ?? 0;
    const dt = name.toLowerCase();
    return { ...plain(dt, fsp > 0 ? `${dt}(${fsp})` : dt), length: fsp };
  }
  if (name === 'YEAR') {
    if (ctx.flavor === 'mariadb' || ctx.intDisplayWidth) return { ...plain('year', 'year(4)'), length: 4 };
    return plain('year');
  }
  if (name === 'CHAR' || name === 'VARCHAR' || name === 'VARCHARACTER') {
    const n = num(0) ?? (name === 'CHAR' ? 1 : 0);
    if (isBinaryCharset) {
      const dt = name === 'CHAR' ? 'binary' : 'varbinary';
      return { ...plain(dt, `${dt}(${n})`), length: n };
    }
    const dt = name === 'CHAR' ? 'char' : 'varchar';
    return { ...plain(dt, `${dt}(${n})`), length: n, character: true };
  }
  if (name === 'BINARY' || name === 'VARBINARY') {
    const n = num(0) ?? (name === 'BINARY' ? 1 : 0);
    const dt = name.toLowerCase();
    return { ...plain(dt, `${dt}(${n})`), length: n };
  }
  if (name === 'LONG VARCHAR' || name === 'LONG') return textType(2, !isBinaryCharset);
  if (name === 'LONG VARBINARY') return textType(2, false);
  const textIdx = ['TINYTEXT', 'TEXT', 'MEDIUMTEXT', 'LONGTEXT'].indexOf(name);
  if (textIdx >= 0) {
    const idx =
      name === 'TEXT' && num(0) !== null ? sizeIndex(num(0)! * charsetMaxLen(charset ?? ctx.tableCharset)) : textIdx;
    return textType(idx, !isBinaryCharset);
  }
  const blobIdx = ['TINYBLOB', 'BLOB', 'MEDIUMBLOB', 'LONGBLOB'].indexOf(name);
  if (blobIdx >= 0) return textType(name === 'BLOB' && num(0) !== null ? sizeIndex(num(0)!) : blobIdx, false);
  if (name === 'ENUM' || name === 'SET') {
    const values = spec.values ?? [];
    const dt = name.toLowerCase();
    const chars = (v: string) => [...v].length;
    const length =
      name === 'ENUM'
        ? values.reduce((m, v) => Math.max(m, chars(v)), 0)
        : values.reduce((s, v) => s + chars(v), 0) + Math.max(0, values.length - 1);
    const list = values.map((v) => `'${v.replaceAll("'", "''")}'`).join(',');
    return { ...plain(dt, `${dt}(${list})`), length, character: true, enumValues: values };
  }
  if (name === 'JSON') {
    if (ctx.flavor === 'mariadb') {
      // MariaDB: JSON is an alias of LONGTEXT CHARSET utf8mb4 COLLATE utf8mb4_bin (plus a json_valid CHECK).
      return {
        ...textType(3, true),
        forcedCharset: 'utf8mb4',
        forcedCollation: 'utf8mb4_bin',
        declaredType: 'JSON',
      };
    }
    return plain('json');
  }
  if (GEOMETRY_TYPES.has(name.toLowerCase())) {
    let dt = name.toLowerCase();
    if (dt === 'geomcollection' && ctx.flavor === 'mariadb') dt = 'geometrycollection';
    if (dt === 'geometrycollection' && ctx.flavor === 'mysql') dt = 'geomcollection';
    return plain(dt);
  }
  if (name === 'VECTOR') {
    const n = num(0);
    return { ...plain('vector', n !== null ? `vector(${n})` : 'vector'), length: n };
  }
  // MariaDB UUID/INET4/INET6 and anything newer: keep the name; arguments as written.
  const dt = name.toLowerCase();
  return plain(dt, spec.args.length > 0 ? `${dt}(${spec.args.join(',')})` : dt);

  function textType(idx: number, character: boolean): ResolvedType {
    const [text, blob, len] = TEXT_SIZES[idx];
    const dt = character ? text : blob;
    return { ...plain(dt), length: len, character };
  }
}

function sizeIndex(bytes: number): number {
  if (bytes <= 255) return 0;
  if (bytes <= 65535) return 1;
  if (bytes <= 16777215) return 2;
  return 3;
}

/** Builds the information_schema-faithful ColumnDef for a parsed column at ordinal `position`. */
export function buildColumn(spec: ColumnSpec, position: number, ctx: ColumnContext): ColumnDef {
  const t = resolveType(spec.type, ctx);
  let charset: string | null = null;
  let collation: string | null = null;
  if (t.character) {
    const declared = spec.type.national ? 'utf8mb3' : spec.type.charset ? normalizeCharset(spec.type.charset) : null;
    const declaredCollation = spec.type.collation ? normalizeCollation(spec.type.collation) : null;
    charset =
      t.forcedCharset ??
      declared ??
      (declaredCollation ? charsetOfCollation(declaredCollation, ctx.tableCharset) : null) ??
      ctx.tableCharset;
    if (t.forcedCollation) collation = t.forcedCollation;
    else if (declaredCollation) collation = declaredCollation;
    else if (spec.type.binaryAttr) collation = charset === 'binary' ? 'binary' : `${charset}_bin`;
    else if (declared) collation = defaultCollation(charset, ctx.flavor);
    else
      collation =
        charsetOfCollation(ctx.tableCollation, ctx.tableCharset) === charset
          ? ctx.tableCollation
          : defaultCollation(charset, ctx.flavor);
  }
  const serial = t.serial === true;
  const autoIncrement = spec.autoIncrement || serial;
  const generated = spec.generated !== null;
  const nullable = spec.primaryKey || serial ? false : (spec.nullable ?? true);
  const col: ColumnDef = {
    name: spec.name,
    position,
    dataType: t.dataType,
    columnType: t.columnType,
    length: t.length,
    scale: t.scale,
    unsigned: t.unsigned,
    nullable,
    charset,
    collation,
    defaultValue: null,
    hasDefault: false,
    autoIncrement,
    enumValues: t.enumValues,
    generated,
    invisible: spec.invisible,
    comment: spec.comment === null || spec.comment === '' ? null : spec.comment,
  };
  if (t.declaredType) col.declaredType = t.declaredType;
  if (t.implicitWidth) col.implicitWidth = true;
  applyDefault(col, spec.default);
  return col;
}

/** Sets hasDefault/defaultValue from a DEFAULT clause (or its absence), per the conventions above. */
export function applyDefault(col: ColumnDef, def: DefaultSpec | undefined): void {
  if (col.autoIncrement || col.generated) {
    col.hasDefault = false;
    col.defaultValue = null;
    return;
  }
  if (def === undefined || def.kind === 'null') {
    col.hasDefault = def !== undefined || col.nullable;
    col.defaultValue = null;
    return;
  }
  col.hasDefault = true;
  col.defaultValue =
    def.kind === 'expr' ? normalizeExpressionDefault(def.text) : normalizeLiteralDefault(col, def.text);
}

export function normalizeExpressionDefault(text: string): string {
  let t = text.trim();
  while (t.startsWith('(') && t.endsWith(')') && balanced(t.slice(1, -1))) t = t.slice(1, -1).trim();
  const m = /^(current_timestamp|now|localtime|localtimestamp)\s*(\(\s*(\d*)\s*\))?$/i.exec(t);
  if (m) return m[3] && m[3] !== '0' ? `CURRENT_TIMESTAMP(${m[3]})` : 'CURRENT_TIMESTAMP';
  return t;
}

function balanced(s: string): boolean {
  let depth = 0;
  for (const c of s) {
    if (c === '(') depth++;
    else if (c === ')' && --depth < 0) return false;
  }
  return depth === 0;
}

const NUMERIC = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;

/** Normalises a literal default to how the server stores it for the column's type. */
export function normalizeLiteralDefault(col: ColumnDef, text: string): string {
  const dt = col.dataType;
  const hex = /^x'([0-9a-f]*)'$/i.exec(text);
  const bits = /^b'([01]*)'$/i.exec(text);
  if (dt === 'bit') {
    let v: bigint | null = null;
    if (bits) v = bits[1] === '' ? 0n : BigInt(`0b${bits[1]}`);
    else if (hex) v = hex[1] === '' ? 0n : BigInt(`0x${hex[1]}`);
    else if (/^\d+$/.test(text)) v = BigInt(text);
    return v === null ? text : `b'${v.toString(2)}'`;
  }
  if (['tinyint', 'smallint', 'mediumint', 'int', 'bigint', 'year'].includes(dt) && NUMERIC.test(text.trim())) {
    const s = text.trim().replace(/^\+/, '');
    if (/^-?\d+$/.test(s)) return BigInt(s).toString();
    return String(Math.round(Number(s)));
  }
  if (dt === 'decimal' && NUMERIC.test(text.trim())) {
    const n = Number(text);
    const scale = col.scale ?? 0;
    return Math.abs(n) < 1e15 ? n.toFixed(scale) : text;
  }
  if ((dt === 'float' || dt === 'double') && NUMERIC.test(text.trim())) return String(Number(text));
  if (dt === 'datetime' || dt === 'timestamp') return normalizeDateTime(text, col.length ?? 0);
  if (dt === 'date' && /^0+$/.test(text)) return '0000-00-00';
  if (dt === 'time') return withFraction(text, col.length ?? 0);
  return text;
}

function normalizeDateTime(text: string, fsp: number): string {
  if (/^0+$/.test(text)) return withFraction('0000-00-00 00:00:00', fsp);
  const m = /^(\d{4}-\d{1,2}-\d{1,2})(?:[ T](\d{1,2}):(\d{1,2})(?::(\d{1,2}))?(\.\d+)?)?$/.exec(text.trim());
  if (!m) return text;
  const [y, mo, d] = m[1].split('-');
  const date = `${y}-${mo.padStart(2, '0')}-${d.padStart(2, '0')}`;
  const hh = (m[2] ?? '0').padStart(2, '0');
  const mi = (m[3] ?? '0').padStart(2, '0');
  const ss = (m[4] ?? '0').padStart(2, '0');
  return withFraction(`${date} ${hh}:${mi}:${ss}${m[5] ?? ''}`, fsp);
}

function withFraction(text: string, fsp: number): string {
  const dot = text.lastIndexOf('.');
  const hasFrac = dot > text.lastIndexOf(':') && dot >= 0 && text.includes(':');
  const base = hasFrac ? text.slice(0, dot) : text;
  const frac = hasFrac ? text.slice(dot + 1) : '';
  if (fsp === 0) return base;
  return `${base}.${frac.padEnd(fsp, '0').slice(0, fsp)}`;
}
