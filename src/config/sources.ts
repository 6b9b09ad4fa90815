/**
 * Configuration sources, each turned into a flat `key → string` map plus problems: JSON and Java `.properties`
 * files, `CDC_*` environment variables, `--set key=value` overrides, and `${env:VAR}` / `${file:/path}` value
 * references (Kafka Connect config-provider style). Nothing here validates values; `parseConfig` does.
 */
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import type { ConfigProblem } from '../common/config-error.js';
import { splitList } from '../common/config-values.js';
import { suggest } from '../common/suggest.js';
import { knownNames, PROPERTIES } from './properties.js';

export interface SourceResult {
  readonly values: Record<string, string>;
  readonly problems: ConfigProblem[];
}

// ---------------------------------------------------------------- .properties

/**
 * Parse Java `.properties` text: `#`/`!` comment lines, `key=value`, `key: value` and `key value`, continuation
 * lines ending in an odd number of backslashes, escapes (`\t \n \r \f \uXXXX`, `\x` → `x`). Last key wins.
 */
export function parseProperties(text: string, source = 'properties'): SourceResult {
  const values: Record<string, string> = {};
  const problems: ConfigProblem[] = [];
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    let line = stripLeading(lines[i]);
    if (line === '' || line[0] === '#' || line[0] === '!') continue;
    while (endsWithOddBackslashes(line)) {
      line = line.slice(0, -1);
      if (i + 1 >= lines.length) break;
      line += stripLeading(lines[++i]);
    }
    const parsed = parseLogicalLine(line);
    if (parsed.error) {
      problems.push({
        property: parsed.key || `${source}:${lineNo}`,
        message: `${parsed.error} (${source} line ${lineNo}).`,
        fix: 'write unicode escapes as \\u followed by exactly four hex digits, or a literal backslash as \\\\.',
      });
      continue;
    }
    values[parsed.key] = parsed.value;
  }
  return { values, problems };
}

function stripLeading(s: string): string {
  return s.replace(/^[ \t\f]+/, '');
}

function endsWithOddBackslashes(s: string): boolean {
  let n = 0;
  for (let i = s.length - 1; i >= 0 && s[i] === '\\'; i--) n++;
  return n % 2 === 1;
}

function parseLogicalLine(line: string): { key: string; value: string; error?: string } {
  let i = 0;
  let key = '';
  let error: string | undefined;
  const readEscape = (): string => {
    const c = line[i + 1];
    i += 2;
    switch (c) {
      case 't':
        return '\t';
      case 'n':
        return '\n';
      case 'r':
        return '\r';
      case 'f':
        return '\f';
      case 'u': {
        const hex = line.slice(i, i + 4);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
          error ??= `malformed \\u escape '\\u${hex}'`;
          return '';
        }
        i += 4;
        return String.fromCharCode(Number.parseInt(hex, 16));
      }
      default:
        return c ?? '';
    }
  };
  while (i < line.length) {
    const c = line[i];
    if (c === '\\') key += readEscape();
    else if (c === '=' || c === ':' || c === ' ' || c === '\t' || c === '\f') break;
    else {
      key += c;
      i++;
    }
  }
  while (i < line.length && /[ \t\f]/.test(line[i])) i++;
  if (line[i] === '=' || line[i] === ':') i++;
  while (i < line.length && /[ \t\f]/.test(line[i])) i++;
  let value = '';
  while (i < line.length) {
    if (line[i] === '\\') value += readEscape();
    else value += line[i++];
  }
  return error ? { key, value, error } : { key, value };
}

// ---------------------------------------------------------------- JSON

/**
 * Parse a JSON object; nested objects are flattened with dots, arrays joined with commas, nulls skipped. Kafka
 * Connect's REST shape `{"name": ..., "config": {...}}` (as POSTed to /connectors, or returned with `tasks` and
 * `type`) is unwrapped: the keys come from `config`, and the outer `name` is used unless `config` has one.
 */
