/**
 * ExtractChangedRecordState (`io.debezium.transforms.ExtractChangedRecordState`, short `changes`): adds headers
 * listing the row fields an update changed (`header.changed.name`) and left unchanged (`header.unchanged.name`),
 * comparing `before` and `after`. Other data change events (create, read, delete) get both headers as empty lists;
 * records that are not change envelopes pass through. With neither option set it changes nothing.
 */
import { jsonEqual } from './json.js';
import type { OptionReader } from './options.js';
import { asEnvelope, isObject, type Transform } from './record.js';

export function extractChangedRecordState(o: OptionReader): Transform {
  const changedName = o.str('header.changed.name');
  const unchangedName = o.str('header.unchanged.name');
  return (r) => {
    if (!changedName && !unchangedName) return [r];
    const env = asEnvelope(r.value);
    if (!env) return [r];
    const changed: string[] = [];
    const unchanged: string[] = [];
    if (env.op === 'u' && isObject(env.before) && isObject(env.after)) {
      const before = env.before;
      for (const [f, v] of Object.entries(env.after)) (jsonEqual(before[f], v) ? unchanged : changed).push(f);
      for (const f of Object.keys(before)) if (!Object.hasOwn(env.after, f)) changed.push(f);
    }
    const headers = { ...r.headers };
    if (changedName) headers[changedName] = changed;
    if (unchangedName) headers[unchangedName] = unchanged;
    return [{ ...r, headers }];
  };
}
