/** Small helpers for Connect schemas carried by schema-wrapped records (`{schema, payload}`). */
import type { Json } from './json.js';
import { isObject, type JsonObject } from './record.js';

/** The schema of struct field `name` (without its `field` member), or undefined. */
export function fieldSchema(schema: Json | undefined, name: string): JsonObject | undefined {
  if (!isObject(schema) || !Array.isArray(schema.fields)) return undefined;
  for (const f of schema.fields) {
    if (isObject(f) && f.field === name) {
      const { field: _field, ...rest } = f;
      return rest;
    }
  }
  return undefined;
}

/** A copy of struct schema `schema` with fields appended (replacing same-named ones). */
export function withFields(schema: JsonObject, fields: { field: string; schema: JsonObject }[]): JsonObject {
  const names = new Set(fields.map((f) => f.field));
  const kept = Array.isArray(schema.fields)
    ? schema.fields.filter((f) => !(isObject(f) && names.has(String(f.field))))
    : [];
  return { ...schema, fields: [...kept, ...fields.map((f) => ({ ...f.schema, field: f.field }))] };
}

/** A copy of struct schema `schema` without the named fields. */
export function withoutFields(schema: JsonObject, drop: ReadonlySet<string>): JsonObject {
  const kept = Array.isArray(schema.fields)
    ? schema.fields.filter((f) => !(isObject(f) && drop.has(String(f.field))))
    : [];
  return { ...schema, fields: kept };
}

/** A best-effort optional schema for a JSON value of unknown origin. */
export function inferSchema(v: Json | undefined): JsonObject {
  switch (typeof v) {
    case 'boolean':
      return { type: 'boolean', optional: true };
    case 'bigint':
      return { type: 'int64', optional: true };
    case 'number':
      return Number.isInteger(v) ? { type: 'int64', optional: true } : { type: 'double', optional: true };
    case 'string':
      return { type: 'string', optional: true };
    default:
      if (Array.isArray(v)) return { type: 'array', items: inferSchema(v[0]), optional: true };
      if (isObject(v))
        return {
          type: 'struct',
          fields: Object.entries(v).map(([k, x]) => ({ ...inferSchema(x), field: k })),
          optional: true,
        };
      return { type: 'string', optional: true };
  }
}
