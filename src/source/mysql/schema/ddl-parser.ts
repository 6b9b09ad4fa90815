/**
 * Structural parser for the MySQL/MariaDB DDL that changes table shape. It understands column definitions fully,
 * skips what does not matter (index options, partitioning, expressions) by balanced-parenthesis scanning, and
 * classifies non-structural statements as IGNORED. It throws DdlSyntaxError (with the token offset) on anything it
 * does not recognise, so the caller can fall back to another parser or to the unparseable-DDL policy.
 */
import type {
  AlterSpec,
  ColumnPosition,
  ColumnSpec,
  DdlStatement,
  DefaultSpec,
  KeySpec,
  QualifiedName,
  TableOptionsSpec,
  TypeSpec,
} from './ddl-ast.js';
import { type Token, type TokenizeOptions, tokenize } from './tokenizer.js';

export class DdlSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
    this.name = 'DdlSyntaxError';
  }
}

/** Statements that never change the table model (DML, transaction control, admin). */
const IGNORED_FIRST_WORDS = new Set([
  'SELECT',
  'INSERT',
  'UPDATE',
  'DELETE',
  'REPLACE',
  'CALL',
  'DO',
  'LOAD',
  'SET',
  'BEGIN',
  'COMMIT',
  'ROLLBACK',
  'SAVEPOINT',
  'RELEASE',
  'START',
  'XA',
  'LOCK',
  'UNLOCK',
  'GRANT',
  'REVOKE',
  'FLUSH',
  'ANALYZE',
  'OPTIMIZE',
  'REPAIR',
  'CHECK',
  'CHECKSUM',
  'SHOW',
  'DESCRIBE',
  'DESC',
  'EXPLAIN',
  'KILL',
  'RESET',
  'PURGE',
  'CHANGE',
  'STOP',
  'INSTALL',
  'UNINSTALL',
  'HANDLER',
  'PREPARE',
  'EXECUTE',
  'DEALLOCATE',
  'CACHE',
  'SHUTDOWN',
  'HELP',
  'WITH',
  'VALUES',
  'TABLE',
  'SIGNAL',
  'RESIGNAL',
  'GET',
  'DECLARE',
  'BINLOG',
  'CLONE',
  'RESTART',
  'IMPORT',
  'BACKUP',
]);

/** Objects other than tables/indexes/databases whose CREATE/ALTER/DROP is ignorable. */
const IGNORED_OBJECTS = new Set([
  'VIEW',
  'PROCEDURE',
  'FUNCTION',
  'TRIGGER',
  'EVENT',
  'USER',
  'ROLE',
  'SERVER',
  'TABLESPACE',
  'LOGFILE',
  'SEQUENCE',
  'SPATIAL',
  'RESOURCE',
  'PACKAGE',
  'AGGREGATE',
  'DEFINER',
  'SQL',
  'ALGORITHM',
  'INSTANCE',
  'UNDO',
  'PREPARE',
]);

/** Charset introducers whose hex literals decode with a Node encoding (for DEFAULT _latin1 X'..'). */
const HEX_INTRODUCER_ENCODINGS: Record<string, BufferEncoding> = {
  LATIN1: 'latin1',
  ASCII: 'latin1',
  UTF8: 'utf8',
  UTF8MB3: 'utf8',
  UTF8MB4: 'utf8',
};

const CURRENT_TS_FUNCS = new Set(['CURRENT_TIMESTAMP', 'NOW', 'LOCALTIME', 'LOCALTIMESTAMP']);

export function parseDdl(sql: string, options: TokenizeOptions = {}): DdlStatement {
  const tokens = tokenize(sql, options);
  const body = setStatementEnd(tokens);
  if (body > 0) tokens.splice(0, body);
  while (tokens.length > 0 && tokens[tokens.length - 1].text === ';' && tokens[tokens.length - 1].kind === 'op')
    tokens.pop();
  return new Parser(tokens, sql.length).statement();
}

/**
 * MariaDB's `SET STATEMENT var=value[, ...] FOR <statement>` runs the statement with session variables changed:
 * the index of the statement's first token, or 0 without the prefix.
 */
function setStatementEnd(tokens: Token[]): number {
  const [set, statement] = tokens;
  if (set?.kind !== 'word' || set.upper !== 'SET' || statement?.kind !== 'word' || statement.upper !== 'STATEMENT')
    return 0;
  let depth = 0;
  for (let i = 2; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.kind === 'op' && t.text === '(') depth++;
    else if (t.kind === 'op' && t.text === ')') depth--;
    else if (depth === 0 && t.kind === 'word' && t.upper === 'FOR') return i + 1;
  }
  return 0;
}

/** The statement without a leading `SET STATEMENT ... FOR` (the text Debezium reports as the DDL). */
export function withoutSetStatement(sql: string, options: TokenizeOptions = {}): string {
  const tokens = tokenize(sql, options);
  const body = setStatementEnd(tokens);
  return body > 0 && body < tokens.length ? sql.slice(tokens[body].pos) : sql;
}

/** Key part placeholder for a MariaDB application-time period (`p WITHOUT OVERLAPS`), resolved in CREATE TABLE. */
const PERIOD_KEY_PART = '\0period:';

class Parser {
  private i = 0;
  /** PERIOD FOR name(start, end) of the CREATE TABLE being parsed, by lower-cased name. */
  private readonly periods = new Map<string, [string, string]>();
  constructor(
    private readonly t: Token[],
    private readonly end: number,
  ) {}

  // ---- cursor helpers -------------------------------------------------------------------------------------
  private peek(k = 0): Token | undefined {
    return this.t[this.i + k];
  }
  private atEnd(): boolean {
    return this.i >= this.t.length;
  }
  private isWord(w: string, k = 0): boolean {
    const tok = this.t[this.i + k];
    return tok !== undefined && tok.kind === 'word' && tok.upper === w;
  }
  private isOp(op: string, k = 0): boolean {
    const tok = this.t[this.i + k];
    return tok !== undefined && tok.kind === 'op' && tok.text === op;
  }
  private acceptWord(...words: string[]): boolean {
    for (let k = 0; k < words.length; k++) if (!this.isWord(words[k], k)) return false;
    this.i += words.length;
    return true;
  }
  private acceptOp(op: string): boolean {
    if (!this.isOp(op)) return false;
    this.i++;
    return true;
  }
  private fail(expected: string): never {
    const tok = this.peek();
    const got = tok ? `'${tok.text}'` : 'end of statement';
    throw new DdlSyntaxError(`expected ${expected} but found ${got}`, tok?.pos ?? this.end);
  }
  private expectWord(w: string): void {
    if (!this.acceptWord(w)) this.fail(w);
  }
  private expectOp(op: string): void {
    if (!this.acceptOp(op)) this.fail(`'${op}'`);
  }
  private next(): Token {
    const tok = this.t[this.i];
    if (!tok) this.fail('more input');
    this.i++;
    return tok;
  }

