import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CaptureMetrics } from '../../../src/model/capture-metrics.js';
import { SchemaHistoryMetrics } from '../../../src/model/schema-history-metrics.js';
import { SnapshotMetrics } from '../../../src/model/snapshot-metrics.js';
import { StreamingMetrics } from '../../../src/model/streaming-metrics.js';

function clock(start = 1_000_000) {
  const c = { now: start, fn: () => c.now };
  return c;
}

describe('SnapshotMetrics', () => {
  test('consistent snapshot: not started, running, per-table rows, completed; duration from start to end', () => {
    const t = clock();
    const s = new SnapshotMetrics(t.fn);
    assert.deepEqual(
      [s.SnapshotRunning, s.SnapshotCompleted, s.SnapshotAborted, s.SnapshotDurationInSeconds, s.TotalTableCount],
      [false, false, false, 0, 0],
    );
    s.started();
    s.planned(['d.a', 'd.b', 'd.empty'], 2);
    s.tableEstimated('d.a', 100);
    s.tableEstimated('d.b', 5);
    assert.equal(s.SnapshotRunning, true);
    assert.deepEqual(s.CapturedTables, ['d.a', 'd.b', 'd.empty']);
    assert.equal(s.TotalTableCount, 2);
    assert.equal(s.RemainingTableCount, 2);
    t.now += 1500;
    s.rowsScanned('d.a', 1);
    s.rowsScanned('d.a', 1);
    s.rowsScanned('d.b', 3);
    assert.equal(s.SnapshotDurationInSeconds, 1.5, 'grows while running');
    assert.deepEqual(s.RowsScanned, { 'd.a': 2, 'd.b': 3 });
    assert.equal(s.totalRowsScanned, 5);
    assert.equal(s.TotalNumberOfEventsSeen, 5);
    assert.equal(s.LastEvent, 'd.b');
    t.now += 200;
    assert.equal(s.MilliSecondsSinceLastEvent, 200);
    s.tableScanned('d.a');
    assert.equal(s.RemainingTableCount, 1);
    assert.deepEqual(s.tables.get('d.a'), { rowsScanned: 2, estimatedRows: 2, done: true }, 'estimate becomes exact');
    assert.deepEqual(s.tables.get('d.b'), { rowsScanned: 3, estimatedRows: 5, done: false });
    s.tableScanned('d.b');
    t.now += 300;
    s.completed();
    t.now += 10_000;
    assert.equal(s.RemainingTableCount, 0);
    assert.deepEqual([s.SnapshotRunning, s.SnapshotCompleted, s.SnapshotAborted], [false, true, false]);
    assert.equal(s.SnapshotDurationInSeconds, 2, 'frozen at completion');
  });

  test('aborted: not completed, not running, remaining tables kept', () => {
    const t = clock();
    const s = new SnapshotMetrics(t.fn);
    s.started();
    s.planned(['d.a'], 1);
    s.rowsScanned('d.a', 7);
    s.aborted();
    assert.deepEqual([s.SnapshotRunning, s.SnapshotCompleted, s.SnapshotAborted], [false, false, true]);
    assert.equal(s.RemainingTableCount, 1);
    assert.equal(s.totalRowsScanned, 7);
  });

  test('chunked tables count with the consistent ones; the duration runs until the chunks are done', () => {
    const t = clock();
    const s = new SnapshotMetrics(t.fn);
    s.started();
    s.planned(['d.nopk', 'd.t'], 1);
    s.rowsScanned('d.nopk', 2);
    s.tableScanned('d.nopk');
    t.now += 1000;
    s.completed(true);
    assert.equal(s.SnapshotCompleted, true, 'the consistent part is done');
    s.chunkedResumed();
    s.chunkedTables(1, 0, true);
    assert.deepEqual([s.SnapshotRunning, s.SnapshotCompleted], [true, false], 'chunks pending');
    assert.equal(s.TotalTableCount, 2);
    assert.equal(s.RemainingTableCount, 1);
    s.tableEstimated('d.t', 1000, 400);
    assert.equal(s.totalRowsScanned, 402, 'a resumed table starts at its stored row count');
    s.rowsScanned('d.t', 600);
    s.chunkEmitted('d.t', 3, '[{"i":"400"}]', '[{"i":"1000"}]');
    assert.deepEqual([s.ChunkId, s.ChunkFrom, s.ChunkTo], ['d.t#3', '[{"i":"400"}]', '[{"i":"1000"}]']);
    t.now += 2000;
    s.chunkedActivity();
    assert.equal(s.SnapshotDurationInSeconds, 3, 'still running: the duration follows the clock');
    s.chunkedTableScanned('d.t');
    s.chunkedTables(1, 1, false);
    s.chunkedActivity();
    t.now += 5000;
    assert.deepEqual([s.SnapshotRunning, s.SnapshotCompleted, s.RemainingTableCount], [false, true, 0]);
    assert.equal(s.SnapshotDurationInSeconds, 3, 'ended with the last chunk');
    assert.deepEqual(s.RowsScanned, { 'd.nopk': 2, 'd.t': 1000 });
  });

  test('pause and resume: SnapshotPaused while held, paused seconds summed over pauses', () => {
    const t = clock();
    const s = new SnapshotMetrics(t.fn);
    s.chunkedResumed();
    s.chunkedTables(1, 0, true);
    s.paused();
    t.now += 1000;
    s.paused();
    assert.deepEqual(
      [s.SnapshotPaused, s.SnapshotPausedDurationInSeconds],
      [true, 1],
      'a second pause changes nothing',
    );
    s.unpaused();
    t.now += 5000;
    s.paused();
    t.now += 500;
    s.unpaused();
    s.unpaused();
    t.now += 5000;
    assert.deepEqual([s.SnapshotPaused, s.SnapshotPausedDurationInSeconds], [false, 1.5]);
    s.chunkedTables(1, 0, false);
    s.aborted();
    assert.deepEqual([s.SnapshotRunning, s.SnapshotCompleted, s.SnapshotAborted], [false, false, true], 'stopped');
    s.chunkedTables(2, 0, true);
    s.chunkedTableScanned('d.t');
    s.chunkedTables(2, 1, false);
    assert.deepEqual([s.SnapshotCompleted, s.SnapshotAborted], [true, false], 'a later chunked snapshot completed');
  });

  test('a blocking snapshot runs and ends without touching the initial snapshot state', () => {
    const s = new SnapshotMetrics(clock().fn);
    s.blockingStarted();
    assert.equal(s.SnapshotRunning, true);
    s.blockingEnded();
    assert.deepEqual([s.SnapshotRunning, s.SnapshotCompleted, s.SnapshotDurationInSeconds], [false, false, 0]);
  });
});

