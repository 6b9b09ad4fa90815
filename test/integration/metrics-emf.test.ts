import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startCapture } from '../../src/cli/commands/run.js';
import { silentLogger } from '../../src/common/logger.js';
import {
  ALL_METRIC_NAMES,
  CONNECTOR_DIMENSION,
  type EmfDocument,
  EmfProperty,
  METRIC_DEFINITIONS,
  METRIC_DIMENSIONS,
  METRICS_NAMESPACE,
  type MetricName,
  RetentionMetric,
  startMetrics,
} from '../../src/metrics/index.js';
import { useMariaDb } from '../harness/fixtures.js';
import { captureEnv } from './support/capture.js';

// A finite binlog expiry, so the retention runway is measured and published too.
const EXPIRE_SECONDS = 7 * 86400;
const db = useMariaDb({ options: { 'binlog-expire-logs-seconds': EXPIRE_SECONDS } });

test('a real capture run emits valid EMF lines with exactly the shared metric names and dimensions', async () => {
  const server = db();
  const name = await server.createDatabase('metrics');
  await server.query(`CREATE TABLE ${name}.a (id INT PRIMARY KEY, v VARCHAR(10))`);
  await server.query(`CREATE TABLE ${name}.b (id INT PRIMARY KEY)`);
  await server.query(`INSERT INTO ${name}.a VALUES (1,'x'),(2,'y'),(3,'z')`);
  await server.query(`INSERT INTO ${name}.b VALUES (1)`);
  const env = captureEnv(server, name, { 'metrics.emf.enabled': 'true' });
  assert.equal(env.config.metrics.emfEnabled, true);

  const written: string[] = [];
  const stdout = { write: (s: string) => written.push(s) } as unknown as NodeJS.WritableStream;
  const handle = startCapture(env.config, silentLogger, { untilIdleMs: 600 });
  const metrics = startMetrics({
    config: env.config,
    source: handle.source,
    task: handle.task,
    logger: silentLogger,
    stdout,
    emfIntervalMs: 50,
    httpPort: 0,
    httpHost: '127.0.0.1',
  });
  // Stream a few changes once the snapshot is done, so the streaming counters move.
  const writer = (async () => {
    while (handle.source.metrics.phase !== 'streaming') await new Promise((r) => setImmediate(r));
    await server.query(`INSERT INTO ${name}.a VALUES (4,'w')`);
    await server.query(`UPDATE ${name}.a SET v='q' WHERE id=1`);
  })();
  await handle.done;
  await writer;
  const addr = await metrics.http;
  assert.ok(addr);
  const health = await fetch(`http://127.0.0.1:${addr.port}/health`);
  assert.equal(health.status, 503, 'a finished capture is not healthy');
  await metrics.stop();

  assert.ok(written.length >= 2, `expected several EMF lines, got ${written.length}`);
  const docs = written.map((line) => {
    assert.ok(line.endsWith('\n') && !line.slice(0, -1).includes('\n'), 'one JSON object per line');
    return JSON.parse(line) as EmfDocument;
  });
  for (const doc of docs) {
    assert.equal(typeof doc._aws.Timestamp, 'number');
    assert.equal(doc._aws.CloudWatchMetrics.length, 1);
    const d = doc._aws.CloudWatchMetrics[0];
    assert.equal(d.Namespace, METRICS_NAMESPACE);
    assert.deepEqual(d.Dimensions, [[...METRIC_DIMENSIONS]]);
    for (const dim of d.Dimensions[0]) assert.equal(typeof doc[dim], 'string', `dimension ${dim} has a value`);
    assert.equal(doc[CONNECTOR_DIMENSION], env.config.name);
    // Exactly the shared names (the CDK alarms and dashboard import the same constants); the runway once measured.
    const names = d.Metrics.map((m) => m.Name);
    const expected = ALL_METRIC_NAMES.filter(
      (n) => n !== RetentionMetric.RetentionRunwaySeconds || names.includes(RetentionMetric.RetentionRunwaySeconds),
    );
    assert.deepEqual(names.sort(), [...expected].sort());
    for (const m of d.Metrics) {
      assert.equal(m.Unit, METRIC_DEFINITIONS[m.Name as MetricName].unit);
      assert.ok(Number.isFinite(doc[m.Name]), `${m.Name} has a numeric top-level value`);
    }
    assert.ok(d.Metrics.length <= 100, 'EMF allows at most 100 metrics per directive');
  }
  const last = docs.at(-1)!;
  // The capture's file is the one being written: it keeps the whole retention.
  assert.equal(last[RetentionMetric.RetentionRunwaySeconds], EXPIRE_SECONDS);
  assert.equal(last.TotalTableCount, 2);
  assert.equal(last.RemainingTableCount, 0);
  assert.equal(last.RowsScanned, 4);
  assert.equal(last.SnapshotCompleted, 1);
  assert.equal(last.SnapshotRunning, 0);
  assert.ok((last.SnapshotDurationInSeconds as number) > 0);
  assert.ok((last.TotalNumberOfEventsSeen as number) >= 2, 'the insert and the update were seen');
  assert.ok((last.NumberOfCommittedTransactions as number) >= 2);
  assert.equal(last.Phase, 'stopped');
  assert.match(String(last[EmfProperty.BinlogFile]), /\.\d{6}$/);
  assert.ok((last[EmfProperty.BinlogPosition] as number) > 4);
  assert.match(String(last[EmfProperty.Gtids]), /^\d+-\d+-\d+/);
  // Position and GTIDs are properties, never dimensions (they would create a metric per position).
  assert.ok(!METRIC_DIMENSIONS.includes(EmfProperty.BinlogFile));

  // The metric objects behind the published values, as the source wrote them.
  const { snapshot, streaming, schemaHistory } = handle.source.metrics;
  assert.deepEqual(snapshot.RowsScanned, { [`${name}.a`]: 3, [`${name}.b`]: 1 });
  assert.deepEqual([...snapshot.CapturedTables].sort(), [`${name}.a`, `${name}.b`]);
  assert.match(String(streaming.LastTransactionId), /^\d+-\d+-\d+$/, 'the GTID of the update');
  assert.equal(typeof streaming.LastEvent, 'string');
  assert.equal(schemaHistory?.Status, 'STOPPED');
  assert.match(String(schemaHistory?.LastAppliedChange), /CREATE TABLE/);
});
