/**
 * What the capture knows about the server it reads: flavour and version (which statements and features exist),
 * and the settings the schema model depends on. One description for the capture, the snapshot and the preflight
 * check, parsed in one place.
 */
import { defaultCollation, normalizeCharset, normalizeCollation } from './schema/charsets.js';

export type ServerFlavor = 'mysql' | 'mariadb';

/** VERSION() as reported, and its numbers. */
export interface ServerVersion {
  flavor: ServerFlavor;
  version: string;
  major: number;
  minor: number;
  patch: number;
}

/** The server as the capture reads it at start: flavour, version and the settings DDL resolution depends on. */
export interface ServerInfo extends Pick<ServerVersion, 'flavor' | 'version'> {
  /** Integer display widths in column types (`int(11)`): gone in MySQL 8.0.19+. */
  intDisplayWidth: boolean;
  serverCharset: string;
  serverCollation: string;
  lowerCaseTableNames: 0 | 1 | 2;
}

/** The part of a mysql2/promise Connection or Pool these reads use. */
export interface SqlQueryable {
  query(sql: string, values?: unknown[]): Promise<[unknown, unknown]>;
}

export function parseServerVersion(version: string): ServerVersion {
  // Old MariaDB prefixes a fake "5.5.5-" for replication clients.
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(version.replace(/^5\.5\.5-/, ''));
  return {
    flavor: /mariadb/i.test(version) ? 'mariadb' : 'mysql',
    version,
    major: m ? Number(m[1]) : 0,
    minor: m ? Number(m[2]) : 0,
    patch: m ? Number(m[3]) : 0,
  };
}

const str = (v: unknown): string | null =>
  v === null || v === undefined ? null : Buffer.isBuffer(v) ? v.toString('utf8') : String(v);

export async function readServerInfo(conn: SqlQueryable): Promise<ServerInfo> {
  const [result] = await conn.query(
    'SELECT @@version AS version, @@character_set_server AS cs, @@collation_server AS coll, @@lower_case_table_names AS lctn',
  );
  const r = (result as Array<Record<string, unknown>>)[0];
  const version = str(r.version) ?? '';
  const { flavor, major: maj, minor: min, patch } = parseServerVersion(version);
  const mysqlNoWidth = flavor === 'mysql' && (maj > 8 || (maj === 8 && (min > 0 || (min === 0 && patch >= 19))));
  const lctn = Number(r.lctn);
  return {
    flavor,
    version,
    intDisplayWidth: !mysqlNoWidth,
    serverCharset: normalizeCharset(str(r.cs) ?? 'utf8mb4'),
    serverCollation: normalizeCollation(str(r.coll) ?? defaultCollation(str(r.cs) ?? 'utf8mb4', flavor)),
    lowerCaseTableNames: lctn === 1 || lctn === 2 ? lctn : 0,
  };
}
