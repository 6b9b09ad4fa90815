/**
 * TimezoneConverter (`io.debezium.transforms.TimezoneConverter`, short `timezone-converter`): converts timestamp
 * fields of the row state (`before`/`after` of an envelope, or the top-level fields of a flattened record) from UTC
 * to `converted.timezone` — a region (`America/New_York`, daylight saving applied) or a fixed offset (`+02:00`).
 *
 * - `io.debezium.time.ZonedTimestamp` strings are re-expressed in the target zone with the same instant
 *   (`2011-01-11T16:40:30.123456789Z` → `2011-01-11T13:40:30.123456789-03:00`); the fraction is kept as is.
 * - `io.debezium.time.Timestamp` / `MicroTimestamp` / `NanoTimestamp` and Connect `Timestamp` (epoch numbers without
 *   zone, taken as UTC) are shifted by the zone's offset at that instant.
 * Without schemas (our default) field types are not known, so only ZonedTimestamp-shaped strings are converted;
 * enable `value.converter.schemas.enable` to convert the numeric kinds too.
 *
 * `include.list` / `exclude.list` (exclusive) entries: `source:<table>` / `topic:<topic>` (every field of those
 * records), `source:<table>:<field>` / `topic:<topic>:<field>` (one field), where `<table>` is the source table name
 * (`table` or `db.table`). With include.list only matching records/fields convert; exclude.list skips them.
 */
import type { Json } from './json.js';
import type { OptionReader } from './options.js';
import { asEnvelope, isObject, type JsonObject, type Transform, type TransformRecord } from './record.js';
import { fieldSchema } from './schema.js';

const ZONED = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const OFFSET = /^([+-])(\d{2}):(\d{2})$/;

interface Rule {
  kind: 'source' | 'topic';
  name: string;
  field?: string;
}

/** Offset of `zone` from UTC at `epochMs`, in milliseconds. */
export type OffsetFn = (epochMs: number) => number;

export function zoneOffset(zone: string): OffsetFn {
  const fixed = OFFSET.exec(zone);
  if (fixed) {
    const ms = (Number(fixed[2]) * 60 + Number(fixed[3])) * 60_000;
    return () => (fixed[1] === '-' ? -ms : ms);
  }
  if (zone === 'Z' || zone === 'UTC') return () => 0;
  const fmt = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
  return (epochMs) => {
    const whole = Math.floor(epochMs / 1000) * 1000;
    const p: Record<string, number> = {};
    for (const part of fmt.formatToParts(new Date(whole)))
      if (part.type !== 'literal') p[part.type] = Number(part.value);
    return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - whole;
  };
}

