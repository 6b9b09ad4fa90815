import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  DatabaseConnectionError,
  type DatabaseConnectionOptions,
  openConnection,
  openPool,
} from '../../src/source/mysql/connection.js';
import {
  assertPreflight,
  formatPreflightReport,
  PreflightError,
  type PreflightReport,
  parseGrants,
  runPreflight,
} from '../../src/source/mysql/preflight.js';
import { replicationProbe } from '../../src/source/mysql/replication-probe.js';
import { useMariaDb } from '../harness/fixtures.js';
import { type Credentials, type MariaDbServer, startMariaDb } from '../harness/mariadb.js';

function connOpts(s: MariaDbServer, cred: Credentials, mode: DatabaseConnectionOptions['ssl']['mode'] = 'disabled') {
  return { host: s.host, port: s.port, user: cred.user, password: cred.password, ssl: { mode } };
}

async function preflightAs(s: MariaDbServer, cred: Credentials, opts: Parameters<typeof runPreflight>[1]) {
  const c = await openConnection(connOpts(s, cred));
  try {
    return await runPreflight(c, opts);
  } finally {
    await c.end();
  }
}

function check(report: PreflightReport, id: string) {
  const c = report.checks.find((x) => x.id === id);
  assert.ok(c, `check ${id} present in ${report.checks.map((x) => x.id).join(', ')}`);
  return c;
}