export function parseJsonConfig(text: string, source = 'JSON'): SourceResult {
  const values: Record<string, string> = {};
  const problems: ConfigProblem[] = [];
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    // The parser's message may quote file content (possibly a password); report the position only.
    const pos = /position (\d+)/.exec((err as Error).message)?.[1];
    problems.push({
      property: source,
      message: `is not valid JSON${pos ? ` (near character ${pos})` : ''}.`,
      fix: 'fix the JSON syntax, or use a .properties file.',
    });
    return { values, problems };
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    problems.push({
      property: source,
      message: 'must contain a JSON object.',
      fix: 'write {"database.hostname": "..."}.',
    });
    return { values, problems };
  }
  const walk = (obj: Record<string, unknown>, prefix: string) => {
    for (const [k, v] of Object.entries(obj)) {
      const key = prefix ? `${prefix}.${k}` : k;
      if (v === null) continue;
      if (Array.isArray(v)) {
        if (v.every((x) => ['string', 'number', 'boolean'].includes(typeof x))) values[key] = v.join(',');
        else
          problems.push({
            property: key,
            message: `holds an array of non-scalar values (${source}).`,
            fix: 'use a list of strings.',
          });
      } else if (typeof v === 'object') walk(v as Record<string, unknown>, key);
      else values[key] = String(v);
    }
  };
  const rest = unwrapKafkaConnect(doc as Record<string, unknown>);
  walk(rest?.config ?? (doc as Record<string, unknown>), '');
  if (rest?.name !== undefined && values.name === undefined) values.name = rest.name;
  return { values, problems };
}

/** The `config` object and outer `name` of a Kafka Connect REST document, or null for a plain config object. */
function unwrapKafkaConnect(
  doc: Record<string, unknown>,
): { config: Record<string, unknown>; name: string | undefined } | null {
  const config = doc.config;
  if (config === null || typeof config !== 'object' || Array.isArray(config)) return null;
  if (!Object.keys(doc).every((k) => k === 'name' || k === 'config' || k === 'tasks' || k === 'type')) return null;
  return { config: config as Record<string, unknown>, name: typeof doc.name === 'string' ? doc.name : undefined };
}

// ---------------------------------------------------------------- Debezium Server

/** True when a properties map is a Debezium Server `application.properties` (`debezium.source.*` keys). */
export function isDebeziumServerConfig(values: Readonly<Record<string, string>>): boolean {
  return Object.keys(values).some((k) => k.startsWith('debezium.source.') || k.startsWith('debezium.sink.'));
}

/**
 * Map Debezium Server keys onto ours: `debezium.source.<key>` → `<key>`, `debezium.sink.type` → `sink.type`,
 * `debezium.sink.kinesis.{region,endpoint}` → `sink.kinesis.*`, `debezium.sink.kafka.producer.<p>` →
 * `sink.kafka.<p>`, `debezium.format.{key,value}.schemas.enable` → `{key,value}.converter.schemas.enable`,
 * `debezium.transforms*` / `debezium.predicates*` → `transforms*` / `predicates*`. With the Kinesis sink and no
 * stream name, each topic goes to the stream of the same name as in Debezium Server (template `{topic}`).
 * Other keys are kept as they are; the catalog accepts and ignores the remaining `debezium.*` and `quarkus.*`.
 */
export function fromDebeziumServer(values: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  const mapped: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) {
    let target: string | null = null;
    if (key.startsWith('debezium.source.')) target = key.slice('debezium.source.'.length);
    else if (key === 'debezium.sink.type') target = 'sink.type';
    else if (key === 'debezium.sink.kinesis.region' || key === 'debezium.sink.kinesis.endpoint')
      target = key.slice('debezium.'.length);
    else if (key.startsWith('debezium.sink.kafka.producer.'))
      target = `sink.kafka.${key.slice('debezium.sink.kafka.producer.'.length)}`;
    else if (key === 'debezium.format.key.schemas.enable') target = 'key.converter.schemas.enable';
    else if (key === 'debezium.format.value.schemas.enable') target = 'value.converter.schemas.enable';
    else if (/^debezium\.(transforms|predicates)(\.|$)/.test(key)) target = key.slice('debezium.'.length);
    if (target === null) out[key] = value;
    else mapped[target] = value;
  }
  // Keys written without the prefix in the same file win over mapped ones.
  for (const [k, v] of Object.entries(mapped)) if (!(k in out)) out[k] = v;
  if (
    out['sink.type']?.trim().toLowerCase() === 'kinesis' &&
    out['sink.kinesis.stream.name'] === undefined &&
    out['sink.kinesis.stream.name.template'] === undefined
  )
    out['sink.kinesis.stream.name.template'] = '{topic}';
  return out;
}

