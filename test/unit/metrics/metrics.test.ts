import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { silentLogger } from '../../../src/common/logger.js';
import {
  CONNECTOR_DIMENSION,
  CORE_METRIC_NAMES,
  type EmfDocument,
  HealthMonitor,
  METRIC_DEFINITIONS,
  METRICS_NAMESPACE,
  MetricsCollector,
  type MetricsSource,
  prometheusName,
  SnapshotMetric,
  StreamingMetric,
  startMetrics,
  toEmf,
  toPrometheus,
} from '../../../src/metrics/index.js';
import { CaptureMetrics } from '../../../src/model/capture-metrics.js';
import { SchemaHistoryMetrics } from '../../../src/model/schema-history-metrics.js';

/**
 * A source whose metric objects the test writes, on the test's clock (`clock.now`); `silentFor` sets how long ago the
 * capture last made progress.
 */
function fakeSource(opts: { history?: boolean } = {}) {
  const clock = { now: 0 };
  const history = opts.history ? new SchemaHistoryMetrics(() => clock.now) : null;
  const metrics = new CaptureMetrics({ now: () => clock.now, schemaHistory: history });
  const s = {
    metrics,
    clock,
    caughtUp: true as boolean | Error,
    checks: 0,
    /** Last progress `ms` before `clock.now` (with `eventTsMs`: a binlog event with that source timestamp). */
    silentFor(ms: number, eventTsMs = 0) {
      const at = clock.now;
      clock.now = at - ms;
      if (eventTsMs > 0) metrics.streaming.eventRead(eventTsMs);
      else metrics.streaming.activity();
      clock.now = at;
    },
    isCaughtUp: async () => {
      s.checks++;
      if (s.caughtUp instanceof Error) throw s.caughtUp;
      return s.caughtUp;
    },
  };
  return s satisfies MetricsSource;
}
const task = {
  queue: { remainingCapacity: 2040, sizeInBytes: 1234, length: 8, peakLength: 2048, peakSizeInBytes: 98_765 },
};

describe('collector', () => {
  test('snapshot progress, duration and completion from the source stats', () => {
    let now = 1_000_000;
    const src = fakeSource();
    const snap = src.metrics.snapshot;
    src.metrics.enter('snapshot');
    src.clock.now = now - 4000;
    snap.started();
    snap.planned(['d.a', 'd.b', 'd.c'], 3);
    snap.rowsScanned('d.a', 10);
    snap.tableScanned('d.a');
    src.clock.now = now;
    const c = new MetricsCollector(src, task, () => now);
    let v = c.sample().values;
    assert.equal(v.TotalTableCount, 3);
    assert.equal(v.RemainingTableCount, 2);
    assert.equal(v.RowsScanned, 10);
    assert.equal(v.SnapshotRunning, 1);
    assert.equal(v.SnapshotCompleted, 0);
    assert.equal(v.SnapshotDurationInSeconds, 4);
    now += 6000;
    src.clock.now = now - 1000;
    snap.tableScanned('d.b');
    snap.tableScanned('d.c');
    snap.completed();
    src.metrics.enter('streaming');
    src.clock.now = now;
    v = c.sample().values;
    assert.equal(v.SnapshotRunning, 0);
    assert.equal(v.SnapshotCompleted, 1);
    assert.equal(v.RemainingTableCount, 0);
    assert.equal(v.SnapshotDurationInSeconds, 9);
  });

  test('snapshot duration runs from the start to the completion the source reports, not between samples', () => {
    let now = 0;
    const src = fakeSource();
    const c = new MetricsCollector(src, task, () => now);
    c.sample();
    src.clock.now = 100;
    src.metrics.enter('snapshot');
    src.metrics.snapshot.started();
    now = 1000;
    c.sample();
    src.clock.now = 2600;
    src.metrics.snapshot.completed();
    src.metrics.enter('streaming');
    now = src.clock.now = 4000;
    const v = c.sample().values;
    assert.equal(v.SnapshotDurationInSeconds, 2.5);
    assert.equal(v.SnapshotCompleted, 1);
  });

  test('lag is processing time minus event time and does not grow while idle; queue and position', () => {
    const now = 50_000;
    const src = fakeSource();
    src.metrics.enter('streaming');
    src.metrics.streaming.position('mysql-bin.000003', 777, '0-1-42');
    src.metrics.streaming.connection(true);
    src.clock.now = now;
    src.silentFor(8000, 40_000); // processed at 42 000, event written at 40 000
    const s = new MetricsCollector(src, task, () => now).sample();
    assert.equal(s.values.MilliSecondsBehindSource, 2000);
    assert.equal(s.values.MilliSecondsSinceLastEvent, 8000);
    assert.equal(s.values.QueueRemainingCapacity, 2040);
    assert.equal(s.values.CurrentQueueSizeInBytes, 1234);
    assert.equal(s.values.QueuePeakSize, 2048);
    assert.equal(s.values.QueuePeakSizeInBytes, 98_765);
    assert.equal(s.values.Connected, 1);
    assert.deepEqual(s.properties, {
      Phase: 'streaming',
      BinlogFile: 'mysql-bin.000003',
      BinlogPosition: 777,
      Gtids: '0-1-42',
    });
    assert.equal(s.values.SchemaHistoryChangesApplied, undefined);
  });
});