  /** An identifier: bare word, `quoted`, or (leniently) a string where MySQL allows one (charset, engine names). */
  private ident(what = 'identifier'): string {
    const tok = this.peek();
    if (tok && (tok.kind === 'word' || tok.kind === 'qident')) {
      this.i++;
      return tok.text;
    }
    this.fail(what);
  }
  private nameOrString(what: string): string {
    const tok = this.peek();
    if (tok && (tok.kind === 'word' || tok.kind === 'qident' || tok.kind === 'string')) {
      this.i++;
      return tok.text;
    }
    this.fail(what);
  }
  /**
   * A table or column name, also as a "string": without ANSI_QUOTES the server rejects that, so in a binlog it can
   * only come from a session with ANSI_QUOTES, where it is an identifier.
   */
  private nameIdent(what: string): string {
    const tok = this.peek();
    if (tok?.kind === 'string' && tok.introducer === undefined) {
      this.i++;
      return tok.text;
    }
    return this.ident(what);
  }
  private qualifiedName(): QualifiedName {
    const first = this.nameIdent('table name');
    // `db`.`tbl`, db.tbl; the tokenizer may glue `db.` + `tbl` as word/op/word or read `.5tbl` oddly: keep simple.
    if (this.isOp('.')) {
      this.i++;
      return { database: first, name: this.nameIdent('table name after "."') };
    }
    return { database: null, name: first };
  }
  /** Skips a balanced ( ... ) group starting at the current '('; returns the raw tokens' text span. */
  private skipParens(): string {
    const startTok = this.peek();
    if (!this.isOp('(')) this.fail("'('");
    let depth = 0;
    const parts: string[] = [];
    do {
      const tok = this.next();
      if (tok.kind === 'op' && tok.text === '(') depth++;
      else if (tok.kind === 'op' && tok.text === ')') depth--;
      parts.push(renderToken(tok));
    } while (depth > 0 && !this.atEnd());
    if (depth > 0) throw new DdlSyntaxError('unbalanced parentheses', startTok?.pos ?? this.end);
    return joinTokens(parts);
  }
  /** Skips tokens (balanced) until ',' or ')' at depth 0, or the end. */
  private skipToElementEnd(): void {
    while (!this.atEnd() && !this.isOp(',') && !this.isOp(')')) {
      if (this.isOp('(')) this.skipParens();
      else this.i++;
    }
  }
  private skipToEnd(): void {
    this.i = this.t.length;
  }
  private ifExists(): boolean {
    return this.acceptWord('IF', 'EXISTS');
  }
  private ifNotExists(): boolean {
    return this.acceptWord('IF', 'NOT', 'EXISTS');
  }
  private optEquals(): void {
    this.acceptOp('=');
  }

  // ---- statements -----------------------------------------------------------------------------------------
  statement(): DdlStatement {
    const first = this.peek();
    if (!first) return { kind: 'IGNORED', what: 'empty statement' };
    if (first.kind === 'op' && first.text === '(') return { kind: 'IGNORED', what: 'query' };
    if (first.kind !== 'word') this.fail('a statement keyword');
    let stmt: DdlStatement;
    switch (first.upper) {
      case 'CREATE':
        this.i++;
        stmt = this.create();
        break;
      case 'ALTER':
        this.i++;
        stmt = this.alter();
        break;
      case 'DROP':
        this.i++;
        stmt = this.drop();
        break;
      case 'RENAME':
        this.i++;
        stmt = this.rename();
        break;
      case 'TRUNCATE':
        this.i++;
        this.acceptWord('TABLE');
        stmt = { kind: 'TRUNCATE_TABLE', table: this.qualifiedName() };
        this.acceptWord('WAIT') ? this.next() : this.acceptWord('NOWAIT');
        break;
      case 'USE':
        this.i++;
        stmt = { kind: 'USE', database: this.ident('database name') };
        break;
      default:
        if (IGNORED_FIRST_WORDS.has(first.upper)) return { kind: 'IGNORED', what: first.upper };
        this.fail('a statement keyword');
    }
    // Ignorable objects (views, routines, users...) are classified by their head; their bodies are not parsed.
    if (stmt.kind !== 'IGNORED' && !this.atEnd()) this.fail('end of statement');
    return stmt;
  }

  private create(): DdlStatement {
    const orReplace = this.acceptWord('OR', 'REPLACE');
    // Skip CREATE [DEFINER=...] [SQL SECURITY ...] [ALGORITHM=...] prefixes of views/routines.
    if (this.isWord('DEFINER') || this.isWord('ALGORITHM') || this.isWord('SQL') || this.isWord('AGGREGATE')) {
      return { kind: 'IGNORED', what: `CREATE ${this.peek()?.upper}` };
    }
    const temporary = this.acceptWord('TEMPORARY');
    if (this.acceptWord('TABLE')) return this.createTable(orReplace, temporary);
    if (this.isWord('DATABASE') || this.isWord('SCHEMA')) {
      this.i++;
      const ifNotExists = this.ifNotExists();
      const name = this.ident('database name');
      return { kind: 'CREATE_DATABASE', name, ifNotExists, orReplace, options: this.databaseOptions() };
    }
    this.acceptWord('ONLINE') || this.acceptWord('OFFLINE');
    let kind: KeySpec['kind'] = 'INDEX';
    if (this.acceptWord('UNIQUE')) kind = 'UNIQUE';
    else if (this.acceptWord('FULLTEXT')) kind = 'FULLTEXT';
    else if (this.isWord('SPATIAL') && this.isWord('INDEX', 1)) {
      this.i++;
      kind = 'SPATIAL';
    }
    if (this.acceptWord('INDEX')) {
      const ifNotExists = this.ifNotExists();
      const name = this.ident('index name');
      if (this.acceptWord('USING') || this.acceptWord('TYPE')) this.ident('index type');
      this.expectWord('ON');
      const table = this.qualifiedName();
      const columns = this.keyParts();
      this.skipToEnd(); // index options, ALGORITHM=, LOCK=
      return {
        kind: 'CREATE_INDEX',
        table,
        key: ifNotExists ? { kind, name, columns, ifNotExists } : { kind, name, columns },
      };
    }
    const obj = this.peek();
    if (obj?.kind === 'word' && IGNORED_OBJECTS.has(obj.upper)) return { kind: 'IGNORED', what: `CREATE ${obj.upper}` };
    this.fail('TABLE, DATABASE, INDEX or an ignorable object after CREATE');
  }

