/**
 * Chunk watermark strategies against a scripted connection: the read view is only started once everything the
 * stream has handled is committed on the chunk's server, and a high watermark is reached exactly when the
 * stream has handled all of it (MySQL GTID sets, MariaDB per-domain GTID positions, binlog positions).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Connection } from 'mysql2/promise';
import { parseServerVersion } from '../../../src/source/mysql/server-info.js';
import { chooseWatermarks, watermarksFor } from '../../../src/source/mysql/snapshot/watermarks.js';

const MYSQL = parseServerVersion('8.0.36');
const MARIADB = parseServerVersion('10.11.6-MariaDB');
const U = '3e11fa47-71ca-11e1-9e33-c80aa9429562';

/** A connection whose answers come from `answer(sql)`; records every statement. */
function fakeConn(answer: (sql: string) => unknown[] | Error): Connection & { log: string[] } {
  const log: string[] = [];
  const conn = {
    log,
    async query(sql: string) {
      log.push(sql);
      const r = answer(sql);
      if (r instanceof Error) throw r;
      return [r, []];
    },
  };
  return conn as unknown as Connection & { log: string[] };
}

const never = new AbortController().signal;

describe('GTID watermarks (MySQL)', () => {
  it('waits until gtid_executed holds every transaction the stream handled, then opens the read view', async () => {
    let reads = 0;
    const conn = fakeConn((sql) => {
      if (/gtid_executed/.test(sql)) return [{ g: ++reads < 3 ? `${U}:1-9` : `${U}:1-10` }];
      return [];
    });
    const wm = watermarksFor('gtid', MYSQL);
    const low = await wm.openReadView(conn, { pos: { file: 'b.1', pos: 4 }, gtids: `${U}:1-10` }, never);
    assert.equal(low, `${U}:1-10`);
    assert.equal(reads, 3);
    assert.equal(conn.log.filter((s) => /START TRANSACTION/.test(s)).length, 1);
    assert.match(conn.log.at(-1)!, /START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY/);
  });

  it('the high watermark is reached when the stream has handled all of it, gaps included', async () => {
    const conn = fakeConn(() => [{ g: `${U}:1-20,\n${U.replace('3e', '4e')}:1-5` }]);
    const hw = await watermarksFor('gtid', MYSQL).readHigh(conn);
    assert.equal(hw.position, null);
    const mark = (gtids: string) => ({ pos: { file: 'b.1', pos: 4 }, gtids });
    assert.equal(hw.reachedBy(mark(`${U}:1-19`)), false);
    assert.equal(hw.reachedBy(mark(`${U}:1-20`)), false, 'the second source is missing');
    assert.equal(hw.reachedBy(mark(`${U}:1-18:20,${U.replace('3e', '4e')}:1-5`)), false, 'a gap at 19');
    assert.equal(hw.reachedBy(mark(`${U}:1-25,${U.replace('3e', '4e')}:1-5`)), true);
  });

  it('is chosen for read.only=true; refused without gtid_mode=ON or without the stream GTID set', async () => {
    const on = fakeConn((sql) => (/gtid_mode/.test(sql) ? [{ m: 'ON' }] : []));
    const chosen = await chooseWatermarks(on, MYSQL, { readOnly: true, streamGtids: `${U}:1-3` });
    assert.equal(chosen.strategy.kind, 'gtid');
    const off = fakeConn((sql) => (/gtid_mode/.test(sql) ? [{ m: 'OFF' }] : []));
    await assert.rejects(
      chooseWatermarks(off, MYSQL, { readOnly: true, streamGtids: null }),
      /gtid_mode=ON.*read\.only/,
    );
    await assert.rejects(chooseWatermarks(on, MYSQL, { readOnly: true, streamGtids: null }), /stored offset has none/);
  });

  it('without read.only: binlog positions with log_status, GTIDs as the fallback without BACKUP_ADMIN', async () => {
    const withLogStatus = fakeConn((sql) => (/log_status/.test(sql) ? [{ LOCAL: '{}' }] : []));
    assert.equal(
      (await chooseWatermarks(withLogStatus, MYSQL, { readOnly: false, streamGtids: null })).strategy.kind,
      'binlog_position',
    );
    const denied = Object.assign(new Error('Access denied; you need BACKUP_ADMIN'), { errno: 1227 });
    const noBackupAdmin = fakeConn((sql) =>
      /log_status/.test(sql) ? denied : /gtid_mode/.test(sql) ? [{ m: 'ON' }] : [],
    );
    const chosen = await chooseWatermarks(noBackupAdmin, MYSQL, { readOnly: false, streamGtids: `${U}:1-3` });
    assert.equal(chosen.strategy.kind, 'gtid');
    assert.match(chosen.reason, /BACKUP_ADMIN/);
  });
});

describe('GTID watermarks (MariaDB)', () => {
  it('reached per replication domain; a domain the stream has not reached keeps the window open', async () => {
    const conn = fakeConn(() => [{ g: '0-2-17,1-31-400' }]);
    const hw = await watermarksFor('gtid', MARIADB).readHigh(conn);
    const mark = (gtids: string) => ({ pos: { file: 'b.1', pos: 4 }, gtids });
    assert.equal(hw.reachedBy(mark('0-2-17,1-31-399')), false);
    assert.equal(hw.reachedBy(mark('1-31-400')), false, 'domain 0 not reached');
    assert.equal(hw.reachedBy(mark('0-2-17,1-31-400')), true);
    assert.equal(hw.reachedBy(mark('0-2-18,1-32-401,2-5-1')), true);
  });

  it('restarts the read view when it does not yet contain the binlog end read with the low watermark', async () => {
    let views = 0;
    const conn = fakeConn((sql) => {
      if (/gtid_binlog_pos/.test(sql)) return [{ g: '1-31-400' }];
      if (/MASTER STATUS|BINARY LOG STATUS/.test(sql)) return [{ File: 'mariadb-bin.000002', Position: 900 }];
      if (/binlog_snapshot/.test(sql)) {
        views++;
        return [
          { Variable_name: 'Binlog_snapshot_file', Value: 'mariadb-bin.000002' },
          { Variable_name: 'Binlog_snapshot_position', Value: views < 2 ? '850' : '900' },
        ];
      }
      return [];
    });
    const low = await watermarksFor('gtid', MARIADB).openReadView(
      conn,
      { pos: { file: 'x', pos: 4 }, gtids: '1-31-400' },
      never,
    );
    assert.equal(low, '1-31-400');
    assert.equal(views, 2);
    assert.equal(conn.log.filter((s) => s === 'ROLLBACK').length, 1);
  });
});

describe('binlog-position watermarks', () => {
  it('does not read a chunk from a view older than what the stream has already emitted', async () => {
    // Regression: the stream can read a transaction from the binlog before its engine commit; a read view
    // started then misses it, and the chunk's stale row would follow the stream's newer event.
    let views = 0;
    const conn = fakeConn((sql) => {
      if (/binlog_snapshot/.test(sql)) {
        views++;
        return [
          { Variable_name: 'Binlog_snapshot_file', Value: 'mariadb-bin.000001' },
          { Variable_name: 'Binlog_snapshot_position', Value: views < 3 ? '1000' : '1200' },
        ];
      }
      return [];
    });
    const low = await watermarksFor('binlog_position', MARIADB).openReadView(
      conn,
      { pos: { file: 'mariadb-bin.000001', pos: 1100 }, gtids: null },
      never,
    );
    assert.equal(low, 'mariadb-bin.000001:1200');
    assert.equal(views, 3);
  });
});
