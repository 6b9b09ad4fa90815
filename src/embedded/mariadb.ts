/**
 * Private, throw-away MariaDB servers for `cdc demo`, the integration tests (test/harness re-exports this module)
 * and benchmarks.
 *
 * Each server gets its own temp datadir, a free TCP port on 127.0.0.1, a socket in the datadir and binlogs on
 * (ROW, FULL image, FULL metadata). Start-up copies a cached, already initialised datadir template (keyed by the
 * server version and the InnoDB options) so only the first start pays for `mariadb-install-db`.
 *
 * Free of test imports: the package runs its demo without test/. Test glue is in test/harness/fixtures.ts.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Connection, Pool } from 'mysql2/promise';
import mysql from 'mysql2/promise';
import type { Logger } from '../common/logger.js';
import { silentLogger } from '../common/logger.js';

export type ServerOptionValue = string | number | boolean | null;

export interface MariaDbOptions {
  serverId?: number;
  binlogFormat?: 'ROW' | 'STATEMENT' | 'MIXED';
  binlogRowImage?: 'FULL' | 'MINIMAL' | 'NOBLOB';
  binlogRowMetadata?: 'FULL' | 'MINIMAL' | 'NO_LOG';
  /** Binary logging on (default) or off. */
  logBin?: boolean;
  /**
   * Overrides for the generated option file, e.g. `{ 'innodb-buffer-pool-size': '256M', 'expire-logs-days': 1 }`.
   * `true` writes a bare flag, `false` writes `0`, `null` removes a default option. `_` and `-` are equivalent.
   */
  options?: Record<string, ServerOptionValue>;
  /** Extra mariadbd command-line arguments, appended after the option file. */
  extraArgs?: string[];
  /**
   * Use this datadir instead of a fresh temp one. It is initialised when empty, reused when already initialised
   * (restart on the same data), and never deleted by stop().
   */
  datadir?: string;
  /** Listen on this port (e.g. to restart a server where its clients expect it); default a free one. */
  port?: number;
  /** Deadline for start-up (default 60 s). */
  startTimeoutMs?: number;
  logger?: Logger;
}

export interface Credentials {
  user: string;
  password: string;
}

export interface ConnectOptions {
  user?: string;
  password?: string;
  database?: string;
  multipleStatements?: boolean;
}

export interface MariaDbServer {
  host: string;
  port: number;
  serverId: number;
  datadir: string;
  /** Absolute path prefix of the binlog files (`<binlogBasename>.000001`, ...). */
  binlogBasename: string;
  /** Full privileges, including RELOAD and replication. */
  admin: Credentials;
  /** Like Aurora's master user for locking: no RELOAD (FLUSH TABLES WITH READ LOCK is denied), but LOCK TABLES. */
  aurora: Credentials;
  /** mariadbd's process id. */
  pid: number;
  version: string;
  /** TCP connection, as admin unless told otherwise. The caller closes it. */
  connect(opts?: ConnectOptions): Promise<Connection>;
  /** Runs one query (or several; multipleStatements is on) through a lazily created admin pool; returns the rows. */
  query<T = unknown>(sql: string, params?: unknown[]): Promise<T>;
  /** Creates a database with a unique name like `t_<prefix>_<random>` and returns the name. */
  createDatabase(prefix?: string): Promise<string>;
  /** Creates (or replaces) `name`@'%'. A grant without ` ON ` is granted ON *.*. */
  createUser(name: string, grants: string[], password?: string): Promise<Credentials>;
  /** Absolute paths of the binlog files, oldest first. */
  binlogFiles(): Promise<string[]>;
  /** The last lines of the server's error log. */
  errorLogTail(lines?: number): Promise<string>;
  /** Shuts down (SQL SHUTDOWN, then SIGKILL after a grace period) and removes the temp datadir. Idempotent. */
  stop(): Promise<void>;
}

export class EmbeddedMariaDbError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'EmbeddedMariaDbError';
  }
}

const HOST = '127.0.0.1';
const DIR_PREFIX = 'cdc-mariadb-';
const SEARCH_DIRS = ['/usr/sbin', '/usr/local/sbin', '/usr/bin', '/usr/local/bin', '/usr/local/mysql/bin'];

// ---------------------------------------------------------------------------------------------------------------
// Installation

function findExecutable(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), ...SEARCH_DIRS];
  for (const d of dirs) {
    const p = join(d, name);
    if (existsSync(p)) return p;
  }
  return undefined;
}

function findInstallScript(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const p = join(dir, 'scripts', 'install-system-deps.sh');
    if (existsSync(p)) return p;
    dir = dirname(dir);
  }
  return undefined;
}

