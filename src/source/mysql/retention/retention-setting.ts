/**
 * How long the server keeps binlog files: RDS/Aurora's `binlog retention hours` (mysql.rds_show_configuration,
 * which overrides the server variables there), else `binlog_expire_logs_seconds` (MySQL 8, MariaDB 10.6+), else
 * `expire_logs_days` (older servers; MySQL 8.0 still honours it when the seconds are 0). MariaDB 11.4+ may also
 * bound the binlog by size (`max_binlog_total_size`, alias `binlog_space_limit`): the oldest files are purged
 * whenever the total exceeds it, whatever their age.
 */
import type { StatusQueryable } from '../binlog-status.js';

export type RetentionSource = 'rds' | 'binlog_expire_logs_seconds' | 'expire_logs_days' | 'none';

export interface RetentionSetting {
  /** Seconds a closed binlog file is kept; null = never purged automatically; 0 = purged as soon as possible. */
  seconds: number | null;
  source: RetentionSource;
  /** The setting as the operator sees it, e.g. `'binlog retention hours' = 24`. */
  setting: string;
  /** MariaDB's size bound (`max_binlog_total_size` > 0): the binlog is purged down to this many bytes. */
  maxTotalBytes?: number;
}

/** RDS's setting from CALL mysql.rds_show_configuration rows (null when there is no such row). */
export function rdsRetention(rows: ReadonlyArray<Record<string, unknown>>): RetentionSetting | null {
  const row = rows.find((r) => String(r.name ?? r.Name ?? '').toLowerCase() === 'binlog retention hours');
  if (!row) return null;
  const raw = row.value ?? row.Value;
  const hours = raw === null || raw === undefined || raw === '' ? Number.NaN : Number(raw);
  // NULL: RDS/Aurora purges a binlog file as soon as it is closed and no replica reads it.
  if (Number.isNaN(hours)) return { seconds: 0, source: 'rds', setting: "'binlog retention hours' = NULL" };
  return { seconds: Math.round(hours * 3600), source: 'rds', setting: `'binlog retention hours' = ${hours}` };
}

/** The server variables' setting (MySQL/MariaDB without RDS's procedure). */
export function variableRetention(vars: ReadonlyMap<string, string>): RetentionSetting {
  const bySize = Number(vars.get('max_binlog_total_size') ?? vars.get('binlog_space_limit') ?? 0) || 0;
  const time = timeRetention(vars);
  if (bySize <= 0) return time;
  return { ...time, maxTotalBytes: bySize, setting: `${time.setting}, max_binlog_total_size = ${bySize}` };
}

function timeRetention(vars: ReadonlyMap<string, string>): RetentionSetting {
  const seconds = Number(vars.get('binlog_expire_logs_seconds') ?? 0) || 0;
  const days = Number(vars.get('expire_logs_days') ?? 0) || 0;
  // MySQL 8.0.29+: automatic purging can be switched off altogether.
  if ((vars.get('binlog_expire_logs_auto_purge') ?? '').toUpperCase() === 'OFF')
    return { seconds: null, source: 'none', setting: 'binlog_expire_logs_auto_purge = OFF' };
  if (seconds > 0)
    return { seconds, source: 'binlog_expire_logs_seconds', setting: `binlog_expire_logs_seconds = ${seconds}` };
  if (days > 0)
    return { seconds: Math.round(days * 86400), source: 'expire_logs_days', setting: `expire_logs_days = ${days}` };
  return { seconds: null, source: 'none', setting: 'binlog_expire_logs_seconds = 0, expire_logs_days = 0' };
}

function firstRows(res: unknown): Array<Record<string, unknown>> {
  // CALL returns [rows, header]; SHOW returns rows.
  const first = Array.isArray(res) && Array.isArray(res[0]) ? res[0] : res;
  return Array.isArray(first) ? (first as Array<Record<string, unknown>>) : [];
}

/** Reads the effective retention setting; RDS's procedure wins where it exists. */
export async function readRetentionSetting(conn: StatusQueryable): Promise<RetentionSetting> {
  try {
    const [res] = await conn.query('CALL mysql.rds_show_configuration');
    const rds = rdsRetention(firstRows(res));
    if (rds) return rds;
  } catch {
    // Not RDS/Aurora: the procedure does not exist (or we may not run it); the variables apply.
  }
  const [rows] = await conn.query(
    "SHOW GLOBAL VARIABLES WHERE Variable_name IN ('binlog_expire_logs_seconds', 'expire_logs_days', 'binlog_expire_logs_auto_purge', 'max_binlog_total_size', 'binlog_space_limit')",
  );
  const vars = new Map<string, string>();
  for (const r of firstRows(rows)) vars.set(String(r.Variable_name).toLowerCase(), String(r.Value ?? ''));
  return variableRetention(vars);
}
