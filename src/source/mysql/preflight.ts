/**
 * Preflight: checks that a MySQL / MariaDB / Aurora server and the connector's user can support CDC. Every check
 * runs and every problem is reported at once, each with an actionable fix (SET GLOBAL, parameter group, GRANT).
 * A check that cannot run (e.g. no privilege to look) is a warning, never an abort; only a lost connection throws.
 */

import type { Connection, Pool, PoolConnection, RowDataPacket } from 'mysql2/promise';
import { CdcError, type CdcErrorOptions, errorMessage } from '../../common/errors.js';
import { isRdsProxyHost, RDS_PROXY_FIX } from './rds-endpoint.js';
import { formatDuration } from './retention/runway.js';
import type { RunwayMeasurement } from './retention/runway-monitor.js';
import { ACCESS_DENIED_ERRNOS, errnoOf } from './server-errors.js';
import { parseServerVersion, type ServerVersion } from './server-info.js';

export type CheckStatus = 'pass' | 'warn' | 'fail';

export interface PreflightCheck {
  id: string;
  status: CheckStatus;
  message: string;
  fix?: string;
}

export type ServerFlavour = 'mysql' | 'mariadb' | 'aurora-mysql';

/** The server as the preflight check reports it: its version, and whether it is Aurora or managed by RDS. */
export interface PreflightServer extends Omit<ServerVersion, 'flavor'> {
  flavour: ServerFlavour;
  auroraVersion?: string;
  /** Amazon RDS / Aurora (mysql.rds_* procedures or an /rdsdbbin/ basedir). */
  managed: boolean;
  serverId?: number;
  /** `user`@`host` the server authenticated us as. */
  currentUser: string;
}

export interface PreflightReport {
  ok: boolean;
  server: PreflightServer;
  checks: PreflightCheck[];
}

export interface PreflightOptions {
  /** The connector's own replication server id (database.server.id). */
  serverId: number;
  /** Fail (instead of warn) when MySQL GTIDs are off. */
  requireGtid?: boolean;
  /** Debezium snapshot.locking.mode: minimal (default), minimal_percona, extended or none. */
  snapshotLockingMode?: string;
  /** Binlog retention below this many hours is a warning (default 24). */
  minRetentionHours?: number;
  /** database.hostname, to recognise endpoints that cannot replicate (RDS Proxy). */
  hostname?: string;
  /**
   * Starts (and stops) a binlog dump the way the capture does, throwing what the server answered: proves
   * REPLICATION SLAVE however it was granted (directly or through a role). `cdc check` passes one.
   */
  replicationProbe?: () => Promise<void>;
  /**
   * Measures the binlog retention runway of the position the capture would resume from (the stored offset's file,
   * else the current one); `cdc check` passes one. Without it there is no `binlog.runway` finding.
   */
  runway?: () => Promise<{ measurement: RunwayMeasurement; of: 'stored offset' | 'current position' }>;
}

/** Preflight could not run (e.g. the connection dropped), or the report has failures (see assertPreflight). */
export class PreflightError extends CdcError {
  readonly report?: PreflightReport;
  constructor(message: string, options: CdcErrorOptions & { report?: PreflightReport } = {}) {
    super('PREFLIGHT_FAILED', message, options);
    if (options.report) this.report = options.report;
  }
}

type Queryable = Connection | Pool | PoolConnection;

