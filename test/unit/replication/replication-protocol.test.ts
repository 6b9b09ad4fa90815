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

test('GTID set parsing rejects garbage and (for now) tagged GTIDs with a clear message', () => {
  assert.throws(() => parseMySqlGtidSet('nope:1-2'), /not a server UUID/);
  assert.throws(() => parseMySqlGtidSet('3e11fa47-71ca-11e1-9e33-c80aa9429562:5-2'), /bad interval/);
  assert.throws(() => parseMySqlGtidSet('3e11fa47-71ca-11e1-9e33-c80aa9429562:mytag:1-2'), /tagged GTIDs/);
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
