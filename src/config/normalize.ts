/**
 * Canonicalisation of a raw key/value map against the catalog: legacy aliases renamed, deprecated enum spellings
 * mapped, unknown keys reported with a did-you-mean. Used per source (so precedence works across aliases) and
 * again by `parseConfig`.
 */
import type { ConfigProblem } from '../common/config-error.js';
import { editDistance, suggest } from '../common/suggest.js';
import { findProperty, knownNames, type PropertyMatch, patternPrefixes } from './properties.js';

export interface Canonicalized {
  readonly values: Map<string, string>;
  readonly problems: ConfigProblem[];
  /** Legacy names that were renamed to their canonical key (for a deprecation warning). */
  readonly renamed: { readonly alias: string; readonly key: string }[];
}

/** `where` names the source in messages, e.g. "in config.properties". */
export function canonicalize(raw: Readonly<Record<string, string>>, where = ''): Canonicalized {
  const values = new Map<string, string>();
  const problems: ConfigProblem[] = [];
  const aliased: { alias: string; key: string; value: string }[] = [];
  const suffix = where ? ` (${where})` : '';
  for (const [key, value] of Object.entries(raw)) {
    const m = findProperty(key);
    if (!m || isLikelyTypo(key, m)) problems.push(unknownProperty(key, suffix));
    else if (m.alias) aliased.push({ alias: key, key: m.key, value: mapValueAlias(m.def.valueAliases, value) });
    else values.set(m.key, mapValueAlias(m.def.valueAliases, value));
  }
  // Canonical names win; a legacy alias only fills the gap, and a contradicting pair is a mistake.
  for (const { alias, key, value } of aliased) {
    const existing = values.get(key);
    if (existing === undefined) values.set(key, value);
    else if (existing !== value)
      problems.push({
        property: alias,
        message: `is a legacy name of ${key}, and both are set to different values${suffix}.`,
        fix: `remove ${alias} and keep ${key}.`,
      });
  }
  return { values, problems, renamed: aliased.map(({ alias, key }) => ({ alias, key })) };
}

/**
 * A key caught only by a broad ignored namespace (`errors.*`, `database.<camelCase>`, ...) that is one typo away
 * from one of our own names is reported as unknown with a did-you-mean instead of being silently ignored.
 */
function isLikelyTypo(key: string, m: PropertyMatch): boolean {
  if (!m.def.pattern || !m.def.ignored) return false;
  const lower = key.toLowerCase();
  return knownNames().some((n) => {
    const def = findProperty(n)?.def;
    return def !== undefined && !def.ignored && !def.unsupported && editDistance(lower, n.toLowerCase()) <= 2;
  });
}

function mapValueAlias(aliases: Readonly<Record<string, string>> | undefined, value: string): string {
  if (!aliases) return value;
  return aliases[value.trim().toLowerCase()] ?? value;
}

/** The best guess for a mistyped key: a fixed name, or a pattern property with a mistyped prefix. */
export function suggestProperty(key: string): string | null {
  const [best] = suggest(key, knownNames());
  if (best) return best;
  const parts = key.split('.');
  for (const { prefix } of patternPrefixes()) {
    const n = prefix.split('.').length - 1;
    if (parts.length <= n) continue;
    const head = `${parts.slice(0, n).join('.')}.`;
    if (head !== prefix && editDistance(head.toLowerCase(), prefix) <= 2) return prefix + parts.slice(n).join('.');
  }
  return null;
}

export function unknownProperty(key: string, suffix = ''): ConfigProblem {
  const guess = suggestProperty(key);
  return {
    property: key,
    message: `is not a known property${suffix}.`,
    fix: guess
      ? `did you mean '${guess}'? Otherwise remove it (all properties: docs/configuration.md).`
      : 'remove it; see docs/configuration.md for the supported properties.',
  };
}
