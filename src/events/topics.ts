/**
 * Topic and schema names as Debezium's DefaultTopicNamingStrategy and SchemaNameAdjuster produce them.
 */

/** Kafka's limit, TopicNamingStrategy.MAX_NAME_LENGTH. */
const MAX_TOPIC_LENGTH = 249;

function isValidTopicChar(c: number): boolean {
  return (
    c === 46 /* . */ ||
    c === 95 /* _ */ ||
    c === 45 /* - */ ||
    (c >= 65 && c <= 90) ||
    (c >= 97 && c <= 122) ||
    (c >= 48 && c <= 57)
  );
}

/** AbstractTopicNamingStrategy.sanitizedTopicName: invalid characters → '_', max 249 chars, '.'/'..' escaped. */
export function sanitizeTopicName(name: string): string {
  let out = '';
  for (let i = 0; i < name.length; i++) out += isValidTopicChar(name.charCodeAt(i)) ? name[i] : '_';
  if (out.length > MAX_TOPIC_LENGTH) return out.slice(0, MAX_TOPIC_LENGTH);
  if (out === '.') return '_';
  if (out === '..') return '__';
  return out;
}

/** Data change topic `<prefix>.<db>.<table>` (blank parts skipped, as mkString does). */
export function dataChangeTopic(prefix: string, database: string, table: string, delimiter = '.'): string {
  return sanitizeTopicName([prefix, database, table].filter((p) => p.trim().length > 0).join(delimiter));
}

/** Schema change topic: the prefix itself. */
export function schemaChangeTopic(prefix: string): string {
  return prefix;
}

/** `<prefix>.transaction` (topic.transaction overrides the last part). */
export function transactionTopic(prefix: string, name = 'transaction', delimiter = '.'): string {
  return `${prefix}${delimiter}${name}`;
}

/** `__debezium-heartbeat.<prefix>` (topic.heartbeat.prefix overrides the first part). */
export function heartbeatTopic(prefix: string, heartbeatPrefix = '__debezium-heartbeat', delimiter = '.'): string {
  return `${heartbeatPrefix}${delimiter}${prefix}`;
}

function isAvroFirst(c: number): boolean {
  return c === 95 || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}
function isAvroOther(c: number): boolean {
  return isAvroFirst(c) || c === 46 || (c >= 48 && c <= 57);
}

/**
 * SchemaNameAdjuster in 'avro' mode (validFullname with '_'): invalid characters → '_', and a leading digit is
 * kept after the '_' it is replaced with. 'none' (Debezium's default) leaves names unchanged.
 */
export function adjustSchemaName(name: string, mode: 'none' | 'avro'): string {
  if (mode === 'none' || name.length === 0) return name;
  let out = '';
  const c0 = name.charCodeAt(0);
  if (isAvroFirst(c0)) out += name[0];
  else out += c0 >= 48 && c0 <= 57 ? `_${name[0]}` : '_';
  for (let i = 1; i < name.length; i++) out += isAvroOther(name.charCodeAt(i)) ? name[i] : '_';
  return out;
}
