/**
 * HeaderToValue (`io.debezium.transforms.HeaderToValue`, short `header-to-value`): copies (`operation=copy`) or moves
 * (`operation=move`, the header is removed) the headers listed in `headers` into top-level value fields named by
 * the matching entry of `fields` (same length, same order). Missing headers add nothing; tombstones pass through.
 * With schemas, added fields get an optional schema inferred from the header value.
 */
import type { OptionReader } from './options.js';
import { isObject, type JsonObject, type Transform } from './record.js';
import { inferSchema, withFields } from './schema.js';

export function headerToValue(o: OptionReader): Transform {
  const headers = o.list('headers');
  const fields = o.list('fields');
  const operation = o.enumOf('operation', ['copy', 'move'] as const, 'copy');
  if (headers.length === 0) o.add('headers', 'is required.', `set ${o.key('headers')}=<header,...>.`);
  if (fields.length === 0) o.add('fields', 'is required.', `set ${o.key('fields')}=<field,...>, one per header.`);
  else if (headers.length !== fields.length)
    o.add(
      'fields',
      `lists ${fields.length} field(s) for ${headers.length} header(s).`,
      `list exactly one field name per header in ${o.key('headers')}, in the same order.`,
    );
  return (r) => {
    if (!isObject(r.value)) return [r];
    const value: JsonObject = { ...r.value };
    const out = { ...r, value, headers: { ...r.headers } };
    const added: { field: string; schema: JsonObject }[] = [];
    headers.forEach((h, i) => {
      const field = fields[i];
      if (field === undefined || !Object.hasOwn(r.headers, h)) return;
      value[field] = r.headers[h];
      added.push({ field, schema: inferSchema(r.headers[h]) });
      if (operation === 'move') delete out.headers[h];
    });
    if (isObject(r.valueSchema) && added.length > 0) out.valueSchema = withFields(r.valueSchema, added);
    return [out];
  };
}
