/**
 * VStream FIELD types (query.Type) → Kafka Connect schemas and JSON values, as Debezium's Vitess connector maps
 * them (VitessType.resolve → JDBC type → VitessValueConverter/JdbcValueConverters). VStream sends every value as
 * MySQL's text form; this turns that text into the JSON the Kafka Connect JsonConverter writes.
 *
 * | query.Type                            | Connect schema                                          |
 * |---------------------------------------|---------------------------------------------------------|
 * | INT8, UINT8, INT16                    | int16                                                   |
 * | UINT16, INT24, UINT24, INT32          | int32                                                   |
 * | YEAR                                  | int32 io.debezium.time.Year                             |
 * | UINT32, INT64                         | int64                                                   |
 * | UINT64                                | string (bigint.unsigned.handling.mode=string, default), int64 (long), Decimal (precise) |
 * | DECIMAL, VARCHAR, CHAR, TEXT          | string (DECIMAL stays text, as Debezium Vitess does)    |
 * | JSON                                  | string io.debezium.data.Json                            |
 * | ENUM / SET                            | string io.debezium.data.Enum / EnumSet (allowed = members) |
 * | BLOB/VARBINARY/BINARY of a text type  | string                                                  |
 * | BLOB, VARBINARY, BINARY               | bytes (binary.handling.mode)                            |
 * | FLOAT32, FLOAT64                      | float64 (JDBC FLOAT is a double)                        |
 * | DATE                                  | int32 io.debezium.time.Date (connect: Connect Date)     |
 * | TIME                                  | int64 io.debezium.time.MicroTime (connect: Connect Time int32 ms) |
 * | DATETIME                              | int64 io.debezium.time.Timestamp (fsp ≤ 3) / MicroTimestamp (connect: Connect Timestamp) |
 * | TIMESTAMP                             | string io.debezium.time.ZonedTimestamp (connect: Connect Timestamp) |
 * | BIT                                   | boolean for BIT(1), else bytes io.debezium.data.Bits    |
 * | anything else (GEOMETRY, VECTOR, ...) | left out, or bytes with include.unknown.datatypes=true  |
 */
import { base64UrlSafe, decimalBase64 } from '../../events/binary.js';
import type { ConnectSchema } from '../../events/connect-schema.js';
import type { ProtoField } from './vgtid.js';

/** MySQL column flags carried by query.Field.flags (query.MySqlFlag). */
export const NOT_NULL_FLAG = 1;
export const PRI_KEY_FLAG = 2;
export const UNIQUE_KEY_FLAG = 4;

export interface VitessTypeOptions {
  timePrecisionMode: 'adaptive_time_microseconds' | 'connect';
  bigintUnsignedHandlingMode: 'string' | 'long' | 'precise';
  binaryHandlingMode: 'bytes' | 'base64' | 'base64-url-safe' | 'hex';
  includeUnknownDatatypes: boolean;
}

export interface VitessColumn {
  name: string;
  /** query.Type name, e.g. INT64. */
  type: string;
  schema: ConnectSchema;
  /** JSON text of a raw VStream cell (null = SQL NULL). */
  toJson(raw: Buffer | null): string;
  isKey: boolean;
  isUniqueKey: boolean;
}

/** Start of a MySQL column type (`varchar(10)` matches VARCHAR), Debezium's VitessValueConverter.matches. */
function typeIs(columnType: string | undefined, name: string): boolean {
  const t = (columnType ?? '').toUpperCase();
  return t === name || t.startsWith(`${name}(`);
}

/** ENUM/SET members from `enum('a','b''c')`. */
export function enumMembers(columnType: string | undefined): string[] {
  const out: string[] = [];
  const t = columnType ?? '';
  let cur: string | null = null;
  for (let i = 0; i < t.length; i++) {
    const c = t[i];
    if (c === "'") {
      if (cur !== null && t[i + 1] === "'") {
        cur += "'";
        i++;
      } else if (cur === null) cur = '';
      else {
        out.push(cur);
        cur = null;
      }
    } else if (cur !== null) cur += c;
  }
  return out;
}

const str = (s: string) => JSON.stringify(s);

function bytesWriter(mode: VitessTypeOptions['binaryHandlingMode']): (b: Buffer) => string {
  switch (mode) {
    case 'hex':
      return (b) => str(b.toString('hex'));
    case 'base64-url-safe':
      return (b) => str(base64UrlSafe(b));
    default:
      // Kafka Connect's JsonConverter writes bytes as base64 text; 'base64' mode is a string of the same text.
      return (b) => str(b.toString('base64'));
  }
}

function bytesSchema(mode: VitessTypeOptions['binaryHandlingMode']): ConnectSchema {
  return { type: mode === 'bytes' ? 'bytes' : 'string', optional: true };
}