describe('preflight against the default harness server', () => {
  const db = useMariaDb({ serverId: 11 });

  it('admin: no failures, MariaDB detected, all checks present', async () => {
    const report = await preflightAs(db(), db().admin, { serverId: 5401 });
    assert.equal(report.ok, true, formatPreflightReport(report));
    assert.deepEqual(
      report.checks.filter((c) => c.status === 'fail'),
      [],
    );
    assert.equal(report.server.flavour, 'mariadb');
    assert.equal(report.server.serverId, 11);
    for (const id of [
      'server.version',
      'binlog.enabled',
      'binlog.format',
      'binlog.row_image',
      'binlog.row_metadata',
      'binlog.row_value_options',
      'gtid.mode',
      'binlog.retention',
      'privilege.select',
      'privilege.replication_slave',
      'privilege.replication_client',
      'privilege.reload',
      'privilege.lock_tables',
      'privilege.show_databases',
      'server_id.unique',
      'binlog.checksum',
      'binlog.transaction_compression',
      'server.max_allowed_packet',
    ]) {
      assert.equal(check(report, id).status, 'pass', `${id}: ${check(report, id).message}`);
    }
    assert.doesNotThrow(() => assertPreflight(report));
  });

  it('aurora-like user: RELOAD missing is a warning, LOCK TABLES present, still no failures', async () => {
    const report = await preflightAs(db(), db().aurora, { serverId: 5401 });
    assert.equal(report.ok, true, formatPreflightReport(report));
    assert.equal(check(report, 'privilege.reload').status, 'warn');
    assert.match(check(report, 'privilege.reload').message, /LOCK TABLES/);
    assert.equal(check(report, 'privilege.lock_tables').status, 'pass');
  });

  it('no RELOAD and no LOCK TABLES fails for minimal locking, passes for locking mode none', async () => {
    const u = await db().createUser('nolocks', ['SELECT', 'REPLICATION SLAVE', 'REPLICATION CLIENT']);
    const minimal = await preflightAs(db(), u, { serverId: 5401, snapshotLockingMode: 'minimal' });
    const lock = check(minimal, 'privilege.lock_tables');
    assert.equal(lock.status, 'fail');
    assert.match(lock.fix ?? '', /GRANT LOCK TABLES ON \*\.\* TO 'nolocks'@'%'/);
    const none = await preflightAs(db(), u, { serverId: 5401, snapshotLockingMode: 'none' });
    assert.equal(check(none, 'privilege.lock_tables').status, 'pass');
    assert.equal(check(none, 'privilege.reload').status, 'pass');
  });

  it('MariaDB roles: the probes (what the capture runs) pass through a default role and refuse a user without it', async () => {
    const s = db();
    const dbName = await s.createDatabase('roles');
    await s.query(`CREATE TABLE ${dbName}.t (id INT PRIMARY KEY)`);
    await s.query('CREATE ROLE IF NOT EXISTS cdc_capture_role');
    await s.query('GRANT SELECT, REPLICATION SLAVE, BINLOG MONITOR, LOCK TABLES ON *.* TO cdc_capture_role');
    const u = await s.createUser('viarole', []);
    await s.query(`GRANT cdc_capture_role TO '${u.user}'@'%'`);
    await s.query(`SET DEFAULT ROLE cdc_capture_role FOR '${u.user}'@'%'`);
    const connect = () => s.connect({ user: u.user, password: u.password });
    const report = await preflightAs(s, u, {
      serverId: 5401,
      snapshotLockingMode: 'minimal',
      replicationProbe: replicationProbe(connect),
    });
    for (const id of ['privilege.select', 'privilege.replication_slave', 'privilege.replication_client']) {
      assert.equal(check(report, id).status, 'pass', `${id}: ${check(report, id).message}`);
    }
    assert.equal(check(report, 'privilege.lock_tables').status, 'pass', check(report, 'privilege.lock_tables').message);
    // And a user without them is still refused by the same probes.
    const bare = await s.createUser('bare', [`SELECT ON ${dbName}.*`]);
    const denied = await preflightAs(s, bare, {
      serverId: 5401,
      replicationProbe: replicationProbe(() => s.connect({ user: bare.user, password: bare.password })),
    });
    assert.equal(check(denied, 'privilege.replication_slave').status, 'fail');
    assert.equal(check(denied, 'privilege.replication_client').status, 'fail');
  });

  it("a connector server id equal to the server's own fails", async () => {
    const report = await preflightAs(db(), db().admin, { serverId: 11 });
    assert.equal(report.ok, false);
    assert.equal(check(report, 'server_id.unique').status, 'fail');
    assert.ok(check(report, 'server_id.unique').fix);
  });

  it('a server id used by a connected replica fails', async () => {
    const replica = await startMariaDb({ serverId: 77 });
    try {
      const r = await db().createUser('repl', ['REPLICATION SLAVE']);
      await replica.query(
        `CHANGE MASTER TO MASTER_HOST='${db().host}', MASTER_PORT=${db().port}, MASTER_USER='${r.user}', ` +
          `MASTER_PASSWORD='${r.password}', MASTER_USE_GTID=no; START SLAVE`,
      );
      // Wait for the replica to register (condition, not a fixed sleep).
      const deadline = Date.now() + 20_000;
      for (;;) {
        const hosts = await db().query<Array<{ Server_id: number }>>('SHOW SLAVE HOSTS');
        if (hosts.some((h) => Number(h.Server_id) === 77)) break;
        if (Date.now() > deadline) throw new Error('replica did not register within 20 s');
        await new Promise((res) => setTimeout(res, 50));
      }
      const report = await preflightAs(db(), db().admin, { serverId: 77 });
      const c = check(report, 'server_id.unique');
      assert.equal(c.status, 'fail');
      assert.match(c.message, /replica/);
      await replica.query('STOP SLAVE');
    } finally {
      await replica.stop();
    }
  });
});

