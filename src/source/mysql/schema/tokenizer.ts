/**
 * A forgiving MySQL/MariaDB tokenizer for DDL. It never throws on odd input: unknown characters become
 * single-character operator tokens, so the structural parser decides what matters.
 * Version comments (`/*!50100 ... *\/`, MariaDB `/*M!100301 ... *\/`) are executed content, as on the server;
 * ordinary comments (`/* *\/`, `#`, `-- `) are dropped.
 */
export type TokenKind = 'word' | 'qident' | 'string' | 'number' | 'op' | 'var';

export interface Token {
  kind: TokenKind;
  /** Identifier/keyword text as written (words), unquoted identifier, unescaped string, or operator text. */
  text: string;
  /** Upper-cased text for words (keyword matching); same as text otherwise. */
  upper: string;
  /** Offset in the original statement, for error messages. */
  pos: number;
  /** Character-set introducer of a string literal (`_utf8mb4'x'` → 'utf8mb4'), or 'hex'/'bit' for X'..'/B'..'. */
  introducer?: string;
}

export interface TokenizeOptions {
  /** ANSI_QUOTES sql_mode: "x" is an identifier instead of a string. */
  ansiQuotes?: boolean;
}

const WORD_START = /[A-Za-z_$\u0080-\uffff]/;
const WORD_CHAR = /[A-Za-z0-9_$\u0080-\uffff]/;
const DIGIT = /[0-9]/;

export function tokenize(sql: string, options: TokenizeOptions = {}): Token[] {
  const out: Token[] = [];
  const n = sql.length;
  let i = 0;
  const push = (kind: TokenKind, text: string, pos: number, introducer?: string) => {
    const t: Token = { kind, text, upper: kind === 'word' ? text.toUpperCase() : text, pos };
    if (introducer !== undefined) t.introducer = introducer;
    out.push(t);
  };
  while (i < n) {
    const c = sql[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v') {
      i++;
      continue;
    }
    // Comments; version comments are entered (their body is tokenized) and their closing */ skipped.
    if (c === '/' && sql[i + 1] === '*') {
      const bang = sql[i + 2] === '!' ? i + 3 : sql[i + 2] === 'M' && sql[i + 3] === '!' ? i + 4 : -1;
      if (bang >= 0) {
        let j = bang;
        while (j < n && j < bang + 6 && DIGIT.test(sql[j])) j++;
        i = j;
        continue;
      }
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
      continue;
    }
    if (c === '*' && sql[i + 1] === '/') {
      // End of a version comment we entered (a stray one is harmless to drop too).
      i += 2;
      continue;
    }
    if (c === '#' || (c === '-' && sql[i + 1] === '-' && (i + 2 >= n || /\s/.test(sql[i + 2])))) {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? n : end + 1;
      continue;
    }
    const start = i;
    if (c === '`' || (c === '"' && options.ansiQuotes)) {
      const [text, next] = readQuoted(sql, i, c, false);
      push('qident', text, start);
      i = next;
      continue;
    }
    if (c === "'" || c === '"') {
      const [text, next] = readQuoted(sql, i, c, true);
      push('string', text, start);
      i = next;
      continue;
    }
    // Hex/bit literals: X'0F', B'101', 0x0F, 0b101.
    if ((c === 'x' || c === 'X' || c === 'b' || c === 'B') && sql[i + 1] === "'") {
      const end = sql.indexOf("'", i + 2);
      const stop = end < 0 ? n : end;
      push('string', sql.slice(i + 2, stop), start, c === 'x' || c === 'X' ? 'hex' : 'bit');
      i = stop + 1;
      continue;
    }
    if (c === '0' && (sql[i + 1] === 'x' || sql[i + 1] === 'b') && /[0-9A-Fa-f]/.test(sql[i + 2] ?? '')) {
      let j = i + 2;
      while (j < n && /[0-9A-Fa-f]/.test(sql[j])) j++;
      if (j >= n || !WORD_CHAR.test(sql[j])) {
        push('string', sql.slice(i + 2, j), start, sql[i + 1] === 'x' ? 'hex' : 'bit');
        i = j;
        continue;
      }
    }
    if (DIGIT.test(c) || (c === '.' && DIGIT.test(sql[i + 1] ?? ''))) {
      let j = i;
      while (j < n && DIGIT.test(sql[j])) j++;
      if (sql[j] === '.' && !WORD_START.test(sql[j + 1] ?? '')) {
        j++;
        while (j < n && DIGIT.test(sql[j])) j++;
      }
      if ((sql[j] === 'e' || sql[j] === 'E') && /[-+0-9]/.test(sql[j + 1] ?? '')) {
        j += 2;
        while (j < n && DIGIT.test(sql[j])) j++;
      }
      // Identifiers may start with digits (`1c`, `123abc`).
      if (j < n && WORD_CHAR.test(sql[j]) && sql[j] !== '.') {
        while (j < n && WORD_CHAR.test(sql[j])) j++;
        push('word', sql.slice(i, j), start);
      } else push('number', sql.slice(i, j), start);
      i = j;
      continue;
    }
    if (WORD_START.test(c)) {
      let j = i + 1;
      while (j < n && WORD_CHAR.test(sql[j])) j++;
      const word = sql.slice(i, j);
      // Character-set introducer or national string: _utf8mb4'x', N'x'.
      if ((word[0] === '_' || word === 'N' || word === 'n') && (sql[j] === "'" || sql[j] === '"')) {
        const [text, next] = readQuoted(sql, j, sql[j], true);
        push('string', text, start, word === 'N' || word === 'n' ? 'national' : word.slice(1).toLowerCase());
        i = next;
        continue;
      }
      push('word', word, start);
      i = j;
      continue;
    }
    if (c === '@') {
      let j = i + 1;
      if (sql[j] === '@') j++;
      if (sql[j] === "'" || sql[j] === '"' || sql[j] === '`') {
        const [, next] = readQuoted(sql, j, sql[j], false);
        j = next;
      } else while (j < n && (WORD_CHAR.test(sql[j]) || sql[j] === '.')) j++;
      push('var', sql.slice(i, j), start);
      i = j;
      continue;
    }
    const two = sql.slice(i, i + 3);
    const op = ['<=>'].includes(two)
      ? two
      : ['<=', '>=', '<>', '!=', ':=', '||', '&&', '<<', '>>', '->'].includes(sql.slice(i, i + 2))
        ? sql.slice(i, i + 2)
        : c;
    push('op', op, start);
    i += op.length;
  }
  return out;
}

