/**
 * Typed reading of one transform's options (`transforms.<name>.<option>`), collecting every problem instead of
 * throwing at the first, and flagging options the transform does not know (with a did-you-mean).
 */

import type { ConfigProblem } from '../common/config-error.js';
import { formatProblems } from '../common/config-error.js';
import { splitList } from '../common/config-values.js';
import { CdcError } from '../common/errors.js';
import type { Secret } from '../common/secret.js';
import { suggest } from '../common/suggest.js';

/** Every problem in a transform chain's configuration. Not retriable: fix the configuration. */
export class TransformConfigError extends CdcError {
  readonly problems: readonly ConfigProblem[];
  constructor(problems: readonly ConfigProblem[]) {
    super('TRANSFORM_INVALID', formatProblems(problems).replace(/^Invalid configuration/, 'Invalid transforms'));
    this.problems = Object.freeze([...problems]);
  }
}

type RawValue = string | Secret;

/** Reads `transforms.<name>.*`; every read marks the option as known. */
export class OptionReader {
  private readonly known = new Set<string>(['type']);

  constructor(
    readonly name: string,
    private readonly options: Readonly<Record<string, RawValue>>,
    private readonly problems: ConfigProblem[],
  ) {}

  key(option: string): string {
    return `transforms.${this.name}.${option}`;
  }

  add(option: string, message: string, fix: string): void {
    this.problems.push({ property: this.key(option), message, fix });
  }

  private raw(option: string): string | undefined {
    this.known.add(option);
    const v = this.options[option];
    if (v === undefined) return undefined;
    return typeof v === 'string' ? v : v.reveal();
  }

  /** Also accept an older Debezium name for the same option (read, marked known, not reported). */
  alias(option: string): string | undefined {
    return this.raw(option);
  }

  has(option: string): boolean {
    return this.options[option] !== undefined;
  }

  str(option: string): string | undefined;
  str(option: string, fallback: string): string;
  str(option: string, fallback?: string): string | undefined {
    const v = this.raw(option)?.trim();
    return v === undefined || v === '' ? fallback : v;
  }

  required(option: string, fix: string): string {
    const v = this.str(option);
    if (v === undefined) {
      this.add(option, 'is required.', fix);
      return '';
    }
    return v;
  }

  enumOf<T extends string>(option: string, allowed: readonly T[], fallback: T): T {
    const v = this.str(option);
    if (v === undefined) return fallback;
    const lower = v.toLowerCase() as T;
    if (allowed.includes(lower)) return lower;
    const [guess] = suggest(v, allowed);
    this.add(
      option,
      `'${v}' is not one of ${allowed.join(', ')}.`,
      guess ? `did you mean ${this.key(option)}=${guess}?` : `set ${this.key(option)} to one of ${allowed.join(', ')}.`,
    );
    return fallback;
  }

  bool(option: string, fallback: boolean): boolean {
    const v = this.str(option);
    if (v === undefined) return fallback;
    if (/^true$/i.test(v)) return true;
    if (/^false$/i.test(v)) return false;
    this.add(option, `'${v}' is not a boolean.`, `set ${this.key(option)}=true or false.`);
    return fallback;
  }

  list(option: string): string[] {
    const v = this.str(option);
    return v === undefined ? [] : splitList(v);
  }

  /**
   * A Java-style regular expression that must match the whole input (Kafka Connect uses `Matcher.matches()`).
   * Inline flags such as `(?i)` at the start are supported.
   */
  regex(option: string, required: boolean): RegExp | undefined {
    const v = this.str(option);
    if (v === undefined) {
      if (required) this.add(option, 'is required.', `set ${this.key(option)}=<regular expression>.`);
      return undefined;
    }
    try {
      return javaRegex(v, true);
    } catch (err) {
      this.add(option, `'${v}' is not a valid regular expression (${(err as Error).message}).`, 'fix the expression.');
      return undefined;
    }
  }

  /** Problems for options that no read asked for (typos, options of another transform type). */
  reportUnknown(typeName: string): void {
    for (const option of Object.keys(this.options)) {
      if (this.known.has(option)) continue;
      if (option === 'predicate' || option === 'negate') {
        this.add(
          option,
          'is not supported: Kafka Connect predicates are not implemented.',
          'remove it; to apply a transform to some records only, use its topic.regex option or a Filter transform.',
        );
        continue;
      }
      const [guess] = suggest(option, this.known);
      this.add(
        option,
        `is not an option of ${typeName}.`,
        guess ? `did you mean ${this.key(guess)}? Otherwise remove it.` : 'remove it (see docs/transforms.md).',
      );
    }
  }
}

/**
 * Compile a Java regular expression for JavaScript: a leading inline flag group `(?i)`/`(?s)`/`(?m)` becomes a flag,
 * `(?<name>` is the same in both; `anchored` wraps it to match the whole input.
 */
export function javaRegex(source: string, anchored: boolean): RegExp {
  let flags = 'u';
  let body = source;
  const inline = /^\(\?([imsx]+)\)/.exec(body);
  if (inline) {
    for (const f of inline[1]) if (f !== 'x' && !flags.includes(f)) flags += f;
    body = body.slice(inline[0].length);
  }
  try {
    return new RegExp(anchored ? `^(?:${body})$` : body, flags);
  } catch {
    // Some Java-valid escapes are invalid in unicode mode (e.g. `\-` outside classes); retry without it.
    return new RegExp(anchored ? `^(?:${body})$` : body, flags.replace('u', ''));
  }
}

/** Java `Matcher.replaceFirst` replacement text to JS: `$1` stays, `${name}` → `$<name>`, a backslash escapes. */
export function javaReplacement(replacement: string): string {
  return replacement.replace(/\\(.)|\$\{([A-Za-z][A-Za-z0-9]*)\}/g, (_m, esc: string | undefined, name: string) => {
    if (esc !== undefined) return esc === '$' ? '$$' : esc;
    return `$<${name}>`;
  });
}
