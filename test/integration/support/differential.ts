/**
 * Record-by-record comparison of two event streams (Debezium's and ours), after a normalisation that removes, by
 * name, the fields that may legitimately differ. What remains is a list of differences, each to be explained by a
 * documented entry of docs/debezium-compatibility.md (see debezium-differences.ts).
 */
import type { SinkLine } from './capture.js';

/**
 * Fields allowed to differ, by generalised path (array indexes as `[]`, a schemas-on `payload.` level removed).
 * Each is a fact of the run rather than of the event mapping.
 */
export const IGNORED_FIELDS: Record<string, string> = {
  'value.source.version': 'the product version, not a wire contract',
  'value.source.connector':
    'Debezium serves MariaDB with its "mariadb" connector; we emit the MySQL connector\'s "mysql"',
  'value.ts_ms': 'processing time of the connector',
  'value.ts_us': 'processing time of the connector',
  'value.ts_ns': 'processing time of the connector',
  'headers.__debezium.context.runId': 'a random id per connector run',
};

const MARIADB_NS = 'io.debezium.connector.mariadb.';
const MYSQL_NS = 'io.debezium.connector.mysql.';

/** Snapshot reads carry the time the row was read (there is no binlog event): equal only by chance. */
const SNAPSHOT_TIMES = ['value.source.ts_ms', 'value.source.ts_us', 'value.source.ts_ns'];

export type DiffKind = 'field' | 'missing' | 'extra' | 'failed';

export interface Diff {
  kind: DiffKind;
  topic: string;
  /** Alignment identity of the record (op and key, DDL text, ...). */
  identity: string;
  /** Generalised path (`value.after.c`, `value.tableChanges[].table.columns[].jdbcType`); '' for missing/extra. */
  path: string;
  exactPath: string;
  /** Debezium's value at the path (or record, for missing), ours (or record, for extra). */
  debezium: unknown;
  ours: unknown;
  /** Debezium's (or, for extra records, our) full record, for predicates that need context. */
  record: SinkLine;
}

type Json = unknown;

function isObject(v: Json): v is Record<string, Json> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The payload of a value, whether the converter wrapped it in {schema, payload} or not. */
export function payload(line: SinkLine): Record<string, Json> | null {
  const v = line.value as Json;
  if (!isObject(v)) return null;
  if ('schema' in v && 'payload' in v) return isObject(v.payload) ? v.payload : null;
  return v;
}

function keyPayload(line: SinkLine): Json {
  const k = line.key as Json;
  if (isObject(k) && 'schema' in k && 'payload' in k) return k.payload;
  return k;
}

export function identity(line: SinkLine): string {
  const v = payload(line);
  const key = JSON.stringify(keyPayload(line));
  if (line.value === null) return `tombstone ${key}`;
  if (!v) return `? ${key}`;
  if (typeof v.op === 'string') return `${v.op} ${key}`;
  if (typeof v.ddl === 'string') return `ddl ${v.ddl}`;
  if (typeof v.status === 'string') return `tx ${v.status} ${String(v.id)}`;
  return `record ${key}`;
}

function generalise(path: string): string {
  return path.replace(/\[\d+\]/g, '[]').replace(/^(key|value)\.payload\./, '$1.');
}

function walk(a: Json, b: Json, path: string, out: Array<{ path: string; a: Json; b: Json }>): void {
  if (Array.isArray(a) && Array.isArray(b)) {
    const n = Math.max(a.length, b.length);
    for (let i = 0; i < n; i++) walk(a[i], b[i], `${path}[${i}]`, out);
    return;
  }
  if (isObject(a) && isObject(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      walk(k in a ? a[k] : undefined, k in b ? b[k] : undefined, path ? `${path}.${k}` : k, out);
    }
    return;
  }
  if (JSON.stringify(a) !== JSON.stringify(b)) out.push({ path, a, b });
}

/** Longest common subsequence of two identity lists: the aligned index pairs. */
function align(a: string[], b: string[]): Array<[number, number]> {
  const n = a.length;
  const m = b.length;
  const dp: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      dp[i]![j] = a[i] === b[j] ? dp[i + 1]![j + 1]! + 1 : Math.max(dp[i + 1]![j]!, dp[i]![j + 1]!);
    }
  }
  const pairs: Array<[number, number]> = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      pairs.push([i, j]);
      i++;
      j++;
    } else if (dp[i + 1]![j]! >= dp[i]![j + 1]!) i++;
    else j++;
  }
  return pairs;
}

function byTopic(lines: SinkLine[]): Map<string, SinkLine[]> {
  const m = new Map<string, SinkLine[]>();
  for (const l of lines) {
    const list = m.get(l.topic) ?? [];
    list.push(l);
    m.set(l.topic, list);
  }
  return m;
}