/** Days since 1970-01-01 of `YYYY-MM-DD`; zero dates (month or day 0) have none. */
function epochDays(text: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(text);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo === 0 || d === 0) return null;
  const ms = Date.UTC(y, mo - 1, d);
  const date = new Date(ms);
  if (y < 100) date.setUTCFullYear(y);
  return Math.floor(date.getTime() / 86_400_000);
}

/** Epoch microseconds of `YYYY-MM-DD HH:MM:SS[.ffffff]` read as UTC (VStream sends TIMESTAMP in UTC). */
function epochMicros(text: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?/.exec(text);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo === 0 || d === 0) return null;
  const date = new Date(Date.UTC(y, mo - 1, d, Number(m[4]), Number(m[5]), Number(m[6])));
  if (y < 100) date.setUTCFullYear(y);
  const frac = Number((m[7] ?? '').padEnd(6, '0'));
  return date.getTime() * 1000 + frac;
}

/** Signed microseconds of MySQL TIME text `[-]HHH:MM:SS[.ffffff]`. */
function timeMicros(text: string): number | null {
  const m = /^(-)?(\d+):(\d{2})(?::(\d{2}))?(?:\.(\d{1,6}))?$/.exec(text.trim());
  if (!m) return null;
  const us =
    ((Number(m[2]) * 60 + Number(m[3])) * 60 + Number(m[4] ?? 0)) * 1_000_000 + Number((m[5] ?? '').padEnd(6, '0'));
  return m[1] ? -us : us;
}

/** ZonedTimestamp text: UTC ISO-8601 with exactly `fsp` fraction digits (none → only a non-zero fraction). */
function zonedText(micros: number, fsp: number): string {
  const base = new Date(Math.floor(micros / 1000)).toISOString().slice(0, 19);
  const frac = String(((micros % 1_000_000) + 1_000_000) % 1_000_000).padStart(6, '0');
  if (fsp > 0) return `${base}.${frac.slice(0, fsp)}Z`;
  const trimmed = frac.replace(/0+$/, '');
  return trimmed ? `${base}.${trimmed}Z` : `${base}Z`;
}

interface Mapping {
  schema: Omit<ConnectSchema, 'optional'>;
  /** JSON text of a non-NULL cell. */
  write: (raw: Buffer) => string;
}

const number = (b: Buffer) => {
  const t = b.toString('latin1');
  return /^[+-]?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(t) ? t : 'null';
};