describe('collector: schema history', () => {
  test('ChangesApplied and the status are published when the source keeps a history', () => {
    const src = fakeSource({ history: true });
    const history = src.metrics.schemaHistory!;
    history.recoveryStarted();
    history.recoveredFrom(3);
    history.running();
    history.changesApplied(5);
    const s = new MetricsCollector(src, task, () => 0).sample();
    assert.equal(s.values.SchemaHistoryChangesApplied, 5);
    assert.equal(s.properties.SchemaHistoryStatus, 'RUNNING');
  });
});

describe('EMF and Prometheus', () => {
  const src = fakeSource();
  src.metrics.enter('streaming');
  src.metrics.streaming.counted(5, 0, 0, 0);
  src.metrics.streaming.position('b.000001', 4);
  const sample = new MetricsCollector(src, task, () => 1234).sample();

  test('EMF document: one directive, Connector dimension, every core metric with its unit and a top-level value', () => {
    const doc: EmfDocument = JSON.parse(JSON.stringify(toEmf(sample, 'orders')));
    assert.equal(doc._aws.Timestamp, 1234);
    assert.equal(doc._aws.CloudWatchMetrics.length, 1);
    const d = doc._aws.CloudWatchMetrics[0];
    assert.equal(d.Namespace, METRICS_NAMESPACE);
    assert.deepEqual(d.Dimensions, [[CONNECTOR_DIMENSION]]);
    assert.deepEqual(d.Metrics.map((m) => m.Name).sort(), [...CORE_METRIC_NAMES].sort());
    for (const m of d.Metrics) {
      assert.equal(m.Unit, METRIC_DEFINITIONS[m.Name as keyof typeof METRIC_DEFINITIONS].unit);
      assert.equal(typeof doc[m.Name], 'number', m.Name);
    }
    assert.equal(doc[CONNECTOR_DIMENSION], 'orders');
    assert.equal(doc.BinlogFile, 'b.000001');
    assert.equal(doc.TotalNumberOfEventsSeen, 5);
  });

  test('Prometheus text: HELP/TYPE per metric, counters end in _total, labels escaped', () => {
    assert.equal(prometheusName(StreamingMetric.MilliSecondsBehindSource), 'cdc_milli_seconds_behind_source');
    assert.equal(prometheusName(StreamingMetric.TotalNumberOfEventsSeen), 'cdc_total_number_of_events_seen_total');
    const text = toPrometheus(sample, 'a"b');
    assert.match(text, /^# TYPE cdc_total_number_of_events_seen_total counter$/m);
    assert.match(text, /^cdc_total_number_of_events_seen_total\{connector="a\\"b"\} 5$/m);
    assert.match(text, /^# TYPE cdc_rows_scanned_total counter$/m);
    assert.match(
      text,
      /^cdc_info\{connector="a\\"b",phase="streaming",binlog_file="b.000001",binlog_position="4"\} 1$/m,
    );
    const samples = text.split('\n').filter((l) => l && !l.startsWith('#'));
    assert.equal(samples.length, CORE_METRIC_NAMES.length + 1);
  });
});

describe('health', () => {
  test('starting within grace, snapshot stall, stopped', async () => {
    let now = 0;
    const src = fakeSource();
    const h = new HealthMonitor(src, { startupGraceMs: 1000, snapshotStallMs: 5000 }, () => now);
    assert.equal((await h.check()).healthy, true);
    now = 1500;
    assert.match((await h.check()).reason, /still starting/);
    src.metrics.enter('snapshot');
    src.metrics.snapshot.rowsScanned('d.t', 1);
    assert.equal((await h.check()).healthy, true);
    now = 6000;
    assert.equal((await h.check()).healthy, true, 'progress 4.5 s ago');
    now = 7000;
    assert.match((await h.check()).reason, /no progress/);
    src.metrics.snapshot.rowsScanned('d.t', 1);
    assert.equal((await h.check()).healthy, true);
    src.metrics.enter('stopped');
    assert.deepEqual(await h.check(), { healthy: false, phase: 'stopped', reason: 'capture stopped' });
  });

  test('snapshot: planning the tables and finishing one count as progress, not only rows', async () => {
    let now = 0;
    const src = fakeSource();
    src.metrics.enter('snapshot');
    const h = new HealthMonitor(src, { snapshotStallMs: 1000 }, () => now);
    assert.equal((await h.check()).healthy, true);
    now = 900;
    src.metrics.snapshot.planned(['d.big'], 1);
    now = 1800;
    assert.equal((await h.check()).healthy, true, 'tables planned 900 ms ago');
    now = 2900;
    src.metrics.snapshot.tableScanned('d.big');
    now = 3800;
    assert.equal((await h.check()).healthy, true, 'a table finished 900 ms ago');
    now = 5000;
    assert.match((await h.check()).reason, /no progress/);
  });

  test('streaming: silence is fine while caught up, unhealthy when the server moved or cannot be asked', async () => {
    let now = 0;
    const src = fakeSource();
    src.metrics.enter('streaming');
    const h = new HealthMonitor(src, { stuckAfterMs: 1000, recheckIntervalMs: 500 }, () => now);
    src.silentFor(900);
    assert.equal((await h.check()).healthy, true);
    assert.equal(src.checks, 0, 'no server query while events flow');
    src.silentFor(5000);
    assert.equal((await h.check()).reason, 'idle: caught up with the server');
    src.caughtUp = false;
    assert.equal((await h.check()).healthy, true, 'cached result reused within recheckIntervalMs');
    assert.equal(src.checks, 1);
    now = 600;
    const s = await h.check();
    assert.equal(s.healthy, false);
    assert.match(s.reason, /server's binlog has moved on/);
    now = 1200;
    src.caughtUp = new Error('ECONNREFUSED');
    assert.match((await h.check()).reason, /cannot be read: ECONNREFUSED/);
  });
});

describe('startMetrics', () => {
  test('HTTP endpoint serves /metrics, /health (200/503) and 404; EMF line on flush and stop', async () => {
    const src = fakeSource();
    src.metrics.enter('streaming');
    src.metrics.streaming.counted(3, 0, 0, 0);
    const lines: string[] = [];
    const stdout = { write: (l: string) => lines.push(l) } as unknown as NodeJS.WritableStream;
    const m = startMetrics({
      config: { name: 'c1', metrics: { emfEnabled: true, httpPort: null } },
      source: src,
      task,
      logger: silentLogger,
      stdout,
      emfIntervalMs: 3_600_000,
      httpPort: 0,
      httpHost: '127.0.0.1',
    });
    const addr = await m.http;
    assert.ok(addr);
    const base = `http://127.0.0.1:${addr.port}`;
    const metrics = await fetch(`${base}/metrics`);
    assert.equal(metrics.status, 200);
    assert.match(metrics.headers.get('content-type') ?? '', /^text\/plain; version=0.0.4/);
    assert.match(await metrics.text(), /^cdc_total_number_of_events_seen_total\{connector="c1"\} 3$/m);
    const ok = await fetch(`${base}/health`);
    assert.equal(ok.status, 200);
    assert.equal(((await ok.json()) as { phase: string }).phase, 'streaming');
    src.metrics.enter('stopped');
    assert.equal((await fetch(`${base}/health`)).status, 503);
    assert.equal((await fetch(`${base}/nope`)).status, 404);
    m.flush();
    await m.stop();
    assert.equal(lines.length, 2, 'one explicit flush + the final line on stop');
    const doc = JSON.parse(lines[1]) as EmfDocument;
    assert.equal(doc.TotalNumberOfEventsSeen, 3);
    assert.equal(doc[SnapshotMetric.SnapshotRunning], 0);
    await assert.rejects(fetch(`${base}/health`), 'server closed');
  });

  test('both outputs off: nothing written, no server', async () => {
    const lines: string[] = [];
    const m = startMetrics({
      config: { name: 'c', metrics: { emfEnabled: false, httpPort: null } },
      source: fakeSource(),
      task,
      logger: silentLogger,
      stdout: { write: (l: string) => lines.push(l) } as unknown as NodeJS.WritableStream,
    });
    assert.equal(await m.http, null);
    await m.stop();
    assert.deepEqual(lines, []);
  });
});
