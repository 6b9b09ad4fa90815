/**
 * A small, safe expression language for the Filter transform (no eval, no prototype access, no side effects).
 *
 * Roots: `topic`, `key`, `value`, `headers` (alias `header`), `timestamp`, `keySchema`, `valueSchema`, and `$` (the
 * whole record, so JSONPath-ish `$.value.after.id` works). Access: `a.b`, `a['b c']`, `a[0]`. Literals: numbers,
 * 'strings' / "strings", `true`, `false`, `null`, `[list]`, `/regex/flags`.
 * Operators (loosest first): `||` `or`; `&&` `and`; `!` `not`; `==` `!=` `<` `<=` `>` `>=` `=~` `!~` `in`;
 * `+` `-`; `*` `/` `%`; unary `-`. Functions: `exists(x)`, `len(x)`, `lower(s)`, `upper(s)`, `startsWith(s, p)`,
 * `endsWith(s, p)`, `contains(s|list, x)`, `number(x)`.
 *
 * Missing fields are `null`; comparisons with null or mismatched types are false (`== null` is true for missing).
 * Numbers compare across `number` and `bigint`.
 */
import { jsonEqual } from './json.js';

export class ExpressionError extends Error {
  override name = 'ExpressionError';
}

type Node =
  | { k: 'lit'; v: unknown }
  | { k: 'root'; name: string }
  | { k: 'get'; obj: Node; prop: Node }
  | { k: 'un'; op: string; a: Node }
  | { k: 'bin'; op: string; a: Node; b: Node }
  | { k: 'call'; fn: string; args: Node[] }
  | { k: 'list'; items: Node[] };

type Token = { t: 'num' | 'str' | 'id' | 'op' | 're'; v: string; flags?: string; at: number };

const ROOTS = new Set(['topic', 'key', 'value', 'headers', 'header', 'timestamp', 'keySchema', 'valueSchema', '$']);
const FUNCTIONS = new Set(['exists', 'len', 'lower', 'upper', 'startsWith', 'endsWith', 'contains', 'number']);
const MAX_LENGTH = 4000;
const MAX_DEPTH = 64;

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  const valueEnd = () => {
    const last = out[out.length - 1];
    if (last === undefined) return false;
    if (last.t === 'id') return !['and', 'or', 'not', 'in'].includes(last.v);
    return last.t !== 'op' || last.v === ')' || last.v === ']';
  };
  while (i < src.length) {
    const c = src[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const at = i;
    if (/[0-9]/.test(c)) {
      const m = /^\d+(\.\d+)?([eE][+-]?\d+)?/.exec(src.slice(i));
      out.push({ t: 'num', v: m![0], at });
      i += m![0].length;
    } else if (c === "'" || c === '"') {
      let s = '';
      i++;
      while (i < src.length && src[i] !== c) {
        if (src[i] === '\\' && i + 1 < src.length) {
          const e = src[i + 1];
          s += e === 'n' ? '\n' : e === 't' ? '\t' : e;
          i += 2;
        } else s += src[i++];
      }
      if (i >= src.length) throw new ExpressionError(`unterminated string starting at ${at}`);
      i++;
      out.push({ t: 'str', v: s, at });
    } else if (/[A-Za-z_$]/.test(c)) {
      const m = /^[A-Za-z_$][A-Za-z0-9_$]*/.exec(src.slice(i))!;
      out.push({ t: 'id', v: m[0], at });
      i += m[0].length;
    } else if (c === '/' && !valueEnd()) {
      let j = i + 1;
      let inClass = false;
      while (j < src.length && (src[j] !== '/' || inClass)) {
        if (src[j] === '\\') j++;
        else if (src[j] === '[') inClass = true;
        else if (src[j] === ']') inClass = false;
        j++;
      }
      if (j >= src.length) throw new ExpressionError(`unterminated regular expression starting at ${at}`);
      const flags = /^[imsu]*/.exec(src.slice(j + 1))![0];
      out.push({ t: 're', v: src.slice(i + 1, j), flags, at });
      i = j + 1 + flags.length;
    } else {
      const two = src.slice(i, i + 2);
      if (['==', '!=', '<=', '>=', '&&', '||', '=~', '!~'].includes(two)) {
        out.push({ t: 'op', v: two, at });
        i += 2;
      } else if ('<>!+-*/%().,[]'.includes(c)) {
        out.push({ t: 'op', v: c, at });
        i++;
      } else throw new ExpressionError(`unexpected character ${JSON.stringify(c)} at ${at}`);
    }
  }
  return out;
}