describe('preflight reports every problem at once', () => {
  const db = useMariaDb({
    binlogFormat: 'STATEMENT',
    options: { 'max-allowed-packet': '4M', 'expire-logs-days': 0.5 },
  });

  it('STATEMENT format and missing REPLICATION SLAVE are both failures with fixes, in one report', async () => {
    const u = await db().createUser('norepl', ['SELECT', 'REPLICATION CLIENT', 'LOCK TABLES', 'RELOAD']);
    const report = await preflightAs(db(), u, { serverId: 5401 });
    assert.equal(report.ok, false);
    const failures = report.checks.filter((c) => c.status === 'fail').map((c) => c.id);
    assert.deepEqual(failures.sort(), ['binlog.format', 'privilege.replication_slave']);
    assert.match(check(report, 'binlog.format').fix ?? '', /SET GLOBAL binlog_format = 'ROW'/);
    assert.equal(check(report, 'privilege.replication_slave').fix, "GRANT REPLICATION SLAVE ON *.* TO 'norepl'@'%';");
    // Warnings ride along in the same report.
    assert.equal(check(report, 'server.max_allowed_packet').status, 'warn');
    assert.equal(check(report, 'binlog.retention').status, 'warn');
    assert.match(check(report, 'binlog.retention').fix ?? '', /SET GLOBAL binlog_expire_logs_seconds = 86400/);

    const text = formatPreflightReport(report);
    assert.match(text, /\[FAIL\] binlog\.format/);
    assert.match(text, /\[FAIL\] privilege\.replication_slave/);
    assert.match(text, /fix: GRANT REPLICATION SLAVE/);
    assert.match(text, /NOT READY: .* 2 failures/);
    assert.throws(
      () => assertPreflight(report),
      (err: unknown) =>
        err instanceof PreflightError && err.code === 'PREFLIGHT_FAILED' && /2 problems/.test(err.message),
    );
  });
});

describe('openConnection / openPool', () => {
  const db = useMariaDb();

  it('keeps exact value typing: big numbers, decimals and dates as strings', async () => {
    const pool = await openPool(connOpts(db(), db().admin));
    try {
      const [rows] = await pool.query(
        "SELECT CAST(18446744073709551615 AS UNSIGNED) AS big, CAST('1.10' AS DECIMAL(5,2)) AS d, " +
          "CAST('2024-02-29 10:11:12' AS DATETIME) AS ts",
      );
      assert.deepEqual(rows, [{ big: '18446744073709551615', d: '1.10', ts: '2024-02-29 10:11:12' }]);
    } finally {
      await pool.end();
    }
  });

  it('wrong password: access_denied, actionable, password never in the message', async () => {
    const password = 'SuperSecret-Pw-123';
    await assert.rejects(openConnection({ ...connOpts(db(), db().admin), password }), (err: unknown) => {
      assert.ok(err instanceof DatabaseConnectionError);
      assert.equal(err.code, 'CONNECTION_FAILED');
      assert.equal(err.reason, 'access_denied');
      assert.equal(err.retriable, false);
      assert.match(err.message, /check database\.user and database\.password/i);
      assert.ok(!err.message.includes(password));
      return true;
    });
    await assert.rejects(openPool({ ...connOpts(db(), db().admin), password }), { reason: 'access_denied' });
  });

  it('nothing listening: unreachable and retriable', async () => {
    const stopped = await startMariaDb();
    const opts = connOpts(stopped, stopped.admin);
    await stopped.stop();
    await assert.rejects(openConnection(opts), (err: unknown) => {
      assert.ok(err instanceof DatabaseConnectionError);
      assert.equal(err.reason, 'unreachable');
      assert.equal(err.retriable, true);
      assert.match(err.message, /ECONNREFUSED/);
      assert.match(err.message, /hostname and database\.port/);
      return true;
    });
  });

  it('server without TLS: preferred falls back to plain, required fails with a ssl.mode hint', async () => {
    const c = await openConnection(connOpts(db(), db().admin, 'preferred'));
    try {
      const [rows] = await c.query("SHOW SESSION STATUS LIKE 'Ssl_cipher'");
      assert.deepEqual(rows, [{ Variable_name: 'Ssl_cipher', Value: '' }]);
    } finally {
      await c.end();
    }
    const pool = await openPool(connOpts(db(), db().admin, 'preferred'));
    await pool.end();
    await assert.rejects(openConnection(connOpts(db(), db().admin, 'required')), (err: unknown) => {
      assert.ok(err instanceof DatabaseConnectionError);
      assert.equal(err.reason, 'tls');
      assert.match(err.message, /database\.ssl\.mode/);
      return true;
    });
  });
});