/** Connect schema and value writer of one VStream field, or null when Debezium leaves the column out. */
function mapField(f: ProtoField, o: VitessTypeOptions, enumAsText: boolean): Mapping | null {
  const text = (b: Buffer) => str(b.toString('utf8'));
  const bytes = bytesWriter(o.binaryHandlingMode);
  const bin: Mapping = { schema: bytesSchema(o.binaryHandlingMode), write: bytes };
  const enumOrSet = (kind: 'ENUM' | 'SET'): Mapping => {
    const members = enumMembers(f.column_type);
    const name = kind === 'ENUM' ? 'io.debezium.data.Enum' : 'io.debezium.data.EnumSet';
    const schema = { type: 'string' as const, name, version: 1, parameters: { allowed: members.join(',') } };
    if (enumAsText) return { schema, write: text };
    // Streamed without enum_set_string_values: ENUM is the 1-based index, SET the member bitmask.
    if (kind === 'ENUM') return { schema, write: (b) => str(members[Number(b.toString('latin1')) - 1] ?? '') };
    return {
      schema,
      write: (b) => {
        let mask = BigInt(b.toString('latin1'));
        const picked: string[] = [];
        for (let i = 0; mask !== 0n; i++, mask >>= 1n) if (mask & 1n && i < members.length) picked.push(members[i]);
        return str(picked.join(','));
      },
    };
  };
  const connect = o.timePrecisionMode === 'connect';
  const fsp = f.decimals ?? 0;
  switch (f.type) {
    case 'INT8':
    case 'UINT8':
    case 'INT16':
      return { schema: { type: 'int16' }, write: number };
    case 'UINT16':
    case 'INT24':
    case 'UINT24':
    case 'INT32':
      return { schema: { type: 'int32' }, write: number };
    case 'YEAR':
      return { schema: { type: 'int32', name: 'io.debezium.time.Year', version: 1 }, write: number };
    case 'UINT32':
    case 'INT64':
      return { schema: { type: 'int64' }, write: number };
    case 'UINT64':
      if (o.bigintUnsignedHandlingMode === 'string') return { schema: { type: 'string' }, write: text };
      if (o.bigintUnsignedHandlingMode === 'long')
        return { schema: { type: 'int64' }, write: (b) => BigInt.asIntN(64, BigInt(b.toString('latin1'))).toString() };
      return {
        schema: {
          type: 'bytes',
          name: 'org.apache.kafka.connect.data.Decimal',
          version: 1,
          parameters: { scale: '0' },
        },
        write: (b) => str(decimalBase64(b.toString('latin1'), 0)),
      };
    case 'ENUM':
      return enumOrSet('ENUM');
    case 'SET':
      return enumOrSet('SET');
    case 'JSON':
      return { schema: { type: 'string', name: 'io.debezium.data.Json', version: 1 }, write: text };
    case 'DECIMAL':
    case 'VARCHAR':
    case 'CHAR':
    case 'TEXT':
      return { schema: { type: 'string' }, write: text };
    case 'BLOB':
      return ['TINYTEXT', 'TEXT', 'MEDIUMTEXT', 'LONGTEXT'].some((t) => typeIs(f.column_type, t))
        ? { schema: { type: 'string' }, write: text }
        : bin;
    case 'VARBINARY':
    case 'BINARY':
      if (f.type === 'VARBINARY' && typeIs(f.column_type, 'VARCHAR'))
        return { schema: { type: 'string' }, write: text };
      if (typeIs(f.column_type, 'CHAR')) return { schema: { type: 'string' }, write: text };
      if (typeIs(f.column_type, 'ENUM')) return enumOrSet('ENUM');
      if (typeIs(f.column_type, 'SET')) return enumOrSet('SET');
      return bin;
    case 'FLOAT32':
    case 'FLOAT64':
      return { schema: { type: 'float64' }, write: number };
    case 'DATE':
      return {
        schema: {
          type: 'int32',
          name: connect ? 'org.apache.kafka.connect.data.Date' : 'io.debezium.time.Date',
          version: 1,
        },
        write: (b) => String(epochDays(b.toString('latin1')) ?? 0),
      };
    case 'TIME':
      if (connect)
        return {
          schema: { type: 'int32', name: 'org.apache.kafka.connect.data.Time', version: 1 },
          write: (b) => {
            const us = timeMicros(b.toString('latin1'));
            return us === null ? 'null' : String(Math.trunc(us / 1000));
          },
        };
      return {
        schema: { type: 'int64', name: 'io.debezium.time.MicroTime', version: 1 },
        write: (b) => String(timeMicros(b.toString('latin1')) ?? 0),
      };
    case 'DATETIME': {
      if (connect || fsp <= 3)
        return {
          schema: {
            type: 'int64',
            name: connect ? 'org.apache.kafka.connect.data.Timestamp' : 'io.debezium.time.Timestamp',
            version: 1,
          },
          write: (b) => String(Math.floor((epochMicros(b.toString('latin1')) ?? 0) / 1000)),
        };
      return {
        schema: { type: 'int64', name: 'io.debezium.time.MicroTimestamp', version: 1 },
        write: (b) => String(epochMicros(b.toString('latin1')) ?? 0),
      };
    }
    case 'TIMESTAMP':
      if (connect)
        return {
          schema: { type: 'int64', name: 'org.apache.kafka.connect.data.Timestamp', version: 1 },
          write: (b) => String(Math.floor((epochMicros(b.toString('latin1')) ?? 0) / 1000)),
        };
      return {
        schema: { type: 'string', name: 'io.debezium.time.ZonedTimestamp', version: 1 },
        write: (b) => {
          const us = epochMicros(b.toString('latin1'));
          return us === null ? 'null' : str(zonedText(us, fsp));
        },
      };
    case 'BIT':
      if ((f.column_length ?? 1) <= 1)
        return {
          schema: { type: 'boolean' },
          write: (b) => (b.length > 0 && b[b.length - 1] !== 0 ? 'true' : 'false'),
        };
      return {
        schema: {
          type: 'bytes',
          name: 'io.debezium.data.Bits',
          version: 1,
          parameters: { length: String(f.column_length) },
        },
        write: (b) => str(b.toString('base64')),
      };
    default:
      return o.includeUnknownDatatypes ? bin : null;
  }
}

/**
 * The columns of a FIELD event that Debezium emits, in field order. `enumAsText`: ENUM/SET values arrive as text
 * (during the copy phase, or when the FIELD event says enum_set_string_values).
 */
export function vitessColumns(
  fields: readonly ProtoField[],
  o: VitessTypeOptions,
  enumAsText: boolean,
): (VitessColumn | null)[] {
  return fields.map((f) => {
    const m = mapField(f, o, enumAsText);
    if (!m) return null;
    const flags = f.flags ?? 0;
    const optional = (flags & NOT_NULL_FLAG) === 0;
    const schema: ConnectSchema = { ...m.schema, optional };
    return {
      name: f.name,
      type: f.type,
      schema,
      toJson: (raw) => (raw === null ? 'null' : m.write(raw)),
      isKey: (flags & PRI_KEY_FLAG) !== 0,
      isUniqueKey: (flags & UNIQUE_KEY_FLAG) !== 0,
    };
  });
}
