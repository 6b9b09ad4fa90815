/** Value syntax shared by parsing and validation: lists, regex lists, message key columns. */

/** Split a comma-separated list; entries are trimmed and empty entries dropped. */
export function splitList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/**
 * Split a comma-separated list of regular expressions. Commas inside `{m,n}`, `[...]` or `(...)` and escaped
 * commas (`\,`, unescaped in the result) do not split, so `db\.t{1,3}` stays one expression.
 */
export function splitRegexList(value: string): string[] {
  const out: string[] = [];
  let cur = '';
  let depth = 0;
  let inClass = false;
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === '\\' && i + 1 < value.length) {
      const next = value[i + 1];
      cur += next === ',' ? ',' : c + next;
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
    } else if (c === '[') inClass = true;
    else if (c === '(' || c === '{') depth++;
    else if ((c === ')' || c === '}') && depth > 0) depth--;
    else if (c === ',' && depth === 0) {
      out.push(cur);
      cur = '';
      continue;
    }
    cur += c;
  }
  out.push(cur);
  return out.map((s) => s.trim()).filter((s) => s.length > 0);
}

/** Compile one expression Debezium style: anchored full match, case-insensitive. Throws SyntaxError. */
export function compileAnchored(source: string): RegExp {
  return new RegExp(`^(?:${source})$`, 'i');
}

export interface RegexListResult {
  readonly regexes: RegExp[];
  readonly errors: { readonly source: string; readonly message: string }[];
}

export function compileRegexList(value: string): RegexListResult {
  const regexes: RegExp[] = [];
  const errors: { source: string; message: string }[] = [];
  for (const source of splitRegexList(value)) {
    try {
      regexes.push(compileAnchored(source));
    } catch (err) {
      errors.push({ source, message: (err as Error).message.replace(/^Invalid regular expression: /, '') });
    }
  }
  return { regexes, errors };
}

/** True when any expression matches the whole identifier. */
export function matchesAny(regexes: readonly RegExp[], id: string): boolean {
  return regexes.some((r) => r.test(id));
}

export interface ParsedKeyColumns {
  readonly entries: { table: RegExp; columns: string[] }[];
  readonly errors: string[];
}

/** Parse `message.key.columns`: `<table regex>:<col>,<col>;<table regex>:<col>`. */
export function parseMessageKeyColumns(value: string): ParsedKeyColumns {
  const entries: { table: RegExp; columns: string[] }[] = [];
  const errors: string[] = [];
  for (const part of value.split(';')) {
    const item = part.trim();
    if (item === '') continue;
    const colon = item.lastIndexOf(':');
    if (colon <= 0) {
      errors.push(`'${item}' is not '<db>.<table>:<column>[,<column>...]'`);
      continue;
    }
    const tableSource = item.slice(0, colon).trim();
    const columns = splitList(item.slice(colon + 1));
    if (columns.length === 0) {
      errors.push(`'${item}' lists no key columns`);
      continue;
    }
    if (!tableSource.includes('.')) {
      errors.push(`'${tableSource}' must be a fully-qualified '<db>.<table>'`);
      continue;
    }
    try {
      entries.push({ table: compileAnchored(tableSource), columns });
    } catch (err) {
      errors.push(`'${tableSource}' is not a valid regular expression (${(err as Error).message})`);
    }
  }
  return { entries, errors };
}

/** Stable FNV-1a hash of `name` mapped into Debezium's historical random range 5400–6400. */
export function deriveServerId(name: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(name, 'utf8')) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return 5400 + (h % 1001);
}