function locateBinaries(): { mariadbd: string; installDb: string } | undefined {
  const mariadbd = process.env.MARIADBD ?? findExecutable('mariadbd');
  if (!mariadbd) return undefined;
  const installDb =
    [join(dirname(mariadbd), 'mariadb-install-db'), findExecutable('mariadb-install-db')].find(
      (p): p is string => p !== undefined && existsSync(p),
    ) ?? undefined;
  return installDb ? { mariadbd, installDb } : undefined;
}

const INSTALL_HINT =
  'MariaDB server is not installed. Install it with `sudo scripts/install-system-deps.sh` ' +
  '(Debian: apt-get install -y mariadb-server mariadb-client), or set MARIADBD to the mariadbd binary.';

/** Path to mariadbd. Installs MariaDB via scripts/install-system-deps.sh when missing and running as root. */
export async function ensureMariaDbInstalled(): Promise<string> {
  return (await ensureBinaries()).mariadbd;
}

let installing: Promise<{ mariadbd: string; installDb: string }> | undefined;
function ensureBinaries(): Promise<{ mariadbd: string; installDb: string }> {
  installing ??= (async () => {
    const found = locateBinaries();
    if (found) return found;
    if (process.getuid?.() !== 0) throw new EmbeddedMariaDbError(`${INSTALL_HINT} (not root, so not installing)`);
    const script = findInstallScript();
    if (!script) throw new EmbeddedMariaDbError(`${INSTALL_HINT} (scripts/install-system-deps.sh not found)`);
    const r = spawnSync('bash', [script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const after = locateBinaries();
    if (r.status !== 0 || !after) {
      throw new EmbeddedMariaDbError(
        `${INSTALL_HINT}\n${script} exited with ${r.status}:\n${tail(`${r.stdout}\n${r.stderr}`, 20)}`,
      );
    }
    return after;
  })();
  installing.catch(() => {
    installing = undefined;
  });
  return installing;
}

// ---------------------------------------------------------------------------------------------------------------
// Process-exit cleanup: no mariadbd may outlive a failed or interrupted run.

interface Live {
  child: ChildProcess;
  datadir: string;
  removeDatadir: boolean;
}
const live = new Set<Live>();
let hooksInstalled = false;

function killAllSync(): void {
  for (const l of live) {
    if (l.child.exitCode === null && l.child.signalCode === null) l.child.kill('SIGKILL');
    if (l.removeDatadir) rmSync(l.datadir, { recursive: true, force: true });
  }
  live.clear();
}

function installExitHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on('exit', killAllSync);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = () => {
      // Someone else handles the signal (e.g. `cdc demo` stopping cleanly on Ctrl-C): leave the servers to it; the
      // 'exit' hook still kills what is left.
      if (process.listenerCount(sig) > 1) return;
      killAllSync();
      // Nobody else handles it: keep its default meaning (terminate) instead of swallowing it.
      process.removeListener(sig, onSignal);
      process.kill(process.pid, sig);
    };
    process.on(sig, onSignal);
  }
}