class Parser {
  private i = 0;
  private depth = 0;
  constructor(private readonly toks: Token[]) {}

  parse(): Node {
    const n = this.or();
    if (this.i < this.toks.length) this.fail(`unexpected '${this.toks[this.i].v}'`);
    return n;
  }

  private fail(msg: string): never {
    const t = this.toks[this.i];
    throw new ExpressionError(`${msg} at ${t ? t.at : 'end'}`);
  }
  private peek(v: string): boolean {
    const t = this.toks[this.i];
    return t !== undefined && (t.t === 'op' || t.t === 'id') && t.v === v;
  }
  private eat(v: string): boolean {
    if (!this.peek(v)) return false;
    this.i++;
    return true;
  }
  private expect(v: string): void {
    if (!this.eat(v)) this.fail(`expected '${v}'`);
  }
  private nest<T>(f: () => T): T {
    if (++this.depth > MAX_DEPTH) this.fail('expression nests too deeply');
    try {
      return f();
    } finally {
      this.depth--;
    }
  }

  private or(): Node {
    let a = this.and();
    while (this.eat('||') || this.eat('or')) a = { k: 'bin', op: '||', a, b: this.and() };
    return a;
  }
  private and(): Node {
    let a = this.not();
    while (this.eat('&&') || this.eat('and')) a = { k: 'bin', op: '&&', a, b: this.not() };
    return a;
  }
  private not(): Node {
    if (this.eat('!') || this.eat('not')) return this.nest(() => ({ k: 'un', op: '!', a: this.not() }));
    return this.cmp();
  }
  private cmp(): Node {
    const a = this.add();
    for (const op of ['==', '!=', '<=', '>=', '<', '>', '=~', '!~', 'in']) {
      if (this.eat(op)) return { k: 'bin', op, a, b: this.add() };
    }
    return a;
  }
  private add(): Node {
    let a = this.mul();
    for (;;) {
      if (this.eat('+')) a = { k: 'bin', op: '+', a, b: this.mul() };
      else if (this.eat('-')) a = { k: 'bin', op: '-', a, b: this.mul() };
      else return a;
    }
  }
  private mul(): Node {
    let a = this.unary();
    for (;;) {
      const op = ['*', '/', '%'].find((o) => this.peek(o));
      if (!op) return a;
      this.i++;
      a = { k: 'bin', op, a, b: this.unary() };
    }
  }
  private unary(): Node {
    if (this.eat('-')) return this.nest(() => ({ k: 'un', op: '-', a: this.unary() }));
    return this.postfix();
  }
  private postfix(): Node {
    let n = this.primary();
    for (;;) {
      if (this.eat('.')) {
        const t = this.toks[this.i++];
        if (t?.t !== 'id') this.fail("expected a field name after '.'");
        n = { k: 'get', obj: n, prop: { k: 'lit', v: t.v } };
      } else if (this.eat('[')) {
        const prop = this.nest(() => this.or());
        this.expect(']');
        n = { k: 'get', obj: n, prop };
      } else return n;
    }
  }
  private primary(): Node {
    const t = this.toks[this.i++];
    if (!t) return this.fail('unexpected end of expression');
    if (t.t === 'num') return { k: 'lit', v: Number(t.v) };
    if (t.t === 'str') return { k: 'lit', v: t.v };
    if (t.t === 're') {
      try {
        return { k: 'lit', v: new RegExp(t.v, t.flags) };
      } catch (err) {
        throw new ExpressionError(`invalid regular expression /${t.v}/ (${(err as Error).message})`);
      }
    }
    if (t.t === 'id') {
      if (t.v === 'true') return { k: 'lit', v: true };
      if (t.v === 'false') return { k: 'lit', v: false };
      if (t.v === 'null') return { k: 'lit', v: null };
      if (FUNCTIONS.has(t.v) && this.eat('(')) {
        const args: Node[] = [];
        if (!this.eat(')')) {
          do args.push(this.nest(() => this.or()));
          while (this.eat(','));
          this.expect(')');
        }
        return { k: 'call', fn: t.v, args };
      }
      if (ROOTS.has(t.v)) return { k: 'root', name: t.v === 'header' ? 'headers' : t.v };
      this.i--;
      return this.fail(
        `unknown name '${t.v}' (use topic, key, value, headers, timestamp, $ or a function: ${[...FUNCTIONS].join(', ')})`,
      );
    }
    if (t.v === '(') {
      const n = this.nest(() => this.or());
      this.expect(')');
      return n;
    }
    if (t.v === '[') {
      const items: Node[] = [];
      if (!this.eat(']')) {
        do items.push(this.nest(() => this.or()));
        while (this.eat(','));
        this.expect(']');
      }
      return { k: 'list', items };
    }
    this.i--;
    return this.fail(`unexpected '${t.v}'`);
  }
}

