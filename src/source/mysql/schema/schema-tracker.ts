/**
 * The schema model at the current binlog position: databases → tables, updated by DDL from QUERY events and
 * seeded from the server (schema-loader.ts) or from schema history. `apply` is all-or-nothing per table: when a
 * statement cannot be applied to our model (e.g. ALTER of a column we do not know), the table is left as it was
 * and reported in `needsReload` so the caller can re-read it from the server.
 */
import { type Logger, silentLogger } from '../../../common/logger.js';
import type { ColumnDef, DatabaseDef, TableDef } from '../../../model/table-def.js';
import { tableId } from '../../../model/table-def.js';
import type { SchemaHistoryEntry } from '../../../stores/schema-history.js';
import {
  charsetOfCollation,
  defaultCollation,
  normalizeCharset,
  normalizeCollation,
  type ServerFlavor,
} from './charsets.js';
import { applyDefault, buildColumn, type ColumnContext, resolveType } from './column-definition.js';
import type {
  AlterSpec,
  ColumnPosition,
  ColumnSpec,
  DdlStatement,
  KeySpec,
  QualifiedName,
  TableOptionsSpec,
} from './ddl-ast.js';
import { DdlSyntaxError, parseDdl, withoutSetStatement } from './ddl-parser.js';
import { type DdlPosition, formatPosition, truncateStatement, UnparseableDdlError } from './errors.js';
import { type FallbackStatement, parseWithNodeSqlParser } from './fallback-parser.js';
import { deriveUniqueKey } from './unique-key.js';

export interface SchemaTrackerOptions {
  /** Which server's information_schema conventions to mirror. @default 'mariadb' */
  flavor?: ServerFlavor;
  /** Integer display widths in COLUMN_TYPE ('int(11)'). @default true for MariaDB, false for MySQL (8.0.19+) */
  intDisplayWidth?: boolean;
  /** character_set_server. @default 'utf8mb4' */
  serverCharset?: string;
  /** collation_server. @default the charset's default collation */
  serverCollation?: string;
  /** lower_case_table_names: 1 stores names lower-case, 2 keeps them but compares case-insensitively. @default 0 */
  lowerCaseTableNames?: 0 | 1 | 2;
  /** sql_mode ANSI_QUOTES: "x" is an identifier. @default false */
  ansiQuotes?: boolean;
  /** schema.history.internal.skip.unparseable.ddl: warn and skip instead of throwing. @default false */
  skipUnparseableDdl?: boolean;
  /** Try node-sql-parser when the structural parser fails. @default true */
  useFallbackParser?: boolean;
  /** Only tables accepted here are modelled (e.g. the captured tables). @default all tables */
  tableFilter?: (database: string, table: string) => boolean;
  logger?: Logger;
}

export type TableChangeType = 'CREATE' | 'ALTER' | 'DROP';

export interface TableChange {
  type: TableChangeType;
  id: string;
  /** Full resulting definition (a copy); null for DROP. */
  table: TableDef | null;
  /** For a rename (an ALTER under the new id): the id the table had before. */
  previousId?: string;
}

export interface AppliedDdl {
  /** Statement kind; 'UNPARSEABLE' when skipped under skipUnparseableDdl. */
  statement: DdlStatement['kind'] | 'RELOAD_TABLES' | 'UNPARSEABLE';
  parsedBy: 'structural' | 'node-sql-parser' | 'none';
  tableChanges: TableChange[];
  databasesCreated: string[];
  databasesDropped: string[];
  databasesAltered: string[];
  /** Ids of truncated tables. */
  truncated: string[];
  /** Ids of tables whose definition could not be derived from the statement: re-read them from the server. */
  needsReload: string[];
  /** True when the statement does not change the modelled structure (GRANT, CREATE VIEW, DML, ...). */
  ignored: boolean;
  /** True when the statement was unparseable and skipped (skipUnparseableDdl). */
  skipped: boolean;
  /** Why tables were reloaded or statements had no effect, for logs. */
  warnings: string[];
  /** The statement as Debezium reports it: without a MariaDB `SET STATEMENT ... FOR` prefix. */
  ddl?: string;
  /** The database a statement without table changes is about (CREATE/ALTER/DROP DATABASE); else the default. */
  database?: string | null;
  /**
   * Statements Debezium reports per table (RENAME TABLE: each `a TO b` clause; DROP TABLE: `DROP TABLE \`db\`.\`t\``):
   * one schema change per table change, with this text (by the change's id).
   */
  perTableDdl?: Array<{ id: string; ddl: string }>;
  /** DROP DATABASE: Debezium's schema change lists no table changes. */
  dropsDatabase?: boolean;
  /**
   * Ids of the tables a table statement names (CREATE/ALTER/DROP/RENAME/TRUNCATE TABLE, CREATE/DROP INDEX),
   * whether or not they are captured; absent for other statements. Lets the caller tell a statement about
   * tables it does not capture from database-level DDL.
   */
  namedTables?: string[];
}

