/**
 * Applies MySQL partial JSON updates (binlog_row_value_options=PARTIAL_JSON: a MysqlJsonPartial diff list in the
 * after image) to the before-image document, giving the full after-image JSON text that a full row image would
 * have carried. Semantics follow the server's apply_json_diff (sql-common/json_diff.cc):
 *  - paths are `$` followed by `.member`, `."quoted member"` and `[n]` / `[last]` / `[last-n]` legs; no wildcards
 *    or ranges (the server only logs exact paths); no auto-wrapping of scalars;
 *  - REPLACE: the value at the path must exist and is replaced;
 *  - INSERT: the parent must exist; an object member must not exist yet; an array cell index past the end appends
 *    (Json_array::insert_alias clamps the position);
 *  - REMOVE: the parent must exist and the member / in-bounds cell is removed.
 * A diff the document does not admit throws JsonDiffError (the server would have rejected it, so the before image
 * does not match what the server had).
 * Output is rendered like the decoder renders binary JSON (see json-binary.ts): compact `{"a":1,"b":[true,null]}`,
 * object keys in MySQL's storage order (shorter keys first, then by bytes), scalars exactly as in the input texts.
 */
import type { JsonDiff } from '../model/values.js';

export class JsonDiffError extends Error {}

type Node =
  | { kind: 'object'; members: Map<string, Node> }
  | { kind: 'array'; items: Node[] }
  | { kind: 'scalar'; text: string };

export type PathLeg = { kind: 'member'; name: string } | { kind: 'cell'; index: number; fromEnd: boolean };

/** Parses a MySQL JSON path of exact legs (`$.a."b c"[2][last-1]`). */
export function parseJsonPath(path: string): PathLeg[] {
  let i = 0;
  const ws = () => {
    while (i < path.length && /\s/.test(path[i])) i++;
  };
  const bad = (why: string): never => {
    throw new JsonDiffError(`invalid JSON path '${path}' at offset ${i}: ${why}`);
  };
  ws();
  if (path[i] !== '$') bad("expected '$'");
  i++;
  const legs: PathLeg[] = [];
  for (ws(); i < path.length; ws()) {
    if (path[i] === '.') {
      i++;
      ws();
      if (path[i] === '"') {
        const end = endOfString(path, i);
        if (end < 0) bad('unterminated quoted member');
        legs.push({ kind: 'member', name: JSON.parse(path.slice(i, end)) as string });
        i = end;
      } else {
        const start = i;
        while (i < path.length && !/[\s.[\]"*]/.test(path[i])) i++;
        if (i === start) bad('expected a member name (wildcards are not exact paths)');
        legs.push({ kind: 'member', name: path.slice(start, i) });
      }
    } else if (path[i] === '[') {
      i++;
      ws();
      let fromEnd = false;
      let index = 0;
      if (path.startsWith('last', i)) {
        fromEnd = true;
        i += 4;
        ws();
        if (path[i] === '-') {
          i++;
          ws();
          index = readIndex();
        }
      } else index = readIndex();
      ws();
      if (path[i] !== ']') bad("expected ']' (ranges and wildcards are not exact paths)");
      i++;
      legs.push({ kind: 'cell', index, fromEnd });
    } else bad("expected '.' or '['");
  }
  return legs;

  function readIndex(): number {
    const m = /^\d+/.exec(path.slice(i));
    if (!m) return bad('expected an array index');
    i += m[0].length;
    return Number(m[0]);
  }
}

/** Index just past the JSON string literal starting at `start` (a '"'), or -1. */
function endOfString(s: string, start: number): number {
  for (let i = start + 1; i < s.length; i++) {
    if (s[i] === '\\') i++;
    else if (s[i] === '"') return i + 1;
  }
  return -1;
}

/** Lossless JSON text → tree: numbers and strings keep their exact text. */
function parseDocument(text: string): Node {
  let i = 0;
  const ws = () => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++;
  };
  const bad = (why: string): never => {
    throw new JsonDiffError(`invalid JSON document at offset ${i}: ${why}`);
  };
  const value = (): Node => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const members = new Map<string, Node>();
      ws();
      if (text[i] === '}') {
        i++;
        return { kind: 'object', members };
      }
      for (;;) {
        ws();
        if (text[i] !== '"') bad('expected a member name');
        const end = endOfString(text, i);
        if (end < 0) bad('unterminated string');
        const key = JSON.parse(text.slice(i, end)) as string;
        i = end;
        ws();
        if (text[i] !== ':') bad("expected ':'");
        i++;
        members.set(key, value());
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === '}') {
          i++;
          return { kind: 'object', members };
        } else bad("expected ',' or '}'");
      }
    }
    if (c === '[') {
      i++;
      const items: Node[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return { kind: 'array', items };
      }
      for (;;) {
        items.push(value());
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === ']') {
          i++;
          return { kind: 'array', items };
        } else bad("expected ',' or ']'");
      }
    }
    if (c === '"') {
      const end = endOfString(text, i);
      if (end < 0) bad('unterminated string');
      const t = text.slice(i, end);
      i = end;
      return { kind: 'scalar', text: t };
    }
    const m = /^(?:true|false|null|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i, i + 400));
    if (!m) return bad('unexpected character');
    i += m[0].length;
    return { kind: 'scalar', text: m[0] };
  };
  const root = value();
  ws();
  if (i !== text.length) bad('trailing characters');
  return root;
}