const FATAL_CODES = new Set(['PROTOCOL_CONNECTION_LOST', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ECONNREFUSED']);
const MIN_PACKET = 16 * 1024 * 1024;

class Probe {
  constructor(private readonly conn: Queryable) {}

  get pooled(): boolean {
    return 'getConnection' in this.conn;
  }

  /** Rows of the first result set, or the error when the statement is refused (privileges, missing feature). */
  async rows(sql: string): Promise<RowDataPacket[] | Error> {
    try {
      const [res] = await this.conn.query<RowDataPacket[] | RowDataPacket[][]>(sql);
      // CALL returns [rows, header]; plain SELECT/SHOW returns rows.
      const first = Array.isArray(res) && Array.isArray(res[0]) ? (res[0] as RowDataPacket[]) : res;
      return Array.isArray(first) ? (first as RowDataPacket[]) : [];
    } catch (err) {
      const code = (err as { code?: string }).code ?? '';
      if (FATAL_CODES.has(code) || (err as { fatal?: boolean }).fatal) {
        throw new PreflightError(`Preflight lost the database connection during "${sql}": ${errorMessage(err)}`, {
          cause: err,
          retriable: true,
        });
      }
      return err instanceof Error ? err : new Error(String(err));
    }
  }

  async scalar(sql: string): Promise<unknown> {
    const r = await this.rows(sql);
    if (r instanceof Error || r.length === 0) return undefined;
    return Object.values(r[0])[0];
  }
}

const VARIABLES = [
  'version',
  'version_comment',
  'basedir',
  'server_id',
  'log_bin',
  'binlog_format',
  'binlog_row_image',
  'binlog_row_metadata',
  'binlog_row_value_options',
  'gtid_mode',
  'enforce_gtid_consistency',
  'gtid_binlog_pos',
  'gtid_strict_mode',
  'binlog_expire_logs_seconds',
  'expire_logs_days',
  'binlog_checksum',
  'binlog_transaction_compression',
  'max_allowed_packet',
  'aurora_version',
];

/** Runs every check; never throws for a failed check, only (PreflightError) when the connection is lost. */
export async function runPreflight(conn: Queryable, opts: PreflightOptions): Promise<PreflightReport> {
  const probe = new Probe(conn);
  const vars = new Map<string, string>();
  const varRows = await probe.rows(
    `SHOW GLOBAL VARIABLES WHERE Variable_name IN (${VARIABLES.map((v) => `'${v}'`).join(', ')})`,
  );
  if (varRows instanceof Error) {
    throw new PreflightError(`Preflight cannot read server variables: ${varRows.message}`, { cause: varRows });
  }
  for (const r of varRows) vars.set(String(r.Variable_name).toLowerCase(), String(r.Value ?? ''));

  const server = await serverInfo(probe, vars);
  const checks: PreflightCheck[] = [];
  checks.push(versionCheck(server));
  if (opts.hostname !== undefined) checks.push(endpointCheck(opts.hostname));
  checks.push(...binlogChecks(server, vars));
  checks.push(gtidCheck(server, vars, opts));
  checks.push(await retentionCheck(probe, server, vars, opts.minRetentionHours ?? 24));
  if (opts.runway) checks.push(await runwayCheck(opts.runway, opts.minRetentionHours ?? 24));
  checks.push(...(await privilegeChecks(probe, server, opts)));
  checks.push(await serverIdCheck(probe, server, opts.serverId));
  checks.push(...infoChecks(vars));
  return { ok: checks.every((c) => c.status !== 'fail'), server, checks };
}

/** Throws a PreflightError listing every failure (with fixes) when the report is not ok. */
export function assertPreflight(report: PreflightReport): void {
  if (report.ok) return;
  const failures = report.checks.filter((c) => c.status === 'fail');
  throw new PreflightError(
    `Preflight failed (${failures.length} problem${failures.length === 1 ? '' : 's'}):\n${formatPreflightReport({
      ...report,
      checks: failures,
    })}`,
    { report },
  );
}

// ---------------------------------------------------------------------------------------------------------------

async function serverInfo(probe: Probe, vars: Map<string, string>): Promise<PreflightServer> {
  const version = vars.get('version') ?? String((await probe.scalar('SELECT VERSION()')) ?? '');
  const { flavor: _flavor, ...parsed } = parseServerVersion(version);
  let auroraVersion = vars.get('aurora_version');
  if (!auroraVersion && !/mariadb/i.test(version)) {
    const v = await probe.scalar('SELECT AURORA_VERSION()');
    if (v !== undefined && v !== null) auroraVersion = String(v);
  }
  const flavour: ServerFlavour = /mariadb/i.test(`${version} ${vars.get('version_comment') ?? ''}`)
    ? 'mariadb'
    : auroraVersion
      ? 'aurora-mysql'
      : 'mysql';
  const currentUser = String((await probe.scalar('SELECT CURRENT_USER()')) ?? 'unknown');
  const serverId = vars.has('server_id') ? Number(vars.get('server_id')) : undefined;
  return {
    ...parsed,
    flavour,
    ...(auroraVersion ? { auroraVersion } : {}),
    managed: flavour === 'aurora-mysql' || /rdsdbbin/i.test(vars.get('basedir') ?? ''),
    ...(serverId !== undefined ? { serverId } : {}),
    currentUser,
  };
}

function atLeast(s: PreflightServer, major: number, minor: number, patch = 0): boolean {
  if (s.major !== major) return s.major > major;
  if (s.minor !== minor) return s.minor > minor;
  return s.patch >= patch;
}

function flavourName(s: PreflightServer): string {
  if (s.flavour === 'aurora-mysql') return `Aurora MySQL ${s.auroraVersion} (MySQL ${s.major}.${s.minor}.${s.patch})`;
  return `${s.flavour === 'mariadb' ? 'MariaDB' : s.managed ? 'MySQL (RDS)' : 'MySQL'} ${s.major}.${s.minor}.${s.patch}`;
}

/** Where a server setting is changed: SET GLOBAL + option file, or the parameter group on RDS/Aurora. */
function settingFix(s: PreflightServer, name: string, value: string, note = ''): string {
  if (s.managed) {
    const group = s.flavour === 'aurora-mysql' ? 'DB cluster parameter group' : 'DB parameter group';
    return `Set ${name} = ${value} in the ${group} and reboot the writer instance.${note}`;
  }
  const quoted = /^\d+$/.test(value) || /^(ON|OFF)$/.test(value) ? value : `'${value}'`;
  return `SET GLOBAL ${name} = ${quoted}; and persist it in my.cnf ([mysqld] ${name}=${value}).${note}`;
}

function endpointCheck(hostname: string): PreflightCheck {
  return isRdsProxyHost(hostname)
    ? {
        id: 'endpoint.replication',
        status: 'fail',
        message: `${hostname} is an RDS Proxy endpoint: it cannot carry the binlog replication connection`,
        fix: `${RDS_PROXY_FIX}.`,
      }
    : { id: 'endpoint.replication', status: 'pass', message: `${hostname} is not a proxy endpoint` };
}

function versionCheck(s: PreflightServer): PreflightCheck {
  const id = 'server.version';
  const name = flavourName(s);
  if (s.flavour === 'mariadb' ? !atLeast(s, 10, 2) : !atLeast(s, 5, 7)) {
    return {
      id,
      status: 'fail',
      message: `${name} is too old for CDC (need MySQL 5.7+ or MariaDB 10.2+)`,
      fix: 'Upgrade the server.',
    };
  }
  return { id, status: 'pass', message: name };
}

/** The binlog settings checks (exported for unit tests). */
export function binlogChecks(s: PreflightServer, vars: Map<string, string>): PreflightCheck[] {
  const out: PreflightCheck[] = [];
  const logBin = (vars.get('log_bin') ?? '').toUpperCase();
  if (logBin === 'ON' || logBin === '1') out.push({ id: 'binlog.enabled', status: 'pass', message: 'log_bin is ON' });
  else
    out.push({
      id: 'binlog.enabled',
      status: 'fail',
      message: 'Binary logging is off (log_bin = OFF): there is no change stream to read',
      fix:
        s.flavour === 'aurora-mysql'
          ? 'Set binlog_format = ROW in the DB cluster parameter group (this turns binary logging on) and reboot the writer.'
          : s.managed
            ? 'Enable automated backups (backup retention > 0) and set binlog_format = ROW in the DB parameter group.'
            : 'Add log-bin=mysql-bin and server-id=<unique> under [mysqld] in my.cnf and restart the server.',
    });

  const format = (vars.get('binlog_format') ?? '').toUpperCase();
  out.push(
    format === 'ROW'
      ? { id: 'binlog.format', status: 'pass', message: 'binlog_format is ROW' }
      : {
          id: 'binlog.format',
          status: 'fail',
          message: `binlog_format is ${format || 'unknown'}; CDC needs ROW (statement events carry no row values)`,
          fix: settingFix(
            s,
            'binlog_format',
            'ROW',
            ' Sessions that were already open keep their old format until they reconnect.',
          ),
        },
  );

  const image = (vars.get('binlog_row_image') ?? '').toUpperCase();
  out.push(
    image === 'FULL'
      ? { id: 'binlog.row_image', status: 'pass', message: 'binlog_row_image is FULL' }
      : {
          id: 'binlog.row_image',
          status: 'fail',
          message: `binlog_row_image is ${image || 'unknown'}; CDC needs FULL (complete before and after images)`,
          fix: settingFix(s, 'binlog_row_image', 'FULL'),
        },
  );

  const meta = vars.get('binlog_row_metadata');
  if (meta === undefined) {
    out.push({
      id: 'binlog.row_metadata',
      status: 'warn',
      message:
        `${flavourName(s)} has no binlog_row_metadata (needs MariaDB 10.5+ / MySQL 8.0.1+): column names and ` +
        'types come from the captured DDL history only',
      fix: 'Upgrade to MariaDB 10.5+ or MySQL 8.0.1+ and set binlog_row_metadata = FULL.',
    });
  } else if (meta.toUpperCase() === 'FULL') {
    out.push({ id: 'binlog.row_metadata', status: 'pass', message: 'binlog_row_metadata is FULL' });
  } else {
    out.push({
      id: 'binlog.row_metadata',
      status: 'warn',
      message:
        `binlog_row_metadata is ${meta}; FULL is recommended (column names, signedness, charsets and ` +
        'ENUM/SET values in every table map event make decoding independent of DDL parsing)',
      fix: settingFix(s, 'binlog_row_metadata', 'FULL'),
    });
  }

  const valueOptions = vars.get('binlog_row_value_options');
  if (valueOptions !== undefined && /PARTIAL_JSON/i.test(valueOptions)) {
    // Partial JSON updates are applied to the before image (src/events/json-diff.ts): fine with FULL images,
    // but MINIMAL/NOBLOB before images lack the JSON column, so the diff has nothing to apply to.
    out.push(
      image === 'FULL'
        ? {
            id: 'binlog.row_value_options',
            status: 'pass',
            message:
              'binlog_row_value_options = PARTIAL_JSON: JSON updates are logged as diffs and applied to the ' +
              'before image (binlog_row_image = FULL) to give full documents',
          }
        : {
            id: 'binlog.row_value_options',
            status: 'warn',
            message:
              `binlog_row_value_options = PARTIAL_JSON with binlog_row_image = ${image || 'unknown'}: JSON ` +
              'updates are logged as diffs and the before image may lack the column to apply them to',
            fix: settingFix(s, 'binlog_row_image', 'FULL'),
          },
    );
  } else {
    out.push({
      id: 'binlog.row_value_options',
      status: 'pass',
      message: valueOptions === undefined ? 'binlog_row_value_options not supported (full JSON)' : 'full JSON values',
    });
  }
  return out;
}

function gtidCheck(s: PreflightServer, vars: Map<string, string>, opts: PreflightOptions): PreflightCheck {
  const id = 'gtid.mode';
  if (s.flavour === 'mariadb') {
    const pos = vars.get('gtid_binlog_pos');
    return {
      id,
      status: 'pass',
      message: `MariaDB always writes GTIDs${pos ? ` (gtid_binlog_pos ${pos})` : ''}`,
    };
  }
  const mode = (vars.get('gtid_mode') ?? 'OFF').toUpperCase();
  const enforce = (vars.get('enforce_gtid_consistency') ?? 'OFF').toUpperCase();
  if (mode === 'ON' && enforce === 'ON')
    return { id, status: 'pass', message: 'gtid_mode and enforce_gtid_consistency are ON' };
  const fix = s.managed
    ? `Set gtid-mode = ON and enforce_gtid_consistency = ON in the ${s.flavour === 'aurora-mysql' ? 'DB cluster' : 'DB'} parameter group and reboot.`
    : 'SET GLOBAL enforce_gtid_consistency = ON; SET GLOBAL gtid_mode = OFF_PERMISSIVE; ' +
      'SET GLOBAL gtid_mode = ON_PERMISSIVE; (wait until Ongoing_anonymous_transaction_count is 0) ' +
      'SET GLOBAL gtid_mode = ON; and persist both in my.cnf.';
  return {
    id,
    status: opts.requireGtid ? 'fail' : 'warn',
    message:
      `gtid_mode is ${mode}, enforce_gtid_consistency is ${enforce}: positions are file/offset only, so the ` +
      'connector cannot resume on another server after a failover',
    fix,
  };
}

async function retentionCheck(
  probe: Probe,
  s: PreflightServer,
  vars: Map<string, string>,
  minHours: number,
): Promise<PreflightCheck> {
  const id = 'binlog.retention';
  // RDS/Aurora purge binlogs by their own setting; the procedure exists there only (tolerate its absence).
  const rds = await probe.rows('CALL mysql.rds_show_configuration');
  if (!(rds instanceof Error)) {
    const row = rds.find((r) => String(r.name ?? r.Name ?? '').toLowerCase() === 'binlog retention hours');
    const raw = row ? (row.value ?? row.Value) : undefined;
    const hours = raw === null || raw === undefined || raw === '' ? undefined : Number(raw);
    const fix = `CALL mysql.rds_set_configuration('binlog retention hours', ${Math.max(24, minHours)});`;
    if (hours === undefined || Number.isNaN(hours)) {
      return {
        id,
        status: 'warn',
        message:
          "'binlog retention hours' is NULL: RDS/Aurora purges binlogs as soon as it can, so a stopped " +
          'connector may lose its position',
        fix,
      };
    }
    if (hours < minHours)
      return { id, status: 'warn', message: `'binlog retention hours' is ${hours} (< ${minHours})`, fix };
    return { id, status: 'pass', message: `'binlog retention hours' is ${hours}` };
  }
  const seconds = Number(vars.get('binlog_expire_logs_seconds') ?? 0) || 0;
  const days = Number(vars.get('expire_logs_days') ?? 0) || 0;
  // MySQL 8 uses binlog_expire_logs_seconds (days is deprecated); MariaDB keeps both in sync (10.6+).
  const effective = seconds > 0 ? seconds : days * 86400;
  if (effective === 0) {
    return {
      id,
      status: 'pass',
      message: 'Binlogs are never purged automatically (purge them yourself, after the connector has read them)',
    };
  }
  const hours = effective / 3600;
  if (hours < minHours) {
    const name = s.flavour === 'mariadb' && !atLeast(s, 10, 6) ? 'expire_logs_days' : 'binlog_expire_logs_seconds';
    const value = name === 'expire_logs_days' ? String(Math.ceil(minHours / 24)) : String(minHours * 3600);
    return {
      id,
      status: 'warn',
      message: `Binlogs expire after ${hours.toFixed(1)} h (< ${minHours} h): a stopped connector may lose its position`,
      fix: settingFix(s, name, value),
    };
  }
  return { id, status: 'pass', message: `Binlogs are kept for ${hours.toFixed(1)} h` };
}

/**
 * MariaDB's size-bound retention (`max_binlog_total_size`): the file is purged once the binlog from it on outgrows
 * the bound, however young it is. Low = under a quarter of the bound left.
 */
function sizeBound(m: RunwayMeasurement): { text: string; low: boolean } | null {
  if (m.setting.maxTotalBytes === undefined || m.bytesLeft === undefined) return null;
  const mib = (n: number) => `${(n / 1048576).toFixed(1)} MiB`;
  return {
    text: `size-bound retention: max_binlog_total_size = ${m.setting.maxTotalBytes} purges it once ${mib(Math.max(0, m.bytesLeft))} more binlog is written (whatever its age)`,
    low: m.bytesLeft < m.setting.maxTotalBytes / 4,
  };
}

/** How long the resume position has left before the retention purges its file (docs/deploy.md#retention-runway). */
export async function runwayCheck(
  measure: NonNullable<PreflightOptions['runway']>,
  minHours: number,
): Promise<PreflightCheck> {
  const id = 'binlog.runway';
  let m: RunwayMeasurement;
  let of: string;
  try {
    ({ measurement: m, of } = await measure());
  } catch (err) {
    return { id, status: 'warn', message: `Cannot measure the binlog retention runway: ${errorMessage(err)}` };
  }
  const oldest =
    m.oldestFile && m.oldestFileAgeSeconds !== null
      ? `; the oldest binlog file ${m.oldestFile} is ${formatDuration(m.oldestFileAgeSeconds)} old`
      : '';
  if (!m.neededFileExists) {
    return {
      id,
      status: 'fail',
      message: `The ${of}'s binlog file ${m.neededFile} has been purged (${m.setting.setting}): the capture cannot resume there${oldest}`,
      fix: 'Start with snapshot.mode=when_needed (takes a new snapshot), and raise the binlog retention so it does not happen again.',
    };
  }
  const size = sizeBound(m);
  if (size?.low)
    return {
      id,
      status: 'warn',
      message: `The ${of} (${m.neededFile}): ${size.text}${oldest}`,
      fix: 'Raise max_binlog_total_size (or set it to 0 and rely on binlog_expire_logs_seconds) and keep the capture running.',
    };
  const sizeText = size ? `; ${size.text}` : '';
  if (m.seconds === null) {
    return {
      id,
      status: 'pass',
      message: `The ${of} (${m.neededFile}) is not purged by age (${m.setting.setting})${sizeText}${oldest}`,
    };
  }
  const text = `The ${of} (${m.neededFile}) has ${formatDuration(m.seconds)} before the retention may purge it (${m.setting.setting})${sizeText}${oldest}`;
  if (m.seconds < minHours * 3600) {
    return {
      id,
      status: 'warn',
      message: `${text}: less than ${minHours} h`,
      fix:
        m.setting.source === 'rds'
          ? `CALL mysql.rds_set_configuration('binlog retention hours', ${Math.max(24, minHours)}); and keep the capture running.`
          : `Raise ${m.setting.source === 'expire_logs_days' ? 'expire_logs_days' : 'binlog_expire_logs_seconds'} and keep the capture running.`,
    };
  }
  return { id, status: 'pass', message: text };
}

// ---------------------------------------------------------------------------------------------------------------
// Privileges

interface Grants {
  global: Set<string>;
  /** Privileges granted on some database or table (not *.*). */
  scoped: Set<string>;
  roles: boolean;
}

/** Parses SHOW GRANTS lines. Column lists are dropped; role grants (no ON) are only noted. */
export function parseGrants(lines: string[]): Grants {
  const g: Grants = { global: new Set(), scoped: new Set(), roles: false };
  for (const line of lines) {
    const m = /^GRANT\s+(.+?)\s+ON\s+(?:(?:TABLE|FUNCTION|PROCEDURE|PACKAGE(?: BODY)?)\s+)?(\S+)\s+TO\s/i.exec(line);
    if (!m) {
      if (/^GRANT\s+\S+\s+TO\s/i.test(line)) g.roles = true;
      continue;
    }
    const privs = m[1]
      .replace(/\([^)]*\)/g, '')
      .split(',')
      .map((p) => p.trim().toUpperCase().replace(/\s+/g, ' ').replace(/_/g, ' '))
      .filter(Boolean);
    const target = m[2].replace(/`/g, '');
    for (const p of privs) {
      const name = p === 'ALL' ? 'ALL PRIVILEGES' : p;
      (target === '*.*' ? g.global : g.scoped).add(name);
    }
  }
  return g;
}

/** Names of each needed privilege across MySQL and MariaDB versions. */
const ALIASES: Record<string, string[]> = {
  SELECT: ['SELECT'],
  'REPLICATION SLAVE': ['REPLICATION SLAVE', 'REPLICATION REPLICA'],
  // MariaDB 10.5+ renamed REPLICATION CLIENT to BINLOG MONITOR (REPLICATION CLIENT remains an alias on input).
  'REPLICATION CLIENT': ['REPLICATION CLIENT', 'BINLOG MONITOR'],
  RELOAD: ['RELOAD'],
  'LOCK TABLES': ['LOCK TABLES'],
  'SHOW DATABASES': ['SHOW DATABASES'],
};

function has(set: Set<string>, priv: string): boolean {
  return set.has('ALL PRIVILEGES') || ALIASES[priv].some((a) => set.has(a));
}

function userSpec(currentUser: string): string {
  const m = /^(.*)@([^@]*)$/.exec(currentUser);
  if (!m) return `'${currentUser}'@'%'`;
  return `'${m[1].replace(/`/g, '')}'@'${m[2].replace(/`/g, '')}'`;
}

type ProbeResult = 'ok' | 'denied' | 'unknown';

function probeOutcome(err: unknown): ProbeResult {
  if (err === undefined) return 'ok';
  const errno = errnoOf(err);
  const text = errorMessage(err);
  return (errno !== undefined && ACCESS_DENIED_ERRNOS.has(errno)) || /access denied|privilege/i.test(text)
    ? 'denied'
    : 'unknown';
}

/**
 * What the capture will run, tried for real: the binlog status, a SELECT and a LOCK TABLES on a visible table, and
 * (with opts.replicationProbe) a replication handshake + dump start. A statement that succeeds proves the privilege
 * whichever way it was granted (roles included: Aurora MySQL 3 / RDS 8.0.36+ grant through rds_superuser_role).
 */
async function probePrivileges(probe: Probe, opts: PreflightOptions) {
  const attempt = async (sql: string): Promise<ProbeResult> => {
    const r = await probe.rows(sql);
    return r instanceof Error ? probeOutcome(r) : 'ok';
  };
  let status = await attempt('SHOW BINARY LOG STATUS');
  if (status === 'unknown') status = await attempt('SHOW MASTER STATUS');
  const visible = await probe.rows(
    "SELECT TABLE_SCHEMA AS db, TABLE_NAME AS t FROM information_schema.TABLES WHERE TABLE_TYPE = 'BASE TABLE' AND " +
      "TABLE_SCHEMA NOT IN ('mysql', 'sys', 'performance_schema', 'information_schema') LIMIT 1",
  );
  const table =
    visible instanceof Error || visible.length === 0
      ? null
      : `\`${String(visible[0].db).replace(/`/g, '``')}\`.\`${String(visible[0].t).replace(/`/g, '``')}\``;
  const select: ProbeResult = table ? await attempt(`SELECT 1 FROM ${table} LIMIT 0`) : 'unknown';
  let lockTables: ProbeResult = 'unknown';
  // Only on a dedicated connection: a pool could UNLOCK on another session than the one that locked.
  if (table && !probe.pooled) {
    lockTables = await attempt(`LOCK TABLES ${table} READ`);
    if (lockTables === 'ok') await probe.rows('UNLOCK TABLES');
  }
  let replication: ProbeResult = 'unknown';
  let replicationError = '';
  if (opts.replicationProbe) {
    try {
      await opts.replicationProbe();
      replication = 'ok';
    } catch (err) {
      replication = (err as { code?: string }).code === 'CONNECTION_FAILED' ? 'denied' : probeOutcome(err);
      replicationError = errorMessage(err);
    }
  }
  return { status, select, lockTables, replication, replicationError, table };
}