/** Reads a quoted token starting at `i` (the quote); doubled quotes and (for strings) backslash escapes. */
function readQuoted(sql: string, i: number, q: string, backslash: boolean): [string, number] {
  let out = '';
  let j = i + 1;
  while (j < sql.length) {
    const ch = sql[j];
    if (ch === q) {
      if (sql[j + 1] === q) {
        out += q;
        j += 2;
        continue;
      }
      return [out, j + 1];
    }
    if (backslash && ch === '\\' && j + 1 < sql.length) {
      const e = sql[j + 1];
      out += ESCAPES[e] ?? e;
      j += 2;
      continue;
    }
    out += ch;
    j++;
  }
  return [out, j];
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '0': '\0', b: '\b', Z: '\x1a' };

/**
 * Splits a script into statements on `;` outside strings/comments (not needed for binlog QUERY events, which hold
 * one statement each; used for fixtures and SHOW CREATE output). Honours `DELIMITER` lines.
 */
export function splitStatements(script: string): string[] {
  const out: string[] = [];
  let delimiter = ';';
  let cur = '';
  // Whether cur holds more than whitespace and comments (kept as a flag: re-trimming cur per character is quadratic).
  let hasContent = false;
  let i = 0;
  const n = script.length;
  const flush = () => {
    const s = cur.trim();
    if (s) out.push(s);
    cur = '';
    hasContent = false;
  };
  while (i < n) {
    const c = script[i];
    // DELIMITER is a client command at the start of a line; comments before it (e.g. in dumps) do not matter.
    if (
      !hasContent &&
      (c === 'd' || c === 'D') &&
      /^delimiter\s/i.test(script.slice(i, i + 10)) &&
      script.slice(script.lastIndexOf('\n', i - 1) + 1, i).trim() === ''
    ) {
      const end = script.indexOf('\n', i);
      const line = script.slice(i, end < 0 ? n : end);
      delimiter = line.trim().split(/\s+/)[1] ?? ';';
      cur = '';
      i = end < 0 ? n : end + 1;
      continue;
    }
    if (c === "'" || c === '"' || c === '`') {
      let j = i + 1;
      while (j < n) {
        if (script[j] === '\\' && c !== '`') j += 2;
        else if (script[j] === c) {
          if (script[j + 1] === c) j += 2;
          else break;
        } else j++;
      }
      cur += script.slice(i, j + 1);
      hasContent = true;
      i = j + 1;
      continue;
    }
    if (
      c === '/' &&
      script[i + 1] === '*' &&
      script[i + 2] !== '!' &&
      !(script[i + 2] === 'M' && script[i + 3] === '!')
    ) {
      const end = script.indexOf('*/', i + 2);
      const stop = end < 0 ? n : end + 2;
      cur += script.slice(i, stop);
      i = stop;
      continue;
    }
    if (c === '#' || (c === '-' && script[i + 1] === '-' && /\s/.test(script[i + 2] ?? ' '))) {
      const end = script.indexOf('\n', i);
      const stop = end < 0 ? n : end;
      cur += script.slice(i, stop);
      i = stop;
      continue;
    }
    if (script.startsWith(delimiter, i)) {
      flush();
      i += delimiter.length;
      continue;
    }
    cur += c;
    if (!hasContent && c.trim() !== '') hasContent = true;
    i++;
  }
  flush();
  return out;
}
