import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CdcError } from '../../../src/common/errors.js';
import { silentLogger } from '../../../src/common/logger.js';
import { PartialJsonUpdateError } from '../../../src/events/index.js';
import type { PositionLike } from '../../../src/model/binlog-position.js';
import type { QueueItem } from '../../../src/model/queue-item.js';
import type { SinkRecord } from '../../../src/model/sink-record.js';
import type { TableDef } from '../../../src/model/table-def.js';
import type { Row } from '../../../src/model/values.js';
import { BinlogDecoder } from '../../../src/source/mysql/binlog/decoder.js';
import { EventType } from '../../../src/source/mysql/binlog/event-types.js';
import type { BinlogEvent } from '../../../src/source/mysql/binlog/events.js';
import { BinlogStreamer } from '../../../src/source/mysql/streaming/binlog-streamer.js';
import type { RecordFactory, SourceInfo } from '../../../src/source/mysql/streaming/ports.js';
import type { SchemaHistoryEntry } from '../../../src/stores/schema-history.js';
import { buildEvent, taggedGtidBody } from '../binlog/helpers.js';

// The streamer's logic (transactions, offsets, resume skipping, filtering) is tested on hand-built decoded
// events; decoding itself is tested on real binlog bytes elsewhere. `decode` looks the event up by index.
const header = (t: number) => ({ timestamp: t, typeCode: 0, serverId: 1, eventSize: 0, nextPosition: 0, flags: 0 });
const table: TableDef = {
  database: 'db',
  name: 't',
  columns: [],
  primaryKey: ['id'],
  uniqueKeys: [],
  charset: null,
  comment: null,
};
const tableMap = { database: 'db', table: 't' } as unknown as Extract<BinlogEvent, { type: 'WRITE_ROWS' }>['table'];

function ev(e: Record<string, unknown>): BinlogEvent {
  return { header: header(100), ...e } as unknown as BinlogEvent;
}

function transaction(ids: number[][], gtidSeq: number): BinlogEvent[] {
  return [
    ev({ type: 'MARIADB_GTID', gtid: `0-1-${gtidSeq}` }),
    ev({ type: 'QUERY', query: 'BEGIN', database: '', threadId: 7 }),
    ...ids.map((rows) => ev({ type: 'WRITE_ROWS', table: tableMap, rows: rows.map((id) => [id]) })),
    ev({ type: 'XID', xid: 1n }),
  ];
}

const records: RecordFactory = {
  forTable: () => ({
    insert: (after: Row, s: SourceInfo): SinkRecord[] => [
      { topic: 't', key: String(after[0]), value: `${after[0]}@${s.row}`, sizeBytes: 1 },
    ],
    update: () => [],
    delete: () => [],
    read: () => [],
  }),
  schemaChange: () => null,
  heartbeat: () => ({ topic: 'hb', key: null, value: null, sizeBytes: 0 }),
  transactions: null,
};
/** The streamer's view of the HistoryRecorder: it records entries and numbers them. */
const history = { record: async (_e: SchemaHistoryEntry) => {}, next: () => 1 };

async function runStreamer(events: BinlogEvent[], start: Parameters<typeof makeStreamer>[0]) {
  const streamer = makeStreamer(start);
  const out: QueueItem[] = [];
  let pos = start?.pos ?? 4;
  // Events before the resume position are not re-read, as the server starts the dump at `pos`.
  for (let i = 0; i < events.length; i++) {
    const position = 4 + i * 10;
    if (position < pos) continue;
    pos = position;
    await streamer.handle(
      { raw: Buffer.from([i]), file: 'bin.000001', position, nextPosition: position + 10 },
      async (item) => {
        out.push(item);
      },
    );
  }
  return out;
}

let allEvents: BinlogEvent[] = [];
function makeStreamer(start: import('../../../src/model/source-offset.js').SourceOffset | null) {
  return new BinlogStreamer(
    {
      decode: (raw) => allEvents[raw[0]],
      schema: { getTable: () => table, applyDdl: () => ({ tableChanges: [], ignored: true }) },
      history,
      records,
      tableFilter: (db) => db === 'db',
      skippedOperations: new Set(),
      includeSchemaChanges: false,
      includeQuery: false,
      eventDeserializationFailureHandlingMode: 'fail',
      flavor: 'mariadb',
      logger: silentLogger,
    },
    start,
  );
}