async function privilegeChecks(probe: Probe, s: PreflightServer, opts: PreflightOptions): Promise<PreflightCheck[]> {
  const tried = await probePrivileges(probe, opts);
  const rows = await probe.rows('SHOW GRANTS');
  if (rows instanceof Error) {
    return [
      {
        id: 'privileges',
        status: 'warn',
        message: `Could not read the user's grants (SHOW GRANTS): ${rows.message}`,
      },
    ];
  }
  const g = parseGrants(rows.map((r) => String(Object.values(r)[0])));
  // A probe that succeeded wins over the grant text (roles); one that was denied wins too.
  const proved = (r: ProbeResult, fromGrants: boolean) => (r === 'ok' ? true : r === 'denied' ? false : fromGrants);
  const who = userSpec(s.currentUser);
  const grant = (p: string, on = '*.*') => `GRANT ${p} ON ${on} TO ${who};`;
  const out: PreflightCheck[] = [];

  const selectGlobal = has(g.global, 'SELECT');
  const select = proved(tried.select, selectGlobal);
  const selectScoped = !select && has(g.scoped, 'SELECT');
  out.push(
    select
      ? {
          id: 'privilege.select',
          status: 'pass',
          message: selectGlobal ? 'SELECT on *.*' : `SELECT works (a SELECT on ${tried.table} succeeded)`,
        }
      : selectScoped
        ? {
            id: 'privilege.select',
            status: 'pass',
            message: 'SELECT on some databases/tables only: the snapshot can read only those',
          }
        : {
            id: 'privilege.select',
            status: 'fail',
            message: `Missing SELECT: the snapshot cannot read tables`,
            fix: `${grant('SELECT')} (or on each captured database: GRANT SELECT ON \`db\`.* TO ${who};)`,
          },
  );

  for (const [priv, why] of [
    ['REPLICATION SLAVE', 'needed to read the binlog stream'],
    ['REPLICATION CLIENT', 'needed for SHOW MASTER STATUS / SHOW BINARY LOGS'],
  ] as const) {
    const id = `privilege.${priv.toLowerCase().replace(/ /g, '_')}`;
    const shown = s.flavour === 'mariadb' && priv === 'REPLICATION CLIENT' ? 'BINLOG MONITOR' : priv;
    out.push(
      proved(priv === 'REPLICATION CLIENT' ? tried.status : tried.replication, has(g.global, priv))
        ? { id, status: 'pass', message: `${shown} on *.*` }
        : { id, status: 'fail', message: `Missing ${shown} (${why})`, fix: grant(shown) },
    );
  }

  const mode = (opts.snapshotLockingMode ?? 'minimal').toLowerCase();
  const locking = mode !== 'none';
  const reload = has(g.global, 'RELOAD');
  const lockTables = proved(tried.lockTables, has(g.global, 'LOCK TABLES') || has(g.scoped, 'LOCK TABLES'));
  // Aurora/RDS deny FLUSH TABLES WITH READ LOCK even with RELOAD, so table locks are the only option there.
  const globalLockUsable = reload && !s.managed;
  if (!locking) {
    out.push({ id: 'privilege.reload', status: 'pass', message: 'snapshot.locking.mode is none: no locks needed' });
  } else if (globalLockUsable) {
    out.push({ id: 'privilege.reload', status: 'pass', message: 'RELOAD: the snapshot can take the global read lock' });
  } else {
    out.push({
      id: 'privilege.reload',
      status: 'warn',
      message: s.managed
        ? 'RDS/Aurora do not allow FLUSH TABLES WITH READ LOCK: the snapshot will use LOCK TABLES instead'
        : 'Missing RELOAD: the global read lock (FLUSH TABLES WITH READ LOCK) is unavailable, so the snapshot ' +
          'will use LOCK TABLES (holding table locks for the whole snapshot read)',
      ...(s.managed ? {} : { fix: grant('RELOAD') }),
    });
  }
  if (!locking || lockTables) {
    out.push({
      id: 'privilege.lock_tables',
      status: 'pass',
      message: lockTables ? 'LOCK TABLES' : 'snapshot.locking.mode is none: LOCK TABLES not needed',
    });
  } else {
    out.push({
      id: 'privilege.lock_tables',
      status: globalLockUsable ? 'warn' : 'fail',
      message: globalLockUsable
        ? 'Missing LOCK TABLES: not needed while the global read lock is available'
        : `Missing LOCK TABLES: without the global read lock, snapshot.locking.mode=${mode} needs table locks`,
      fix: `${grant('LOCK TABLES')} (or set snapshot.locking.mode=none if the tables do not change during the snapshot)`,
    });
  }

  out.push(
    has(g.global, 'SHOW DATABASES')
      ? { id: 'privilege.show_databases', status: 'pass', message: 'SHOW DATABASES' }
      : {
          id: 'privilege.show_databases',
          status: 'warn',
          message: `Missing SHOW DATABASES: only databases the user has privileges on are visible`,
          fix: grant('SHOW DATABASES'),
        },
  );
  return out;
}

