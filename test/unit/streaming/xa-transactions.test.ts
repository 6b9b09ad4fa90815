/**
 * XA transactions in MySQL's binlog shape and atomic CREATE TABLE ... SELECT (issue 14 item 6), on hand-built
 * decoded events (MariaDB's shape is tested live in test/integration/streaming-xa.test.ts).
 * MySQL 8: GTID, QUERY `XA START xid`, rows, QUERY `XA END xid`, XA_PREPARE; later GTID, QUERY `XA COMMIT xid` /
 * `XA ROLLBACK xid`. One phase: ... QUERY `XA END`, XA_PREPARE with one_phase.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../../../src/common/logger.js';
import type { QueueItem } from '../../../src/model/queue-item.js';
import type { SinkRecord } from '../../../src/model/sink-record.js';
import type { TableDef } from '../../../src/model/table-def.js';
import type { Row } from '../../../src/model/values.js';
import type { BinlogEvent } from '../../../src/source/mysql/binlog/events.js';
import { BinlogStreamer } from '../../../src/source/mysql/streaming/binlog-streamer.js';
import type { RecordFactory } from '../../../src/source/mysql/streaming/ports.js';
import { parseXaOutcome, xidKey } from '../../../src/source/mysql/streaming/xa-transactions.js';
import type { SchemaHistoryEntry } from '../../../src/stores/schema-history.js';

const U = '3e11fa47-71ca-11e1-9e33-c80aa9429562';
const table: TableDef = {
  database: 'db',
  name: 't',
  columns: [],
  primaryKey: ['id'],
  uniqueKeys: [],
  charset: null,
  comment: null,
};
const tableMap = { database: 'db', table: 't' };
const ev = (e: Record<string, unknown>) =>
  ({
    header: { timestamp: 100, typeCode: 0, serverId: 1, eventSize: 0, nextPosition: 0, flags: 0 },
    ...e,
  }) as unknown as BinlogEvent;
const q = (query: string) => ev({ type: 'QUERY', query, database: 'db', threadId: 7, statusVars: {} });
const gtid = (n: number) => ev({ type: 'GTID', gtid: `${U}:${n}` });
const rows = (...ids: number[]) => ev({ type: 'WRITE_ROWS', table: tableMap, rows: ids.map((id) => [id]) });
const xaPrepare = (gtrid: string, onePhase = false) =>
  ev({ type: 'XA_PREPARE', onePhase, formatId: 1, gtrid: Buffer.from(gtrid), bqual: Buffer.alloc(0) });
const hex = (s: string) => Buffer.from(s).toString('hex');

const records: RecordFactory = {
  forTable: () => ({
    insert: (after: Row): SinkRecord[] => [
      { topic: 't', key: String(after[0]), value: String(after[0]), sizeBytes: 1 },
    ],
    update: () => [],
    delete: () => [],
    read: () => [],
  }),
  schemaChange: () => null,
  heartbeat: () => ({ topic: 'hb', key: null, value: null, sizeBytes: 0 }),
  transactions: null,
};

async function run(events: BinlogEvent[], ddl: string[] = []) {
  const recorded: SchemaHistoryEntry[] = [];
  const streamer = new BinlogStreamer(
    {
      decode: (raw) => events[raw[0]],
      schema: {
        getTable: () => table,
        applyDdl: (sql) => {
          ddl.push(sql);
          return { tableChanges: [{ type: 'CREATE' as const, id: 'db.t2', table }], ignored: false };
        },
      },
      history: {
        record: async (e) => {
          recorded.push(e);
        },
        next: () => recorded.length + 1,
      },
      records,
      tableFilter: (db) => db === 'db',
      skippedOperations: new Set(),
      includeSchemaChanges: false,
      includeQuery: false,
      eventDeserializationFailureHandlingMode: 'fail',
      flavor: 'mysql',
      logger: silentLogger,
    },
    { file: 'binlog.000001', pos: 4, gtids: `${U}:1-9` },
  );
  const out: QueueItem[] = [];
  for (let i = 0; i < events.length; i++) {
    const position = 4 + i * 10;
    await streamer.handle(
      { raw: Buffer.from([i]), file: 'binlog.000001', position, nextPosition: position + 10 },
      async (item) => {
        out.push(item);
      },
    );
  }
  return { out, recorded };
}

test('the xid of XA COMMIT / XA ROLLBACK as the server logs it', () => {
  assert.deepEqual(parseXaOutcome(`XA COMMIT X'${hex('kept')}',X'',1`), {
    commit: true,
    onePhase: false,
    key: xidKey(Buffer.from('kept'), Buffer.alloc(0), 1),
  });
  assert.equal(parseXaOutcome(`XA ROLLBACK 'a''b','q',7`)?.key, xidKey(Buffer.from("a'b"), Buffer.from('q'), 7));
  assert.equal(parseXaOutcome(`XA ROLLBACK 'k'`)?.commit, false);
  assert.equal(parseXaOutcome('XA COMMIT'), null);
});

test('MySQL XA: rolled-back rows are dropped, committed ones emitted at XA COMMIT, one phase at once', async () => {
  const { out } = await run([
    gtid(10),
    q(`XA START X'${hex('rolled')}',X'',1`),
    rows(1),
    q(`XA END X'${hex('rolled')}',X'',1`),
    xaPrepare('rolled'),
    gtid(11),
    q('BEGIN'),
    rows(2),
    ev({ type: 'XID', xid: 1n }),
    gtid(12),
    q(`XA ROLLBACK X'${hex('rolled')}',X'',1`),
    gtid(13),
    q(`XA START X'${hex('kept')}',X'',1`),
    rows(3),
    q(`XA END X'${hex('kept')}',X'',1`),
    xaPrepare('kept'),
    gtid(14),
    q(`XA COMMIT X'${hex('kept')}',X'',1`),
    gtid(15),
    q(`XA START X'${hex('one')}',X'',1`),
    rows(4),
    q(`XA END X'${hex('one')}',X'',1`),
    xaPrepare('one', true),
  ]);
  assert.deepEqual(
    out.filter((i) => i.record).map((i) => i.record?.value),
    ['2', '3', '4'],
  );
  // While 'rolled' was prepared, checkpoints stayed at its start (position 4) with the GTID set before it.
  const offsets = out.filter((i) => i.offset).map((i) => [i.offset?.pos, i.offset?.gtids]);
  assert.deepEqual(offsets[0], [4, `${U}:1-9`]);
  assert.ok(offsets.slice(0, 2).every(([pos]) => pos === 4));
  // After the outcome, the prepared group's GTID is in the set too, and the last offset is past everything.
  assert.deepEqual(offsets[offsets.length - 1], [4 + 23 * 10, `${U}:1-15`]);
});

test('atomic CREATE TABLE ... SELECT (8.0.21+): no checkpoint at the DDL, the rows and XID finish it', async () => {
  const ddl: string[] = [];
  const { out, recorded } = await run(
    [gtid(10), q('CREATE TABLE t2 (id INT PRIMARY KEY) START TRANSACTION'), rows(7, 8), ev({ type: 'XID', xid: 1n })],
    ddl,
  );
  assert.deepEqual(ddl, ['CREATE TABLE t2 (id INT PRIMARY KEY)']);
  assert.equal(recorded[0]?.ddl, 'CREATE TABLE t2 (id INT PRIMARY KEY)');
  const checkpoints = out.filter((i) => i.offset).map((i) => [i.offset?.pos, i.offset?.event ?? null, i.offset?.gtids]);
  // The rows' checkpoint points at the transaction start (skip counts), the XID's past it; none after the DDL.
  assert.deepEqual(checkpoints, [
    [4, 0, `${U}:1-9`],
    [44, null, `${U}:1-10`],
  ]);
  assert.deepEqual(
    out.filter((i) => i.record).map((i) => i.record?.value),
    ['7', '8'],
  );
});
