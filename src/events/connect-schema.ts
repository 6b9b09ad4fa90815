/**
 * Kafka Connect schemas as plain data, and the JSON text the Kafka Connect JsonConverter writes for them
 * (`schemas.enable=true`). Key order follows JsonConverter.asJsonSchema: type, fields/items/keys/values,
 * optional, name, version, doc, parameters, default — then `field` when nested in a struct.
 */

/** JSON-able value as produced by converters; bigint is written as a bare JSON number (int64 beyond 2^53). */
export type JsonValue = null | boolean | number | bigint | string | JsonValue[] | { [key: string]: JsonValue };

export type ConnectType =
  | 'int8'
  | 'int16'
  | 'int32'
  | 'int64'
  | 'float32'
  | 'float64'
  | 'boolean'
  | 'string'
  | 'bytes'
  | 'array'
  | 'map'
  | 'struct';

export interface ConnectField {
  field: string;
  schema: ConnectSchema;
}

export interface ConnectSchema {
  type: ConnectType;
  optional: boolean;
  name?: string;
  version?: number;
  doc?: string;
  parameters?: Record<string, string>;
  /** Default value already in its JSON form (e.g. base64 for Decimal). */
  default?: JsonValue;
  fields?: ConnectField[];
  items?: ConnectSchema;
  keys?: ConnectSchema;
  values?: ConnectSchema;
}

/** JsonConverter spells Connect's FLOAT32/FLOAT64 as "float"/"double" (JsonSchema.FLOAT_TYPE_NAME, DOUBLE_TYPE_NAME). */
const JSON_TYPE_NAMES: Partial<Record<ConnectType, string>> = { float32: 'float', float64: 'double' };

/** JSON text of a schema in JsonConverter's layout; `field` is appended for struct members. */
export function schemaToJson(schema: ConnectSchema, field?: string): string {
  let out = `{"type":"${JSON_TYPE_NAMES[schema.type] ?? schema.type}"`;
  if (schema.fields) out += `,"fields":[${schema.fields.map((f) => schemaToJson(f.schema, f.field)).join(',')}]`;
  if (schema.items) out += `,"items":${schemaToJson(schema.items)}`;
  if (schema.keys) out += `,"keys":${schemaToJson(schema.keys)}`;
  if (schema.values) out += `,"values":${schemaToJson(schema.values)}`;
  out += `,"optional":${schema.optional}`;
  if (schema.name !== undefined) out += `,"name":${JSON.stringify(schema.name)}`;
  if (schema.version !== undefined) out += `,"version":${schema.version}`;
  if (schema.doc !== undefined) out += `,"doc":${JSON.stringify(schema.doc)}`;
  if (schema.parameters !== undefined) out += `,"parameters":${JSON.stringify(schema.parameters)}`;
  if (schema.default !== undefined && schema.default !== null) out += `,"default":${toJsonText(schema.default)}`;
  if (field !== undefined) out += `,"field":${JSON.stringify(field)}`;
  return `${out}}`;
}

/**
 * Generic JSON writer with bigint support. Used off the hot path (schemas, headers, structs such as geometry);
 * row values use the per-column writers chosen in converters.ts.
 */
export function toJsonText(value: JsonValue): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'bigint':
      return value.toString();
    case 'boolean':
      return value ? 'true' : 'false';
    default:
      if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`;
      return `{${Object.keys(value)
        .map((k) => `${JSON.stringify(k)}:${toJsonText(value[k])}`)
        .join(',')}}`;
  }
}

/** Wrap key/value payload text the way JsonConverter does with schemas enabled. */
export function withSchema(schemaJson: string, payloadJson: string): string {
  return `{"schema":${schemaJson},"payload":${payloadJson}}`;
}

export const SCHEMA_INT64: ConnectSchema = { type: 'int64', optional: false };
export const SCHEMA_OPTIONAL_INT64: ConnectSchema = { type: 'int64', optional: true };
export const SCHEMA_STRING: ConnectSchema = { type: 'string', optional: false };
export const SCHEMA_OPTIONAL_STRING: ConnectSchema = { type: 'string', optional: true };

export function struct(
  name: string | undefined,
  fields: ConnectField[],
  optional = false,
  version?: number,
): ConnectSchema {
  const s: ConnectSchema = { type: 'struct', optional, fields };
  if (name !== undefined) s.name = name;
  if (version !== undefined) s.version = version;
  return s;
}
