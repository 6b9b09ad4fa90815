import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { silentLogger } from '../../../src/common/logger.js';
import {
  EVENT_ID_HEADER,
  parseRowChangeId,
  snapshotIdPrefix,
  TableEventBuilder,
  TransactionContext,
} from '../../../src/events/index.js';
import type { QueueItem } from '../../../src/model/queue-item.js';
import type { SinkRecord } from '../../../src/model/sink-record.js';
import type { SourceOffset } from '../../../src/model/source-offset.js';
import type { BinlogEvent } from '../../../src/source/mysql/binlog/events.js';
import { SnapshotRowIds } from '../../../src/source/mysql/snapshot/row-ids.js';
import { BinlogStreamer } from '../../../src/source/mysql/streaming/binlog-streamer.js';
import type { RecordFactory } from '../../../src/source/mysql/streaming/ports.js';
import { col, fixedClock, source, table } from './fixtures.js';

const items = table('shop', 'items', [col('id', 'int'), col('name', 'varchar(20)')], ['id']);
const idOf = (r: SinkRecord) => (r.headers?.[EVENT_ID_HEADER] ? JSON.parse(r.headers[EVENT_ID_HEADER]) : undefined);

// The streamer, fed hand-built decoded events, with the real event builder: ids as a consumer sees them.
const header = { timestamp: 100, typeCode: 0, serverId: 1, eventSize: 0, nextPosition: 0, flags: 0 };
const ev = (e: Record<string, unknown>) => ({ header, ...e }) as unknown as BinlogEvent;
const map = { database: 'shop', table: 'items' };
const builder = new TableEventBuilder(items, { topicPrefix: 'p', clockMicros: fixedClock, tombstonesOnDelete: true });
const factory: RecordFactory = {
  forTable: () => builder,
  schemaChange: () => null,
  heartbeat: () => ({ topic: 'hb', key: null, value: null, sizeBytes: 0 }),
  transactions: null,
};

async function stream(events: BinlogEvent[], start: SourceOffset | null, gtids = true): Promise<QueueItem[]> {
  const s = new BinlogStreamer(
    {
      decode: (raw) => events[raw[0]],
      schema: { getTable: () => items, applyDdl: () => ({ tableChanges: [], ignored: true }) },
      history: { record: async () => {}, next: () => 1 },
      records: factory,
      tableFilter: (_db, t) => t === 'items',
      skippedOperations: new Set(),
      includeSchemaChanges: false,
      includeQuery: false,
      eventDeserializationFailureHandlingMode: 'fail',
      flavor: gtids ? 'mariadb' : 'mysql',
      logger: silentLogger,
    },
    start,
  );
  const out: QueueItem[] = [];
  for (let i = 0; i < events.length; i++) {
    const position = 4 + i * 10;
    if (start && position < start.pos) continue;
    await s.handle({ raw: Buffer.from([i]), file: 'bin.000001', position, nextPosition: position + 10 }, async (it) => {
      out.push(it);
    });
  }
  return out;
}

const upd = (before: unknown[], after: unknown[]) => ({ before, after });
/** One transaction: a row updated twice, a filtered table's rows event between, a delete then a re-insert. */
const txn = (begin: BinlogEvent) => [
  begin,
  ev({ type: 'UPDATE_ROWS', table: map, rows: [upd([1, 'a'], [1, 'b'])] }),
  ev({ type: 'WRITE_ROWS', table: { database: 'shop', table: 'other' }, rows: [[9]] }),
  ev({ type: 'UPDATE_ROWS', table: map, rows: [upd([1, 'b'], [1, 'c']), upd([2, 'x'], [2, 'y'])] }),
  ev({ type: 'DELETE_ROWS', table: map, rows: [[1, 'c']] }),
  ev({ type: 'WRITE_ROWS', table: map, rows: [[1, 'd']] }),
  ev({ type: 'XID', xid: 1n }),
];

