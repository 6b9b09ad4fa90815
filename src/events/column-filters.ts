/**
 * Column selection and column mappers (Debezium's ColumnNameFilter and ColumnMappers): include/exclude lists,
 * column.truncate.to.N.chars, column.mask.with.N.chars, column.mask.hash.*, column/datatype.propagate.source.type.
 * Resolved once per table version; the result wraps a column's converter and decorates its schema.
 *
 * As in Debezium, only the first matching mapper rule applies to a column, in this order: truncate, mask with
 * chars, propagate source type (column, then data type), hash (v1, then v2). Mappers never apply to key fields.
 */
import { createHash, getHashes } from 'node:crypto';
import { CdcError } from '../common/errors.js';
import type { ColumnDef } from '../model/table-def.js';
import { javaSerializedString } from './binary.js';
import type { ColumnInfo } from './column-info.js';
import type { ConnectSchema, JsonValue } from './connect-schema.js';
import type { ResolvedOptions } from './options.js';

export interface ColumnMapping {
  /** Applied to the converted value (the JSON form: bytes as base64 text). */
  map?: (x: JsonValue) => JsonValue;
  /** Schema parameters the mapper adds (`masked`, `truncateLength`, `__debezium.source.column.*`). */
  parameters: Record<string, string>;
}

/** Full-match, case-insensitive version of a user pattern, as Debezium's Predicates.includes() compiles them. */
export function anchored(re: RegExp): RegExp {
  const flags = re.flags.includes('i') ? re.flags : `${re.flags}i`;
  return new RegExp(`^(?:${re.source})$`, flags.replace('g', '').replace('y', ''));
}

function anyMatch(patterns: RegExp[] | undefined, name: string): boolean {
  if (!patterns) return false;
  for (const p of patterns) if (anchored(p).test(name)) return true;
  return false;
}

/** column.include.list / column.exclude.list over `db.table.column`. */
export function isColumnIncluded(fqn: string, opts: ResolvedOptions): boolean {
  if (opts.columnIncludeList && opts.columnIncludeList.length > 0) return anyMatch(opts.columnIncludeList, fqn);
  if (opts.columnExcludeList && opts.columnExcludeList.length > 0) return !anyMatch(opts.columnExcludeList, fqn);
  return true;
}

/** The mapper for one column, or undefined when no rule matches. `fqn` is `db.table.column`. */
export function columnMapping(
  fqn: string,
  tableId: string,
  col: ColumnDef,
  info: ColumnInfo,
  schema: ConnectSchema,
  opts: ResolvedOptions,
): ColumnMapping | undefined {
  for (const rule of opts.columnTruncate ?? []) {
    if (anyMatch(rule.columns, fqn)) return truncateMapping(rule.length, info, schema);
  }
  for (const rule of opts.columnMaskWithChars ?? []) {
    if (anyMatch(rule.columns, fqn)) {
      const mask = '*'.repeat(rule.length);
      // MaskingValueConverter returns the mask for every value, NULL included.
      return { map: info.isCharacter ? () => mask : undefined, parameters: { masked: 'true' } };
    }
  }
  if (
    anyMatch(opts.columnPropagateSourceType, fqn) ||
    anyMatch(opts.datatypePropagateSourceType, `${tableId}.${info.typeName}`)
  ) {
    return { parameters: sourceTypeParameters(col, info) };
  }
  for (const rule of opts.columnMaskHash ?? []) {
    if (anyMatch(rule.columns, fqn)) {
      return {
        map: info.isCharacter ? hashMapper(rule.algorithm, rule.salt, rule.version ?? 'v1', info.length) : undefined,
        parameters: { masked: 'true' },
      };
    }
  }
  return undefined;
}

function truncateMapping(maxLength: number, info: ColumnInfo, schema: ConnectSchema): ColumnMapping | undefined {
  // TruncateColumn applies only when the declared length is unknown or larger than the limit.
  if (info.length !== null && info.length >= 0 && info.length <= maxLength) return undefined;
  const parameters = { truncateLength: String(maxLength) };
  // TruncatingValueConverter acts on String and ByteBuffer values: string schemas and plain bytes (not Decimal/Bits).
  if (schema.type === 'string') {
    return {
      map: (x) => (typeof x === 'string' && x.length > maxLength ? x.slice(0, maxLength) : x),
      parameters,
    };
  }
  if (schema.type === 'bytes' && schema.name === undefined) {
    return {
      map: (x) => {
        if (typeof x !== 'string') return x;
        const b = Buffer.from(x, 'base64');
        return b.length > maxLength ? b.subarray(0, maxLength).toString('base64') : x;
      },
      parameters,
    };
  }
  return { parameters };
}

/** Java MessageDigest names → Node's OpenSSL names ("SHA-256" → "sha256", "SHA3-256" → "sha3-256"). */
export function nodeHashName(javaName: string): string {
  const n = javaName.toLowerCase();
  const mapped = n.startsWith('sha3-')
    ? n
    : n === 'sha-512/224'
      ? 'sha512-224'
      : n === 'sha-512/256'
        ? 'sha512-256'
        : n.replace('-', '');
  if (!getHashes().includes(mapped)) {
    throw new CdcError('CONFIG_INVALID', `Unsupported hash algorithm for column masking: ${javaName}`);
  }
  return mapped;
}

/**
 * MaskStrings.HashValueConverter: hex(digest(salt bytes ‖ value bytes)); v1 hashes the Java serialisation of the
 * String, v2 its UTF-8 bytes. The hash is then truncated to the column length when one is declared.
 */
export function hashMapper(
  algorithm: string,
  salt: string,
  version: 'v1' | 'v2',
  columnLength: number | null,
): (x: JsonValue) => JsonValue {
  const alg = nodeHashName(algorithm);
  const saltBytes = Buffer.from(salt, 'utf8');
  return (x) => {
    if (x === null) return null;
    const text = String(x);
    const bytes = version === 'v1' ? javaSerializedString(text) : Buffer.from(text, 'utf8');
    const hex = createHash(alg).update(saltBytes).update(bytes).digest('hex');
    return columnLength !== null && columnLength > 0 && hex.length > columnLength ? hex.slice(0, columnLength) : hex;
  };
}

/** PropagateSourceMetadataToSchemaParameter. */
export function sourceTypeParameters(col: ColumnDef, info: ColumnInfo): Record<string, string> {
  const p: Record<string, string> = { '__debezium.source.column.type': info.typeName };
  if (info.length !== null) p['__debezium.source.column.length'] = String(info.length);
  if (info.scale !== null) p['__debezium.source.column.scale'] = String(info.scale);
  if (col.comment) p['__debezium.source.column.comment'] = col.comment;
  p['__debezium.source.column.name'] = col.name;
  return p;
}
