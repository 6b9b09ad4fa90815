/**
 * Lossless JSON for the transform chain. `JSON.parse` rounds integers beyond 2^53 (BIGINT UNSIGNED, large BIGINT
 * keys), which a CDC pipeline must not do: this parser returns such integers as `bigint`, and `stringifyJson`
 * writes them back digit for digit. Everything else maps to plain JSON values.
 */

/** A parsed JSON value; unsafe integers are `bigint`. */
export type Json = null | boolean | number | bigint | string | Json[] | { [k: string]: Json };

export class JsonParseError extends Error {
  override name = 'JsonParseError';
}

/** Parse JSON text, keeping integers outside ±(2^53 − 1) exact as `bigint`. */
export function parseJson(text: string): Json {
  const p = new Parser(text);
  p.ws();
  const v = p.value();
  p.ws();
  if (p.i < text.length) p.fail('unexpected trailing text');
  return v;
}

/** Serialise compactly (like `JSON.stringify`); `bigint` becomes its digits, `undefined` members are left out. */
export function stringifyJson(value: unknown): string {
  switch (typeof value) {
    case 'bigint':
      return value.toString();
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : stringifyJson(v))).join(',')}]`;
      let out = '';
      for (const [k, v] of Object.entries(value)) {
        if (v === undefined || typeof v === 'function') continue;
        out += `${out ? ',' : ''}${JSON.stringify(k)}:${stringifyJson(v)}`;
      }
      return `{${out}}`;
    }
    default:
      return 'null';
  }
}

/** Structural equality on parsed JSON (bigint and number compare by value). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if ((typeof a === 'bigint' || typeof a === 'number') && (typeof b === 'bigint' || typeof b === 'number'))
    return typeof a === typeof b ? a === b : BigInt(a as bigint) === BigInt(b as bigint);
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  const bo = b as Record<string, unknown>;
  return ka.every((k) => Object.hasOwn(bo, k) && jsonEqual((a as Record<string, unknown>)[k], bo[k]));
}

/** Deep copy of parsed JSON (transforms never mutate their input). */
export function cloneJson<T>(v: T): T {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) return v.map(cloneJson) as T;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = cloneJson(x);
  return out as T;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

class Parser {
  i = 0;
  constructor(private readonly s: string) {}

  fail(what: string): never {
    throw new JsonParseError(`invalid JSON at offset ${this.i}: ${what}`);
  }

  ws(): void {
    const s = this.s;
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i);
      if (c === 32 || c === 9 || c === 10 || c === 13) this.i++;
      else break;
    }
  }

  value(): Json {
    const c = this.s[this.i];
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return this.string();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number();
    if (this.s.startsWith('true', this.i)) return this.lit(4, true);
    if (this.s.startsWith('false', this.i)) return this.lit(5, false);
    if (this.s.startsWith('null', this.i)) return this.lit(4, null);
    return this.fail(c === undefined ? 'unexpected end' : `unexpected ${JSON.stringify(c)}`);
  }

  private lit<T>(n: number, v: T): T {
    this.i += n;
    return v;
  }

  private object(): Json {
    const out: Record<string, Json> = {};
    this.i++;
    this.ws();
    if (this.s[this.i] === '}') {
      this.i++;
      return out;
    }
    for (;;) {
      this.ws();
      if (this.s[this.i] !== '"') this.fail('expected a member name');
      const k = this.string();
      this.ws();
      if (this.s[this.i] !== ':') this.fail("expected ':'");
      this.i++;
      this.ws();
      // defineProperty keeps a member named __proto__ an own data property.
      Object.defineProperty(out, k, { value: this.value(), enumerable: true, writable: true, configurable: true });
      this.ws();
      const c = this.s[this.i++];
      if (c === '}') return out;
      if (c !== ',') this.fail("expected ',' or '}'");
    }
  }

  private array(): Json {
    const out: Json[] = [];
    this.i++;
    this.ws();
    if (this.s[this.i] === ']') {
      this.i++;
      return out;
    }
    for (;;) {
      this.ws();
      out.push(this.value());
      this.ws();
      const c = this.s[this.i++];
      if (c === ']') return out;
      if (c !== ',') this.fail("expected ',' or ']'");
    }
  }

  private string(): string {
    const start = this.i;
    this.i++;
    let simple = true;
    const s = this.s;
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i);
      if (c === 34) {
        this.i++;
        const raw = s.slice(start, this.i);
        return simple ? raw.slice(1, -1) : (JSON.parse(raw) as string);
      }
      if (c === 92) {
        simple = false;
        this.i += 2;
        continue;
      }
      if (c < 32) this.fail('control character in string');
      this.i++;
    }
    return this.fail('unterminated string');
  }

  private number(): Json {
    const m = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
    m.lastIndex = this.i;
    const r = m.exec(this.s);
    if (!r) return this.fail('bad number');
    this.i += r[0].length;
    if (r[1] === undefined && r[2] === undefined && r[0].length > 15) {
      const b = BigInt(r[0]);
      if (b > MAX_SAFE || b < -MAX_SAFE) return b;
    }
    return Number(r[0]);
  }
}
