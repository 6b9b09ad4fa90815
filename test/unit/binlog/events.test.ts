/** Event-level decoding on hand-built events: checksums, errors, GTIDs, MariaDB specifics. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deflateSync } from 'node:zlib';
import {
  BinlogChecksumError,
  BinlogDecodeError,
  BinlogDecoder,
  BinlogEncryptedError,
  BinlogUnsupportedEventError,
} from '../../../src/source/mysql/binlog/decoder.js';
import { EventType } from '../../../src/source/mysql/binlog/event-types.js';
import { ColumnType } from '../../../src/source/mysql/column-type.js';
import { buildEvent, packed, rowsV2Body, str, tableMapBody, u16, u32, u64 } from './helpers.js';

const UUID = Buffer.from('3e11fa4771ca11e19e33c80aa9429562', 'hex');

describe('checksums', () => {
  it('verifies CRC32 and reports a mismatch with the position', () => {
    const d = new BinlogDecoder();
    d.setChecksum('CRC32');
    const ev = buildEvent(EventType.XID, u64(77), { crc: true, position: 1000 });
    const ok = d.decode(ev);
    assert.ok(ok.type === 'XID' && ok.xid === 77n);
    const bad = Buffer.from(ev);
    bad[20] ^= 0x01;
    assert.throws(
      () => d.decode(bad),
      (err: unknown) =>
        err instanceof BinlogChecksumError &&
        err.code === 'BINLOG_CHECKSUM' &&
        err.position === 1000 &&
        /position 1000: CRC32 mismatch/.test(err.message),
    );
    // verifyChecksum: false strips the footer without checking it
    const lax = new BinlogDecoder({ verifyChecksum: false });
    lax.setChecksum(1);
    assert.equal(lax.decode(bad).type, 'XID');
  });
});

describe('errors and unknown events', () => {
  it('unknown ignorable events become UNKNOWN_IGNORABLE; others throw naming type and position', () => {
    const d = new BinlogDecoder();
    const ign = d.decode(buildEvent(99, [1, 2, 3], { flags: 0x80 }));
    assert.ok(ign.type === 'UNKNOWN_IGNORABLE' && ign.typeCode === 99);
    assert.throws(
      () => d.decode(buildEvent(99, [1, 2, 3], { position: 500 })),
      (err: unknown) =>
        err instanceof BinlogUnsupportedEventError &&
        err.typeCode === 99 &&
        err.position === 500 &&
        /unknown event type 99/.test(err.message),
    );
  });
  it('MariaDB START_ENCRYPTION is a clear, typed error', () => {
    assert.throws(
      () => new BinlogDecoder().decode(buildEvent(EventType.MARIADB_START_ENCRYPTION, new Array(17).fill(0))),
      (err: unknown) =>
        err instanceof BinlogEncryptedError && err.code === 'BINLOG_ENCRYPTED' && /encrypt_binlog/.test(err.message),
    );
  });
  it('truncated bodies and size mismatches are BinlogDecodeErrors with positions', () => {
    const d = new BinlogDecoder();
    assert.throws(
      () => d.decode(buildEvent(EventType.XID, [1, 2, 3], { position: 4321 })),
      (err: unknown) => err instanceof BinlogDecodeError && err.position === 4321 && /truncated XID/.test(err.message),
    );
    const ev = buildEvent(EventType.XID, u64(1));
    assert.throws(() => d.decode(ev.subarray(0, 20)), BinlogDecodeError);
  });
  it('rows events without a TABLE_MAP name the table id and the fix', () => {
    assert.throws(
      () => new BinlogDecoder().decode(buildEvent(EventType.WRITE_ROWS_V2, rowsV2Body(42, 1, [[0, 1, 0, 0, 0]]))),
      /table id 42 without a preceding TABLE_MAP/,
    );
  });
});

describe('ROTATE, QUERY, payload-free events', () => {
  it('ROTATE: position and name; trailing non-name bytes (MariaDB) are cut', () => {
    const d = new BinlogDecoder();
    const r = d.decode(buildEvent(EventType.ROTATE, [...u64(4), ...str('mysql-bin.000002')]));
    assert.ok(r.type === 'ROTATE' && r.nextFile === 'mysql-bin.000002' && r.position === 4);
    const m = d.decode(buildEvent(EventType.ROTATE, [...u64(4), ...str('mariadb-bin.000001'), 0xa0, 0x3a, 0x2d, 0x5b]));
    assert.ok(m.type === 'ROTATE' && m.nextFile === 'mariadb-bin.000001');
  });
  it('QUERY status vars, database and text; MariaDB compressed QUERY', () => {
    const status = [
      0x00,
      ...u32(0),
      0x01,
      ...u64(0x4000000n),
      0x04,
      ...u16(33),
      ...u16(33),
      ...u16(8),
      0x05,
      3,
      ...str('UTC'),
    ];
    const q = (text: number[]) => [
      ...u32(11),
      ...u32(2),
      4,
      ...u16(0),
      ...u16(status.length),
      ...status,
      ...str('shop'),
      0,
      ...text,
    ];
    const d = new BinlogDecoder();
    const ev = d.decode(buildEvent(EventType.QUERY, q(str('ALTER TABLE t ADD c INT'))));
    assert.ok(ev.type === 'QUERY');
    assert.equal(ev.database, 'shop');
    assert.equal(ev.query, 'ALTER TABLE t ADD c INT');
    assert.equal(ev.threadId, 11);
    assert.equal(ev.executionTime, 2);
    assert.deepEqual(ev.statusVars.charset, { client: 33, connection: 33, server: 8 });
    assert.equal(ev.statusVars.sqlMode, 0x4000000n);
    assert.equal(ev.statusVars.timeZone, 'UTC');
    const text = Buffer.from('INSERT INTO t VALUES (1)');
    const z = deflateSync(text);
    const ce = d.decode(buildEvent(EventType.MARIADB_QUERY_COMPRESSED, q([0x81, text.length, ...z])));
    assert.ok(ce.type === 'QUERY' && ce.compressed && ce.query === 'INSERT INTO t VALUES (1)');
  });
  it('HEARTBEAT v1 and v2', () => {
    const d = new BinlogDecoder();
    const h1 = d.decode(buildEvent(EventType.HEARTBEAT, str('binlog.000003'), { position: 900 }));
    assert.ok(h1.type === 'HEARTBEAT' && h1.logFile === 'binlog.000003' && h1.version === 1);
    const h2 = d.decode(
      buildEvent(EventType.HEARTBEAT_V2, [1, 13, ...str('binlog.000003'), 2, 4, ...packed(70000), 0]),
    );
    assert.ok(h2.type === 'HEARTBEAT' && h2.version === 2 && h2.logFile === 'binlog.000003' && h2.position === 70000);
  });
});

describe('GTIDs', () => {
  it('MySQL 8 GTID with logical clock, commit timestamps and server versions', () => {
    const body = [
      1,
      ...UUID,
      ...u64(23),
      2,
      ...u64(5),
      ...u64(6),
      ...[0x37, 0x29, 0xf2, 0x6e, 0x5d, 0x05, 0x00],
      ...packed(300),
      ...u32(80036),
    ];
    const ev = new BinlogDecoder().decode(buildEvent(EventType.GTID, body));
    assert.ok(ev.type === 'GTID');
    assert.equal(ev.gtid, '3e11fa47-71ca-11e1-9e33-c80aa9429562:23');
    assert.deepEqual([ev.lastCommitted, ev.sequenceNumber, ev.transactionLength], [5, 6, 300]);
    assert.equal(ev.immediateCommitTimestamp, 0x055d6ef22937);
    assert.equal(ev.originalCommitTimestamp, ev.immediateCommitTimestamp);
    assert.equal(ev.immediateServerVersion, 80036);
  });
  it('PREVIOUS_GTIDS renders a GTID set; tagged (8.4) format too', () => {
    const untagged = [...u64(1), ...UUID, ...u64(2), ...u64(1), ...u64(6), ...u64(7), ...u64(8)];
    const ev = new BinlogDecoder().decode(buildEvent(EventType.PREVIOUS_GTIDS, untagged));
    assert.ok(ev.type === 'PREVIOUS_GTIDS' && ev.gtidSet === '3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5:7');
    const tagged = [
      1,
      2,
      0,
      0,
      0,
      0,
      0,
      1, // format 1, two tsids
      ...UUID,
      0,
      ...u64(1),
      ...u64(1),
      ...u64(4), // untagged 1-3
      ...UUID,
      3 << 1,
      ...str('abc'),
      ...u64(1),
      ...u64(10),
      ...u64(11), // tag abc: 10
    ];
    const tv = new BinlogDecoder().decode(buildEvent(EventType.PREVIOUS_GTIDS, tagged));
    assert.ok(tv.type === 'PREVIOUS_GTIDS');
    assert.equal(tv.gtidSet, '3e11fa47-71ca-11e1-9e33-c80aa9429562:1-3:abc:10');
  });
  it('MariaDB GTID (standalone, commit id) and GTID_LIST', () => {
    const d = new BinlogDecoder();
    const g = d.decode(
      buildEvent(EventType.MARIADB_GTID, [...u64(1234), ...u32(7), 0x01 | 0x02, ...u64(99)], { serverId: 5 }),
    );
    assert.ok(g.type === 'MARIADB_GTID');
    assert.equal(g.gtid, '7-5-1234');
    assert.equal(g.standalone, true);
    assert.equal(g.commitId, 99n);
    const l = d.decode(
      buildEvent(EventType.MARIADB_GTID_LIST, [
        ...u32(2),
        ...u32(0),
        ...u32(1),
        ...u64(10),
        ...u32(1),
        ...u32(2),
        ...u64(20),
      ]),
    );
    assert.ok(l.type === 'MARIADB_GTID_LIST' && l.gtidList === '0-1-10,1-2-20');
  });
});

describe('MariaDB compressed rows and table map cache', () => {
  it('decodes zlib-compressed row data', () => {
    const d = new BinlogDecoder();
    d.decode(buildEvent(EventType.TABLE_MAP, tableMapBody(3, 'd', 't', [{ type: ColumnType.LONG }])));
    const rowData = Buffer.from([0, 5, 0, 0, 0, 0, 6, 0, 0, 0]);
    const z = deflateSync(rowData);
    const body = [...rowsV2Body(3, 1, []), 0x81, rowData.length, ...z];
    const ev = d.decode(buildEvent(EventType.MARIADB_WRITE_ROWS_COMPRESSED, body));
    assert.ok(ev.type === 'WRITE_ROWS' && ev.compressed);
    assert.deepEqual(ev.rows, [[5], [6]]);
  });
  it('an identical TABLE_MAP reuses the compiled decoder; a changed one replaces it', () => {
    const d = new BinlogDecoder();
    const tm1 = d.decode(buildEvent(EventType.TABLE_MAP, tableMapBody(3, 'd', 't', [{ type: ColumnType.TINY }])));
    const tm2 = d.decode(buildEvent(EventType.TABLE_MAP, tableMapBody(3, 'd', 't', [{ type: ColumnType.TINY }])));
    assert.ok(tm1.type === 'TABLE_MAP' && tm2.type === 'TABLE_MAP');
    assert.equal(tm2.columns, tm1.columns);
    d.decode(buildEvent(EventType.TABLE_MAP, tableMapBody(3, 'd', 't', [{ type: ColumnType.SHORT }])));
    const ev = d.decode(buildEvent(EventType.WRITE_ROWS_V2, rowsV2Body(3, 1, [[0, 0x01, 0x01]])));
    assert.ok(ev.type === 'WRITE_ROWS' && ev.rows[0][0] === 257);
  });
});
