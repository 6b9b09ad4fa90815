/**
 * Transform configuration without the rest of a connector configuration: from a properties/JSON map (only the
 * `transforms` and `transforms.*` keys are read, others are ignored), or from environment variables
 * (`CDC_TRANSFORMS=a,b`, `CDC_TRANSFORMS_A_TYPE=unwrap`, `CDC_TRANSFORMS_A_ADD_FIELDS=op`; `_` stands for `.` in
 * option names) or one JSON variable holding such a map (`TRANSFORMS_CONFIG`).
 */
import type { ConfigProblem } from '../common/config-error.js';
import { splitList } from '../common/config-values.js';
import type { Secret } from '../common/secret.js';
import { suggest } from '../common/suggest.js';
import { TransformConfigError } from './options.js';

/** One `transforms.<name>` entry of the connector configuration. */
export interface TransformConfig {
  readonly name: string;
  /** `transforms.<name>.type`, e.g. `io.debezium.transforms.ExtractNewRecordState`. */
  readonly type: string;
  /** Remaining `transforms.<name>.*` keys without the prefix; credential-like values are `Secret`s. */
  readonly options: Readonly<Record<string, string | Secret>>;
}

/** Transform configs from a flat properties map; throws TransformConfigError listing every problem. */
export function parseTransformsConfig(raw: Readonly<Record<string, string>>): TransformConfig[] {
  const problems: ConfigProblem[] = [];
  const names = splitList(raw.transforms ?? '');
  const byName = new Map<string, { type: string; options: Record<string, string> }>();
  for (const n of names) {
    if (byName.has(n))
      problems.push({ property: 'transforms', message: `lists '${n}' twice.`, fix: 'list each transform once.' });
    if (!/^[A-Za-z0-9_-]+$/.test(n))
      problems.push({
        property: 'transforms',
        message: `name '${n}' may only contain letters, digits, '_' and '-'.`,
        fix: 'rename the transform.',
      });
    byName.set(n, { type: '', options: {} });
  }
  for (const [key, value] of Object.entries(raw)) {
    const m = /^transforms\.([^.]+)\.(.+)$/.exec(key);
    if (!m) continue;
    const [, tname, option] = m;
    const t = byName.get(tname);
    if (!t) {
      const [guess] = suggest(tname, byName.keys());
      problems.push({
        property: key,
        message: `configures transform '${tname}', which is not listed in transforms.`,
        fix: guess ? `did you mean transforms.${guess}.${option}?` : `add '${tname}' to transforms or remove the key.`,
      });
      continue;
    }
    if (option === 'type') t.type = value.trim();
    else t.options[option] = value;
  }
  const out: TransformConfig[] = [];
  for (const [name, t] of byName) {
    if (!t.type)
      problems.push({
        property: `transforms.${name}.type`,
        message: 'is required.',
        fix: `set transforms.${name}.type=<transform class>, e.g. io.debezium.transforms.ExtractNewRecordState.`,
      });
    out.push({ name, type: t.type, options: t.options });
  }
  if (problems.length > 0) throw new TransformConfigError(problems);
  return out;
}

/**
 * Transform configs from the environment: `TRANSFORMS_CONFIG` (a JSON object of properties) when set, plus
 * `CDC_TRANSFORMS` / `CDC_TRANSFORMS_<NAME>_<OPTION>` variables (which win).
 */
export function transformsFromEnv(env: Readonly<Record<string, string | undefined>>): TransformConfig[] {
  const raw: Record<string, string> = {};
  const problems: ConfigProblem[] = [];
  const json = env.TRANSFORMS_CONFIG;
  if (json) {
    try {
      const parsed: unknown = JSON.parse(json);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
      for (const [k, v] of Object.entries(parsed)) raw[k] = Array.isArray(v) ? v.join(',') : String(v);
    } catch (err) {
      problems.push({
        property: 'TRANSFORMS_CONFIG',
        message: `is not a JSON object of properties (${(err as Error).message}).`,
        fix: 'set it to e.g. {"transforms":"unwrap","transforms.unwrap.type":"unwrap"}.',
      });
    }
  }
  if (env.CDC_TRANSFORMS !== undefined) raw.transforms = env.CDC_TRANSFORMS;
  const names = splitList(raw.transforms ?? '')
    .map((n) => ({ n, head: `CDC_TRANSFORMS_${n.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_` }))
    .sort((a, b) => b.head.length - a.head.length);
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || !name.startsWith('CDC_TRANSFORMS_')) continue;
    const hit = names.find((x) => name.startsWith(x.head) && name.length > x.head.length);
    if (!hit) {
      problems.push({
        property: name,
        message: 'names no transform listed in CDC_TRANSFORMS.',
        fix: 'list the transform name in CDC_TRANSFORMS, or unset the variable.',
      });
      continue;
    }
    raw[`transforms.${hit.n}.${name.slice(hit.head.length).toLowerCase().replace(/_/g, '.')}`] = value;
  }
  let configs: TransformConfig[] = [];
  try {
    configs = parseTransformsConfig(raw);
  } catch (err) {
    if (!(err instanceof TransformConfigError)) throw err;
    problems.push(...err.problems);
  }
  if (problems.length > 0) throw new TransformConfigError(problems);
  return configs;
}