describe('StreamingMetrics', () => {
  test('lag is processing time minus event time; silence grows, lag does not', () => {
    const t = clock(0);
    const m = new StreamingMetrics(t.fn);
    assert.equal(m.MilliSecondsBehindSource, 0, 'no event yet');
    t.now = 42_000;
    m.eventRead(40_000);
    t.now = 50_000;
    assert.equal(m.MilliSecondsBehindSource, 2000);
    assert.equal(m.MilliSecondsSinceLastEvent, 8000);
    m.activity();
    assert.equal(m.MilliSecondsSinceLastEvent, 0, 'chunk rows are progress too');
    m.eventRead(0, 'ROTATE');
    assert.equal(m.lastEventTimestampMs, 40_000, 'an event without a timestamp keeps the last one');
    assert.equal(m.LastEvent, 'ROTATE');
  });

  test('counters, position, GTIDs and connection', () => {
    const m = new StreamingMetrics(clock().fn);
    m.counted(10, 2, 3, 1);
    m.lastTransactionId('3e11fa47-71ca-11e1-9e33-c80aa9429562:23');
    m.eventSeen();
    m.eventFiltered();
    m.transactionCommitted();
    assert.deepEqual(
      [m.TotalNumberOfEventsSeen, m.NumberOfEventsFiltered, m.NumberOfCommittedTransactions, m.NumberOfSkippedEvents],
      [11, 3, 4, 1],
    );
    assert.equal(m.LastTransactionId, '3e11fa47-71ca-11e1-9e33-c80aa9429562:23');
    m.position('mysql-bin.000003', 777, '0-1-42');
    m.position('mysql-bin.000003', 900);
    assert.deepEqual(m.SourceEventPosition, { file: 'mysql-bin.000003', pos: 900, gtids: '0-1-42' }, 'GTIDs kept');
    m.connection(true, 2);
    m.disconnected();
    assert.deepEqual([m.Connected, m.NumberOfDisconnects], [true, 3]);
    m.connection(false);
    assert.deepEqual([m.Connected, m.NumberOfDisconnects], [false, 3]);
  });
});

describe('SchemaHistoryMetrics', () => {
  test('STOPPED → RECOVERING → RUNNING → STOPPED; recovered changes count as applied', () => {
    const t = clock();
    const h = new SchemaHistoryMetrics(t.fn);
    assert.equal(h.Status, 'STOPPED');
    h.recoveryStarted();
    assert.equal(h.Status, 'RECOVERING');
    assert.equal(h.RecoveryStartTime, t.now);
    h.recoveredFrom(4, 'ALTER TABLE t ADD c INT');
    assert.deepEqual([h.ChangesRecovered, h.ChangesApplied, h.LastRecoveredChange], [4, 4, 'ALTER TABLE t ADD c INT']);
    h.running();
    t.now += 1000;
    assert.equal(h.MilliSecondsSinceLastAppliedChange, 1000);
    h.recorded('DROP TABLE u');
    h.changesApplied(5);
    assert.equal(h.MilliSecondsSinceLastAppliedChange, 0);
    assert.equal(h.LastAppliedChange, 'DROP TABLE u');
    assert.equal(h.MilliSecondsSinceLastRecoveredChange, 1000);
    h.stopped();
    assert.deepEqual([h.Status, h.ChangesApplied], ['STOPPED', 5]);
  });
});

describe('CaptureMetrics', () => {
  test('phase, the runway gauge read where it is measured, schema history only when the source keeps one', () => {
    let runway: number | null = null;
    const m = new CaptureMetrics({ schemaHistory: new SchemaHistoryMetrics() });
    m.retentionRunwayFrom(() => runway);
    assert.equal(m.phase, 'starting');
    m.enter('streaming');
    assert.equal(m.phase, 'streaming');
    assert.equal(m.RetentionRunwaySeconds, null);
    runway = 5400;
    assert.equal(m.RetentionRunwaySeconds, 5400);
    assert.ok(m.schemaHistory);
    assert.equal(new CaptureMetrics().schemaHistory, null);
  });
});