  private createTable(orReplace: boolean, temporary: boolean): DdlStatement {
    const ifNotExists = this.ifNotExists();
    const table = this.qualifiedName();
    if (this.acceptWord('LIKE')) {
      return { kind: 'CREATE_TABLE_LIKE', table, like: this.qualifiedName(), ifNotExists, orReplace, temporary };
    }
    if (this.isOp('(') && this.isWord('LIKE', 1)) {
      this.i += 2;
      const like = this.qualifiedName();
      this.expectOp(')');
      return { kind: 'CREATE_TABLE_LIKE', table, like, ifNotExists, orReplace, temporary };
    }
    const columns: ColumnSpec[] = [];
    const keys: KeySpec[] = [];
    let asSelect = false;
    if (this.isOp('(') && !this.isQueryStart(1)) {
      this.i++;
      for (;;) {
        this.createDefinition(columns, keys);
        if (this.acceptOp(',')) continue;
        this.expectOp(')');
        break;
      }
    }
    for (const key of keys) key.columns = key.columns.flatMap((c) => this.resolvePeriodKeyPart(c));
    const options = this.tableOptions();
    if (this.acceptWord('PARTITION')) {
      // PARTITION BY ... may be followed by AS SELECT; scan for a SELECT at depth 0.
      while (!this.atEnd()) {
        if (this.isOp('(')) this.skipParens();
        else if (this.isWord('SELECT') || this.isWord('AS')) break;
        else this.i++;
      }
    }
    this.acceptWord('IGNORE') || this.acceptWord('REPLACE');
    this.acceptWord('AS');
    if (!this.atEnd()) {
      if (this.isQueryStart(0)) {
        asSelect = true;
        this.skipToEnd();
      } else this.fail('table option, PARTITION BY or SELECT');
    }
    return { kind: 'CREATE_TABLE', table, ifNotExists, orReplace, temporary, columns, keys, options, asSelect };
  }

  /** `p WITHOUT OVERLAPS` → [end, start] of period p (as MariaDB indexes it); unknown periods stay unresolved. */
  private resolvePeriodKeyPart(part: string): string[] {
    if (!part.startsWith(PERIOD_KEY_PART)) return [part];
    const period = this.periods.get(part.slice(PERIOD_KEY_PART.length).toLowerCase());
    return period ? [period[1], period[0]] : [part];
  }

  private isQueryStart(k: number): boolean {
    if (this.isOp('(', k)) return this.isQueryStart(k + 1);
    return this.isWord('SELECT', k) || this.isWord('WITH', k) || this.isWord('VALUES', k) || this.isWord('TABLE', k);
  }

  /** One element inside CREATE TABLE ( ... ): a column, key, constraint, check or period. */
  private createDefinition(columns: ColumnSpec[], keys: KeySpec[]): void {
    const key = this.tryKeyDefinition();
    if (key !== undefined) {
      if (key !== null) keys.push(key);
      return;
    }
    const col = this.columnDefinition();
    columns.push(col);
  }

  /** Parses a key/constraint element if one starts here; null when it was recognised but is irrelevant. */
  private tryKeyDefinition(): KeySpec | null | undefined {
    const tok = this.peek();
    if (tok?.kind !== 'word') return undefined;
    let symbol: string | null = null;
    if (tok.upper === 'CONSTRAINT') {
      this.i++;
      this.ifNotExists();
      if (!['PRIMARY', 'UNIQUE', 'FOREIGN', 'CHECK'].some((w) => this.isWord(w)))
        symbol = this.ident('constraint name');
    } else if (tok.upper === 'PERIOD' && this.isWord('FOR', 1)) {
      this.i += 2;
      const name = this.ident('period name');
      if (this.isOp('(') && !this.isOp(')', 2)) {
        this.i++;
        const start = this.nameIdent('period start column');
        this.expectOp(',');
        const end = this.nameIdent('period end column');
        this.expectOp(')');
        this.periods.set(name.toLowerCase(), [start, end]);
      }
      this.skipToElementEnd();
      return null;
    } else if (tok.upper === 'VECTOR' && (this.isWord('INDEX', 1) || this.isWord('KEY', 1))) {
      this.skipToElementEnd(); // MariaDB 11.7 vector index
      return null;
    } else if (!['PRIMARY', 'UNIQUE', 'FOREIGN', 'CHECK', 'INDEX', 'KEY', 'FULLTEXT', 'SPATIAL'].includes(tok.upper)) {
      return undefined;
    }
    let kind: KeySpec['kind'];
    let name: string | null = null;
    let ifNotExists = false;
    if (this.acceptWord('PRIMARY')) {
      this.expectWord('KEY');
      kind = 'PRIMARY';
      ifNotExists = this.ifNotExists(); // MariaDB
      if (!this.isOp('(') && !this.isWord('USING')) this.ident('index name'); // MySQL ignores a PK name
    } else if (this.acceptWord('UNIQUE')) {
      kind = 'UNIQUE';
      this.acceptWord('INDEX') || this.acceptWord('KEY');
      ifNotExists = this.ifNotExists();
      if (!this.isOp('(') && !this.isWord('USING')) name = this.ident('index name');
    } else if (this.acceptWord('FOREIGN')) {
      this.expectWord('KEY');
      ifNotExists = this.ifNotExists();
      kind = 'FOREIGN';
      if (!this.isOp('(')) name = this.ident('foreign key name');
    } else if (this.acceptWord('CHECK')) {
      this.skipToElementEnd();
      return { kind: 'CHECK', name: symbol, columns: [] };
    } else {
      kind = this.acceptWord('FULLTEXT') ? 'FULLTEXT' : this.acceptWord('SPATIAL') ? 'SPATIAL' : 'INDEX';
      this.acceptWord('INDEX') || this.acceptWord('KEY');
      ifNotExists = this.ifNotExists();
      if (!this.isOp('(') && !this.isWord('USING')) name = this.ident('index name');
    }
    if (this.acceptWord('USING') || this.acceptWord('TYPE')) this.ident('index type');
    const columns = this.keyParts();
    this.skipToElementEnd(); // index options, REFERENCES ... ON DELETE ...
    return ifNotExists ? { kind, name: name ?? symbol, columns, ifNotExists } : { kind, name: name ?? symbol, columns };
  }