/** MySQL's key order (Json_key_comparator): shorter keys (in bytes) first, then byte order. */
function compareKeys(a: string, b: string): number {
  const la = Buffer.byteLength(a);
  const lb = Buffer.byteLength(b);
  return la !== lb ? la - lb : Buffer.compare(Buffer.from(a), Buffer.from(b));
}

function render(n: Node): string {
  if (n.kind === 'scalar') return n.text;
  if (n.kind === 'array') return `[${n.items.map(render).join(',')}]`;
  const keys = [...n.members.keys()].sort(compareKeys);
  return `{${keys.map((k) => `${quoteKey(k)}:${render(n.members.get(k) as Node)}`).join(',')}}`;
}

/** Member names quoted as MySQL does (json-binary.ts quote): only '"', '\' and control characters escaped. */
function quoteKey(s: string): string {
  return `"${s.replace(/["\\\u0000-\u001f]/g, (c) => {
    const code = c.charCodeAt(0);
    const short: Record<number, string> = {
      34: '\\"',
      92: '\\\\',
      8: '\\b',
      12: '\\f',
      10: '\\n',
      13: '\\r',
      9: '\\t',
    };
    return short[code] ?? `\\u00${code.toString(16).padStart(2, '0')}`;
  })}"`;
}

/** Array position of a cell leg (Json_path_leg::first_array_index): [position clamped to size, within bounds]. */
function cellIndex(leg: { index: number; fromEnd: boolean }, size: number): [number, boolean] {
  if (leg.fromEnd) return [leg.index < size ? size - leg.index - 1 : 0, leg.index < size];
  return [Math.min(leg.index, size), leg.index < size];
}

function seek(root: Node, legs: PathLeg[]): Node | null {
  let node: Node = root;
  for (const leg of legs) {
    if (node.kind === 'array' && leg.kind === 'cell') {
      const [pos, inBounds] = cellIndex(leg, node.items.length);
      if (!inBounds) return null;
      node = node.items[pos];
    } else if (node.kind === 'object' && leg.kind === 'member') {
      const next = node.members.get(leg.name);
      if (next === undefined) return null;
      node = next;
    } else return null;
  }
  return node;
}

/** Applies the diffs in order to `before` (JSON text) and returns the resulting JSON text. */
export function applyJsonDiffs(before: string, diffs: readonly JsonDiff[]): string {
  let root = parseDocument(before);
  for (const diff of diffs) {
    const legs = parseJsonPath(diff.path);
    const reject = (why: string): never => {
      throw new JsonDiffError(`cannot apply JSON diff ${diff.op.toUpperCase()} ${diff.path}: ${why}`);
    };
    const value = () => {
      if (!diff.value) return reject('the diff carries no value');
      return parseDocument(diff.value.text);
    };
    if (legs.length === 0) {
      if (diff.op !== 'replace') reject('only REPLACE applies to the whole document');
      root = value();
      continue;
    }
    const parent = seek(root, legs.slice(0, -1));
    if (!parent) reject('the parent of the path does not exist in the before image');
    const last = legs[legs.length - 1];
    if (diff.op === 'replace') {
      if (!seek(parent as Node, [last])) reject('no value at the path in the before image');
      if (parent?.kind === 'object' && last.kind === 'member') parent.members.set(last.name, value());
      else if (parent?.kind === 'array' && last.kind === 'cell') {
        parent.items[cellIndex(last, parent.items.length)[0]] = value();
      }
    } else if (diff.op === 'insert') {
      if (parent?.kind === 'object' && last.kind === 'member') {
        if (parent.members.has(last.name)) reject('the member already exists in the before image');
        parent.members.set(last.name, value());
      } else if (parent?.kind === 'array' && last.kind === 'cell') {
        parent.items.splice(cellIndex(last, parent.items.length)[0], 0, value());
      } else reject('the parent is not a container of that kind');
    } else {
      if (parent?.kind === 'object' && last.kind === 'member') {
        if (!parent.members.delete(last.name)) reject('no such member in the before image');
      } else if (parent?.kind === 'array' && last.kind === 'cell') {
        const [pos, inBounds] = cellIndex(last, parent.items.length);
        if (!inBounds) reject('array index out of bounds in the before image');
        parent.items.splice(pos, 1);
      } else reject('the parent is not a container of that kind');
    }
  }
  return render(root);
}