describe('TLS modes against a server with a test CA', () => {
  let dir = '';
  let ca = '';
  let otherCa = '';
  let server: MariaDbServer | undefined;
  const srv = () => server!;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cdc-tls-'));
    const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
    ssl(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      '2',
      '-subj',
      '/CN=cdc-test-ca',
    );
    ssl(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'o.key',
      '-out',
      'other.pem',
      '-days',
      '2',
      '-subj',
      '/CN=other',
    );
    ssl(
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'server.key',
      '-out',
      'server.csr',
      '-subj',
      '/CN=localhost',
    );
    writeFileSync(join(dir, 'ext'), 'subjectAltName=DNS:localhost\n');
    ssl(
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'server.pem',
      '-days',
      '2',
      '-extfile',
      'ext',
    );
    ca = readFileSync(join(dir, 'ca.pem'), 'utf8');
    otherCa = readFileSync(join(dir, 'other.pem'), 'utf8');
    server = await startMariaDb({
      options: {
        'ssl-ca': join(dir, 'ca.pem'),
        'ssl-cert': join(dir, 'server.pem'),
        'ssl-key': join(dir, 'server.key'),
      },
    });
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function cipher(opts: DatabaseConnectionOptions): Promise<string> {
    const c = await openConnection(opts);
    try {
      const [rows] = await c.query("SHOW SESSION STATUS LIKE 'Ssl_cipher'");
      return (rows as Array<{ Value: string }>)[0].Value;
    } finally {
      await c.end();
    }
  }

  it('required and preferred encrypt without verifying', async () => {
    assert.notEqual(await cipher(connOpts(srv(), srv().admin, 'required')), '');
    assert.notEqual(await cipher(connOpts(srv(), srv().admin, 'preferred')), '');
  });

  it('verify_ca accepts the right CA (any host name) and rejects another CA', async () => {
    const base = connOpts(srv(), srv().admin, 'verify_ca');
    assert.notEqual(await cipher({ ...base, ssl: { mode: 'verify_ca', ca } }), '');
    await assert.rejects(cipher({ ...base, ssl: { mode: 'verify_ca', ca: otherCa } }), { reason: 'tls' });
  });

  it('verify_identity checks the host name, also for IP hosts', async () => {
    const base = connOpts(srv(), srv().admin);
    assert.notEqual(await cipher({ ...base, host: 'localhost', ssl: { mode: 'verify_identity', ca } }), '');
    // The certificate names localhost only: 127.0.0.1 must not pass.
    await assert.rejects(cipher({ ...base, host: '127.0.0.1', ssl: { mode: 'verify_identity', ca } }), {
      reason: 'tls',
    });
    await assert.rejects(openPool({ ...base, host: '127.0.0.1', ssl: { mode: 'verify_identity', ca } }), {
      reason: 'tls',
    });
  });
});

describe('parseGrants (MySQL 8 / Aurora / MariaDB spellings, no server needed)', () => {
  it('normalises privilege names, scopes, ALL, column lists and roles', () => {
    const g = parseGrants([
      'GRANT SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO `cdc`@`%`',
      'GRANT BACKUP_ADMIN,REPLICATION_SLAVE_ADMIN ON *.* TO `cdc`@`%`',
      'GRANT SELECT (`a`, `b`), LOCK TABLES ON `shop`.`orders` TO `cdc`@`%`',
      'GRANT `reader`@`%` TO `cdc`@`%`',
    ]);
    assert.ok(g.global.has('REPLICATION SLAVE'));
    assert.ok(g.global.has('REPLICATION SLAVE ADMIN'), 'dynamic privilege kept, not confused with REPLICATION SLAVE');
    assert.ok(g.scoped.has('LOCK TABLES') && !g.global.has('LOCK TABLES'));
    assert.ok(g.scoped.has('SELECT'));
    assert.equal(g.roles, true);
    const all = parseGrants(["GRANT ALL ON *.* TO 'root'@'localhost' WITH GRANT OPTION"]);
    assert.ok(all.global.has('ALL PRIVILEGES'));
    const maria = parseGrants(['GRANT BINLOG MONITOR, SLAVE MONITOR ON *.* TO `m`@`%`']);
    assert.deepEqual([...maria.global].sort(), ['BINLOG MONITOR', 'SLAVE MONITOR']);
  });
});