  /** ( col [(len)] [ASC|DESC], (expr), ... ) → plain column names. */
  private keyParts(): string[] {
    this.expectOp('(');
    const cols: string[] = [];
    for (;;) {
      if (this.isOp('(')) this.skipParens();
      else {
        const col = this.nameIdent('key column');
        if (this.isOp('(')) this.skipParens();
        this.acceptWord('ASC') || this.acceptWord('DESC');
        // MariaDB application-time period in a key: `p WITHOUT OVERLAPS` names the period, not a column; the server
        // appends the period's end and start columns to the index (resolved once the table's periods are known).
        cols.push(this.acceptWord('WITHOUT', 'OVERLAPS') ? `${PERIOD_KEY_PART}${col}` : col);
      }
      if (this.acceptOp(',')) continue;
      this.expectOp(')');
      return cols;
    }
  }

  private columnDefinition(): ColumnSpec {
    let name = this.nameIdent('column name');
    // field_ident: `tbl.col` and `db.tbl.col` are accepted (the qualifiers must name the table itself).
    for (let k = 0; k < 2 && this.isOp('.'); k++) {
      this.i++;
      name = this.nameIdent('column name after "."');
    }
    const type = this.dataType();
    const col: ColumnSpec = {
      name,
      type,
      autoIncrement: false,
      primaryKey: false,
      unique: false,
      comment: null,
      generated: null,
      invisible: false,
    };
    this.columnAttributes(col);
    return col;
  }

  private dataType(): TypeSpec {
    const spec: TypeSpec = {
      name: '',
      args: [],
      values: null,
      unsigned: false,
      zerofill: false,
      charset: null,
      collation: null,
      binaryAttr: false,
      national: false,
    };
    const w = this.ident('data type').toUpperCase();
    let name = w;
    if (w === 'NATIONAL') {
      spec.national = true;
      name = this.ident('data type').toUpperCase();
      if (name === 'CHARACTER') name = 'CHAR';
    } else if (w === 'NCHAR' || w === 'NVARCHAR') {
      spec.national = true;
      name = w === 'NCHAR' ? 'CHAR' : 'VARCHAR';
    }
    if (name === 'CHARACTER') name = 'CHAR';
    if ((name === 'CHAR' || name === 'VARCHAR') && this.acceptWord('VARYING')) name = 'VARCHAR';
    else if (name === 'CHAR' && this.acceptWord('VARCHAR'))
      name = 'VARCHAR'; // NCHAR VARCHAR
    else if (name === 'DOUBLE') this.acceptWord('PRECISION');
    else if (name === 'LONG') {
      if (this.acceptWord('VARBINARY')) name = 'LONG VARBINARY';
      else if (this.acceptWord('VARCHAR') || this.acceptWord('CHAR', 'VARYING')) name = 'LONG VARCHAR';
      else if (this.acceptWord('BINARY')) name = 'LONG VARBINARY';
    }
    spec.name = name;
    if (this.isOp('(')) {
      this.i++;
      if (!this.isOp(')')) {
        for (;;) {
          const tok = this.next();
          if (tok.kind === 'string') spec.values = [...(spec.values ?? []), tok.text];
          else if (tok.kind === 'number') spec.args.push(tok.text);
          else throw new DdlSyntaxError(`unexpected '${tok.text}' in type arguments of ${name}`, tok.pos);
          if (this.acceptOp(',')) continue;
          break;
        }
      }
      this.expectOp(')');
    }
    if ((name === 'ENUM' || name === 'SET') && spec.values === null) spec.values = [];
    // Modifiers in any order.
    for (;;) {
      if (this.acceptWord('UNSIGNED')) spec.unsigned = true;
      else if (this.acceptWord('SIGNED')) spec.unsigned = false;
      else if (this.acceptWord('ZEROFILL')) {
        spec.zerofill = true;
        spec.unsigned = true;
      } else if (this.acceptWord('BINARY')) spec.binaryAttr = true;
      else if (this.acceptWord('BYTE'))
        spec.charset = 'binary'; // CHAR BYTE = BINARY
      else if (this.acceptWord('ASCII')) spec.charset = 'latin1';
      else if (this.acceptWord('UNICODE')) spec.charset = 'ucs2';
      else if (this.acceptWord('CHARACTER', 'SET') || this.acceptWord('CHARSET') || this.acceptWord('CHAR', 'SET')) {
        spec.charset = this.nameOrString('character set name').toLowerCase();
      } else if (this.acceptWord('COLLATE')) spec.collation = this.nameOrString('collation name').toLowerCase();
      else if (this.acceptWord('ARRAY')) {
        /* CAST(... AS UNSIGNED ARRAY) only */
      } else break;
    }
    return spec;
  }