export interface ApplyContext {
  /** Default database of the QUERY event (may be empty). */
  defaultDatabase?: string | null;
  /** The statement's session had sql_mode ANSI_QUOTES ("x" is an identifier); overrides the tracker option. */
  ansiQuotes?: boolean;
  position?: DdlPosition;
}

/** JSON-serialisable state of a tracker. */
export interface SchemaSnapshot {
  version: 1;
  databases: DatabaseDef[];
  tables: TableDef[];
}

class ApplyFailure extends Error {}

export class SchemaTracker {
  private readonly databasesByKey = new Map<string, DatabaseDef>();
  private readonly tablesByKey = new Map<string, TableDef>();
  /**
   * getTable's results by the exact (database, table) spelling asked for: rows events ask for the same names
   * millions of times, and building the case-folded key each time showed in profiles. Cleared on every change to
   * tablesByKey, so it only ever repeats what the folded lookup would return.
   */
  private readonly lookupCache = new Map<string, Map<string, TableDef>>();
  private readonly opts: Required<Omit<SchemaTrackerOptions, 'tableFilter' | 'serverCollation'>> & {
    serverCollation: string;
    tableFilter?: (database: string, table: string) => boolean;
  };

  constructor(options: SchemaTrackerOptions = {}) {
    const flavor = options.flavor ?? 'mariadb';
    const serverCharset = normalizeCharset(options.serverCharset ?? 'utf8mb4');
    this.opts = {
      flavor,
      intDisplayWidth: options.intDisplayWidth ?? flavor === 'mariadb',
      serverCharset,
      serverCollation: options.serverCollation
        ? normalizeCollation(options.serverCollation)
        : defaultCollation(serverCharset, flavor),
      lowerCaseTableNames: options.lowerCaseTableNames ?? 0,
      ansiQuotes: options.ansiQuotes ?? false,
      skipUnparseableDdl: options.skipUnparseableDdl ?? false,
      useFallbackParser: options.useFallbackParser ?? true,
      logger: options.logger ?? silentLogger,
    };
    if (options.tableFilter) this.opts.tableFilter = options.tableFilter;
  }

  // ---- names ----------------------------------------------------------------------------------------------
  /** Name as stored (lower-cased when lower_case_table_names=1). */
  private stored(name: string): string {
    return this.opts.lowerCaseTableNames === 1 ? name.toLowerCase() : name;
  }
  private key(name: string): string {
    return this.opts.lowerCaseTableNames === 0 ? name : name.toLowerCase();
  }
  private tableKey(db: string, name: string): string {
    return `${this.key(db)}\u0000${this.key(name)}`;
  }
  private accepts(db: string, name: string): boolean {
    return this.opts.tableFilter ? this.opts.tableFilter(db, name) : true;
  }

  // ---- reading / seeding ----------------------------------------------------------------------------------
  getTable(database: string, name: string): TableDef | undefined {
    const hit = this.lookupCache.get(database)?.get(name);
    if (hit !== undefined) return hit;
    const table = this.tablesByKey.get(this.tableKey(database, name));
    if (table === undefined) return undefined;
    let inDb = this.lookupCache.get(database);
    if (inDb === undefined) {
      inDb = new Map();
      this.lookupCache.set(database, inDb);
    }
    inDb.set(name, table);
    return table;
  }
  getDatabase(name: string): DatabaseDef | undefined {
    return this.databasesByKey.get(this.key(name));
  }
  tables(): TableDef[] {
    return [...this.tablesByKey.values()];
  }
  databases(): DatabaseDef[] {
    return [...this.databasesByKey.values()];
  }
  /** Adds or replaces a database definition (e.g. from the loader). */
  putDatabase(db: DatabaseDef): void {
    this.databasesByKey.set(this.key(db.name), { ...db });
  }
  /** Adds or replaces a table definition (e.g. from the loader after a reload). */
  putTable(table: TableDef): void {
    this.lookupCache.clear();
    this.tablesByKey.set(this.tableKey(table.database, table.name), structuredClone(table));
  }
  removeTable(database: string, name: string): boolean {
    this.lookupCache.clear();
    return this.tablesByKey.delete(this.tableKey(database, name));
  }

  snapshot(): SchemaSnapshot {
    const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    return {
      version: 1,
      databases: this.databases()
        .sort(byName)
        .map((d) => ({ ...d })),
      tables: this.tables()
        .sort((a, b) => byName({ name: tableId(a.database, a.name) }, { name: tableId(b.database, b.name) }))
        .map((t) => structuredClone(t)),
    };
  }

