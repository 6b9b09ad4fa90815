import { Secret } from '../common/secret.js';
import type { CdcConfig } from './types.js';

/**
 * A plain, JSON-safe view of the config for display (`cdc config show`, startup logs): secrets as `***`,
 * regexes as their source, maps as objects, sets as arrays.
 */
export function redactConfig(config: CdcConfig): Record<string, unknown> {
  return toPlain(config) as Record<string, unknown>;
}

function toPlain(value: unknown): unknown {
  if (value instanceof Secret) return value.toJSON();
  if (value instanceof RegExp) return value.source.replace(/^\^\(\?:(.*)\)\$$/s, '$1');
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), toPlain(v)]));
  if (value instanceof Set) return [...value].map(toPlain);
  if (Array.isArray(value)) return value.map(toPlain);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toPlain(v)]));
  return value;
}