  private columnAttributes(col: ColumnSpec): void {
    for (;;) {
      const tok = this.peek();
      if (!tok || (tok.kind === 'op' && (tok.text === ',' || tok.text === ')'))) return;
      if (tok.kind !== 'word') this.fail('column attribute');
      switch (tok.upper) {
        case 'NOT':
          this.i++;
          if (this.acceptWord('SECONDARY') || this.acceptWord('ENFORCED')) break; // HeatWave; CHECK ... NOT ENFORCED
          this.expectWord('NULL');
          col.nullable = false;
          break;
        case 'NULL':
          this.i++;
          col.nullable = true;
          break;
        case 'DEFAULT':
          this.i++;
          col.default = this.defaultValue();
          break;
        case 'AUTO_INCREMENT':
          this.i++;
          col.autoIncrement = true;
          break;
        case 'SERIAL':
          // SERIAL DEFAULT VALUE = NOT NULL AUTO_INCREMENT UNIQUE
          this.i++;
          this.expectWord('DEFAULT');
          this.expectWord('VALUE');
          col.nullable = false;
          col.autoIncrement = true;
          col.unique = true;
          break;
        case 'UNIQUE':
          this.i++;
          this.acceptWord('KEY');
          col.unique = true;
          break;
        case 'PRIMARY':
          this.i++;
          this.expectWord('KEY');
          col.primaryKey = true;
          break;
        case 'KEY':
          this.i++;
          col.primaryKey = true;
          break;
        case 'COMMENT':
          this.i++;
          col.comment = this.stringLiteral('comment text');
          break;
        case 'COLLATE':
          this.i++;
          col.type.collation = this.nameOrString('collation name').toLowerCase();
          break;
        case 'CHARACTER':
        case 'CHARSET':
          this.acceptWord('CHARACTER', 'SET') || this.acceptWord('CHARSET');
          col.type.charset = this.nameOrString('character set name').toLowerCase();
          break;
        case 'BINARY':
          this.i++;
          col.type.binaryAttr = true;
          break;
        case 'GENERATED':
          this.i++;
          this.expectWord('ALWAYS');
          this.generatedColumn(col);
          break;
        case 'AS':
          this.generatedColumn(col);
          break;
        case 'VIRTUAL':
          this.i++;
          col.generated = 'VIRTUAL';
          break;
        case 'STORED':
        case 'PERSISTENT':
          this.i++;
          col.generated = 'STORED';
          break;
        case 'INVISIBLE':
          this.i++;
          col.invisible = true;
          break;
        case 'VISIBLE':
          this.i++;
          col.invisible = false;
          break;
        case 'ON':
          this.i++;
          this.expectWord('UPDATE');
          this.functionLikeValue();
          break;
        case 'REFERENCES':
          this.i++;
          this.references();
          break;
        case 'CONSTRAINT':
          this.i++;
          if (!this.isWord('CHECK')) this.ident('constraint name');
          break;
        case 'CHECK':
          this.i++;
          this.skipParens();
          break;
        case 'ENFORCED':
          this.i++;
          break;
        case 'COLUMN_FORMAT':
        case 'STORAGE':
        case 'SRID':
        case 'COMPRESSED':
        case 'ENGINE_ATTRIBUTE':
        case 'SECONDARY_ENGINE_ATTRIBUTE':
          this.i++;
          if (tok.upper === 'COMPRESSED' && !this.isOp('=')) break;
          this.optEquals();
          this.next();
          break;
        case 'WITH':
        case 'WITHOUT':
          this.i++;
          this.expectWord('SYSTEM');
          this.expectWord('VERSIONING');
          if (tok.upper === 'WITH') col.systemVersioning = true;
          break;
        case 'NOT_SECONDARY':
        case 'SIGNED':
          this.i++;
          break;
        case 'UNSIGNED':
        case 'ZEROFILL':
          this.i++;
          col.type.unsigned = true;
          if (tok.upper === 'ZEROFILL') col.type.zerofill = true;
          break;
        case 'FIRST':
        case 'AFTER':
          return; // ALTER TABLE position, handled by the caller
        default:
          this.fail('column attribute');
      }
    }
  }

  private generatedColumn(col: ColumnSpec): void {
    this.expectWord('AS');
    if (this.acceptWord('ROW')) {
      // MariaDB system versioning: AS ROW START|END is a real, server-maintained column.
      if (this.acceptWord('START')) col.rowPeriod = 'START';
      else {
        this.expectWord('END');
        col.rowPeriod = 'END';
      }
      return;
    }
    this.skipParens();
    col.generated = 'VIRTUAL';
  }

  private references(): void {
    this.qualifiedName();
    if (this.isOp('(')) this.skipParens();
    for (;;) {
      if (this.acceptWord('MATCH')) this.next();
      else if (this.isWord('ON') && (this.isWord('DELETE', 1) || this.isWord('UPDATE', 1))) {
        this.i += 2;
        if (this.acceptWord('SET')) this.next();
        else if (this.acceptWord('NO')) this.expectWord('ACTION');
        else this.next();
      } else return;
    }
  }

  private stringLiteral(what: string): string {
    const tok = this.peek();
    if (tok?.kind !== 'string') this.fail(what);
    this.i++;
    return tok.text;
  }

  private defaultValue(): DefaultSpec {
    const tok = this.peek();
    if (!tok) this.fail('default value');
    if (tok.kind === 'string') {
      this.i++;
      if (tok.introducer === 'hex' || tok.introducer === 'bit')
        return {
          kind: 'literal',
          text: `${tok.introducer === 'hex' ? 'x' : 'b'}'${tok.text}'`,
          introducer: tok.introducer,
        };
      let text = tok.text;
      // Adjacent literals are concatenated: DEFAULT 'ab' 'cd' = 'abcd'.
      while (this.peek()?.kind === 'string' && this.peek()?.introducer === undefined) text += this.next().text;
      return tok.introducer ? { kind: 'literal', text, introducer: tok.introducer } : { kind: 'literal', text };
    }
    if (tok.kind === 'number') {
      this.i++;
      return { kind: 'literal', text: tok.text };
    }
    if (tok.kind === 'op' && (tok.text === '-' || tok.text === '+')) {
      this.i++;
      const num = this.next();
      if (num.kind !== 'number') throw new DdlSyntaxError('expected a number after sign in DEFAULT', num.pos);
      return { kind: 'literal', text: tok.text === '-' ? `-${num.text}` : num.text };
    }
    if (tok.kind === 'op' && tok.text === '(') return { kind: 'expr', text: this.skipParens() };
    if (tok.kind === 'word') {
      if (tok.upper === 'NULL') {
        this.i++;
        return { kind: 'null' };
      }
      if (tok.upper === 'TRUE' || tok.upper === 'FALSE') {
        this.i++;
        return { kind: 'literal', text: tok.upper === 'TRUE' ? '1' : '0' };
      }
      // Typed temporal literals (DATE '2000-01-01', TIME '10:00', TIMESTAMP '...'): the server stores the string.
      const lit = this.peek(1);
      if (
        (tok.upper === 'DATE' || tok.upper === 'TIME' || tok.upper === 'TIMESTAMP') &&
        lit?.kind === 'string' &&
        lit.introducer === undefined
      ) {
        this.i += 2;
        return { kind: 'literal', text: lit.text };
      }
      // A character set introducer before a hex literal (_latin1 X'4142', _utf8mb4 0xC3A9) makes it a string in that
      // charset: the server shows the decoded text. Other charsets (and bit literals) keep the literal's bytes.
      if (
        tok.text.startsWith('_') &&
        lit?.kind === 'string' &&
        (lit.introducer === 'hex' || lit.introducer === 'bit')
      ) {
        this.i++;
        const encoding = HEX_INTRODUCER_ENCODINGS[tok.upper.slice(1)];
        if (lit.introducer === 'hex' && encoding && lit.text.length % 2 === 0) {
          this.i++;
          return { kind: 'literal', text: Buffer.from(lit.text, 'hex').toString(encoding) };
        }
        return this.defaultValue();
      }
      if (tok.upper === 'NEXT' && this.isWord('VALUE', 1) && this.isWord('FOR', 2)) {
        this.i += 3;
        return { kind: 'expr', text: `nextval(${this.qualifiedNameText()})` };
      }
      return { kind: 'expr', text: this.functionLikeValue() };
    }
    this.fail('default value');
  }

  private qualifiedNameText(): string {
    const q = this.qualifiedName();
    return q.database ? `${q.database}.${q.name}` : q.name;
  }