describe('stable event ids', () => {
  it('name the transaction, the rows event and the row, so two updates of one row in one transaction differ', async () => {
    const events = txn(ev({ type: 'MARIADB_GTID', gtid: '0-1-42' }));
    const records = (await stream(events, null)).flatMap((i) => (i.record ? [i.record] : []));
    assert.deepEqual(
      records.map((r) => [JSON.parse(r.value ?? 'null')?.op ?? 'tombstone', idOf(r)]),
      [
        ['u', '0-1-42/0/0/0'],
        // rows event 1 is the filtered table's: it still counts, so ids do not depend on the table filter
        ['u', '0-1-42/2/0/0'],
        ['u', '0-1-42/2/1/0'],
        ['d', '0-1-42/3/0/0'],
        ['tombstone', '0-1-42/3/0/1'],
        ['c', '0-1-42/4/0/0'],
      ],
    );
    assert.equal(new Set(records.map(idOf)).size, records.length);
    assert.deepEqual(parseRowChangeId('0-1-42/2/1/0'), { txn: '0-1-42', event: 2, row: 1, part: 0 });
  });

  it('without GTIDs the transaction is named by its start as in Debezium (file=...,pos=...)', async () => {
    const events = txn(ev({ type: 'ANONYMOUS_GTID' }));
    const records = (await stream(events, null, false)).flatMap((i) => (i.record ? [i.record] : []));
    assert.equal(idOf(records[0]), 'file=bin.000001,pos=4/0/0/0');
    assert.deepEqual(parseRowChangeId(idOf(records[0])), { txn: 'file=bin.000001,pos=4', event: 0, row: 0, part: 0 });
  });

  it('are the same when a restart from any checkpoint re-delivers the rest of the transaction', async () => {
    const events = [
      ...txn(ev({ type: 'MARIADB_GTID', gtid: '0-1-42' })),
      ...txn(ev({ type: 'MARIADB_GTID', gtid: '0-1-43' })),
    ];
    const full = await stream(events, null);
    const ids = full.flatMap((i) => (i.record ? [idOf(i.record)] : []));
    let checked = 0;
    for (let k = 0; k < full.length; k++) {
      const offset = full[k].offset;
      if (!offset) continue;
      const emittedBefore = full.slice(0, k + 1).filter((i) => i.record).length;
      const again = (await stream(events, offset)).flatMap((i) => (i.record ? [idOf(i.record)] : []));
      assert.deepEqual(again, ids.slice(emittedBefore), `resume from ${JSON.stringify(offset)}`);
      checked++;
    }
    assert.ok(checked >= 6);
  });

  it('number the records of one row change: a key change is delete 0, tombstone 1, create 2', () => {
    const out = builder.update([1, 'a'], [5, 'a'], { ...source, id: '0-1-7/0/0' });
    assert.deepEqual(out.map(idOf), ['0-1-7/0/0/0', '0-1-7/0/0/1', '0-1-7/0/0/2']);
    // Debezium's key headers stay as they were, next to the id.
    assert.deepEqual(Object.keys(out[0].headers ?? {}), ['__debezium.newkey', EVENT_ID_HEADER]);
    for (const r of out) assert.ok(r.sizeBytes >= (r.key?.length ?? 0) + (r.value?.length ?? 0) + 20);
    // No origin, no header (records built outside the capture, e.g. by tests and tools).
    assert.equal(builder.insert([1, 'a'], source)[0].headers, undefined);
  });

  it('keep a snapshot row apart from the first streamed change at the same position', async () => {
    const ids = new SnapshotRowIds();
    const at = { file: 'bin.000001', pos: 4 };
    const [snap] = builder.read([1, 'a'], {
      ...source,
      snapshot: 'last',
      file: at.file,
      pos: at.pos,
      row: 0,
      id: ids.next(items, at),
    });
    const streamed = (await stream(txn(ev({ type: 'ANONYMOUS_GTID' })), null, false))[0].record as SinkRecord;
    assert.deepEqual(
      [JSON.parse(snap.value ?? '').source.pos, JSON.parse(streamed.value ?? '').source.pos],
      [4, 4],
      'same (file, pos, row) in source',
    );
    assert.equal(idOf(snap), 'file=bin.000001,pos=4/snapshot/shop.items/0/0');
    assert.equal(idOf(streamed), 'file=bin.000001,pos=4/0/0/0');
    assert.equal(parseRowChangeId(idOf(snap)), null);
    // Rows are numbered per table in scan order; a re-taken snapshot at the same position repeats the numbers.
    assert.equal(ids.next(items, at), 'file=bin.000001,pos=4/snapshot/shop.items/1');
    assert.equal(new SnapshotRowIds().next(items, at), 'file=bin.000001,pos=4/snapshot/shop.items/0');
    assert.equal(snapshotIdPrefix('incremental', at, 'a.b'), 'file=bin.000001,pos=4/incremental/a.b/');
  });

  it('escape what JSON needs, and give transaction markers ids of their own', () => {
    const odd = table('d', 'we"ird\\', [col('id', 'int')], ['id']);
    const rec = new TableEventBuilder(odd, { topicPrefix: 'p', clockMicros: fixedClock }).read([1], {
      ...source,
      id: new SnapshotRowIds().next(odd, { file: 'f.1', pos: 9 }),
    })[0];
    assert.equal(idOf(rec), 'file=f.1,pos=9/snapshot/d.we"ird\\/0/0');
    const tx = new TransactionContext({ topicPrefix: 'p' });
    tx.begin('0-1-42', 1);
    const begin = tx.event('d.t').begin as SinkRecord;
    const end = tx.end(2) as SinkRecord;
    assert.deepEqual([idOf(begin), idOf(end)], ['0-1-42/begin/0', '0-1-42/end/0']);
  });
});