  restore(snapshot: SchemaSnapshot): void {
    if (snapshot.version !== 1) throw new Error(`unsupported schema snapshot version ${String(snapshot.version)}`);
    this.databasesByKey.clear();
    this.tablesByKey.clear();
    this.lookupCache.clear();
    for (const d of snapshot.databases) this.putDatabase(d);
    for (const t of snapshot.tables) this.putTable(t);
  }

  /**
   * Rebuilds the model from schema history: table definitions are taken from each entry's tableChanges (the
   * authoritative result recorded at the time); database defaults are recovered by re-parsing database DDL.
   */
  static fromHistory(entries: SchemaHistoryEntry[], options: SchemaTrackerOptions = {}): SchemaTracker {
    const tracker = new SchemaTracker(options);
    for (const entry of [...entries].sort((a, b) => a.seq - b.seq)) {
      try {
        const stmt = parseDdl(entry.ddl, { ansiQuotes: tracker.opts.ansiQuotes });
        if (stmt.kind === 'CREATE_DATABASE' || stmt.kind === 'ALTER_DATABASE' || stmt.kind === 'DROP_DATABASE') {
          tracker.applyStatement(stmt, entry.databaseName || null, emptyResult('structural'));
        }
      } catch {
        // Not database DDL we need; table definitions come from tableChanges below.
      }
      for (const change of entry.tableChanges) {
        if (change.previousId) {
          const dot = change.previousId.indexOf('.');
          tracker.removeTable(change.previousId.slice(0, dot), change.previousId.slice(dot + 1));
        }
        if (change.type === 'DROP') {
          const dot = change.id.indexOf('.');
          tracker.removeTable(change.id.slice(0, dot), change.id.slice(dot + 1));
        } else if (change.table) tracker.putTable(change.table);
      }
    }
    return tracker;
  }

  // ---- applying DDL ---------------------------------------------------------------------------------------
  /** Adapter for the streaming source's SchemaPort. */
  applyDdl(
    ddl: string,
    defaultDatabase: string,
    position: { file: string; pos: number },
    session: { ansiQuotes?: boolean } = {},
  ): AppliedDdl {
    return this.apply(ddl, {
      defaultDatabase,
      position,
      ...(session.ansiQuotes !== undefined ? { ansiQuotes: session.ansiQuotes } : {}),
    });
  }

  apply(ddl: string, context: ApplyContext = {}): AppliedDdl {
    const defaultDb = context.defaultDatabase ? context.defaultDatabase : null;
    const tokenOptions = { ansiQuotes: context.ansiQuotes ?? this.opts.ansiQuotes };
    const body = withoutSetStatement(ddl, tokenOptions);
    let stmt: FallbackStatement;
    let parsedBy: AppliedDdl['parsedBy'] = 'structural';
    try {
      stmt = parseDdl(ddl, tokenOptions);
    } catch (err) {
      if (!(err instanceof DdlSyntaxError)) throw err;
      const fallback = this.opts.useFallbackParser ? parseWithNodeSqlParser(body) : null;
      if (!fallback) return this.unparseable(ddl, context.position, err);
      this.opts.logger.warn('DDL parsed by node-sql-parser only; affected tables will be re-read', {
        position: formatPosition(context.position),
        statement: truncateStatement(ddl),
        reason: err.message,
      });
      stmt = fallback;
      parsedBy = 'node-sql-parser';
    }
    const r = this.applyStatement(stmt, defaultDb, emptyResult(parsedBy));
    r.ddl = body;
    r.database = defaultDb;
    const named = namedTables(stmt).flatMap((q) => {
      const id = this.resolve(q, defaultDb);
      return id ? [id] : [];
    });
    if (named.length > 0) {
      // Debezium attributes a table statement to the database of the table it names, not the session's.
      r.database = named[0].db;
      r.namedTables = named.map((id) => tableId(id.db, id.name));
    }
    if (stmt.kind === 'CREATE_DATABASE' || stmt.kind === 'DROP_DATABASE') r.database = this.stored(stmt.name);
    if (stmt.kind === 'ALTER_DATABASE' && stmt.name) r.database = this.stored(stmt.name);
    if (stmt.kind === 'DROP_DATABASE') r.dropsDatabase = true;
    if (stmt.kind === 'RENAME_TABLE') r.perTableDdl = this.renameTexts(stmt.pairs, stmt.start, ddl, defaultDb);
    if (stmt.kind === 'DROP_TABLE' && stmt.prefix) {
      const prefix = ddl.slice(stmt.prefix[0], stmt.prefix[1]);
      const quote = (n: string) => `\`${n.replaceAll('`', '``')}\``;
      r.perTableDdl = r.tableChanges.map((c) => {
        const dot = c.id.indexOf('.');
        const name = `${quote(c.id.slice(0, dot))}.${quote(c.id.slice(dot + 1))}`;
        return { id: c.id, ddl: `${prefix}${name}${stmt.dropType ? ` ${stmt.dropType}` : ''}` };
      });
    }
    return r;
  }