// ---------------------------------------------------------------------------------------------------------------

async function serverIdCheck(probe: Probe, s: PreflightServer, ours: number): Promise<PreflightCheck> {
  const id = 'server_id.unique';
  const fix = `Set database.server.id to a number used by no server or replica in this topology (e.g. ${suggestId(ours)}).`;
  if (s.serverId === ours) {
    return {
      id,
      status: 'fail',
      message: `database.server.id ${ours} equals the server's own @@server_id: the server would reject the connector`,
      fix,
    };
  }
  // MySQL 8.0.22+ has SHOW REPLICAS; older MySQL and MariaDB have SHOW SLAVE HOSTS.
  let hosts = await probe.rows('SHOW REPLICAS');
  if (hosts instanceof Error) hosts = await probe.rows('SHOW SLAVE HOSTS');
  if (hosts instanceof Error) {
    return {
      id,
      status: 'warn',
      message: `Could not list connected replicas to compare server ids (${hosts.message})`,
      fix:
        s.flavour === 'mariadb'
          ? `GRANT REPLICATION MASTER ADMIN ON *.* TO ${userSpec(s.currentUser)}; or make sure by hand that ${ours} is unique.`
          : `Make sure by hand that server id ${ours} is unique among replicas.`,
    };
  }
  const clash = hosts.find((h) => Number(h.Server_id ?? h.Server_Id ?? h.server_id) === ours);
  if (clash) {
    return {
      id,
      status: 'fail',
      message: `A connected replica (${String(clash.Host ?? '?')}:${String(clash.Port ?? '?')}) already uses server id ${ours}; two clients with one id disconnect each other`,
      fix,
    };
  }
  return { id, status: 'pass', message: `server id ${ours} is not used by the server or a connected replica` };
}

