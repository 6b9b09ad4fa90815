/**
 * Resume decisions (issue 14 items 2, 4, 13): GTID set vs file/position vs refused; the one binlog-status reader;
 * offsets of another server (generation) sort after every earlier one in both stores' orders.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readBinlogStatus, resetBinlogStatusPreference } from '../../../src/source/mysql/binlog-status.js';
import { MysqlGtidSet } from '../../../src/source/mysql/gtid.js';
import { planResume } from '../../../src/source/mysql/resume-plan.js';
import type { ServerIdentity } from '../../../src/source/mysql/server-identity.js';
import { positionKey } from '../../../src/stores/dynamodb/dynamodb-offset-store.js';
import { compareOffsets } from '../../../src/stores/file/offset-order.js';

const U1 = '3e11fa47-71ca-11e1-9e33-c80aa9429562';
const U2 = '4f22ab58-82db-22f2-8f44-d91bb9539673';
const mysql = (over: Partial<ServerIdentity> = {}): ServerIdentity => ({
  flavor: 'mysql',
  key: `mysql:${U2}`,
  serverId: 2,
  uuid: U2,
  gtidMode: true,
  gtidPurged: '',
  readOnly: false,
  ...over,
});
const mariadb: ServerIdentity = {
  flavor: 'mariadb',
  key: 'mariadb:2',
  serverId: 2,
  uuid: null,
  gtidMode: true,
  gtidPurged: null,
  readOnly: false,
};

describe('planResume', () => {
  test('a GTID set resumes by GTID on any server of the topology (MySQL gtid_mode=ON, MariaDB always)', () => {
    const offset = { file: 'mysql-bin.000007', pos: 1234, gtids: `${U1}:1-100`, server_identity: `mysql:${U1}` };
    assert.deepEqual(planResume({ offset, server: mysql(), fileExists: true }), {
      kind: 'gtid',
      gtidSet: `${U1}:1-100`,
    });
    const m = { file: 'mariadb-bin.000001', pos: 900, gtids: '0-1-42', server_identity: 'mariadb:1' };
    assert.deepEqual(planResume({ offset: m, server: mariadb, fileExists: true }), { kind: 'gtid', gtidSet: '0-1-42' });
  });

  test('without usable GTIDs a file/position resumes only on the server that wrote it', () => {
    const offset = { file: 'mysql-bin.000007', pos: 1234, server_identity: `mysql:${U1}` };
    const other = planResume({ offset, server: mysql({ gtidMode: false }), fileExists: true });
    assert.equal(other.kind, 'lost');
    assert.match(other.kind === 'lost' ? other.reason : '', /written on another server .*gtid_mode=ON/);
    const same = planResume({
      offset,
      server: mysql({ key: `mysql:${U1}`, uuid: U1, gtidMode: false }),
      fileExists: true,
    });
    assert.deepEqual(same, { kind: 'file' });
    // Offsets from before identities were stored resume as before (file/position), and still see purged files.
    assert.deepEqual(planResume({ offset: { file: 'f.1', pos: 4 }, server: mysql(), fileExists: true }), {
      kind: 'file',
    });
    assert.equal(planResume({ offset: { file: 'f.1', pos: 4 }, server: mysql(), fileExists: false }).kind, 'lost');
  });

  test('purged GTIDs the connector has not read make the position lost', () => {
    const offset = { file: 'mysql-bin.000007', pos: 1234, gtids: `${U1}:1-100` };
    const plan = planResume({ offset, server: mysql({ gtidPurged: `${U1}:1-120,${U2}:1-5` }), fileExists: true });
    assert.equal(plan.kind, 'lost');
    assert.match(plan.kind === 'lost' ? plan.reason : '', new RegExp(`${U1}:101-120,${U2}:1-5`));
  });

  test('MariaDB: a GTID position before the oldest binlog is lost (purged), one at or after it resumes', () => {
    const offset = { file: 'mariadb-bin.000001', pos: 900, gtids: '0-1-42,1-1-7' };
    const lost = planResume({ offset, server: mariadb, fileExists: false, oldestGtidPos: '0-1-50,1-1-3' });
    assert.equal(lost.kind, 'lost');
    assert.match(lost.kind === 'lost' ? lost.reason : '', /oldest binlog starts at GTID position 0-1-50/);
    assert.equal(planResume({ offset, server: mariadb, fileExists: false, oldestGtidPos: '0-1-42' }).kind, 'gtid');
  });

  test('a file/position past 4 GiB cannot be sent in COM_BINLOG_DUMP (only a GTID resume starts there)', () => {
    const plan = planResume({
      offset: { file: 'mysql-bin.000001', pos: 2 ** 32 + 10 },
      server: mysql({ gtidMode: false }),
      fileExists: true,
    });
    assert.equal(plan.kind, 'lost');
    assert.match(plan.kind === 'lost' ? plan.reason : '', /32-bit/);
  });
});

test('MysqlGtidSet.minus', () => {
  const a = MysqlGtidSet.parse(`${U1}:1-10:20-30,${U2}:1-3`);
  assert.equal(a.minus(MysqlGtidSet.parse(`${U1}:5-25`)), `${U1}:1-4:26-30,${U2}:1-3`);
  assert.equal(a.minus(a), '');
});

describe('readBinlogStatus', () => {
  const row = { File: 'binlog.000003', Position: 157, Executed_Gtid_Set: `${U1}:1-5,\n${U2}:1-2` };
  function server(known: string, sent: string[]) {
    return {
      async query(sql: string): Promise<[unknown, unknown]> {
        sent.push(sql);
        if (sql !== known) throw Object.assign(new Error('You have an error in your SQL syntax'), { errno: 1064 });
        return [[row], []];
      },
    };
  }

  test('MySQL 8.4+/9.x/26.x answer SHOW BINARY LOG STATUS; MariaDB and MySQL < 8.2 only SHOW MASTER STATUS', async () => {
    resetBinlogStatusPreference();
    const sent: string[] = [];
    const modern = await readBinlogStatus(server('SHOW BINARY LOG STATUS', sent));
    assert.deepEqual(modern, {
      file: 'binlog.000003',
      pos: 157,
      executedGtids: `${U1}:1-5,${U2}:1-2`,
      statement: 'SHOW BINARY LOG STATUS',
    });
    const legacy = await readBinlogStatus(server('SHOW MASTER STATUS', sent));
    assert.equal(legacy?.statement, 'SHOW MASTER STATUS');
    // The statement that answered is tried first next time: one round trip.
    await readBinlogStatus(server('SHOW MASTER STATUS', sent));
    assert.deepEqual(sent, [
      'SHOW BINARY LOG STATUS',
      'SHOW BINARY LOG STATUS',
      'SHOW MASTER STATUS',
      'SHOW MASTER STATUS',
    ]);
    resetBinlogStatusPreference();
  });

  test('no row means binary logging is off; other errors pass through', async () => {
    const empty = { query: async (): Promise<[unknown, unknown]> => [[], []] };
    assert.equal(await readBinlogStatus(empty), null);
    const denied = {
      query: async (): Promise<[unknown, unknown]> => {
        throw Object.assign(new Error('Access denied; you need REPLICATION CLIENT'), { errno: 1227 });
      },
    };
    await assert.rejects(readBinlogStatus(denied), /REPLICATION CLIENT/);
  });
});

test('offsets of a later server generation order after any earlier one, in the file and DynamoDB orders', () => {
  const old = { file: 'mysql-bin-changelog.000123', pos: 99_999, event: 3, row: 2 };
  const moved = { file: 'mysql-bin-changelog.000001', pos: 4, server_generation: 1 };
  assert.ok(compareOffsets(moved, old) > 0);
  assert.ok(compareOffsets({ ...moved, server_generation: 2 }, moved) > 0);
  assert.ok(positionKey(moved) > positionKey(old));
  assert.ok(positionKey({ ...moved, server_generation: 2 }) > positionKey({ ...old, server_generation: 1 }));
  // Generation 0 keeps the key stored by earlier versions.
  assert.equal(positionKey(old), 'mysql-bin-changelog.000123|00000000000000099999|0000000003|0000000002');
});