  /** Debezium reports each `a TO b` of a RENAME TABLE as its own statement: `RENAME TABLE a TO b`. */
  private renameTexts(
    pairs: Array<{ to: QualifiedName; span?: [number, number] }>,
    start: number | undefined,
    ddl: string,
    defaultDb: string | null,
  ): Array<{ id: string; ddl: string }> {
    const first = pairs[0]?.span;
    if (start === undefined || !first) return [];
    const prefix = ddl.slice(start, first[0]);
    return pairs.flatMap((p) => {
      const to = this.resolve(p.to, defaultDb);
      return to && p.span
        ? [{ id: tableId(to.db, to.name), ddl: prefix + ddl.slice(p.span[0], p.span[1]).trimEnd() }]
        : [];
    });
  }

  private unparseable(ddl: string, position: DdlPosition | undefined, err: DdlSyntaxError): AppliedDdl {
    if (!this.opts.skipUnparseableDdl) throw new UnparseableDdlError(ddl, position, err.message, err.offset, err);
    this.opts.logger.warn('skipping unparseable DDL (schema.history.internal.skip.unparseable.ddl=true)', {
      position: formatPosition(position),
      statement: truncateStatement(ddl),
      reason: err.message,
    });
    const r = emptyResult('none');
    r.statement = 'UNPARSEABLE';
    r.skipped = true;
    r.ignored = true;
    r.warnings.push(`unparseable: ${err.message}`);
    return r;
  }

  private resolve(q: QualifiedName, defaultDb: string | null): { db: string; name: string } | null {
    const db = q.database ?? defaultDb;
    if (!db) return null;
    return { db: this.stored(db), name: this.stored(q.name) };
  }

  private applyStatement(stmt: FallbackStatement, defaultDb: string | null, r: AppliedDdl): AppliedDdl {
    r.statement = stmt.kind;
    const noDb = (q: QualifiedName): AppliedDdl => {
      r.warnings.push(`no database for table ${q.name} (no default database in the QUERY event)`);
      return r;
    };
    switch (stmt.kind) {
      case 'IGNORED':
      case 'USE':
        r.ignored = true;
        return r;
      case 'CREATE_DATABASE': {
        const existing = this.getDatabase(stmt.name);
        if (existing && stmt.ifNotExists) return r;
        this.putDatabase({ name: this.stored(stmt.name), ...this.resolveCharset(stmt.options, null) });
        r.databasesCreated.push(this.stored(stmt.name));
        return r;
      }
      case 'ALTER_DATABASE': {
        const name = stmt.name ?? defaultDb;
        if (!name) {
          r.ignored = true;
          return r;
        }
        const cur = this.getDatabase(name) ?? this.implicitDatabase(name);
        if (stmt.options.charset || stmt.options.collation) {
          this.putDatabase({ ...cur, ...this.resolveCharset(stmt.options, null) });
          r.databasesAltered.push(cur.name);
        }
        return r;
      }
      case 'DROP_DATABASE': {
        const key = this.key(stmt.name);
        this.databasesByKey.delete(key);
        this.lookupCache.clear();
        for (const [k, t] of [...this.tablesByKey]) {
          if (this.key(t.database) !== key) continue;
          this.tablesByKey.delete(k);
          r.tableChanges.push({ type: 'DROP', id: tableId(t.database, t.name), table: null });
        }
        r.databasesDropped.push(this.stored(stmt.name));
        return r;
      }
      case 'CREATE_TABLE':
      case 'CREATE_TABLE_LIKE': {
        if (stmt.temporary) {
          r.ignored = true; // not replicated in row-based binlogs; never captured
          return r;
        }
        const id = this.resolve(stmt.table, defaultDb);
        if (!id) return noDb(stmt.table);
        if (!this.accepts(id.db, id.name)) return ignore(r);
        const exists = this.getTable(id.db, id.name) !== undefined;
        if (exists && stmt.ifNotExists) return r;
        let table: TableDef;
        if (stmt.kind === 'CREATE_TABLE_LIKE') {
          const src = this.resolve(stmt.like, defaultDb);
          const source = src ? this.getTable(src.db, src.name) : undefined;
          if (!source) {
            r.needsReload.push(tableId(id.db, id.name));
            r.warnings.push(`CREATE TABLE ... LIKE of unknown table ${stmt.like.name}`);
            return r;
          }
          table = { ...structuredClone(source), database: id.db, name: id.name };
        } else {
          try {
            table = this.buildTable(id.db, id.name, stmt.columns, stmt.keys, stmt.options);
          } catch (err) {
            if (!(err instanceof ApplyFailure)) throw err;
            r.needsReload.push(tableId(id.db, id.name));
            r.warnings.push(err.message);
            return r;
          }
          if (stmt.asSelect) {
            r.needsReload.push(tableId(id.db, id.name));
            r.warnings.push('CREATE TABLE ... SELECT: columns from the query are only known to the server');
          }
        }
        this.putTable(table);
        r.tableChanges.push({ type: 'CREATE', id: tableId(id.db, id.name), table: structuredClone(table) });
        return r;
      }
      case 'DROP_TABLE': {
        if (stmt.temporary) return ignore(r);
        for (const q of stmt.tables) {
          const id = this.resolve(q, defaultDb);
          if (!id) {
            noDb(q);
            continue;
          }
          const t = this.getTable(id.db, id.name);
          if (t && this.removeTable(id.db, id.name))
            r.tableChanges.push({ type: 'DROP', id: tableId(t.database, t.name), table: null });
        }
        return r;
      }
      case 'RENAME_TABLE':
        for (const p of stmt.pairs) this.renameTable(p.from, p.to, defaultDb, r);
        return r;
      case 'TRUNCATE_TABLE': {
        const id = this.resolve(stmt.table, defaultDb);
        if (!id) return noDb(stmt.table);
        const t = this.getTable(id.db, id.name);
        if (t) r.truncated.push(tableId(t.database, t.name));
        else r.ignored = true;
        return r;
      }
      case 'CREATE_INDEX':
        return this.alterTable(
          stmt.table,
          [{ kind: 'ADD_KEY', key: stmt.key, ifNotExists: stmt.key.ifNotExists === true }],
          defaultDb,
          r,
        );
      case 'DROP_INDEX':
        return this.alterTable(stmt.table, [{ kind: 'DROP_KEY', name: stmt.name, ifExists: true }], defaultDb, r);
      case 'ALTER_TABLE':
        return this.alterTable(stmt.table, stmt.specs, defaultDb, r);
      case 'RELOAD_TABLES':
        for (const q of stmt.tables) {
          const id = this.resolve(q, defaultDb);
          if (id && this.accepts(id.db, id.name)) r.needsReload.push(tableId(id.db, id.name));
        }
        r.warnings.push(`${stmt.what} understood only by node-sql-parser`);
        return r;
    }
  }

