/**
 * Secondary DDL path: node-sql-parser. Used only when the structural parser rejects a statement. Its AST is not
 * trusted for column details (it misses attributes such as charsets, SERIAL or generated columns), so only the
 * statement kind and the affected names are taken: drops and renames are applied, tables it creates or alters are
 * reported as needing a re-read from the server.
 */
import { createRequire } from 'node:module';
import type NodeSqlParser from 'node-sql-parser';
import type { DdlStatement, QualifiedName } from './ddl-ast.js';

export type FallbackStatement = DdlStatement | { kind: 'RELOAD_TABLES'; tables: QualifiedName[]; what: string };

/**
 * Loaded on first use, through require(): a 2.5 MB CommonJS file that an ESM import makes every process lex for
 * its exports at start-up (~250 ms of CPU), though only DDL the structural parser rejects needs it.
 */
let loaded: InstanceType<typeof NodeSqlParser.Parser> | undefined;
function parser(): InstanceType<typeof NodeSqlParser.Parser> {
  loaded ??= new (createRequire(import.meta.url)('node-sql-parser') as typeof NodeSqlParser).Parser();
  return loaded;
}

interface TableRef {
  db?: string | null;
  table?: string;
}

/** Returns null when node-sql-parser cannot parse the statement either (or its AST has no usable shape). */
export function parseWithNodeSqlParser(sql: string): FallbackStatement | null {
  let ast: unknown;
  try {
    ast = parser().astify(sql, { database: 'MySQL' });
  } catch {
    try {
      ast = parser().astify(sql, { database: 'MariaDB' });
    } catch {
      return null;
    }
  }
  const node = (Array.isArray(ast) ? ast[0] : ast) as Record<string, unknown> | undefined;
  if (!node || typeof node.type !== 'string') return null;
  const refs = (v: unknown): QualifiedName[] =>
    (Array.isArray(v) ? v : v ? [v] : [])
      .filter((r): r is TableRef => typeof (r as TableRef)?.table === 'string')
      .map((r) => ({ database: r.db ?? null, name: r.table as string }));
  const keyword = typeof node.keyword === 'string' ? node.keyword.toLowerCase() : '';
  switch (node.type) {
    case 'create':
      if (keyword === 'table' || keyword === 'index') {
        if (node.temporary) return { kind: 'IGNORED', what: 'CREATE TEMPORARY TABLE' };
        return { kind: 'RELOAD_TABLES', tables: refs(node.table), what: `CREATE ${keyword.toUpperCase()}` };
      }
      if (keyword === 'database' || keyword === 'schema') return null; // charset options matter: no guessing
      return { kind: 'IGNORED', what: `CREATE ${keyword.toUpperCase()}` };
    case 'alter':
      if (Array.isArray(node.table) || (node.table && typeof node.table === 'object'))
        return { kind: 'RELOAD_TABLES', tables: refs(node.table), what: 'ALTER TABLE' };
      return null;
    case 'drop':
      if (keyword === 'table') {
        if (node.prefix === 'temporary') return { kind: 'IGNORED', what: 'DROP TEMPORARY TABLE' };
        return { kind: 'DROP_TABLE', tables: refs(node.name), temporary: false, ifExists: true };
      }
      if ((keyword === 'database' || keyword === 'schema') && typeof node.name === 'string')
        return { kind: 'DROP_DATABASE', name: node.name, ifExists: true };
      if (keyword === 'index') return null;
      return { kind: 'IGNORED', what: `DROP ${keyword.toUpperCase()}` };
    case 'rename': {
      const pairs = (Array.isArray(node.table) ? node.table : []).map((p: unknown) => refs(p));
      if (pairs.length === 0 || pairs.some((p: QualifiedName[]) => p.length !== 2)) return null;
      return { kind: 'RENAME_TABLE', pairs: pairs.map((p: QualifiedName[]) => ({ from: p[0], to: p[1] })) };
    }
    case 'truncate': {
      const t = refs(node.name);
      return t.length === 1 ? { kind: 'TRUNCATE_TABLE', table: t[0] } : null;
    }
    case 'select':
    case 'insert':
    case 'replace':
    case 'update':
    case 'delete':
    case 'use':
    case 'set':
    case 'lock':
    case 'unlock':
    case 'grant':
    case 'show':
    case 'desc':
    case 'call':
    case 'transaction':
      return { kind: 'IGNORED', what: node.type.toUpperCase() };
    default:
      return null;
  }
}
