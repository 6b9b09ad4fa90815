/**
 * Which server a binlog position belongs to. A file/position only means something on the server that wrote it:
 * after an Aurora/RDS failover, a blue/green switchover or a restore, another server may have a file of the same
 * name with unrelated contents. MySQL names itself by @@server_uuid; MariaDB has no UUID, so its @@server_id
 * stands in (a MariaDB offset always carries a GTID position, which is what a resume on another server uses).
 */
import type { StatusQueryable } from './binlog-status.js';

export interface ServerIdentity {
  flavor: 'mysql' | 'mariadb';
  /** `mysql:<server_uuid>` or `mariadb:<server_id>`: stored with every offset (`server_identity`). */
  key: string;
  serverId: number;
  /** MySQL @@server_uuid (null on MariaDB). */
  uuid: string | null;
  /** GTIDs can position a dump: MySQL gtid_mode=ON; MariaDB always. */
  gtidMode: boolean;
  /** MySQL @@gtid_purged (one line; '' when none), null on MariaDB. */
  gtidPurged: string | null;
  /** @@innodb_read_only: an Aurora reader (or the old writer right after a failover) has it ON. */
  readOnly: boolean;
}

async function firstRow(conn: StatusQueryable, sql: string): Promise<Record<string, unknown>> {
  const [rows] = await conn.query(sql);
  return ((Array.isArray(rows) ? rows[0] : undefined) ?? {}) as Record<string, unknown>;
}

const truthy = (v: unknown) => v === 1 || v === '1' || v === true || /^ON$/i.test(String(v));

export async function readServerIdentity(conn: StatusQueryable): Promise<ServerIdentity> {
  const base = await firstRow(
    conn,
    'SELECT VERSION() AS version, @@version_comment AS comment, @@server_id AS server_id, @@innodb_read_only AS ro',
  );
  const flavor = /mariadb/i.test(`${String(base.version ?? '')} ${String(base.comment ?? '')}`) ? 'mariadb' : 'mysql';
  const serverId = Number(base.server_id ?? 0);
  const readOnly = truthy(base.ro);
  if (flavor === 'mariadb') {
    return { flavor, key: `mariadb:${serverId}`, serverId, uuid: null, gtidMode: true, gtidPurged: null, readOnly };
  }
  const my = await firstRow(
    conn,
    'SELECT @@server_uuid AS uuid, @@global.gtid_mode AS gtid_mode, @@global.gtid_purged AS purged',
  );
  const uuid = String(my.uuid ?? '').toLowerCase();
  return {
    flavor,
    key: `mysql:${uuid}`,
    serverId,
    uuid,
    gtidMode: String(my.gtid_mode ?? 'OFF').toUpperCase() === 'ON',
    gtidPurged: String(my.purged ?? '').replace(/\s+/g, ''),
    readOnly,
  };
}