  private implicitDatabase(name: string): DatabaseDef {
    return { name: this.stored(name), charset: this.opts.serverCharset, collation: this.opts.serverCollation };
  }

  /** Charset/collation from options, inheriting `parent` (a database) or the server defaults. */
  private resolveCharset(
    options: TableOptionsSpec,
    parent: DatabaseDef | null,
  ): { charset: string; collation: string } {
    const flavor = this.opts.flavor;
    const collation = options.collation ? normalizeCollation(options.collation) : null;
    const charset = options.charset
      ? normalizeCharset(options.charset)
      : collation
        ? (charsetOfCollation(collation) ?? parent?.charset ?? this.opts.serverCharset)
        : (parent?.charset ?? this.opts.serverCharset);
    if (collation) return { charset, collation };
    if (options.charset) return { charset, collation: defaultCollation(charset, flavor) };
    return { charset, collation: parent?.collation ?? this.opts.serverCollation };
  }

  private columnContext(table: TableDef): ColumnContext {
    const charset = table.charset ?? this.opts.serverCharset;
    return {
      flavor: this.opts.flavor,
      intDisplayWidth: this.opts.intDisplayWidth,
      tableCharset: charset,
      tableCollation: table.collation ?? defaultCollation(charset, this.opts.flavor),
    };
  }

  private buildTable(
    db: string,
    name: string,
    columns: ColumnSpec[],
    keys: KeySpec[],
    options: TableOptionsSpec,
  ): TableDef {
    const database = this.getDatabase(db) ?? this.implicitDatabase(db);
    const cs = this.resolveCharset(options, database);
    const table: TableDef = {
      database: db,
      name,
      columns: [],
      primaryKey: [],
      uniqueKeys: [],
      charset: cs.charset,
      collation: cs.collation,
      comment: options.comment ? options.comment : null,
    };
    const ctx = this.columnContext(table);
    const pending: KeySpec[] = [];
    columns.forEach((spec, i) => {
      if (findColumn(table, spec.name) >= 0) throw new ApplyFailure(`duplicate column ${spec.name}`);
      table.columns.push(buildColumn(spec, i, ctx));
      pending.push(...columnKeys(spec, resolveType(spec.type, ctx).serial === true));
    });
    // Unique keys in declaration order: without a PRIMARY KEY the first NOT NULL one is the key.
    const declared: string[] = [];
    for (const k of [...pending, ...keys]) {
      const name = addKey(table, k);
      if (name) declared.push(name);
    }
    deriveUniqueKey(table, declared);
    enforcePrimaryKeyNotNull(table);
    if (options.systemVersioning || columns.some((c) => c.systemVersioning)) {
      table.systemVersioned = { rowEnd: columns.find((c) => c.rowPeriod === 'END')?.name ?? null };
    }
    return table;
  }

