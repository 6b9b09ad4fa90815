/**
 * Topic routers: Kafka's RegexRouter, Debezium's ByLogicalTableRouter, and a tombstone router.
 */
import { javaReplacement, type OptionReader } from './options.js';
import { asEnvelope, isObject, type JsonObject, type Transform } from './record.js';
import { withFields } from './schema.js';

/**
 * RegexRouter (`org.apache.kafka.connect.transforms.RegexRouter`): when `regex` matches the whole topic, the topic
 * becomes `replacement` (`$1` refers to groups). Other records pass through.
 */
export function regexRouter(o: OptionReader): Transform {
  const regex = o.regex('regex', true);
  const replacement = javaReplacement(o.required('replacement', `set ${o.key('replacement')}=<topic>, e.g. $1.`));
  return (r) => {
    if (!regex?.test(r.topic)) return [r];
    return [{ ...r, topic: r.topic.replace(regex, replacement) }];
  };
}

/**
 * ByLogicalTableRouter (`io.debezium.transforms.ByLogicalTableRouter`, short `router`): merges the topics of
 * physical tables (e.g. shards `orders_\d+`) into one logical topic. `topic.regex` must match the whole topic;
 * `topic.replacement` builds the new one. With `key.enforce.uniqueness=true` (default) the key gains a field
 * `key.field.name` (@default `__dbz__physicalTableIdentifier`) holding the original topic — or, when
 * `key.field.regex` matches it, `key.field.replacement` applied to it — so rows with equal primary keys in
 * different shards stay distinct. Tombstones are routed and re-keyed the same way.
 */
export function byLogicalTableRouter(o: OptionReader): Transform {
  const topicRegex = o.regex('topic.regex', true);
  const topicReplacement = javaReplacement(
    o.required('topic.replacement', `set ${o.key('topic.replacement')}=<logical topic>, e.g. $1.orders.`),
  );
  const enforce = o.bool('key.enforce.uniqueness', true);
  const keyField = o.str('key.field.name', '__dbz__physicalTableIdentifier');
  const keyRegex = o.regex('key.field.regex', false);
  const keyReplacementRaw = o.str('key.field.replacement');
  if ((keyRegex === undefined) !== (keyReplacementRaw === undefined) && (o.has('key.field.regex') || keyReplacementRaw))
    o.add(
      keyRegex ? 'key.field.replacement' : 'key.field.regex',
      'must be set together with its counterpart.',
      `set both ${o.key('key.field.regex')} and ${o.key('key.field.replacement')}, or neither.`,
    );
  const keyReplacement = keyReplacementRaw === undefined ? undefined : javaReplacement(keyReplacementRaw);
  o.str('schema.name.adjustment.mode');
  o.str('logical.table.cache.size');

  return (r) => {
    if (!topicRegex?.test(r.topic)) return [r];
    const topic = r.topic.replace(topicRegex, topicReplacement);
    const out = { ...r, topic };
    if (enforce && r.key !== null) {
      const id: string =
        keyRegex && keyReplacement !== undefined && keyRegex.test(r.topic)
          ? r.topic.replace(keyRegex, keyReplacement)
          : r.topic;
      const key: JsonObject = isObject(r.key) ? { ...r.key } : { value: r.key };
      key[keyField] = id;
      out.key = key;
      if (isObject(r.keySchema))
        out.keySchema = withFields(r.keySchema, [{ field: keyField, schema: { type: 'string', optional: false } }]);
    }
    return [out];
  };
}

/**
 * Tombstone router (short `tombstone-router`, no Debezium equivalent): sends tombstones — and with
 * `include.deletes=true` delete events too — to `topic.template` (@default `{topic}.tombstones`; `{topic}` is the
 * record's topic), or drops them with `behavior=drop` (@default route).
 */
export function tombstoneRouter(o: OptionReader): Transform {
  const behavior = o.enumOf('behavior', ['route', 'drop'] as const, 'route');
  const template = o.str('topic.template', '{topic}.tombstones');
  if (!template.includes('{topic}') && /[{}]/.test(template))
    o.add('topic.template', `'${template}' has an unknown placeholder.`, 'use {topic} or a fixed topic name.');
  const deletes = o.bool('include.deletes', false);
  return (r) => {
    const hit = r.value === null || (deletes && asEnvelope(r.value)?.op === 'd');
    if (!hit) return [r];
    if (behavior === 'drop') return [];
    return [{ ...r, topic: template.replaceAll('{topic}', r.topic) }];
  };
}