  /** CURRENT_TIMESTAMP, NOW(6), LOCALTIME(), uuid(), ... → normalised text. */
  private functionLikeValue(): string {
    const name = this.ident('function');
    let args = '';
    if (this.isOp('(')) args = this.skipParens();
    const upper = name.toUpperCase();
    if (CURRENT_TS_FUNCS.has(upper)) {
      const fsp = args.replace(/[()\s]/g, '');
      return fsp && fsp !== '0' ? `CURRENT_TIMESTAMP(${fsp})` : 'CURRENT_TIMESTAMP';
    }
    return `${name.toLowerCase()}${args}`;
  }

  /** Table options after CREATE TABLE (...): stops at PARTITION, AS/IGNORE/REPLACE or the query of CREATE ... SELECT. */
  private tableOptions(): TableOptionsSpec {
    const out: TableOptionsSpec = {};
    for (;;) {
      this.acceptOp(',');
      if (this.atEnd() || this.isQueryStart(0)) return out;
      if (!this.tableOption(out)) return out;
    }
  }

  /** One table option; false when the next token does not start one. */
  private tableOption(out: TableOptionsSpec): boolean {
    const tok = this.peek();
    if (tok?.kind !== 'word') return false;
    this.acceptWord('DEFAULT');
    if (this.acceptWord('CHARACTER', 'SET') || this.acceptWord('CHARSET') || this.acceptWord('CHAR', 'SET')) {
      this.optEquals();
      if (this.acceptWord('DEFAULT')) return true;
      out.charset = this.nameOrString('character set name').toLowerCase();
      return true;
    }
    if (this.acceptWord('COLLATE')) {
      this.optEquals();
      if (this.acceptWord('DEFAULT')) return true;
      out.collation = this.nameOrString('collation name').toLowerCase();
      return true;
    }
    if (this.acceptWord('COMMENT')) {
      this.optEquals();
      out.comment = this.stringLiteral('comment text');
      return true;
    }
    if (this.acceptWord('DATA', 'DIRECTORY') || this.acceptWord('INDEX', 'DIRECTORY')) {
      this.optEquals();
      this.next();
      return true;
    }
    if (this.acceptWord('START', 'TRANSACTION')) return true;
    if (this.acceptWord('STORAGE')) {
      this.next();
      return true;
    }
    if (this.isWord('WITH', 0) && this.isWord('SYSTEM', 1)) {
      this.i += 3;
      out.systemVersioning = true;
      return true;
    }
    const cur = this.peek();
    if (cur?.kind !== 'word' || !TABLE_OPTION_WORDS.has(cur.upper)) return false;
    this.i++;
    this.optEquals();
    if (this.isOp('(')) this.skipParens();
    else this.next();
    return true;
  }

  private databaseOptions(): TableOptionsSpec {
    const out: TableOptionsSpec = {};
    while (!this.atEnd()) {
      if (!this.tableOption(out)) {
        if (this.acceptWord('ENCRYPTION') || this.acceptWord('READ', 'ONLY')) {
          this.optEquals();
          this.next();
        } else this.fail('database option');
      }
    }
    return out;
  }

  // ---- ALTER ----------------------------------------------------------------------------------------------
  private alter(): DdlStatement {
    this.acceptWord('ONLINE');
    this.acceptWord('IGNORE');
    if (this.acceptWord('TABLE')) {
      this.ifExists();
      const table = this.qualifiedName();
      const specs: AlterSpec[] = [];
      if (this.acceptWord('WAIT')) this.next();
      else this.acceptWord('NOWAIT');
      while (!this.atEnd()) {
        specs.push(...this.alterSpec());
        if (this.atEnd()) break;
        // Partition options may follow the last spec without a comma.
        if (this.isWord('PARTITION') || this.isWord('REMOVE')) continue;
        this.expectOp(',');
      }
      return { kind: 'ALTER_TABLE', table, specs };
    }
    if (this.acceptWord('DATABASE') || this.acceptWord('SCHEMA')) {
      let name: string | null = null;
      const tok = this.peek();
      if (tok && (tok.kind === 'qident' || (tok.kind === 'word' && !DATABASE_OPTION_START.has(tok.upper)))) {
        name = this.ident('database name');
      }
      if (this.acceptWord('UPGRADE')) {
        this.skipToEnd();
        return { kind: 'IGNORED', what: 'ALTER DATABASE UPGRADE' };
      }
      return { kind: 'ALTER_DATABASE', name, options: this.databaseOptions() };
    }
    const obj = this.peek();
    if (obj?.kind === 'word' && (IGNORED_OBJECTS.has(obj.upper) || obj.upper === 'DEFINER'))
      return { kind: 'IGNORED', what: `ALTER ${obj.upper}` };
    this.fail('TABLE, DATABASE or an ignorable object after ALTER');
  }

  private columnPosition(): ColumnPosition | undefined {
    if (this.acceptWord('FIRST')) return { kind: 'FIRST' };
    if (this.acceptWord('AFTER')) return { kind: 'AFTER', column: this.ident('column name after AFTER') };
    return undefined;
  }