function formatOffset(ms: number): string {
  if (ms === 0) return 'Z';
  const m = Math.round(Math.abs(ms) / 60_000);
  return `${ms < 0 ? '-' : '+'}${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
}

/** A ZonedTimestamp string re-expressed in the zone; null when `s` is not one. */
export function convertZoned(s: string, offset: OffsetFn): string | null {
  const m = ZONED.exec(s);
  if (!m) return null;
  const instant = Date.parse(`${m[1]}T${m[2]}${m[4]}`);
  if (Number.isNaN(instant)) return null;
  const off = offset(instant);
  const local = new Date(instant + off).toISOString(); // yyyy-mm-ddThh:mm:ss.000Z
  return `${local.slice(0, 19)}${m[3] ?? ''}${formatOffset(off)}`;
}

const NUMERIC_SCALE: Record<string, number> = {
  'io.debezium.time.Timestamp': 1,
  'org.apache.kafka.connect.data.Timestamp': 1,
  'io.debezium.time.MicroTimestamp': 1_000,
  'io.debezium.time.NanoTimestamp': 1_000_000,
};

function shiftNumeric(v: Json, scale: number, offset: OffsetFn): Json {
  if (typeof v === 'number') return v + offset(v / scale) * scale;
  if (typeof v === 'bigint') return v + BigInt(offset(Number(v / BigInt(scale)))) * BigInt(scale);
  return v;
}

export function timezoneConverter(o: OptionReader): Transform {
  const zone = o.required(
    'converted.timezone',
    `set ${o.key('converted.timezone')}=<zone>, e.g. America/New_York or +02:00.`,
  );
  let offset: OffsetFn = () => 0;
  if (zone !== '') {
    try {
      offset = zoneOffset(zone);
      offset(0);
    } catch {
      o.add(
        'converted.timezone',
        `'${zone}' is not a time zone.`,
        'use an IANA zone such as Europe/Berlin, or an offset such as +02:00.',
      );
    }
  }
  const parseRules = (option: string): Rule[] =>
    o.list(option).flatMap((item) => {
      const m = /^(source|topic):([^:]+)(?::(.+))?$/.exec(item);
      if (!m) {
        o.add(
          option,
          `'${item}' is not source:<table>[:<field>] or topic:<topic>[:<field>].`,
          'write entries such as source:customers:created_at or topic:shop.inventory.orders.',
        );
        return [];
      }
      return [{ kind: m[1] as Rule['kind'], name: m[2], ...(m[3] ? { field: m[3] } : {}) }];
    });
  const include = parseRules('include.list');
  const exclude = parseRules('exclude.list');
  if (o.has('include.list') && o.has('exclude.list'))
    o.add('exclude.list', 'cannot be combined with include.list.', 'set only one of include.list and exclude.list.');

  const matches = (rule: Rule, r: TransformRecord, table: string | null, db: string | null) =>
    rule.kind === 'topic'
      ? rule.name === r.topic
      : table !== null && (rule.name === table || (db !== null && rule.name === `${db}.${table}`));

  /** Per record: which fields to convert (null = every field, empty set = none). */
  const selection = (r: TransformRecord, table: string | null, db: string | null): Set<string> | null | 'none' => {
    const rules = include.length > 0 ? include : exclude;
    if (rules.length === 0) return null;
    const hit = rules.filter((rule) => matches(rule, r, table, db));
    const whole = hit.some((h) => h.field === undefined);
    const fields = new Set(hit.flatMap((h) => (h.field ? [h.field] : [])));
    if (include.length > 0) return whole ? null : fields.size > 0 ? fields : 'none';
    if (whole) return 'none';
    return fields.size > 0 ? new Set([`!`, ...fields]) : null;
  };

  const convertRow = (row: Json | undefined, schema: JsonObject | undefined, pick: Set<string> | null) => {
    if (!isObject(row)) return row;
    const out: JsonObject = { ...row };
    const negated = pick?.has('!') ?? false;
    for (const [f, v] of Object.entries(row)) {
      if (pick && (negated ? pick.has(f) : !pick.has(f))) continue;
      const name = fieldSchema(schema, f)?.name;
      if (typeof v === 'string') {
        if (name !== undefined && name !== 'io.debezium.time.ZonedTimestamp') continue;
        const c = convertZoned(v, offset);
        if (c !== null) out[f] = c;
      } else if (typeof name === 'string' && NUMERIC_SCALE[name] !== undefined && v !== null) {
        out[f] = shiftNumeric(v, NUMERIC_SCALE[name], offset);
      }
    }
    return out;
  };

  return (r) => {
    if (!isObject(r.value)) return [r];
    const env = asEnvelope(r.value);
    // Schema change events (and other non-row records with metadata) are not row state.
    if (!env && ('source' in r.value || 'ddl' in r.value)) return [r];
    const source = env?.source ?? (isObject(r.value.source) ? r.value.source : undefined);
    const table = typeof source?.table === 'string' ? source.table : (r.table?.split('.').slice(1).join('.') ?? null);
    const db = typeof source?.db === 'string' ? source.db : (r.table?.split('.')[0] ?? null);
    const pick = selection(r, table, db);
    if (pick === 'none') return [r];
    if (env) {
      const value: JsonObject = { ...env };
      for (const f of ['before', 'after'] as const) {
        if (f in env) value[f] = convertRow(env[f], fieldSchema(r.valueSchema, f), pick) ?? null;
      }
      return [{ ...r, value }];
    }
    const schema = isObject(r.valueSchema) ? r.valueSchema : undefined;
    return [{ ...r, value: convertRow(r.value, schema, pick) ?? null }];
  };
}