/** The variables an expression can see. */
export interface ExpressionScope {
  topic: string;
  key: unknown;
  value: unknown;
  headers: Record<string, unknown>;
  timestamp?: number;
  keySchema?: unknown;
  valueSchema?: unknown;
}

export type CompiledExpression = (scope: ExpressionScope) => boolean;

/** Compile `source`; throws ExpressionError with the position of the first problem. */
export function compileExpression(source: string): CompiledExpression {
  if (source.length > MAX_LENGTH) throw new ExpressionError(`expression is longer than ${MAX_LENGTH} characters`);
  const ast = new Parser(tokenize(source)).parse();
  return (scope) => truthy(evaluate(ast, scope));
}

function truthy(v: unknown): boolean {
  return !(v === null || v === undefined || v === false || v === 0 || v === 0n || v === '' || Number.isNaN(v));
}

function isNum(v: unknown): v is number | bigint {
  return typeof v === 'number' || typeof v === 'bigint';
}

function compare(a: unknown, b: unknown): number | null {
  if (isNum(a) && isNum(b)) {
    if (typeof a === typeof b) return a < b ? -1 : a > b ? 1 : 0;
    if (typeof a === 'number' && !Number.isInteger(a)) return a < Number(b) ? -1 : a > Number(b) ? 1 : 0;
    if (typeof b === 'number' && !Number.isInteger(b)) return Number(a) < b ? -1 : Number(a) > b ? 1 : 0;
    const x = BigInt(a);
    const y = BigInt(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  return null;
}

function equal(a: unknown, b: unknown): boolean {
  if ((a === null || a === undefined) && (b === null || b === undefined)) return true;
  return jsonEqual(a, b);
}

function evaluate(n: Node, s: ExpressionScope): unknown {
  switch (n.k) {
    case 'lit':
      return n.v;
    case 'root':
      return n.name === '$' ? s : s[n.name as keyof ExpressionScope];
    case 'list':
      return n.items.map((i) => evaluate(i, s));
    case 'get': {
      const obj = evaluate(n.obj, s);
      const prop = evaluate(n.prop, s);
      if (Array.isArray(obj)) {
        if (typeof prop !== 'number' || !Number.isInteger(prop)) return undefined;
        return obj[prop < 0 ? obj.length + prop : prop];
      }
      if (typeof obj !== 'object' || obj === null || (typeof prop !== 'string' && typeof prop !== 'number'))
        return undefined;
      const k = String(prop);
      return Object.hasOwn(obj, k) ? (obj as Record<string, unknown>)[k] : undefined;
    }
    case 'un': {
      const a = evaluate(n.a, s);
      if (n.op === '!') return !truthy(a);
      return typeof a === 'number' ? -a : typeof a === 'bigint' ? -a : undefined;
    }
    case 'call':
      return call(
        n.fn,
        n.args.map((a) => evaluate(a, s)),
      );
    case 'bin': {
      if (n.op === '&&') return truthy(evaluate(n.a, s)) && truthy(evaluate(n.b, s));
      if (n.op === '||') return truthy(evaluate(n.a, s)) || truthy(evaluate(n.b, s));
      const a = evaluate(n.a, s);
      const b = evaluate(n.b, s);
      switch (n.op) {
        case '==':
          return equal(a, b);
        case '!=':
          return !equal(a, b);
        case '<':
        case '<=':
        case '>':
        case '>=': {
          const c = compare(a, b);
          if (c === null) return false;
          return n.op === '<' ? c < 0 : n.op === '<=' ? c <= 0 : n.op === '>' ? c > 0 : c >= 0;
        }
        case '=~':
        case '!~': {
          if (typeof a !== 'string') return false;
          let re: RegExp;
          if (b instanceof RegExp) re = b;
          else if (typeof b === 'string') re = new RegExp(b);
          else return false;
          re.lastIndex = 0;
          return re.test(a) === (n.op === '=~');
        }
        case 'in':
          return contains(b, a);
        default:
          return arithmetic(n.op, a, b);
      }
    }
  }
}

function arithmetic(op: string, a: unknown, b: unknown): unknown {
  if (op === '+' && typeof a === 'string' && typeof b === 'string') return a + b;
  if (!isNum(a) || !isNum(b)) return undefined;
  if (typeof a === 'bigint' || typeof b === 'bigint') {
    if (typeof a === 'number' && !Number.isInteger(a)) return undefined;
    if (typeof b === 'number' && !Number.isInteger(b)) return undefined;
    const x = BigInt(a);
    const y = BigInt(b);
    if ((op === '/' || op === '%') && y === 0n) return undefined;
    return op === '+' ? x + y : op === '-' ? x - y : op === '*' ? x * y : op === '/' ? x / y : x % y;
  }
  return op === '+' ? a + b : op === '-' ? a - b : op === '*' ? a * b : op === '/' ? a / b : a % b;
}

function contains(container: unknown, item: unknown): boolean {
  if (Array.isArray(container)) return container.some((x) => equal(x, item));
  if (typeof container === 'string') return typeof item === 'string' && container.includes(item);
  if (typeof container === 'object' && container !== null)
    return typeof item === 'string' && Object.hasOwn(container, item);
  return false;
}

function call(fn: string, args: unknown[]): unknown {
  const [a, b] = args;
  switch (fn) {
    case 'exists':
      return a !== undefined && a !== null;
    case 'len':
      return typeof a === 'string' || Array.isArray(a)
        ? a.length
        : typeof a === 'object' && a !== null
          ? Object.keys(a).length
          : undefined;
    case 'lower':
      return typeof a === 'string' ? a.toLowerCase() : undefined;
    case 'upper':
      return typeof a === 'string' ? a.toUpperCase() : undefined;
    case 'startsWith':
      return typeof a === 'string' && typeof b === 'string' && a.startsWith(b);
    case 'endsWith':
      return typeof a === 'string' && typeof b === 'string' && a.endsWith(b);
    case 'contains':
      return contains(a, b);
    case 'number': {
      if (isNum(a)) return a;
      if (typeof a !== 'string' || a.trim() === '') return undefined;
      const x = Number(a);
      return Number.isNaN(x) ? undefined : x;
    }
    default:
      return undefined;
  }
}