  private alterSpec(): AlterSpec[] {
    const tok = this.peek();
    if (tok?.kind !== 'word') this.fail('ALTER TABLE specification');
    const w = tok.upper;
    // Partition management and other whole-statement trailers: no effect on columns, may contain commas.
    if (PARTITION_OPS.has(w) && (this.isWord('PARTITION', 1) || this.isWord('PARTITIONING', 1))) {
      this.skipToEnd();
      return [{ kind: 'NOOP', what: `${w} PARTITION` }];
    }
    if (w === 'PARTITION' || (w === 'REMOVE' && this.isWord('PARTITIONING', 1))) {
      this.skipToEnd();
      return [{ kind: 'NOOP', what: 'PARTITION' }];
    }
    switch (w) {
      case 'ADD':
        this.i++;
        return this.alterAdd();
      case 'DROP':
        this.i++;
        return [this.alterDrop()];
      case 'MODIFY': {
        this.i++;
        this.acceptWord('COLUMN');
        const ifExists = this.ifExists();
        const column = this.columnDefinition();
        return [{ kind: 'CHANGE_COLUMN', oldName: column.name, column, position: this.columnPosition(), ifExists }];
      }
      case 'CHANGE': {
        this.i++;
        this.acceptWord('COLUMN');
        const ifExists = this.ifExists();
        const oldName = this.ident('column name');
        const column = this.columnDefinition();
        return [{ kind: 'CHANGE_COLUMN', oldName, column, position: this.columnPosition(), ifExists }];
      }
      case 'RENAME': {
        this.i++;
        if (this.acceptWord('COLUMN')) {
          this.ifExists();
          const oldName = this.ident('column name');
          this.expectWord('TO');
          return [{ kind: 'RENAME_COLUMN', oldName, newName: this.ident('column name') }];
        }
        if (this.acceptWord('INDEX') || this.acceptWord('KEY')) {
          this.ifExists();
          const oldName = this.ident('index name');
          this.expectWord('TO');
          return [{ kind: 'RENAME_KEY', oldName, newName: this.ident('index name') }];
        }
        this.acceptWord('TO') || this.acceptWord('AS');
        return [{ kind: 'RENAME_TABLE', to: this.qualifiedName() }];
      }
      case 'ALTER': {
        this.i++;
        if (
          this.acceptWord('INDEX') ||
          this.acceptWord('KEY') ||
          this.acceptWord('CHECK') ||
          this.acceptWord('CONSTRAINT')
        ) {
          this.skipToElementEnd();
          return [{ kind: 'NOOP', what: 'ALTER INDEX/CHECK' }];
        }
        this.acceptWord('COLUMN');
        this.ifExists();
        const name = this.ident('column name');
        if (this.acceptWord('SET')) {
          if (this.acceptWord('DEFAULT')) return [{ kind: 'SET_DEFAULT', name, default: this.defaultValue() }];
          if (this.acceptWord('VISIBLE')) return [{ kind: 'SET_VISIBILITY', name, invisible: false }];
          if (this.acceptWord('INVISIBLE')) return [{ kind: 'SET_VISIBILITY', name, invisible: true }];
          this.fail('DEFAULT, VISIBLE or INVISIBLE');
        }
        this.expectWord('DROP');
        this.expectWord('DEFAULT');
        return [{ kind: 'DROP_DEFAULT', name }];
      }
      case 'CONVERT': {
        this.i++;
        this.expectWord('TO');
        if (!(this.acceptWord('CHARACTER', 'SET') || this.acceptWord('CHARSET') || this.acceptWord('CHAR', 'SET')))
          this.fail('CHARACTER SET');
        this.optEquals();
        const charset = this.nameOrString('character set name').toLowerCase();
        let collation: string | null = null;
        if (this.acceptWord('COLLATE')) {
          this.optEquals();
          collation = this.nameOrString('collation name').toLowerCase();
        }
        return [{ kind: 'CONVERT_CHARSET', charset, collation }];
      }
      case 'ALGORITHM':
      case 'LOCK':
      case 'AUTO_INCREMENT':
        this.i++;
        this.optEquals();
        this.next();
        return [{ kind: 'NOOP', what: w }];
      case 'FORCE':
      case 'NOWAIT':
        this.i++;
        return [{ kind: 'NOOP', what: w }];
      case 'WAIT':
        this.i += 2;
        return [{ kind: 'NOOP', what: w }];
      case 'ENABLE':
      case 'DISABLE':
        this.i++;
        this.expectWord('KEYS');
        return [{ kind: 'NOOP', what: `${w} KEYS` }];
      case 'DISCARD':
      case 'IMPORT':
        this.i++;
        this.expectWord('TABLESPACE');
        return [{ kind: 'NOOP', what: `${w} TABLESPACE` }];
      case 'ORDER':
        this.i++;
        this.expectWord('BY');
        this.skipToEnd();
        return [{ kind: 'NOOP', what: 'ORDER BY' }];
      case 'WITH':
      case 'WITHOUT':
        this.i++;
        this.expectWord('VALIDATION');
        return [{ kind: 'NOOP', what: `${w} VALIDATION` }];
      case 'UPGRADE':
        this.skipToEnd();
        return [{ kind: 'NOOP', what: 'UPGRADE PARTITIONING' }];
      default: {
        const options: TableOptionsSpec = {};
        const start = this.i;
        while (!this.atEnd() && !this.isOp(',') && this.tableOption(options)) {
          /* options may follow each other without commas */
        }
        if (this.i === start) this.fail('ALTER TABLE specification');
        return [{ kind: 'OPTIONS', options }];
      }
    }
  }

  private alterAdd(): AlterSpec[] {
    if (this.acceptWord('SYSTEM', 'VERSIONING')) return [{ kind: 'RELOAD', what: 'ADD SYSTEM VERSIONING' }];
    if (this.isWord('PERIOD') && (this.isWord('FOR', 1) || this.isWord('IF', 1))) {
      this.skipToElementEnd();
      return [{ kind: 'NOOP', what: 'ADD PERIOD' }];
    }
    const hadColumnWord = this.acceptWord('COLUMN');
    const ifNotExists = this.ifNotExists();
    if (this.isOp('(')) {
      // ADD [COLUMN] (col_def, key_def, ...)
      this.i++;
      const out: AlterSpec[] = [];
      for (;;) {
        const key = hadColumnWord && !this.isKeyStart() ? undefined : this.tryKeyDefinition();
        if (key !== undefined) {
          if (key !== null) out.push({ kind: 'ADD_KEY', key, ifNotExists: ifNotExists || key.ifNotExists === true });
        } else out.push({ kind: 'ADD_COLUMN', column: this.columnDefinition(), ifNotExists });
        if (this.acceptOp(',')) continue;
        this.expectOp(')');
        return out;
      }
    }
    if (!hadColumnWord) {
      const key = this.tryKeyDefinition();
      if (key !== undefined)
        return key === null
          ? [{ kind: 'NOOP', what: 'ADD' }]
          : [{ kind: 'ADD_KEY', key, ifNotExists: ifNotExists || key.ifNotExists === true }];
    }
    const column = this.columnDefinition();
    return [{ kind: 'ADD_COLUMN', column, position: this.columnPosition(), ifNotExists }];
  }

  private isKeyStart(): boolean {
    return ['CONSTRAINT', 'PRIMARY', 'UNIQUE', 'FOREIGN', 'CHECK', 'INDEX', 'KEY', 'FULLTEXT', 'SPATIAL'].some((w) =>
      this.isWord(w),
    );
  }