/** Compares two streams topic by topic (order within a topic matters; across topics it is not compared). */
export function compareStreams(debezium: SinkLine[], ours: SinkLine[]): Diff[] {
  const diffs: Diff[] = [];
  const d = byTopic(debezium);
  const o = byTopic(ours);
  for (const topic of new Set([...d.keys(), ...o.keys()])) {
    const dl = d.get(topic) ?? [];
    const ol = o.get(topic) ?? [];
    const di = dl.map(identity);
    const oi = ol.map(identity);
    const pairs = align(di, oi);
    const matchedD = new Set(pairs.map((p) => p[0]));
    const matchedO = new Set(pairs.map((p) => p[1]));
    dl.forEach((rec, i) => {
      if (!matchedD.has(i)) {
        diffs.push({
          kind: 'missing',
          topic,
          identity: di[i]!,
          path: '',
          exactPath: '',
          debezium: rec,
          ours: undefined,
          record: rec,
        });
      }
    });
    ol.forEach((rec, i) => {
      if (!matchedO.has(i)) {
        diffs.push({
          kind: 'extra',
          topic,
          identity: oi[i]!,
          path: '',
          exactPath: '',
          debezium: undefined,
          ours: rec,
          record: rec,
        });
      }
    });
    for (const [i, j] of pairs) {
      const a = dl[i]!;
      const b = ol[j]!;
      const src = payload(a)?.source;
      const snapshot = String(isObject(src) ? src.snapshot : undefined);
      const inSnapshot = snapshot !== 'false' && snapshot !== 'undefined' && snapshot !== 'null';
      const found: Array<{ path: string; a: Json; b: Json }> = [];
      walk(
        { key: a.key, value: a.value, headers: a.headers ?? {} },
        { key: b.key, value: b.value, headers: b.headers ?? {} },
        '',
        found,
      );
      for (const f of found) {
        const path = generalise(f.path);
        if (path in IGNORED_FIELDS) continue;
        if (inSnapshot && SNAPSHOT_TIMES.includes(path)) continue;
        // Schema names of the Source struct and of schema-change keys/values carry the connector's name (see
        // value.source.connector): io.debezium.connector.mariadb.X there, io.debezium.connector.mysql.X here.
        if (typeof f.a === 'string' && typeof f.b === 'string' && f.a.replace(MARIADB_NS, MYSQL_NS) === f.b) continue;
        diffs.push({
          kind: 'field',
          topic,
          identity: di[i]!,
          path,
          exactPath: f.path,
          debezium: f.a,
          ours: f.b,
          record: a,
        });
      }
    }
  }
  return diffs;
}

/** What a matcher may consult besides the difference itself. */
export interface DiffContext {
  /** The databases the scenario captures. */
  databases: string[];
  debezium: SinkLine[];
  ours: SinkLine[];
}

export interface KnownDifference {
  /** Stable name, listed in docs/debezium-compatibility.md. */
  name: string;
  matches(d: Diff, ctx: DiffContext): boolean;
}

export interface Classification {
  unexplained: Diff[];
  observed: Map<string, number>;
}

export function classify(diffs: Diff[], known: KnownDifference[], ctx: DiffContext): Classification {
  const observed = new Map<string, number>();
  const unexplained: Diff[] = [];
  for (const d of diffs) {
    const rule = known.find((k) => k.matches(d, ctx));
    if (rule) observed.set(rule.name, (observed.get(rule.name) ?? 0) + 1);
    else unexplained.push(d);
  }
  return { unexplained, observed };
}

/** A readable, bounded report of unexplained differences (grouped by kind, topic pattern and path). */
export function describe(diffs: Diff[], limit = 40): string {
  const groups = new Map<string, Diff[]>();
  for (const d of diffs) {
    const g = `${d.kind} ${d.path || d.identity.split(' ')[0]} (topic ${d.topic})`;
    groups.set(g, [...(groups.get(g) ?? []), d]);
  }
  const lines: string[] = [];
  for (const [g, list] of [...groups].slice(0, limit)) {
    const ex = list[0]!;
    const show = (v: unknown) => {
      const s = JSON.stringify(v);
      return s && s.length > 400 ? `${s.slice(0, 400)}…` : s;
    };
    lines.push(
      `${g} ×${list.length}: ${ex.identity.slice(0, 160)}\n    debezium: ${show(ex.debezium)}\n    ours:     ${show(ex.ours)}`,
    );
  }
  if (groups.size > limit) lines.push(`… ${groups.size - limit} more groups`);
  return lines.join('\n');
}
