/**
 * MySQL-only paths over the wire, against the recorded MySQL 8.0/8.4/9.x peer (test/harness/mysql-peer.ts) serving
 * a real MySQL 8 binlog with GTIDs (fixtures/binlog/rust_mysql_common/mysql-enum-string-set.000001):
 * RDS IAM login through mysql_clear_password over TLS, SHOW BINARY LOG STATUS vs SHOW MASTER STATUS,
 * COM_BINLOG_DUMP_GTID resume by GTID set, and failover symptoms (read-only server, "binary log is not open").
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Connection as CallbackConnection } from 'mysql2';
import { silentLogger } from '../../src/common/logger.js';
import { parseConfig } from '../../src/config/index.js';
import { BinlogReplicationClient, ResilientBinlogStream } from '../../src/source/mysql/binlog/replication/index.js';
import { readBinlogStatus, resetBinlogStatusPreference } from '../../src/source/mysql/binlog-status.js';
import { openConnection } from '../../src/source/mysql/connection.js';
import { createConnectionFactory } from '../../src/source/mysql/connection-factory.js';
import { runPreflight } from '../../src/source/mysql/preflight.js';
import { replicationProbe } from '../../src/source/mysql/replication-probe.js';
import { readServerIdentity } from '../../src/source/mysql/server-identity.js';
import { parseServerVersion } from '../../src/source/mysql/server-info.js';
import { startLockFreeSnapshot } from '../../src/source/mysql/snapshot/snapshot-position.js';
import { ColumnType, type MySqlPeer, type Recording, startMySqlPeer } from '../harness/mysql-peer.js';
import { makeTlsMaterial, type TlsMaterial } from '../harness/tls.js';
import { fixture as fixturePath } from '../unit/binlog/helpers.js';

const BINLOG = fixturePath('rust_mysql_common/mysql-enum-string-set.000001');
const UUID = '93e95066-a2f4-11ec-9b69-9657f0ae95e2';

let tls: TlsMaterial;
before(() => {
  tls = makeTlsMaterial(['127.0.0.1']);
});
after(() => tls.remove());

async function withPeer<T>(opts: Parameters<typeof startMySqlPeer>[0], fn: (p: MySqlPeer) => Promise<T>): Promise<T> {
  const peer = await startMySqlPeer(opts);
  try {
    return await fn(peer);
  } finally {
    await peer.stop();
  }
}

const plain = (p: MySqlPeer) => ({
  host: p.host,
  port: p.port,
  user: 'cdc',
  password: 'pw',
  ssl: { mode: 'disabled' as const },
});

test('IAM: the RDS token is sent through mysql_clear_password over TLS (the real mysql2 path)', async () => {
  await withPeer(
    {
      authSwitchTo: 'mysql_clear_password',
      tls: { cert: readFileSync(tls.serverCertPath, 'utf8'), key: readFileSync(tls.serverKeyPath, 'utf8') },
    },
    async (peer) => {
      const config = parseConfig({
        'topic.prefix': 't',
        'database.hostname': peer.host,
        'database.port': String(peer.port),
        'database.user': 'cdc_iam',
        'database.server.id': '77',
        'database.iam.authentication': 'true',
        'database.iam.region': 'eu-west-1',
        'database.ssl.mode': 'required',
      });
      const connect = createConnectionFactory({ config, logger: silentLogger, iamTokens: async () => 'iam-token-1' });
      const conn = await connect();
      await conn.end();
      assert.deepEqual(peer.clearPasswords, ['iam-token-1']);
      assert.equal(peer.tlsConnections, 1);
    },
  );
});

describe('binlog status, identity and GTID dump', () => {
  for (const version of ['8.0.36', '8.4.3', '9.1.0']) {
    test(`MySQL ${version}: the binlog status and the server identity are read with the statements it has`, async () => {
      await withPeer({ version, binlogFile: BINLOG, serverUuid: UUID }, async (peer) => {
        resetBinlogStatusPreference();
        const conn = await openConnection(plain(peer));
        try {
          const status = await readBinlogStatus(conn);
          assert.deepEqual(status, {
            file: 'mysql-enum-string-set.000001',
            pos: 3300 + 31,
            executedGtids: `${UUID}:1-5`,
            statement: version === '8.0.36' ? 'SHOW MASTER STATUS' : 'SHOW BINARY LOG STATUS',
          });
          const id = await readServerIdentity(conn);
          assert.equal(id.key, `mysql:${UUID}`);
          assert.equal(id.gtidMode, true);
        } finally {
          await conn.end();
        }
        if (version !== '8.0.36') assert.ok(!peer.statements.includes('SHOW MASTER STATUS'));
      });
    });
  }

  test('COM_BINLOG_DUMP_GTID: resuming by GTID set streams exactly the transactions not in it', async () => {
    await withPeer({ binlogFile: BINLOG, serverUuid: UUID }, async (peer) => {
      const client = new BinlogReplicationClient({
        connection: async () =>
          ((await openConnection(plain(peer))) as unknown as { connection: CallbackConnection }).connection,
        serverId: 4242,
        start: { gtidSet: `${UUID}:1-3` },
        heartbeatIntervalMs: 0,
      });
      const types: number[] = [];
      for await (const ev of client) {
        types.push(ev.typeCode);
        if (ev.typeCode === 16 && ev.position === 3300) break; // the last XID
      }
      await client.stop();
      assert.deepEqual(peer.dumps, [{ gtids: `${UUID}:1-3` }]);
      // fake ROTATE, FORMAT_DESCRIPTION, PREVIOUS_GTIDS, then GTID :4 and :5 with their rows (UPDATE, DELETE).
      assert.deepEqual(types, [4, 15, 35, 33, 2, 19, 31, 16, 33, 2, 19, 32, 16]);
      assert.equal(client.session?.serverKey, `mysql:${UUID}`);
    });
  });
});

describe('failover symptoms are retried for a bounded time, then reported with the fix', () => {
  const stream = (peer: MySqlPeer) =>
    new ResilientBinlogStream({
      connection: async () =>
        ((await openConnection(plain(peer))) as unknown as { connection: CallbackConnection }).connection,
      serverId: 4242,
      resumePosition: () => ({ gtidSet: `${UUID}:1-3` }),
      heartbeatIntervalMs: 0,
      initialDelayMs: 20,
      maxDelayMs: 50,
      maxAttempts: Number.POSITIVE_INFINITY,
      failoverRetryMs: 400,
    });

  test('a read-only server (@@innodb_read_only: an Aurora reader or the old writer)', async () => {
    await withPeer({ binlogFile: BINLOG, readOnly: true }, async (peer) => {
      const s = stream(peer);
      await assert.rejects(
        (async () => {
          for await (const _ of s) assert.fail('no event expected from a read-only server');
        })(),
        (err: Error & { retriable?: boolean }) => {
          assert.match(err.message, /still failing after 400 ms: .*read-only.*cluster \(writer\) endpoint/);
          assert.equal(err.retriable, false);
          return true;
        },
      );
      assert.ok(s.state.reconnects >= 2, `retried (${s.state.reconnects} reconnects)`);
      assert.equal(peer.dumps.length, 0, 'no dump is started on a read-only server');
    });
  });

  test('an endpoint that refuses the replication commands (RDS Proxy, ProxySQL) fails at once with the fix', async () => {
    const dumpError = { errno: 1047, sqlState: '08S01', message: 'Unknown command' };
    await withPeer({ binlogFile: BINLOG, dumpError }, async (peer) => {
      await assert.rejects(
        (async () => {
          for await (const _ of stream(peer)) assert.fail('no event expected');
        })(),
        (err: Error & { retriable?: boolean }) => {
          assert.match(
            err.message,
            /does not support binlog replication: Unknown command.*writer or instance endpoint/,
          );
          assert.equal(err.retriable, false);
          return true;
        },
      );
      assert.equal(peer.dumps.length, 1, 'not retried');
    });
  });

  test('error 1236 "binary log is not open"', async () => {
    const dumpError = { errno: 1236, sqlState: 'HY000', message: 'Binary log is not open' };
    await withPeer({ binlogFile: BINLOG, dumpError }, async (peer) => {
      const s = stream(peer);
      await assert.rejects(
        (async () => {
          for await (const _ of s) assert.fail('no event expected');
        })(),
        /still failing after 400 ms: The server's binary log is not open.*failover/,
      );
      assert.ok(peer.dumps.length >= 2, `the dump was retried (${peer.dumps.length} attempts)`);
    });
  });
});

describe('lock-free snapshot positions on MySQL (snapshot.locking.mode=none, chunk low watermarks)', () => {
  const mysql84 = parseServerVersion('8.4.3');
  async function lockFree(opts: Parameters<typeof startMySqlPeer>[0], forWindows: boolean) {
    return withPeer({ binlogFile: BINLOG, serverUuid: UUID, ...opts }, async (peer) => {
      const conn = await openConnection(plain(peer));
      try {
        return { position: await startLockFreeSnapshot(conn, mysql84, forWindows), statements: peer.statements };
      } finally {
        await conn.end();
      }
    });
  }

  test('performance_schema.log_status, read before the read view, gives the position and the GTID set', async () => {
    for (const forWindows of [false, true]) {
      const { position, statements } = await lockFree({}, forWindows);
      assert.deepEqual(position, {
        file: 'mysql-enum-string-set.000001',
        pos: 3331,
        gtids: `${UUID}:1-5`,
        source: 'log_status',
      });
      const at = (re: RegExp) => statements.findIndex((q) => re.test(q));
      assert.ok(at(/log_status/) < at(/^START TRANSACTION WITH CONSISTENT SNAPSHOT/));
    }
  });

  test('without BACKUP_ADMIN: gtid_executed for a GTID resume; chunk windows and gtid_mode=OFF are refused', async () => {
    const { position } = await lockFree({ logStatus: 'denied' }, false);
    assert.equal(position.source, 'gtid_executed');
    assert.equal(position.gtids, `${UUID}:1-5`);
    await assert.rejects(lockFree({ logStatus: 'denied' }, true), /chunked snapshot.*Grant BACKUP_ADMIN/);
    await assert.rejects(
      lockFree({ logStatus: 'absent', gtidMode: 'OFF' }, false),
      /snapshot\.locking\.mode=none needs .*BACKUP_ADMIN.*gtid_mode=ON.*snapshot\.locking\.mode=minimal/,
    );
  });

  test('Percona Server: Binlog_snapshot_file/position/gtid_executed are used where offered', async () => {
    const { position } = await lockFree({ percona: true, logStatus: 'denied', gtidMode: 'OFF' }, true);
    assert.deepEqual(position, {
      file: 'mysql-enum-string-set.000001',
      pos: 3331,
      gtids: null,
      source: 'binlog_snapshot',
    });
  });
});

test('cdc check on Aurora MySQL 3 / RDS 8.0.36+: privileges granted through rds_superuser_role count (probes)', async () => {
  const text = (name: string, value: string) => ({
    columns: [{ name, type: ColumnType.VAR_STRING }],
    rows: [[value]],
  });
  const recordings: Recording[] = [
    // MySQL 8 lists role grants but not the role's privileges in SHOW GRANTS (no USING clause).
    (q) =>
      q === 'SHOW GRANTS'
        ? {
            columns: [{ name: 'Grants for cdc@%', type: ColumnType.VAR_STRING }],
            rows: [['GRANT USAGE ON *.* TO `cdc`@`%`'], ['GRANT `rds_superuser_role`@`%` TO `cdc`@`%`']],
          }
        : undefined,
    (q) =>
      /FROM information_schema\.TABLES/.test(q)
        ? {
            columns: [
              { name: 'db', type: ColumnType.VAR_STRING },
              { name: 't', type: ColumnType.VAR_STRING },
            ],
            rows: [['shop', 'orders']],
          }
        : undefined,
    (q) =>
      /^(SELECT 1 FROM `shop`\.`orders` LIMIT 0|LOCK TABLES `shop`\.`orders` READ|UNLOCK TABLES)$/.test(q)
        ? 'ok'
        : undefined,
    (q) => (q === 'SELECT CURRENT_USER()' ? text('CURRENT_USER()', 'cdc@%') : undefined),
  ];
  await withPeer({ binlogFile: BINLOG, serverUuid: UUID, recordings }, async (peer) => {
    const connect = () => openConnection(plain(peer));
    const conn = await connect();
    try {
      const report = await runPreflight(conn, {
        serverId: 5401,
        snapshotLockingMode: 'minimal',
        replicationProbe: replicationProbe(connect),
      });
      const status = (id: string) => report.checks.find((c) => c.id === id)?.status;
      for (const id of [
        'privilege.select',
        'privilege.replication_slave',
        'privilege.replication_client',
        'privilege.lock_tables',
      ])
        assert.equal(status(id), 'pass', `${id}: ${report.checks.find((c) => c.id === id)?.message}`);
    } finally {
      await conn.end();
    }
    assert.equal(peer.dumps.length, 1, 'the replication probe started a dump');
    assert.ok(peer.statements.includes('SHOW BINARY LOG STATUS'));
  });
});