  private alterDrop(): AlterSpec {
    if (this.acceptWord('PRIMARY', 'KEY')) return { kind: 'DROP_PRIMARY_KEY' };
    if (this.acceptWord('SYSTEM', 'VERSIONING')) return { kind: 'RELOAD', what: 'DROP SYSTEM VERSIONING' };
    if (this.isWord('PERIOD') && (this.isWord('FOR', 1) || this.isWord('IF', 1))) {
      this.skipToElementEnd();
      return { kind: 'NOOP', what: 'DROP PERIOD' };
    }
    if (this.acceptWord('FOREIGN', 'KEY') || this.acceptWord('CHECK')) {
      this.ifExists();
      this.ident('constraint name');
      return { kind: 'NOOP', what: 'DROP FOREIGN KEY/CHECK' };
    }
    if (this.acceptWord('INDEX') || this.acceptWord('KEY') || this.acceptWord('CONSTRAINT')) {
      const ifExists = this.ifExists();
      return { kind: 'DROP_KEY', name: this.ident('index name'), ifExists };
    }
    this.acceptWord('COLUMN');
    const ifExists = this.ifExists();
    const name = this.ident('column name');
    this.acceptWord('RESTRICT') || this.acceptWord('CASCADE');
    return { kind: 'DROP_COLUMN', name, ifExists };
  }

  // ---- DROP / RENAME --------------------------------------------------------------------------------------
  private drop(): DdlStatement {
    const start = this.t[this.i - 1].pos;
    const temporary = this.acceptWord('TEMPORARY');
    if (this.acceptWord('TABLE') || this.acceptWord('TABLES')) {
      const ifExists = this.ifExists();
      const tablesAt = this.peek()?.pos ?? this.end;
      const tables: QualifiedName[] = [];
      do tables.push(this.qualifiedName());
      while (this.acceptOp(','));
      if (this.acceptWord('WAIT')) this.next();
      else this.acceptWord('NOWAIT');
      const dropType = this.peek()?.kind === 'word' ? this.peek()?.upper : undefined;
      this.acceptWord('RESTRICT') || this.acceptWord('CASCADE') || this.acceptWord('FORCE');
      return {
        kind: 'DROP_TABLE',
        tables,
        temporary,
        ifExists,
        prefix: [start, tablesAt],
        ...(dropType === 'RESTRICT' || dropType === 'CASCADE' ? { dropType } : {}),
      };
    }
    if (this.acceptWord('DATABASE') || this.acceptWord('SCHEMA')) {
      const ifExists = this.ifExists();
      return { kind: 'DROP_DATABASE', name: this.ident('database name'), ifExists };
    }
    this.acceptWord('ONLINE') || this.acceptWord('OFFLINE');
    if (this.acceptWord('INDEX')) {
      this.ifExists();
      const name = this.ident('index name');
      this.expectWord('ON');
      const table = this.qualifiedName();
      this.skipToEnd(); // ALGORITHM= / LOCK= / WAIT
      return { kind: 'DROP_INDEX', table, name };
    }
    const obj = this.peek();
    if (obj?.kind === 'word' && IGNORED_OBJECTS.has(obj.upper)) return { kind: 'IGNORED', what: `DROP ${obj.upper}` };
    this.fail('TABLE, DATABASE, INDEX or an ignorable object after DROP');
  }

  private rename(): DdlStatement {
    if (this.acceptWord('USER')) {
      this.skipToEnd();
      return { kind: 'IGNORED', what: 'RENAME USER' };
    }
    const start = this.t[this.i - 1].pos;
    if (!this.acceptWord('TABLE')) this.expectWord('TABLES');
    this.ifExists();
    const pairs: Array<{ from: QualifiedName; to: QualifiedName; span: [number, number] }> = [];
    do {
      const clauseStart = this.peek()?.pos ?? this.end;
      const from = this.qualifiedName();
      if (this.acceptWord('WAIT')) this.next();
      else this.acceptWord('NOWAIT');
      this.expectWord('TO');
      const to = this.qualifiedName();
      pairs.push({ from, to, span: [clauseStart, this.peek()?.pos ?? this.end] });
    } while (this.acceptOp(','));
    return { kind: 'RENAME_TABLE', pairs, start };
  }
}

const PARTITION_OPS = new Set([
  'ADD',
  'DROP',
  'DISCARD',
  'IMPORT',
  'TRUNCATE',
  'COALESCE',
  'REORGANIZE',
  'EXCHANGE',
  'ANALYZE',
  'CHECK',
  'OPTIMIZE',
  'REBUILD',
  'REPAIR',
  'REMOVE',
  'CONVERT',
]);

const DATABASE_OPTION_START = new Set(['DEFAULT', 'CHARACTER', 'CHARSET', 'COLLATE', 'ENCRYPTION', 'READ', 'COMMENT']);

/** Table options with a single value (or a parenthesised list); names from MySQL 8 and MariaDB 11 manuals. */
const TABLE_OPTION_WORDS = new Set([
  'ENGINE',
  'TYPE',
  'AUTO_INCREMENT',
  'AVG_ROW_LENGTH',
  'CHECKSUM',
  'TABLE_CHECKSUM',
  'COMPRESSION',
  'CONNECTION',
  'DELAY_KEY_WRITE',
  'ENCRYPTION',
  'ENCRYPTED',
  'ENCRYPTION_KEY_ID',
  'ENGINE_ATTRIBUTE',
  'SECONDARY_ENGINE',
  'SECONDARY_ENGINE_ATTRIBUTE',
  'INSERT_METHOD',
  'KEY_BLOCK_SIZE',
  'MAX_ROWS',
  'MIN_ROWS',
  'PACK_KEYS',
  'PASSWORD',
  'ROW_FORMAT',
  'STATS_AUTO_RECALC',
  'STATS_PERSISTENT',
  'STATS_SAMPLE_PAGES',
  'TABLESPACE',
  'UNION',
  'PAGE_CHECKSUM',
  'PAGE_COMPRESSED',
  'PAGE_COMPRESSION_LEVEL',
  'TRANSACTIONAL',
  'IETF_QUOTES',
  'SEQUENCE',
  'AUTOEXTEND_SIZE',
]);

function renderToken(tok: Token): string {
  switch (tok.kind) {
    case 'qident':
      return `\`${tok.text.replaceAll('`', '``')}\``;
    case 'string':
      if (tok.introducer === 'hex') return `x'${tok.text}'`;
      if (tok.introducer === 'bit') return `b'${tok.text}'`;
      return `${tok.introducer && tok.introducer !== 'national' ? `_${tok.introducer}` : ''}'${tok.text.replaceAll("'", "''")}'`;
    default:
      return tok.text;
  }
}

/** Joins expression tokens with single spaces, but none around parentheses, dots and commas. */
function joinTokens(parts: string[]): string {
  let out = '';
  for (const p of parts) {
    const prev = out[out.length - 1];
    const glue = out === '' || prev === '(' || prev === '.' || p === ')' || p === ',' || p === '.' || p === '(';
    out += glue ? p : ` ${p}`;
  }
  return out;
}