/** Removes temp datadirs left behind by processes that were SIGKILLed (their owner pid is gone). */
function sweepStaleDatadirs(): void {
  let names: string[];
  try {
    names = readdirSync(tmpdir());
  } catch {
    return;
  }
  for (const name of names) {
    const m = /^cdc-mariadb-(\d+)-/.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    if (pid === process.pid || isAlive(pid)) continue;
    rmSync(join(tmpdir(), name), { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Option file

function normKey(k: string): string {
  return k.replace(/_/g, '-');
}

function baseOptions(opts: MariaDbOptions, datadir: string, port: number, serverId: number) {
  const o = new Map<string, ServerOptionValue>([
    ['user', 'root'],
    ['datadir', datadir],
    ['port', port],
    ['socket', join(datadir, 'mariadb.sock')],
    ['pid-file', join(datadir, 'mariadb.pid')],
    // Private tmpdir (see templateDir): start-up cleans `#sql*` files there, which must be this server's only.
    ['tmpdir', join(datadir, 'tmp')],
    ['log-error', join(datadir, 'error.log')],
    ['bind-address', HOST],
    ['skip-name-resolve', true],
    ['server-id', serverId],
    ['log-bin', opts.logBin === false ? null : join(datadir, 'mariadb-bin')],
    ['binlog-format', opts.binlogFormat ?? 'ROW'],
    ['binlog-row-image', opts.binlogRowImage ?? 'FULL'],
    ['binlog-row-metadata', opts.binlogRowMetadata ?? 'FULL'],
    ['binlog-annotate-row-events', 'ON'],
    ['character-set-server', 'utf8mb4'],
    ['collation-server', 'utf8mb4_general_ci'],
    ['max-allowed-packet', '64M'],
    // Small and unsafe-on-crash settings: these servers are disposable and should start and write fast.
    ['innodb-buffer-pool-size', '64M'],
    ['innodb-log-file-size', '16M'],
    ['innodb-flush-log-at-trx-commit', 2],
    ['innodb-doublewrite', 0],
    // Many parallel servers can exhaust the kernel's aio-max-nr; simulated AIO is plenty here.
    ['innodb-use-native-aio', 0],
    ['sync-binlog', 0],
    ['performance-schema', 'OFF'],
  ]);
  for (const [k, v] of Object.entries(opts.options ?? {})) o.set(normKey(k), v);
  return o;
}

function renderCnf(options: Map<string, ServerOptionValue>): string {
  const lines = ['[mysqld]'];
  for (const [k, v] of options) {
    if (v === null) continue;
    if (v === true) lines.push(k);
    else if (v === false) lines.push(`${k}=0`);
    else lines.push(`${k}=${v}`);
  }
  return `${lines.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------------------------
// Datadir template: `mariadb-install-db` costs ~2 s, a copy ~50 ms.

const TEMPLATE_SKIP = /(^mariadb-bin\.|\.cnf$|\.log$|\.sock$|\.pid$|^ibtmp)/;

async function templateDir(installDb: string, mariadbd: string, options: Map<string, ServerOptionValue>) {
  const version = spawnSync(mariadbd, ['--version'], { encoding: 'utf8' }).stdout.trim();
  const innodb = [...options].filter(([k]) => k.startsWith('innodb-page-size') || k === 'lower-case-table-names');
  const key = createHash('sha256')
    .update(JSON.stringify([version, innodb]))
    .digest('hex')
    .slice(0, 12);
  const dir = join(tmpdir(), `cdc-mariadb-template-${key}`);
  if (existsSync(join(dir, '.complete'))) return dir;
  // Build beside the final name, then rename: concurrent test processes race safely.
  const work = await mkdtemp(join(tmpdir(), `${DIR_PREFIX}${process.pid}-tpl-`));
  try {
    const data = join(work, 'data');
    await mkdir(data);
    const cnf = join(work, 'install.cnf');
    const o = new Map(options);
    o.set('datadir', data);
    o.set('log-error', join(work, 'install.log'));
    o.set('socket', join(work, 'install.sock'));
    o.set('pid-file', join(work, 'install.pid'));
    // Its own tmpdir: every mariadbd deletes the `#sql*` files in its tmpdir at start-up, so a server starting in
    // a shared /tmp removes a concurrent bootstrap's temporary tables ("Unknown table 'mysql.tmp_user_sys'").
    const tmp = join(work, 'tmp');
    await mkdir(tmp);
    o.set('tmpdir', tmp);
    o.set('log-bin', null);
    await writeFile(cnf, renderCnf(o));
    const r = spawnSync(
      installDb,
      [
        `--defaults-file=${cnf}`,
        `--datadir=${data}`,
        '--user=root',
        '--auth-root-authentication-method=normal',
        '--skip-test-db',
      ],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 },
    );
    if (r.status !== 0) {
      const log = await readFile(join(work, 'install.log'), 'utf8').catch(() => '');
      throw new EmbeddedMariaDbError(
        `mariadb-install-db failed (exit ${r.status ?? r.signal}):\n${tail(`${r.stdout}\n${r.stderr}\n${log}`, 30)}`,
      );
    }
    await writeFile(join(data, '.complete'), version);
    try {
      await rename(data, dir);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw err;
      // Another process won the race; its template is just as good.
    }
    return dir;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

async function copyTemplate(template: string, datadir: string): Promise<void> {
  await cp(template, datadir, {
    recursive: true,
    filter: (src) => src === template || !TEMPLATE_SKIP.test(src.slice(template.length + 1)),
  });
  await rm(join(datadir, '.complete'), { force: true });
}

// ---------------------------------------------------------------------------------------------------------------
// Start

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, HOST, () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolvePort(port));
    });
  });
}

function tail(text: string, lines: number): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

function randomSecret(): string {
  return randomBytes(12).toString('hex');
}

function rootSocketConnect(socketPath: string): Promise<Connection> {
  return mysql.createConnection({ socketPath, user: 'root', password: '', connectTimeout: 2000 });
}

interface Spawned {
  child: ChildProcess;
  exited: Promise<void>;
  stderr: () => string;
}

