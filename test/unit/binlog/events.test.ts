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
  it('QUERY text is decoded in the client charset of Q_CHARSET_CODE (latin1 = cp1252, binary, none = UTF-8)', () => {
    const query = (client: number | undefined, text: number[]) => {
      const status = client === undefined ? [] : [0x04, ...u16(client), ...u16(client), ...u16(8)];
      const body = [...u32(1), ...u32(0), 2, ...u16(0), ...u16(status.length), ...status, ...str('db'), 0, ...text];
      const ev = new BinlogDecoder().decode(buildEvent(EventType.QUERY, body));
      assert.ok(ev.type === 'QUERY');
      return ev;
    };
    // A latin1 client's DDL: "café" with é = 0xe9, and 0x80 (€ in cp1252, which MySQL's latin1 is).
    const ddl = [...str("ALTER TABLE t ADD c INT COMMENT 'caf"), 0xe9, 0x20, 0x80, 0x27];
    const latin1 = query(8, ddl); // 8 = latin1_swedish_ci
    assert.equal(latin1.query, "ALTER TABLE t ADD c INT COMMENT 'café €'");
    assert.equal(latin1.database, 'db');
    assert.equal(query(47, ddl).query, "ALTER TABLE t ADD c INT COMMENT 'café €'"); // latin1_bin
    // utf8mb4 client: the same characters as UTF-8 bytes.
    const utf8 = [...str("COMMENT 'caf"), 0xc3, 0xa9, 0x27];
    assert.equal(query(255, utf8).query, "COMMENT 'café'");
    assert.equal(query(33, utf8).query, "COMMENT 'café'"); // utf8mb3_general_ci
    // binary client: byte-preserving (each byte its own code point).
    assert.equal(query(63, [0x41, 0xe9, 0x80]).query, 'A\u00e9\u0080');
    // No Q_CHARSET_CODE: UTF-8.
    assert.equal(query(undefined, utf8).query, "COMMENT 'café'");
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
  // GTID_TAGGED_LOG_EVENT bytes encoded by hand from libs/mysql/serialization/readme.md (varlen: the count of
  // trailing one bits + 1 is the byte count, the value sits above them; signed values zig-zag first).
  const TAGGED_FIELDS = [
    [0x00, 0x02], // 0 flags = 1
    [0x02, ...[0x7c, 0x22, 0xe9, 0x03, 0x8e, 0xe2, 0x29, 0x03, 0x22, 0x85, 0x03, 0x79, 0x02, 0x66, 0x21, 0x03]],
    [...[0x14, 0xa5, 0x02, 0x84, 0x55, 0x02, 0xc4]], // 1 uuid 3e11fa47-…: 16 varlen bytes (0xfa -> e9 03)
    [0x04, 0x5c], // 2 gno 23 (signed: 46, then 46 << 1)
    [0x06, 0x0a, ...str('mytag')], // 3 tag: length 5 -> 0x0a
    [0x08, 0x14], // 4 last_committed 5
    [0x0a, 0x61, 0x09], // 5 sequence_number 300 (signed 600, 2 bytes: 600 << 2 | 0b01)
    [0x0c, 0x7f, 0x1c, 0xf3, 0xb8, 0x14, 0x24, 0x4a, 0x06], // 6 immediate_commit_timestamp 1770368687207196
    [0x0e, 0x7f, 0xc0, 0xc9, 0xb5, 0x14, 0x24, 0x4a, 0x06], // 7 original_commit_timestamp 1770368687000000
    [0x10, 0xa1, 0x04], // 8 transaction_length 296
    [0x12, 0x83, 0xd0, 0x09], // 9 immediate_server_version 80400 (3 bytes: 80400 << 3 | 0b011)
    [0x16, 0x0e], // 11 commit_group_ticket 7 (10, original_server_version, left out = same as immediate)
  ].flat();
  const taggedBody = (fields: number[], lastNonIgnorable = 0) => {
    const size = 3 + fields.length; // version + size + last non-ignorable id + fields (all one byte here)
    assert.ok(size < 128);
    return [0x02, size << 1, lastNonIgnorable << 1, ...fields];
  };
  it('GTID_TAGGED_LOG_EVENT (8.3+): hand-encoded serialization bytes decode to a tagged GtidEvent', () => {
    const ev = new BinlogDecoder().decode(buildEvent(EventType.GTID_TAGGED, taggedBody(TAGGED_FIELDS)));
    assert.ok(ev.type === 'GTID');
    assert.equal(ev.header.typeCode, 42);
    const { header: _h, ...rest } = ev;
    assert.deepEqual(rest, {
      type: 'GTID',
      commitFlag: true,
      uuid: '3e11fa47-71ca-11e1-9e33-c80aa9429562',
      tag: 'mytag',
      gno: 23,
      gtid: '3e11fa47-71ca-11e1-9e33-c80aa9429562:mytag:23',
      lastCommitted: 5,
      sequenceNumber: 300,
      immediateCommitTimestamp: 1770368687207196,
      originalCommitTimestamp: 1770368687000000,
      transactionLength: 296,
      immediateServerVersion: 80400,
      originalServerVersion: 80400,
    });
  });
  it('GTID_TAGGED_LOG_EVENT: CRC32 footer, skipped optional fields, unknown fields', () => {
    const d = new BinlogDecoder();
    d.setChecksum('CRC32');
    // Only flags, uuid, gno, tag: the rest missing; a trailing ignorable field 12 from a newer server is skipped.
    const fields = TAGGED_FIELDS.slice(0, 2 + 24 + 2 + 7);
    const ev = d.decode(buildEvent(EventType.GTID_TAGGED, taggedBody([...fields, 0x18, 0x07, 0x55]), { crc: true }));
    assert.ok(ev.type === 'GTID');
    assert.equal(ev.gtid, '3e11fa47-71ca-11e1-9e33-c80aa9429562:mytag:23');
    assert.equal(ev.immediateCommitTimestamp, undefined);
    assert.equal(ev.transactionLength, undefined);
    // A non-ignorable field this decoder does not know (last non-ignorable id 13 = field 12) is refused.
    assert.throws(
      () => d.decode(buildEvent(EventType.GTID_TAGGED, taggedBody([...fields, 0x18, 0x07], 13), { crc: true })),
      (err: unknown) => err instanceof BinlogDecodeError && /non-ignorable field 12/.test(err.message),
    );
    // A message size past the end of the event is a decode error, not a misread.
    const body = taggedBody(fields);
    body[1] = 100 << 1;
    assert.throws(() => new BinlogDecoder().decode(buildEvent(EventType.GTID_TAGGED, body)), BinlogDecodeError);
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
