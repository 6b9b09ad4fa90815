/**
 * ExtractNewRecordState (`io.debezium.transforms.ExtractNewRecordState`, short name `unwrap`): replaces the change
 * event envelope with the row state (`after`), with Debezium's options:
 *
 * - `delete.tombstone.handling.mode` @default tombstone —
 *   `drop`: drop delete events and tombstones; `tombstone`: drop delete events, keep tombstones;
 *   `rewrite`: deletes become the `before` row plus `__deleted: "true"` (other rows get `"false"`), tombstones
 *   dropped; `rewrite-with-tombstone`: like rewrite, tombstones kept; `delete-to-tombstone`: deletes become
 *   tombstones, the original tombstones are dropped.
 * - `add.fields` / `add.headers`: envelope or source fields copied into the value / headers as `<prefix><name>`
 *   (`op` → `__op`, `table` → `__table` (a source field), `source.ts_ms` → `__source_ts_ms`,
 *   `transaction.id` → `__transaction_id`; `name:alias` renames). `add.fields.prefix` / `add.headers.prefix`
 *   @default `__`.
 * - `drop.fields.header.name`: a header listing fields to remove from the value (and from the key with
 *   `drop.fields.from.key=true`); with schemas and `drop.fields.keep.schema.compatible=true` (default) only optional
 *   fields are removed.
 * - `route.by.field`: the record's topic becomes the value of this row field (from `before` for rewritten deletes).
 * - `replace.null.with.default` @default true: with schemas, null fields take the column default from the schema.
 *
 * Records that are not data change envelopes (schema changes, heartbeats, transaction metadata) pass through
 * untouched. Truncate events (`op: "t"`) have no row state and are dropped.
 */
import type { Json } from './json.js';
import type { OptionReader } from './options.js';
import {
  asEnvelope,
  type Envelope,
  isObject,
  type JsonObject,
  type Transform,
  type TransformRecord,
} from './record.js';
import { fieldSchema, inferSchema, withFields, withoutFields } from './schema.js';

export const DELETE_TOMBSTONE_MODES = [
  'drop',
  'tombstone',
  'rewrite',
  'rewrite-with-tombstone',
  'delete-to-tombstone',
] as const;
export type DeleteTombstoneHandlingMode = (typeof DELETE_TOMBSTONE_MODES)[number];

/** A field to copy: where it is read from, and the name it gets (without prefix). */
interface FieldRef {
  path: string[];
  name: string;
}

const ENVELOPE_FIELDS = new Set(['op', 'ts_ms', 'ts_us', 'ts_ns', 'before', 'after', 'source', 'transaction']);

function parseFieldRefs(o: OptionReader, option: string): FieldRef[] {
  return o.list(option).map((item) => {
    const [spec = '', alias] = item.split(':', 2).map((s) => s.trim());
    const parts = spec.split('.');
    let path: string[];
    if (parts.length > 1) path = parts;
    else if (ENVELOPE_FIELDS.has(spec)) path = [spec];
    else path = ['source', spec];
    if (spec === '' || parts.some((p) => p === ''))
      o.add(option, `'${item}' is not a field name.`, `list fields such as op,table,source.ts_ms.`);
    return { path, name: alias || parts.join('_') };
  });
}

function read(env: Envelope, path: string[]): Json | undefined {
  let cur: Json | undefined = env;
  for (const p of path) {
    if (!isObject(cur)) return undefined;
    cur = cur[p];
  }
  return cur;
}