function spawnServer(mariadbd: string, cnf: string, extraArgs: string[]): Spawned {
  // setpriv --pdeathsig: the kernel SIGKILLs mariadbd if this process dies without running exit hooks (SIGKILL, OOM).
  const setpriv = process.platform === 'linux' ? findExecutable('setpriv') : undefined;
  const args = [`--defaults-file=${cnf}`, ...extraArgs];
  const child = setpriv
    ? spawn(setpriv, ['--pdeathsig', 'KILL', '--', mariadbd, ...args], { stdio: ['ignore', 'ignore', 'pipe'] })
    : spawn(mariadbd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (d: string) => {
    err = (err + d).slice(-8192);
  });
  const exited = new Promise<void>((res) => {
    if (child.exitCode !== null) res();
    child.once('exit', () => res());
    child.once('error', (e) => {
      err += `\n${e.message}`;
      res();
    });
  });
  return { child, exited, stderr: () => err };
}

async function waitReady(sp: Spawned, socketPath: string, deadline: number, errorLog: string): Promise<void> {
  let lastErr: unknown;
  let exited = false;
  void sp.exited.then(() => {
    exited = true;
  });
  while (Date.now() < deadline && !exited) {
    if (existsSync(socketPath)) {
      try {
        const c = await rootSocketConnect(socketPath);
        await c.end();
        return;
      } catch (err) {
        lastErr = err;
      }
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  const log = await readFile(errorLog, 'utf8').catch(() => '');
  const why = exited
    ? `mariadbd exited (code ${sp.child.exitCode ?? sp.child.signalCode})`
    : `mariadbd was not ready before the deadline${lastErr ? ` (last error: ${(lastErr as Error).message})` : ''}`;
  throw new EmbeddedMariaDbError(`${why}. Error log tail:\n${tail(`${log}\n${sp.stderr()}`, 30)}`);
}

/** Starts a private MariaDB server. Typical start-up: ~0.5 s (template cached), ~3 s the first time. */
export async function startMariaDb(opts: MariaDbOptions = {}): Promise<MariaDbServer> {
  const log = opts.logger ?? silentLogger;
  const bins = await ensureBinaries();
  installExitHooks();
  sweepStaleDatadirs();
  const t0 = Date.now();
  const serverId = opts.serverId ?? 1;
  const ownsDatadir = opts.datadir === undefined;
  const datadir = opts.datadir ? resolve(opts.datadir) : await mkdtemp(join(tmpdir(), `${DIR_PREFIX}${process.pid}-`));
  const deadline = Date.now() + (opts.startTimeoutMs ?? 60_000);
  try {
    await mkdir(datadir, { recursive: true });
    if (!existsSync(join(datadir, 'mysql'))) {
      const template = await templateDir(bins.installDb, bins.mariadbd, baseOptions(opts, datadir, 0, serverId));
      await copyTemplate(template, datadir);
    }
    await mkdir(join(datadir, 'tmp'), { recursive: true });
    const cnf = join(datadir, 'my.cnf');
    const errorLog = join(datadir, 'error.log');
    const socketPath = join(datadir, 'mariadb.sock');
    let sp: Spawned | undefined;
    let port = 0;
    for (let attempt = 1; ; attempt++) {
      port = opts.port ?? (await freePort());
      const options = baseOptions(opts, datadir, port, serverId);
      await writeFile(cnf, renderCnf(options));
      await rm(socketPath, { force: true });
      await writeFile(errorLog, '');
      sp = spawnServer(bins.mariadbd, cnf, opts.extraArgs ?? []);
      const entry: Live = { child: sp.child, datadir, removeDatadir: ownsDatadir };
      live.add(entry);
      try {
        await waitReady(sp, socketPath, deadline, errorLog);
        break;
      } catch (err) {
        if (sp.child.exitCode === null && sp.child.signalCode === null) sp.child.kill('SIGKILL');
        await sp.exited;
        live.delete(entry);
        // Another process may grab the port between freePort() and mariadbd's bind; pick another one.
        const inUse = /Address already in use|errno: 98|error: 98/i.test((err as Error).message);
        if (attempt < 5 && inUse && opts.port === undefined) continue;
        throw err;
      }
    }
    const server = await finishSetup(sp, { opts, datadir, ownsDatadir, port, serverId, socketPath, errorLog, log });
    log.info('mariadb started', { port, datadir, ms: Date.now() - t0 });
    return server;
  } catch (err) {
    if (ownsDatadir) await rm(datadir, { recursive: true, force: true });
    throw err;
  }
}

interface SetupCtx {
  opts: MariaDbOptions;
  datadir: string;
  ownsDatadir: boolean;
  port: number;
  serverId: number;
  socketPath: string;
  errorLog: string;
  log: Logger;
}

async function finishSetup(sp: Spawned, ctx: SetupCtx): Promise<MariaDbServer> {
  const admin: Credentials = { user: 'cdc_admin', password: randomSecret() };
  const aurora: Credentials = { user: 'cdc_aurora', password: randomSecret() };
  const root = await rootSocketConnect(ctx.socketPath);
  let version: string;
  try {
    // Keep the harness's own set-up out of the binlog: CDC tests see only their own changes.
    await root.query('SET SESSION sql_log_bin = 0');
    // Users on '%' because skip-name-resolve makes 'localhost' match socket connections only.
    await root.query('CREATE OR REPLACE USER ?@? IDENTIFIED BY ?', [admin.user, '%', admin.password]);
    await root.query('GRANT ALL PRIVILEGES ON *.* TO ?@? WITH GRANT OPTION', [admin.user, '%']);
    await root.query('CREATE OR REPLACE USER ?@? IDENTIFIED BY ?', [aurora.user, '%', aurora.password]);
    // Aurora/RDS master users cannot take the global read lock (no RELOAD); snapshots fall back to LOCK TABLES.
    await root.query(
      'GRANT SELECT, LOCK TABLES, REPLICATION SLAVE, REPLICATION CLIENT, SHOW VIEW, SHOW DATABASES ON *.* TO ?@?',
      [aurora.user, '%'],
    );
    const [rows] = await root.query('SELECT VERSION() AS v');
    version = (rows as Array<{ v: string }>)[0].v;
  } finally {
    await root.end();
  }

  let pool: Pool | undefined;
  let stopping: Promise<void> | undefined;
  const entry = [...live].find((l) => l.child === sp.child);
  const connectOpts = (o: ConnectOptions = {}) => ({
    host: HOST,
    port: ctx.port,
    user: o.user ?? admin.user,
    // Known users need no password argument: connect({ user: server.aurora.user }) just works.
    password:
      o.password ??
      (o.user === undefined || o.user === admin.user ? admin.password : o.user === aurora.user ? aurora.password : ''),
    database: o.database,
    multipleStatements: o.multipleStatements ?? false,
    charset: 'utf8mb4',
  });

  const server: MariaDbServer = {
    host: HOST,
    port: ctx.port,
    serverId: ctx.serverId,
    datadir: ctx.datadir,
    binlogBasename: join(ctx.datadir, 'mariadb-bin'),
    admin,
    aurora,
    pid: sp.child.pid ?? -1,
    version,
    connect: (o) => mysql.createConnection(connectOpts(o)),
    async query<T = unknown>(sql: string, params?: unknown[]): Promise<T> {
      pool ??= mysql.createPool({ ...connectOpts({ multipleStatements: true }), connectionLimit: 4 });
      const [rows] = await pool.query(sql, params);
      return rows as T;
    },
    async createDatabase(prefix = 'db') {
      const name = `t_${prefix}_${randomBytes(4).toString('hex')}`;
      await server.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4`);
      return name;
    },
    async createUser(name, grants, password = randomSecret()) {
      await server.query('CREATE OR REPLACE USER ?@? IDENTIFIED BY ?', [name, '%', password]);
      for (const g of grants) {
        const stmt = / ON /i.test(g) ? `GRANT ${g} TO ?@?` : `GRANT ${g} ON *.* TO ?@?`;
        await server.query(stmt, [name, '%']);
      }
      return { user: name, password };
    },
    async binlogFiles() {
      const rows = await server.query<Array<{ Log_name: string }>>('SHOW BINARY LOGS').catch((err: Error) => {
        if (/not using binary logging/i.test(err.message)) return [];
        throw err;
      });
      return rows.map((r) => join(ctx.datadir, r.Log_name));
    },
    async errorLogTail(lines = 30) {
      return tail(await readFile(ctx.errorLog, 'utf8').catch(() => ''), lines);
    },
    stop() {
      stopping ??= (async () => {
        if (pool) await pool.end().catch(() => undefined);
        if (sp.child.exitCode === null && sp.child.signalCode === null) {
          try {
            const c = await rootSocketConnect(ctx.socketPath);
            await c.query('SHUTDOWN').catch(() => undefined);
            c.destroy();
          } catch {
            sp.child.kill('SIGTERM');
          }
          const timer = setTimeout(() => sp.child.kill('SIGKILL'), 15_000);
          await sp.exited;
          clearTimeout(timer);
        }
        if (entry) live.delete(entry);
        if (ctx.ownsDatadir) await rm(ctx.datadir, { recursive: true, force: true });
        ctx.log.info('mariadb stopped', { port: ctx.port });
      })();
      return stopping;
    },
  };
  return server;
}