test('offsets inside a transaction point at its start with skip counts; the commit moves past it', async () => {
  allEvents = [...transaction([[1, 2], [3]], 5), ...transaction([[4]], 6)];
  const items = await runStreamer(allEvents, null);
  const withRecords = items.filter((i) => i.record);
  assert.deepEqual(
    withRecords.map((i) => i.record?.value),
    ['1@0', '2@1', '3@0', '4@0'],
  );
  // Checkpoints sit on the last row of each rows event.
  assert.deepEqual(
    withRecords.map((i) => (i.offset ? [i.offset.pos, i.offset.event, i.offset.row] : null)),
    [null, [4, 0, 2], [4, 1, 1], [54, 0, 1]],
  );
  const commits = items.filter((i) => !i.record && i.offset);
  assert.deepEqual(
    commits.map((c) => [c.offset?.pos, c.offset?.gtids]),
    [
      [54, '0-1-5'],
      [94, '0-1-6'],
    ],
  );
});

test('a restart from a mid-transaction offset emits exactly the remaining rows', async () => {
  allEvents = [
    ...transaction(
      [
        [1, 2],
        [3, 4],
      ],
      5,
    ),
    ...transaction([[5]], 6),
  ];
  const full = (await runStreamer(allEvents, null)).filter((i) => i.record);
  for (let k = 0; k < full.length; k++) {
    const resumeFrom = full[k].offset;
    if (!resumeFrom) continue;
    const rest = (await runStreamer(allEvents, resumeFrom)).filter((i) => i.record).map((i) => i.record?.key);
    assert.deepEqual(
      rest,
      full.slice(k + 1).map((i) => i.record?.key),
      `resume after record ${k}`,
    );
  }
});

test('rows of tables outside the filter are not emitted but offsets still advance', async () => {
  const other = { database: 'other', table: 'x' };
  allEvents = [
    ev({ type: 'MARIADB_GTID', gtid: '0-1-9' }),
    ev({ type: 'WRITE_ROWS', table: other, rows: [[1]] }),
    ev({ type: 'XID', xid: 1n }),
  ];
  const items = await runStreamer(allEvents, null);
  assert.equal(items.filter((i) => i.record).length, 0);
  assert.equal(items.at(-1)?.offset?.pos, 34);
});

test('DDLs replayed after a restart are applied again but not recorded in history twice', async () => {
  const recorded: number[] = [];
  const applied: string[] = [];
  const events = [
    ev({ type: 'QUERY', query: 'ALTER TABLE t ADD c INT', database: 'db', threadId: 1, statusVars: {} }),
    ev({ type: 'QUERY', query: 'ALTER TABLE t ADD d INT', database: 'db', threadId: 1, statusVars: {} }),
  ];
  const streamer = new BinlogStreamer(
    {
      decode: (raw) => events[raw[0]],
      schema: {
        getTable: () => table,
        applyDdl: (ddl) => {
          applied.push(ddl);
          return { tableChanges: [{ type: 'ALTER', id: 'db.t', table }], ignored: false };
        },
      },
      history: { ...history, record: async (e: SchemaHistoryEntry) => void recorded.push(e.position.pos) },
      records,
      tableFilter: () => true,
      skippedOperations: new Set(),
      includeSchemaChanges: false,
      includeQuery: false,
      eventDeserializationFailureHandlingMode: 'fail',
      flavor: 'mariadb',
      logger: silentLogger,
      historyRecordedUpTo: { file: 'bin.000001', pos: 4 },
    },
    { file: 'bin.000001', pos: 4 },
  );
  for (let i = 0; i < events.length; i++) {
    const position = 4 + i * 10;
    await streamer.handle(
      { raw: Buffer.from([i]), file: 'bin.000001', position, nextPosition: position + 10 },
      async () => {},
    );
  }
  assert.equal(applied.length, 2, 'both DDLs applied to the schema');
  assert.deepEqual(recorded, [14], 'only the DDL after the recorded history position is recorded');
});