  private renameTable(from: QualifiedName, to: QualifiedName, defaultDb: string | null, r: AppliedDdl): void {
    const a = this.resolve(from, defaultDb);
    const b = this.resolve(to, defaultDb);
    if (!a || !b) {
      r.warnings.push(`RENAME TABLE ${from.name} TO ${to.name} without a database`);
      return;
    }
    const t = this.getTable(a.db, a.name);
    if (t) this.removeTable(a.db, a.name);
    if (!this.accepts(b.db, b.name)) {
      if (t) r.tableChanges.push({ type: 'DROP', id: tableId(t.database, t.name), table: null });
      return;
    }
    if (!t) {
      r.needsReload.push(tableId(b.db, b.name));
      r.warnings.push(`RENAME TABLE of unknown table ${tableId(a.db, a.name)}`);
      return;
    }
    const moved = { ...t, database: b.db, name: b.name };
    this.putTable(moved);
    // Debezium: one ALTER under the new id (previousId names the old one), not a DROP and a CREATE.
    r.tableChanges.push({
      type: 'ALTER',
      id: tableId(b.db, b.name),
      table: structuredClone(moved),
      previousId: tableId(t.database, t.name),
    });
  }

  private alterTable(q: QualifiedName, specs: AlterSpec[], defaultDb: string | null, r: AppliedDdl): AppliedDdl {
    const id = this.resolve(q, defaultDb);
    if (!id) {
      r.warnings.push(`no database for table ${q.name} (no default database in the QUERY event)`);
      return r;
    }
    const current = this.getTable(id.db, id.name);
    if (!current) {
      if (this.accepts(id.db, id.name)) {
        r.needsReload.push(tableId(id.db, id.name));
        r.warnings.push(`ALTER of unknown table ${tableId(id.db, id.name)}`);
      } else r.ignored = true;
      return r;
    }
    const table = structuredClone(current);
    let renameTo: { db: string; name: string } | null = null;
    try {
      for (const spec of specs) {
        if (spec.kind === 'RENAME_TABLE') {
          renameTo = this.resolve(spec.to, defaultDb);
          continue;
        }
        if (spec.kind === 'RELOAD') throw new ApplyFailure(`${spec.what} changes columns in ways DDL does not show`);
        this.applyAlterSpec(table, spec);
      }
      deriveUniqueKey(table);
    } catch (err) {
      if (!(err instanceof ApplyFailure)) throw err;
      r.needsReload.push(tableId(current.database, current.name));
      r.warnings.push(`${tableId(current.database, current.name)}: ${err.message}`);
      return r;
    }
    enforcePrimaryKeyNotNull(table);
    table.columns.forEach((c, i) => {
      c.position = i;
    });
    const oldId = tableId(current.database, current.name);
    if (
      renameTo &&
      this.key(renameTo.db) + this.key(renameTo.name) !== this.key(current.database) + this.key(current.name)
    ) {
      this.removeTable(current.database, current.name);
      if (!this.accepts(renameTo.db, renameTo.name)) {
        r.tableChanges.push({ type: 'DROP', id: oldId, table: null });
        return r;
      }
      table.database = renameTo.db;
      table.name = renameTo.name;
      this.putTable(table);
      r.tableChanges.push({
        type: 'ALTER',
        id: tableId(table.database, table.name),
        table: structuredClone(table),
        previousId: oldId,
      });
      return r;
    }
    this.putTable(table);
    r.tableChanges.push({ type: 'ALTER', id: oldId, table: structuredClone(table) });
    return r;
  }