export function extractNewRecordState(o: OptionReader): Transform {
  for (const legacy of ['delete.handling.mode', 'drop.tombstones'])
    if (o.alias(legacy) !== undefined)
      o.add(
        legacy,
        'was removed in Debezium 3 and is not supported.',
        `use ${o.key('delete.tombstone.handling.mode')}=drop|tombstone|rewrite|rewrite-with-tombstone|delete-to-tombstone.`,
      );
  const mode = o.enumOf('delete.tombstone.handling.mode', DELETE_TOMBSTONE_MODES, 'tombstone');
  const fieldsPrefix = o.str('add.fields.prefix', '__');
  const headersPrefix = o.str('add.headers.prefix', '__');
  const addFields = parseFieldRefs(o, 'add.fields');
  const addHeaders = parseFieldRefs(o, 'add.headers');
  const dropHeader = o.str('drop.fields.header.name');
  const dropFromKey = o.bool('drop.fields.from.key', false);
  const keepCompatible = o.bool('drop.fields.keep.schema.compatible', true);
  const routeByField = o.str('route.by.field');
  const replaceNull = o.bool('replace.null.with.default', true);
  const rewrite = mode === 'rewrite' || mode === 'rewrite-with-tombstone';

  const dropList = (r: TransformRecord): Set<string> | null => {
    if (!dropHeader) return null;
    const h = r.headers[dropHeader];
    if (Array.isArray(h)) return new Set(h.map(String));
    if (typeof h === 'string') return new Set(h.split(',').map((s) => s.trim()));
    return null;
  };

  return (r) => {
    if (r.value === null) {
      // Tombstone.
      return mode === 'tombstone' || mode === 'rewrite-with-tombstone' ? [r] : [];
    }
    const env = asEnvelope(r.value);
    if (!env) return [r];
    if (env.op === 't') return [];
    const isDelete = env.op === 'd';
    if (isDelete && (mode === 'drop' || mode === 'tombstone')) return [];
    if (isDelete && mode === 'delete-to-tombstone') {
      const { valueSchema: _s, ...rest } = r;
      return [{ ...rest, value: null, headers: { ...r.headers } }];
    }
    const rowField = isDelete ? 'before' : 'after';
    const rowValue = env[rowField];
    let row: JsonObject = isObject(rowValue) ? { ...rowValue } : {};
    let schema = fieldSchema(r.valueSchema, rowField);
    if (replaceNull && schema) row = replaceNulls(row, schema);
    const added: { field: string; schema: JsonObject }[] = [];
    for (const f of addFields) {
      const v = read(env, f.path);
      row[fieldsPrefix + f.name] = v ?? null;
      added.push({ field: fieldsPrefix + f.name, schema: inferSchema(v) });
    }
    if (rewrite) {
      row.__deleted = isDelete ? 'true' : 'false';
      added.push({ field: '__deleted', schema: { type: 'string', optional: true } });
    }
    const headers = { ...r.headers };
    for (const f of addHeaders) headers[headersPrefix + f.name] = read(env, f.path) ?? null;

    let key = r.key;
    let keySchema = r.keySchema;
    const drop = dropList(r);
    if (drop) {
      const droppable = (s: JsonObject | undefined, name: string) =>
        !keepCompatible || !s || fieldSchema(s, name)?.optional !== false;
      const dropped = new Set([...drop].filter((n) => droppable(schema, n)));
      for (const n of dropped) delete row[n];
      if (schema) schema = withoutFields(schema, dropped);
      if (dropFromKey && isObject(key)) {
        const ks = isObject(keySchema) ? keySchema : undefined;
        const kd = new Set([...drop].filter((n) => droppable(ks, n)));
        const k: JsonObject = { ...key };
        for (const n of kd) delete k[n];
        key = k;
        if (ks) keySchema = withoutFields(ks, kd);
      }
    }

    const out: TransformRecord = { ...r, key, value: row, headers };
    if (keySchema !== undefined) out.keySchema = keySchema;
    if (r.valueSchema !== undefined) {
      if (schema) out.valueSchema = withFields({ ...schema, optional: false }, added);
      else delete out.valueSchema;
    }
    if (routeByField) {
      const target = isObject(rowValue) ? rowValue[routeByField] : undefined;
      if (typeof target === 'string' && target !== '') out.topic = target;
    }
    return [out];
  };
}

function replaceNulls(row: JsonObject, schema: JsonObject): JsonObject {
  if (!Array.isArray(schema.fields)) return row;
  for (const f of schema.fields) {
    if (isObject(f) && typeof f.field === 'string' && row[f.field] === null && f.default !== undefined)
      row[f.field] = f.default;
  }
  return row;
}