test('history recorded up to a position of an older server generation: DDLs after a failover are recorded', async () => {
  // After a failover the new server's files start anew: bin.000001 of generation 1 follows bin.000009 of 0.
  const ddl = ev({ type: 'QUERY', query: 'ALTER TABLE t ADD c INT', database: 'db', threadId: 1, statusVars: {} });
  const recordedAt = async (upTo: PositionLike, generation: number) => {
    const recorded: Array<number | undefined> = [];
    const streamer = new BinlogStreamer(
      {
        decode: () => ddl,
        schema: {
          getTable: () => table,
          applyDdl: () => ({ tableChanges: [{ type: 'ALTER', id: 'db.t', table }], ignored: false }),
        },
        history: { ...history, record: async (e: SchemaHistoryEntry) => void recorded.push(e.position.pos) },
        records,
        tableFilter: () => true,
        skippedOperations: new Set(),
        includeSchemaChanges: false,
        includeQuery: false,
        eventDeserializationFailureHandlingMode: 'fail',
        flavor: 'mariadb',
        logger: silentLogger,
        historyRecordedUpTo: upTo,
        serverGeneration: () => generation,
      },
      { file: 'bin.000001', pos: 4 },
    );
    await streamer.handle(
      { raw: Buffer.from([0]), file: 'bin.000001', position: 120, nextPosition: 200 },
      async () => {},
    );
    return recorded;
  };
  assert.deepEqual(await recordedAt({ file: 'bin.000009', pos: 5000 }, 1), [120], 'newer generation: recorded');
  assert.deepEqual(
    await recordedAt({ file: 'bin.000009', pos: 5000, server_generation: 1 }, 1),
    [],
    'same generation, earlier position: a replay, not recorded again',
  );
  assert.deepEqual(
    await recordedAt({ file: 'bin.000001', pos: 50, server_generation: 1 }, 1),
    [120],
    'same generation, later position: recorded',
  );
});

test('inconsistent.schema.handling.mode: fail names the position; skip drops the event and goes on', async () => {
  allEvents = transaction([[1]], 5);
  const make = (mode: 'fail' | 'skip') =>
    new BinlogStreamer(
      {
        decode: (raw) => allEvents[raw[0]],
        schema: { getTable: () => table, applyDdl: () => ({ tableChanges: [], ignored: true }) },
        history,
        records,
        tableFilter: () => true,
        skippedOperations: new Set(),
        includeSchemaChanges: false,
        includeQuery: false,
        eventDeserializationFailureHandlingMode: 'fail',
        flavor: 'mariadb',
        logger: silentLogger,
        checkTableMap: () => ['db.t: column 1 is named x in the binlog but y in the schema'],
        inconsistentSchemaHandlingMode: mode,
      },
      null,
    );
  const feed = async (s: BinlogStreamer) => {
    const out: QueueItem[] = [];
    for (let i = 0; i < allEvents.length; i++) {
      const position = 4 + i * 10;
      await s.handle(
        { raw: Buffer.from([i]), file: 'bin.000001', position, nextPosition: position + 10 },
        async (it) => {
          out.push(it);
        },
      );
    }
    return out;
  };
  await assert.rejects(feed(make('fail')), /bin\.000001:24.*named x.*inconsistent\.schema\.handling\.mode/);
  const skipped = await feed(make('skip'));
  assert.equal(skipped.filter((i) => i.record).length, 0);
  assert.equal(skipped.at(-1)?.offset?.pos, 44, 'the offset still moves past the transaction');
});