  private applyAlterSpec(table: TableDef, spec: AlterSpec): void {
    const ctx = this.columnContext(table);
    const need = (name: string): number => {
      const i = findColumn(table, name);
      if (i < 0) throw new ApplyFailure(`unknown column ${name}`);
      return i;
    };
    switch (spec.kind) {
      case 'ADD_COLUMN': {
        if (findColumn(table, spec.column.name) >= 0) {
          if (spec.ifNotExists) return;
          throw new ApplyFailure(`column ${spec.column.name} already exists`);
        }
        const col = buildColumn(spec.column, 0, ctx);
        insertColumn(table, col, spec.position ?? null, table.columns.length);
        for (const k of columnKeys(spec.column, resolveType(spec.column.type, ctx).serial === true)) addKey(table, k);
        return;
      }
      case 'DROP_COLUMN': {
        const i = findColumn(table, spec.name);
        if (i < 0) {
          if (spec.ifExists) return;
          throw new ApplyFailure(`unknown column ${spec.name}`);
        }
        const [col] = table.columns.splice(i, 1);
        removeColumnFromKeys(table, col.name);
        return;
      }
      case 'CHANGE_COLUMN': {
        const i = findColumn(table, spec.oldName);
        if (i < 0) {
          if (spec.ifExists) return;
          throw new ApplyFailure(`unknown column ${spec.oldName}`);
        }
        const old = table.columns[i];
        const col = buildColumn(spec.column, 0, ctx);
        table.columns.splice(i, 1);
        insertColumn(table, col, spec.position ?? null, i);
        if (old.name !== col.name) renameColumnInKeys(table, old.name, col.name);
        for (const k of columnKeys(spec.column, resolveType(spec.column.type, ctx).serial === true)) addKey(table, k);
        return;
      }
      case 'RENAME_COLUMN': {
        const i = need(spec.oldName);
        const oldName = table.columns[i].name;
        table.columns[i].name = spec.newName;
        renameColumnInKeys(table, oldName, spec.newName);
        return;
      }
      case 'SET_DEFAULT':
        applyDefault(table.columns[need(spec.name)], spec.default);
        return;
      case 'DROP_DEFAULT': {
        // Without a default a nullable column still defaults to NULL (as the server reports it).
        const col = table.columns[need(spec.name)];
        col.hasDefault = col.nullable;
        col.defaultValue = null;
        return;
      }
      case 'SET_VISIBILITY':
        table.columns[need(spec.name)].invisible = spec.invisible;
        return;
      case 'ADD_KEY':
        if (spec.key.kind === 'UNIQUE' && spec.ifNotExists && spec.key.name && findKey(table, spec.key.name) >= 0)
          return;
        if (spec.key.kind === 'PRIMARY' && spec.ifNotExists && hasDeclaredPrimaryKey(table)) return;
        for (const c of spec.key.columns) need(c);
        addKey(table, spec.key);
        return;
      case 'DROP_PRIMARY_KEY':
        if (hasDeclaredPrimaryKey(table)) table.primaryKey = [];
        return;
      case 'DROP_KEY': {
        if (spec.name.toUpperCase() === 'PRIMARY') {
          if (hasDeclaredPrimaryKey(table)) table.primaryKey = [];
          return;
        }
        const k = findKey(table, spec.name);
        if (k >= 0) table.uniqueKeys.splice(k, 1);
        return;
      }
      case 'RENAME_KEY': {
        const k = findKey(table, spec.oldName);
        if (k >= 0) table.uniqueKeys[k].name = spec.newName;
        if (table.primaryKeyIndex !== undefined && same(table.primaryKeyIndex, spec.oldName))
          table.primaryKeyIndex = spec.newName;
        sortKeys(table);
        return;
      }
      case 'CONVERT_CHARSET':
        this.convertCharset(table, spec.charset, spec.collation);
        return;
      case 'OPTIONS': {
        if (spec.options.charset || spec.options.collation) {
          const db = this.getDatabase(table.database) ?? this.implicitDatabase(table.database);
          const cs = this.resolveCharset(spec.options, { ...db, charset: table.charset ?? db.charset });
          table.charset = cs.charset;
          table.collation = cs.collation;
        }
        if (spec.options.comment !== undefined) table.comment = spec.options.comment || null;
        return;
      }
      case 'NOOP':
      case 'RENAME_TABLE':
      case 'RELOAD':
        return;
    }
  }

  /** CONVERT TO CHARACTER SET: every character column takes the charset; TEXT types grow to keep their length. */
  private convertCharset(table: TableDef, charsetName: string, collationName: string | null): void {
    const charset = normalizeCharset(charsetName);
    if (charset === 'binary') throw new ApplyFailure('CONVERT TO CHARACTER SET binary changes column types');
    const collation = collationName ? normalizeCollation(collationName) : defaultCollation(charset, this.opts.flavor);
    const textTypes = ['tinytext', 'text', 'mediumtext', 'longtext'];
    const sizes = [255, 65535, 16777215, 4294967295];
    for (const col of table.columns) {
      if (col.charset === null) continue;
      const t = textTypes.indexOf(col.dataType);
      if (t >= 0 && col.charset !== charset) {
        const chars = Math.floor(sizes[t] / charsetMaxLenOf(col.charset));
        const bytes = chars * charsetMaxLenOf(charset);
        const idx = sizes.findIndex((s) => s >= bytes);
        const nt = idx < 0 ? 3 : Math.max(idx, t);
        col.dataType = textTypes[nt];
        col.columnType = textTypes[nt];
        col.length = sizes[nt];
      }
      col.charset = charset;
      col.collation = collation;
    }
    table.charset = charset;
    table.collation = collation;
  }
}

function charsetMaxLenOf(cs: string): number {
  return (
    {
      utf8mb4: 4,
      utf8mb3: 3,
      utf16: 4,
      utf16le: 4,
      utf32: 4,
      ucs2: 2,
      big5: 2,
      gbk: 2,
      sjis: 2,
      cp932: 2,
      euckr: 2,
      gb2312: 2,
      ujis: 3,
      eucjpms: 3,
      gb18030: 4,
    }[cs] ?? 1
  );
}

function ignore(r: AppliedDdl): AppliedDdl {
  r.ignored = true;
  return r;
}