/** Read a config file: `.json` as JSON, anything else as `.properties`. */
export function readConfigFile(
  path: string,
  read: (p: string) => string = (p) => readFileSync(p, 'utf8'),
): SourceResult {
  let text: string;
  try {
    text = read(path);
  } catch (err) {
    return {
      values: {},
      problems: [
        {
          property: path,
          message: `cannot read the configuration file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}).`,
          fix: 'check the --config path and its permissions.',
        },
      ],
    };
  }
  if (extname(path).toLowerCase() === '.json') return parseJsonConfig(text, path);
  const parsed = parseProperties(text, path);
  return isDebeziumServerConfig(parsed.values)
    ? { values: fromDebeziumServer(parsed.values), problems: parsed.problems }
    : parsed;
}

// ---------------------------------------------------------------- environment

export const ENV_PREFIX = 'CDC_';
/** Variables under CDC_ that belong to tooling, not to the connector configuration (CDC_COMPILED: bin/cdc.js). */
export const DEFAULT_ENV_IGNORE: readonly RegExp[] = [/^CDC_TEST_/, /^CDC_IT_/, /^CDC_COMPILED$/];

/** `database.hostname` → `CDC_DATABASE_HOSTNAME`. */
export function envName(key: string): string {
  return ENV_PREFIX + key.toUpperCase().replace(/[^A-Z0-9]/g, '_');
}

let envIndex: Map<string, string> | undefined;
function fixedEnvIndex(): Map<string, string> {
  envIndex ??= new Map(knownNames().map((k) => [envName(k), k]));
  return envIndex;
}

export interface EnvOptions {
  /**
   * Values already known from earlier sources; used to map ambiguous pattern-property variables such as
   * `CDC_TRANSFORMS_<NAME>_TYPE` or `CDC_SNAPSHOT_SELECT_STATEMENT_OVERRIDES_<DB>_<TABLE>`.
   */
  readonly context?: Readonly<Record<string, string>>;
  readonly ignore?: readonly RegExp[];
  /**
   * Variables named by a `${env:VAR}` reference in some value: they are the reference's target, not a property,
   * so a `CDC_` prefix (e.g. `${env:CDC_DB_PASSWORD}`) must not make them an unknown-property problem.
   */
  readonly referenced?: ReadonlySet<string>;
}

/**
 * Map `CDC_*` variables to property keys by matching against the catalog (since `_` may stand for `.` or `-`).
 * Pattern properties are mapped best effort: `CDC_SINK_KAFKA_*`, `CDC_COLUMN_MASK_WITH_<N>_CHARS`,
 * `CDC_COLUMN_TRUNCATE_TO_<N>_CHARS`, `CDC_COLUMN_MASK_HASH_<ALG>_WITH_SALT_<salt>` (salt keeps its case), and
 * transform / select-override keys whose names are listed in `transforms` / `snapshot.select.statement.overrides`.
 * Unmappable `CDC_*` variables are problems with a did-you-mean.
 */
export function envToConfig(env: Readonly<Record<string, string | undefined>>, options: EnvOptions = {}): SourceResult {
  const values: Record<string, string> = {};
  const problems: ConfigProblem[] = [];
  const ignore = options.ignore ?? DEFAULT_ENV_IGNORE;
  const index = fixedEnvIndex();
  const pending: [string, string][] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || !name.toUpperCase().startsWith(ENV_PREFIX) || ignore.some((r) => r.test(name))) continue;
    const key = index.get(name.toUpperCase());
    if (key) values[key] = value;
    else pending.push([name, value]);
  }
  const context = { ...options.context, ...values };
  for (const [name, value] of pending) {
    const key = mapPatternEnv(name, context);
    if (key) values[key] = value;
    else if (options.referenced?.has(name)) continue;
    else {
      const [guess] = suggest(name.toUpperCase(), index.keys());
      const upper = name.toUpperCase();
      const fix = upper.startsWith('CDC_TRANSFORMS_')
        ? 'list the transform name in transforms (CDC_TRANSFORMS) so the variable can be mapped, or unset it.'
        : upper.startsWith('CDC_SNAPSHOT_SELECT_STATEMENT_OVERRIDES_')
          ? 'list the table in snapshot.select.statement.overrides so the variable can be mapped, or use --set.'
          : guess
            ? `did you mean ${guess} (${index.get(guess)})? Otherwise unset it.`
            : 'unset it, or set the property in the config file or with --set (see docs/configuration.md).';
      problems.push({
        property: name,
        message: 'is a CDC_ environment variable that names no configuration property.',
        fix,
      });
    }
  }
  return { values, problems };
}

