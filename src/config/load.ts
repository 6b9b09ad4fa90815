/**
 * Loading glue: read the sources, apply precedence (file < env < overrides), expand `${env:}`/`${file:}`
 * references, then parse once. Problems from every stage are reported together in one ConfigError.
 */
import { ConfigError, type ConfigProblem } from '../common/config-error.js';
import { canonicalize } from './normalize.js';
import { checkConfig } from './parse.js';
import { resolveSecrets, type SecretsClient } from './secrets.js';
import { envToConfig, expandReferences, parseOverrides, readConfigFile, referencedEnvNames } from './sources.js';
import type { CdcConfig } from './types.js';

export { checkConfig, parseConfig } from './parse.js';

export interface LoadOptions {
  /** Path of a `.json` or `.properties` file. */
  readonly file?: string;
  /** Environment to read `CDC_*` variables and `${env:}` references from; pass `process.env` explicitly. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** `--set key=value` items, or an already split map. Highest precedence. */
  readonly overrides?: readonly string[] | Readonly<Record<string, string>>;
  /** `CDC_*` variables to leave alone (default: CDC_TEST_*, CDC_IT_*). */
  readonly envIgnore?: readonly RegExp[];
  /** File reader for the config file and `${file:}` references (tests). */
  readonly readFile?: (path: string) => string;
}

/** The merged canonical key/value map and every problem found while reading it (before value validation). */
export function collectRaw(options: LoadOptions = {}): {
  values: Record<string, string>;
  problems: ConfigProblem[];
  /** Legacy names renamed on the way (for the deprecation warning). */
  renamed: { alias: string; key: string }[];
} {
  const problems: ConfigProblem[] = [];
  const renamed: { alias: string; key: string }[] = [];
  const merged: Record<string, string> = {};
  const take = (raw: Record<string, string>, where: string) => {
    const c = canonicalize(raw, where);
    problems.push(...c.problems);
    renamed.push(...c.renamed);
    for (const [k, v] of c.values) merged[k] = v;
  };
  let fileValues: Record<string, string> = {};
  if (options.file) {
    const f = readConfigFile(options.file, options.readFile);
    problems.push(...f.problems);
    fileValues = f.values;
  }
  let overrideValues: Record<string, string> = {};
  if (options.overrides) {
    if (Array.isArray(options.overrides)) {
      const o = parseOverrides(options.overrides as readonly string[]);
      problems.push(...o.problems);
      overrideValues = o.values;
    } else overrideValues = { ...(options.overrides as Readonly<Record<string, string>>) };
  }
  if (options.file) take(fileValues, `in ${options.file}`);
  if (options.env) {
    // A variable that some value references (`${env:CDC_DB_PASSWORD}`) may have any name, CDC_ prefix included.
    const referenced = referencedEnvNames([
      ...Object.values(fileValues),
      ...Object.values(overrideValues),
      ...Object.values(options.env).filter((v): v is string => v !== undefined),
    ]);
    const e = envToConfig(options.env, {
      context: merged,
      referenced,
      ...(options.envIgnore ? { ignore: options.envIgnore } : {}),
    });
    problems.push(...e.problems);
    take(e.values, 'from the environment');
  }
  if (options.overrides) take(overrideValues, 'from --set');
  const expanded = expandReferences(merged, {
    ...(options.env ? { env: options.env } : { env: {} }),
    ...(options.readFile ? { readFile: options.readFile } : {}),
  });
  problems.push(...expanded.problems);
  return { values: expanded.values, problems, renamed };
}

/** Load, merge and validate synchronously. Secrets Manager is not contacted; see `loadConfigWithSecrets`. */
export function loadConfig(options: LoadOptions = {}): CdcConfig {
  const { values, problems, renamed } = collectRaw(options);
  const checked = checkConfig(values, { renamed });
  const all = [...problems, ...checked.problems];
  if (all.length > 0 || !checked.config) throw new ConfigError(all);
  return checked.config;
}

/** `loadConfig` followed by `resolveSecrets` (database credentials from `database.secret.arn`). */
export async function loadConfigWithSecrets(
  options: LoadOptions & { secretsClient?: SecretsClient } = {},
): Promise<CdcConfig> {
  const config = loadConfig(options);
  return resolveSecrets(config, options.secretsClient ? { client: options.secretsClient } : {});
}
