/** Pure parts of the replication transport: GTID set encoding, header/ROTATE parsing, error classification. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  BinlogAuthError,
  BinlogPositionLostError,
  BinlogStreamError,
  classifyError,
  EventType,
  encodeMySqlGtidSet,
  LOG_EVENT_ARTIFICIAL_F,
  parseMySqlGtidSet,
  readEventHeader,
  readRotateBody,
} from '../../../src/source/mysql/binlog/replication/index.js';

const u64 = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(n));
  return b.toString('hex');
};

test('MySQL GTID sets encode as n_sids, then uuid, n_intervals and [start, end+1) per source', () => {
  const text = '3E11FA47-71CA-11E1-9E33-C80AA9429562:1-5:7,\n 4e11fa47-71ca-11e1-9e33-c80aa9429562:9';
  const expected = [
    u64(2),
    '3e11fa4771ca11e19e33c80aa9429562',
    u64(2),
    u64(1),
    u64(6),
    u64(7),
    u64(8),
    '4e11fa4771ca11e19e33c80aa9429562',
    u64(1),
    u64(9),
    u64(10),
  ].join('');
  assert.equal(encodeMySqlGtidSet(text).toString('hex'), expected);
  assert.equal(encodeMySqlGtidSet('').toString('hex'), u64(0));
});

test('GTID set parsing rejects garbage with a clear message', () => {
  assert.throws(() => parseMySqlGtidSet('nope:1-2'), /not a server UUID/);
  assert.throws(() => parseMySqlGtidSet('3e11fa47-71ca-11e1-9e33-c80aa9429562:5-2'), /bad interval/);
  assert.throws(() => parseMySqlGtidSet('3e11fa47-71ca-11e1-9e33-c80aa9429562:1-2:9tag:3'), /bad interval or tag/);
  assert.throws(() => parseMySqlGtidSet('3e11fa47-71ca-11e1-9e33-c80aa9429562:1-2:mytag'), /has no intervals/);
  assert.throws(
    () => parseMySqlGtidSet(`3e11fa47-71ca-11e1-9e33-c80aa9429562:${'t'.repeat(33)}:1`),
    /bad interval or tag/,
  );
});

test('tagged GTID sets (MySQL 8.4) parse per (uuid, tag), lower-cased, intervals merged', () => {
  assert.deepEqual(
    parseMySqlGtidSet('3E11FA47-71CA-11E1-9E33-C80AA9429562:1-5:Blue:3:1-2,3e11fa47-71ca-11e1-9e33-c80aa9429562:6-7'),
    [
      { uuid: '3e11fa47-71ca-11e1-9e33-c80aa9429562', tag: '', intervals: [{ start: 1n, end: 7n }] },
      { uuid: '3e11fa47-71ca-11e1-9e33-c80aa9429562', tag: 'blue', intervals: [{ start: 1n, end: 3n }] },
    ],
  );
});

test('tagged GTID sets encode in the tagged format of Gtid_set::encode (hand-derived vector)', () => {
  // sql/rpl_gtid_set.cc encode_nsids_format(): tagged -> (1 << 56) | (n_sids << 8) | 1, i.e. 01 <n_sids: 6 bytes> 01.
  // Tsid::encode_tsid(): uuid bytes, then the tag as a mysql::serialization string: varlen length (3 -> 0x06) and
  // bytes; the untagged entry of the same uuid has the empty tag (0x00). Entries sorted by uuid, then tag.
  const text = '4e11fa47-71ca-11e1-9e33-c80aa9429562:abc:7-9,3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5:abc:10';
  const expected = [
    '01' + '030000000000' + '01', // tagged format, 3 entries
    '3e11fa4771ca11e19e33c80aa9429562',
    '00', // no tag
    u64(1),
    u64(1),
    u64(6),
    '3e11fa4771ca11e19e33c80aa9429562',
    '06' + '616263', // "abc"
    u64(1),
    u64(10),
    u64(11),
    '4e11fa4771ca11e19e33c80aa9429562',
    '06' + '616263',
    u64(1),
    u64(7),
    u64(10),
  ].join('');
  assert.equal(encodeMySqlGtidSet(text).toString('hex'), expected);
  // A set without tags keeps the classic format every server accepts.
  assert.equal(encodeMySqlGtidSet('3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5').subarray(0, 8).toString('hex'), u64(1));
});

function event(type: number, body: Buffer, opts: { ts?: number; logPos?: number; flags?: number } = {}): Buffer {
  const checksum = Buffer.alloc(4);
  const ev = Buffer.alloc(19 + body.length + 4);
  ev.writeUInt32LE(opts.ts ?? 1_700_000_000, 0);
  ev[4] = type;
  ev.writeUInt32LE(1, 5);
  ev.writeUInt32LE(ev.length, 9);
  ev.writeUInt32LE(opts.logPos ?? 0, 13);
  ev.writeUInt16LE(opts.flags ?? 0, 17);
  body.copy(ev, 19);
  checksum.copy(ev, 19 + body.length);
  return ev;
}

test('reads the v4 header and a ROTATE body with or without a checksum trailer', () => {
  const body = Buffer.concat([Buffer.from(u64(4), 'hex'), Buffer.from('mysql-bin.000042')]);
  const ev = event(EventType.ROTATE, body, { ts: 0, flags: LOG_EVENT_ARTIFICIAL_F });
  const h = readEventHeader(ev);
  assert.deepEqual(h, {
    timestamp: 0,
    typeCode: EventType.ROTATE,
    serverId: 1,
    eventSize: ev.length,
    nextPosition: 0,
    flags: LOG_EVENT_ARTIFICIAL_F,
  });
  assert.deepEqual(readRotateBody(ev, 4), { position: 4, file: 'mysql-bin.000042' });
  assert.deepEqual(readRotateBody(ev.subarray(0, ev.length - 4), 0), { position: 4, file: 'mysql-bin.000042' });
  assert.throws(() => readRotateBody(ev.subarray(0, 22), 0), RangeError);
});

test('classifies server and network errors', () => {
  const at = { file: 'b.000001', pos: 4 };
  const server = (errno: number, sqlMessage: string) => Object.assign(new Error(sqlMessage), { errno, sqlMessage });

  const lost = classifyError(server(1236, 'Could not find first log file name in binary log index file'), at, 9);
  assert.ok(lost instanceof BinlogPositionLostError);
  assert.equal(lost.retriable, false);
  assert.match(lost.message, /b\.000001' position 4/);

  const dup = classifyError(
    server(1236, 'A slave with the same server_uuid/server_id as this slave has connected'),
    at,
    9,
  );
  assert.ok(dup instanceof BinlogStreamError && !dup.retriable);
  assert.match(dup.message, /distinct serverId/);

  const auth = classifyError(server(1045, "Access denied for user 'u'@'h' (using password: YES)"), at, 9);
  assert.ok(auth instanceof BinlogAuthError && !auth.retriable);
  assert.match(auth.message, /password and TLS/);
  const priv = classifyError(server(1045, "Access denied for user 'u'@'h'"), at, 9, true);
  assert.match(priv.message, /REPLICATION SLAVE/);

  const reset = classifyError(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }), at, 9);
  assert.ok(reset instanceof BinlogStreamError && reset.retriable);
  assert.equal(reset.code, 'BINLOG_STREAM');
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED', errno: -111 });
  assert.ok(classifyError(refused, at, 9).retriable);
  assert.ok(classifyError(server(1927, 'Connection was killed'), at, 9).retriable);
  assert.ok(!classifyError(server(1193, 'Unknown system variable'), at, 9).retriable);
});