function mapPatternEnv(name: string, context: Readonly<Record<string, string>>): string | null {
  const rest = name.slice(ENV_PREFIX.length);
  const upper = rest.toUpperCase();
  const dotted = (s: string) => s.toLowerCase().replace(/_/g, '.');
  const mask = /^COLUMN_MASK_WITH_(\d+)_CHARS$/.exec(upper);
  if (mask) return `column.mask.with.${mask[1]}.chars`;
  const truncate = /^COLUMN_TRUNCATE_TO_(\d+)_CHARS$/.exec(upper);
  if (truncate) return `column.truncate.to.${truncate[1]}.chars`;
  const hash = /^COLUMN_MASK_HASH_(V2_)?([A-Z0-9_]+?)_WITH_SALT_(.+)$/i.exec(rest);
  if (hash)
    return `column.mask.hash.${hash[1] ? 'v2.' : ''}${hash[2].toUpperCase().replace(/_/g, '-')}.with.salt.${hash[3]}`;
  if (upper.startsWith('SINK_KAFKA_')) return `sink.kafka.${dotted(rest.slice('SINK_KAFKA_'.length))}`;
  if (upper.startsWith('TRANSFORMS_')) {
    for (const t of splitList(context.transforms ?? '')) {
      const head = `TRANSFORMS_${t.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_`;
      if (upper.startsWith(head) && upper.length > head.length)
        return `transforms.${t}.${dotted(rest.slice(head.length))}`;
    }
    return null;
  }
  const overrides = 'SNAPSHOT_SELECT_STATEMENT_OVERRIDES_';
  if (upper.startsWith(overrides)) {
    const table = splitList(context['snapshot.select.statement.overrides'] ?? '').find(
      (t) => t.toUpperCase().replace(/[^A-Z0-9]/g, '_') === upper.slice(overrides.length),
    );
    return table ? `snapshot.select.statement.overrides.${table}` : null;
  }
  return null;
}

// ---------------------------------------------------------------- overrides

/** `--set key=value` items (split at the first `=`). */
export function parseOverrides(items: readonly string[]): SourceResult {
  const values: Record<string, string> = {};
  const problems: ConfigProblem[] = [];
  for (const item of items) {
    const eq = item.indexOf('=');
    if (eq <= 0) {
      problems.push({
        property: eq === 0 ? '(--set)' : item,
        message: `'--set ${eq === 0 ? item : item.slice(0, 60)}' is not key=value.`,
        fix: 'write --set <property>=<value>, e.g. --set database.port=3307.',
      });
      continue;
    }
    values[item.slice(0, eq).trim()] = item.slice(eq + 1);
  }
  return { values, problems };
}

// ---------------------------------------------------------------- references

export interface ReferenceOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly readFile?: (path: string) => string;
}

const REFERENCE = /\$\{(env|file):([^}]+)\}/g;

/** Names of the environment variables that `${env:VAR}` references in `values` point at. */
export function referencedEnvNames(values: Iterable<string>): Set<string> {
  const names = new Set<string>();
  for (const v of values) for (const m of v.matchAll(REFERENCE)) if (m[1] === 'env') names.add(m[2]);
  return names;
}

/**
 * Replace `${env:VAR}` with the variable and `${file:/path}` with the file's content (one trailing newline
 * removed). Unresolvable references are problems; values and file contents never appear in messages.
 */
export function expandReferences(
  values: Readonly<Record<string, string>>,
  options: ReferenceOptions = {},
): SourceResult {
  const env = options.env ?? process.env;
  const read = options.readFile ?? ((p: string) => readFileSync(p, 'utf8'));
  const out: Record<string, string> = {};
  const problems: ConfigProblem[] = [];
  for (const [key, value] of Object.entries(values)) {
    out[key] = value.replace(REFERENCE, (whole, kind: string, ref: string) => {
      if (kind === 'env') {
        const v = env[ref];
        if (v !== undefined) return v;
        problems.push({
          property: key,
          message: `references environment variable ${ref}, which is not set.`,
          fix: `export ${ref}, or change ${key}.`,
        });
        return whole;
      }
      try {
        return read(ref).replace(/\r?\n$/, '');
      } catch (err) {
        problems.push({
          property: key,
          message: `references file ${ref}, which cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'}).`,
          fix: `create ${ref} or fix the path in ${key}.`,
        });
        return whole;
      }
    });
  }
  return { values: out, problems };
}

/** Property names a user can set, for shells and completion: every fixed name with its env variable. */
export function envNames(): { key: string; env: string }[] {
  return PROPERTIES.filter((p) => !p.pattern && !p.ignored && !p.unsupported).map((p) => ({
    key: p.name,
    env: envName(p.name),
  }));
}