function emptyResult(parsedBy: AppliedDdl['parsedBy']): AppliedDdl {
  return {
    statement: 'IGNORED',
    parsedBy,
    tableChanges: [],
    databasesCreated: [],
    databasesDropped: [],
    databasesAltered: [],
    truncated: [],
    needsReload: [],
    ignored: false,
    skipped: false,
    warnings: [],
  };
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

function findColumn(table: TableDef, name: string): number {
  return table.columns.findIndex((c) => same(c.name, name));
}
function findKey(table: TableDef, name: string): number {
  return table.uniqueKeys.findIndex((k) => same(k.name, name));
}

function insertColumn(table: TableDef, col: ColumnDef, position: ColumnPosition | null, defaultIndex: number): void {
  let at = defaultIndex;
  if (position?.kind === 'FIRST') at = 0;
  else if (position?.kind === 'AFTER') {
    const i = findColumn(table, position.column);
    if (i < 0) throw new ApplyFailure(`unknown column ${position.column} in AFTER`);
    at = i + 1;
  }
  table.columns.splice(at, 0, col);
  table.columns.forEach((c, i) => {
    c.position = i;
  });
}

/** Keys implied by column attributes: PRIMARY KEY, UNIQUE, SERIAL (a UNIQUE key named after the column). */
function columnKeys(spec: ColumnSpec, serial: boolean): KeySpec[] {
  const out: KeySpec[] = [];
  if (spec.primaryKey) out.push({ kind: 'PRIMARY', name: null, columns: [spec.name] });
  if (spec.unique || serial) out.push({ kind: 'UNIQUE', name: null, columns: [spec.name] });
  return out;
}

function hasDeclaredPrimaryKey(table: TableDef): boolean {
  return table.primaryKey.length > 0 && table.primaryKeyIndex === undefined;
}

/**
 * Adds PRIMARY/UNIQUE keys; other kinds do not matter to the model. Unnamed unique keys are named like MySQL.
 * Returns the unique key's name (undefined for other kinds).
 */
function addKey(table: TableDef, key: KeySpec): string | undefined {
  const columns = key.columns.map((c) => table.columns[findColumn(table, c)]?.name ?? c);
  if (key.kind === 'PRIMARY') {
    table.primaryKey = columns;
    delete table.primaryKeyIndex;
    return undefined;
  }
  if (key.kind !== 'UNIQUE' || columns.length === 0) return undefined;
  let name = key.name;
  if (!name) {
    name = columns[0];
    for (let n = 2; findKey(table, name) >= 0 || same(name, 'PRIMARY'); n++) name = `${columns[0]}_${n}`;
  } else if (findKey(table, name) >= 0) table.uniqueKeys.splice(findKey(table, name), 1);
  table.uniqueKeys.push({ name, columns });
  sortKeys(table);
  return name;
}

/** information_schema gives no key order we can reproduce, so unique keys are kept sorted by name. */
function sortKeys(table: TableDef): void {
  table.uniqueKeys.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function removeColumnFromKeys(table: TableDef, name: string): void {
  table.primaryKey = table.primaryKey.filter((c) => !same(c, name));
  for (const k of table.uniqueKeys) k.columns = k.columns.filter((c) => !same(c, name));
  table.uniqueKeys = table.uniqueKeys.filter((k) => k.columns.length > 0);
}

function renameColumnInKeys(table: TableDef, from: string, to: string): void {
  const ren = (c: string) => (same(c, from) ? to : c);
  table.primaryKey = table.primaryKey.map(ren);
  for (const k of table.uniqueKeys) k.columns = k.columns.map(ren);
}

/** PRIMARY KEY columns are NOT NULL (the server enforces it silently); an implicit DEFAULT NULL goes with it. */
function enforcePrimaryKeyNotNull(table: TableDef): void {
  if (table.primaryKeyIndex !== undefined) return; // a unique index's columns are NOT NULL already
  for (const name of table.primaryKey) {
    const col = table.columns[findColumn(table, name)];
    if (col?.nullable) {
      col.nullable = false;
      if (col.defaultValue === null) col.hasDefault = false;
    }
  }
}

/** The tables a table-level statement names (the first one decides its database). */
function namedTables(stmt: FallbackStatement): QualifiedName[] {
  switch (stmt.kind) {
    case 'CREATE_TABLE':
    case 'CREATE_TABLE_LIKE':
    case 'ALTER_TABLE':
    case 'TRUNCATE_TABLE':
    case 'CREATE_INDEX':
    case 'DROP_INDEX':
      return [stmt.table];
    case 'DROP_TABLE':
      return stmt.tables;
    case 'RENAME_TABLE':
      return stmt.pairs.flatMap((p) => [p.from, p.to]);
    case 'RELOAD_TABLES':
      return stmt.tables;
    default:
      return [];
  }
}