test('a tagged GTID (MySQL 8.4 GTID_TAGGED_LOG_EVENT) opens the transaction; offsets carry the tagged GTID set', async () => {
  const decoder = new BinlogDecoder();
  const gtid = decoder.decode(
    buildEvent(EventType.GTID_TAGGED, taggedGtidBody('3e11fa47-71ca-11e1-9e33-c80aa9429562', 'batch_1', 23)),
  );
  assert.ok(gtid.type === 'GTID' && gtid.gtid === '3e11fa47-71ca-11e1-9e33-c80aa9429562:batch_1:23');
  const txn = (g: BinlogEvent, ids: number[]) => [
    g,
    ev({ type: 'QUERY', query: 'BEGIN', database: '', threadId: 7 }),
    ev({ type: 'WRITE_ROWS', table: tableMap, rows: ids.map((id) => [id]) }),
    ev({ type: 'XID', xid: 1n }),
  ];
  const untagged = ev({ type: 'GTID', gtid: '3e11fa47-71ca-11e1-9e33-c80aa9429562:11', uuid: '', gno: 11 });
  allEvents = [...txn(gtid, [1, 2]), ...txn(untagged, [3])];
  const start = { file: 'bin.000001', pos: 4, gtids: '3E11FA47-71CA-11E1-9E33-C80AA9429562:1-10:batch_1:1-22' };
  const items = await runStreamer(allEvents, start);
  const rowOffsets = items.filter((i) => i.record && i.offset).map((i) => i.offset?.gtids);
  const commits = items.filter((i) => !i.record && i.offset).map((i) => [i.offset?.pos, i.offset?.gtids]);
  // Inside the transaction the set is the one before it; the commit adds the tagged GTID to its own tag's intervals.
  assert.deepEqual(rowOffsets, [
    '3e11fa47-71ca-11e1-9e33-c80aa9429562:1-10:batch_1:1-22',
    '3e11fa47-71ca-11e1-9e33-c80aa9429562:1-10:batch_1:1-23',
  ]);
  assert.deepEqual(commits, [
    [44, '3e11fa47-71ca-11e1-9e33-c80aa9429562:1-10:batch_1:1-23'],
    [84, '3e11fa47-71ca-11e1-9e33-c80aa9429562:1-11:batch_1:1-23'],
  ]);
  // The row's transaction position is the tagged GTID event's.
  assert.deepEqual(
    items.filter((i) => i.record && i.offset).map((i) => [i.offset?.pos, i.offset?.event, i.offset?.row]),
    [
      [4, 0, 2],
      [44, 0, 1],
    ],
  );
});

test('a partial JSON update that cannot be rebuilt follows event.deserialization.failure.handling.mode', async () => {
  const events = [
    ev({ type: 'GTID', gtid: '3e11fa47-71ca-11e1-9e33-c80aa9429562:5', uuid: '', gno: 5 }),
    ev({
      type: 'PARTIAL_UPDATE_ROWS',
      table: tableMap,
      rows: [
        { before: [1], after: [1] },
        { before: [2], after: [2] },
      ],
    }),
    ev({ type: 'XID', xid: 1n }),
  ];
  const run = async (mode: 'fail' | 'warn' | 'skip') => {
    const warnings: unknown[] = [];
    const streamer = new BinlogStreamer(
      {
        decode: (raw) => events[raw[0]],
        schema: { getTable: () => table, applyDdl: () => ({ tableChanges: [], ignored: true }) },
        history,
        records: {
          ...records,
          forTable: () => ({
            ...records.forTable(table),
            // Row 2's before image lacks the JSON column (binlog_row_image=MINIMAL).
            update: (before: Row, _after: Row, s: SourceInfo) => {
              if (before[0] === 2)
                throw new PartialJsonUpdateError(`partial JSON update of db.t.doc at ${s.file}:${s.pos}`);
              return [{ topic: 't', key: '1', value: 'u1', sizeBytes: 1 }];
            },
          }),
        },
        tableFilter: () => true,
        skippedOperations: new Set(),
        includeSchemaChanges: false,
        includeQuery: false,
        eventDeserializationFailureHandlingMode: mode,
        flavor: 'mysql',
        logger: { ...silentLogger, warn: (...args: unknown[]) => warnings.push(args) },
      },
      null,
    );
    const out: QueueItem[] = [];
    for (let i = 0; i < events.length; i++) {
      await streamer.handle(
        { raw: Buffer.from([i]), file: 'bin.000002', position: 4 + i * 10, nextPosition: 14 + i * 10 },
        async (item) => {
          out.push(item);
        },
      );
    }
    return { out, warnings };
  };
  await assert.rejects(run('fail'), (e: unknown) => {
    assert.ok(e instanceof CdcError && e.code === 'BINLOG_DECODE');
    assert.match(e.message, /row change at bin\.000002:14 \(row 1\): partial JSON update of db\.t\.doc/);
    assert.match(e.message, /event\.deserialization\.failure\.handling\.mode=warn or skip/);
    return true;
  });
  for (const mode of ['warn', 'skip'] as const) {
    const { out, warnings } = await run(mode);
    // Row 1 is emitted, row 2 dropped; the rows event's checkpoint and the commit still advance the offset.
    assert.deepEqual(
      out.map((i) => [
        i.record?.value ?? null,
        i.offset ? [i.offset.pos, i.offset.event ?? null, i.offset.row ?? null] : null,
      ]),
      [
        ['u1', null],
        [null, [4, 0, 2]],
        [null, [34, null, null]],
      ],
    );
    assert.equal(warnings.length, mode === 'warn' ? 1 : 0);
  }
});