function suggestId(ours: number): number {
  return 5400 + ((ours * 7919) % 1000);
}

function infoChecks(vars: Map<string, string>): PreflightCheck[] {
  const out: PreflightCheck[] = [];
  const checksum = vars.get('binlog_checksum');
  out.push({
    id: 'binlog.checksum',
    status: 'pass',
    message: checksum ? `binlog_checksum is ${checksum}` : 'binlog_checksum not reported (NONE)',
  });
  const compression = vars.get('binlog_transaction_compression');
  out.push({
    id: 'binlog.transaction_compression',
    status: 'pass',
    message:
      compression === undefined
        ? 'binlog_transaction_compression not supported by this server'
        : `binlog_transaction_compression is ${compression}${/^(ON|1)$/i.test(compression) ? ' (zstd payloads are decompressed by the reader)' : ''}`,
  });
  const packet = Number(vars.get('max_allowed_packet') ?? 0);
  out.push(
    packet > 0 && packet < MIN_PACKET
      ? {
          id: 'server.max_allowed_packet',
          status: 'warn',
          message: `max_allowed_packet is ${packet} bytes (< 16 MiB): large rows or transactions may not replicate`,
          fix: 'SET GLOBAL max_allowed_packet = 67108864; and persist it (my.cnf or the parameter group).',
        }
      : {
          id: 'server.max_allowed_packet',
          status: 'pass',
          message: `max_allowed_packet is ${packet || 'unknown'} bytes`,
        },
  );
  return out;
}

// ---------------------------------------------------------------------------------------------------------------

const MARK: Record<CheckStatus, string> = { pass: 'PASS', warn: 'WARN', fail: 'FAIL' };

/** Human-readable report for `cdc check`: one line per check, fixes indented, summary last. */
export function formatPreflightReport(report: PreflightReport): string {
  const lines = [`Server: ${flavourName(report.server)} (${report.server.version}) as ${report.server.currentUser}`];
  for (const c of report.checks) {
    lines.push(`[${MARK[c.status]}] ${c.id}: ${c.message}`);
    if (c.fix && c.status !== 'pass') lines.push(`       fix: ${c.fix}`);
  }
  const n = (st: CheckStatus) => report.checks.filter((c) => c.status === st).length;
  lines.push(`${report.ok ? 'OK' : 'NOT READY'}: ${n('pass')} passed, ${n('warn')} warnings, ${n('fail')} failures`);
  return lines.join('\n');
}
