/**
 * A Kinesis outage is visible (issue 18 item 7): kinesalite stops listening while the capture runs; the first
 * failure is logged at warn, then rate-limited summaries with attempts and the oldest unacknowledged age; metrics
 * and /health show it; after kinesalite comes back the change is delivered and the recovery logged.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { startCapture } from '../../src/cli/commands/run.js';
import { createLogger } from '../../src/common/logger.js';
import { startMetrics } from '../../src/metrics/index.js';
import { createStream, kinesisClient } from '../harness/aws.js';
import { useKinesalite, useMariaDb } from '../harness/fixtures.js';
import { waitFor } from '../harness/wait.js';
import { captureEnv } from './support/capture.js';
import { StreamConsumer, setStandInCredentials } from './support/kinesis-e2e.js';

setStandInCredentials();
const db = useMariaDb();
const kinesalite = useKinesalite();

test('Kinesis down: first failure logged, then summaries; metrics and /health show it; recovery delivers', async () => {
  const server = db();
  const name = await server.createDatabase('outage');
  await server.query(`CREATE TABLE ${name}.t (id INT PRIMARY KEY)`);
  await server.query(`INSERT INTO ${name}.t VALUES (1)`);
  const client = kinesisClient(kinesalite().endpoint);
  await createStream(client, 'outage');
  const consumer = new StreamConsumer(client, 'outage');
  const env = captureEnv(server, name, {
    'sink.type': 'kinesis',
    'sink.file.path': '',
    'sink.kinesis.stream.name': 'outage',
    'sink.kinesis.endpoint': kinesalite().endpoint,
    'aws.region': 'us-east-1',
    'errors.retry.delay.initial.ms': '20',
    'errors.retry.delay.max.ms': '50',
    // Small bounds, so that the outage fills the queue and the reader has to wait (memory stays bounded).
    'max.queue.size': '64',
    'max.batch.size': '16',
  });
  const logs: Record<string, unknown>[] = [];
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) logs.push(JSON.parse(line));
  });
  const logger = createLogger({ level: 'info', format: 'json', stream });
  const handle = startCapture(env.config, logger, { overrides: { kinesisOutageSummaryIntervalMs: 300 } });
  const metrics = startMetrics({
    config: { name: env.config.name, metrics: { emfEnabled: false, httpPort: 0 } },
    source: handle.source,
    task: handle.task,
    logger,
    stdout: new PassThrough(),
    health: { deliveryStallMs: 1000 },
  });
  const addr = await metrics.http;
  assert.ok(addr);
  const health = async () => {
    const r = await fetch(`http://127.0.0.1:${addr.port}/health`);
    return { code: r.status, body: (await r.json()) as { delivery?: { failedAttempts: number } } };
  };
  const messages = () => logs.map((l) => String(l.msg));
  try {
    await consumer.waitForId(1, 30_000);
    await waitFor('the snapshot row to be committed', () => handle.task.committedOffset?.snapshot !== true, 30_000);
    const committed = JSON.stringify(handle.task.committedOffset);

    await kinesalite().pause();
    await server.query(`INSERT INTO ${name}.t VALUES (2)`);
    await waitFor(
      'the first failure log line',
      () => messages().includes('kinesis delivery failing; retrying'),
      30_000,
    );
    await waitFor('a summary log line', () => messages().includes('kinesis delivery still failing'), 30_000);
    const summary = logs.find((l) => l.msg === 'kinesis delivery still failing')!;
    assert.equal(summary.level, 'warn');
    assert.ok(Number(summary.failedAttempts) >= 2, JSON.stringify(summary));
    assert.ok(Number(summary.oldestUnacknowledgedAgeMs) > 0, JSON.stringify(summary));
    // One line for the first failure, then summaries only: far fewer lines than attempts.
    const failureLines = messages().filter((m) => m.startsWith('kinesis delivery')).length;
    const metricsText = await (await fetch(`http://127.0.0.1:${addr.port}/metrics`)).text();
    assert.match(metricsText, /cdc_sink_delivery_failing\{[^}]*\} 1/);
    const attempts = Number(/cdc_sink_failed_attempts\{[^}]*\} (\d+)/.exec(metricsText)?.[1]);
    assert.ok(attempts > failureLines, `${attempts} attempts, ${failureLines} log lines`);
    await waitFor('/health to report the stalled sink', async () => (await health()).code === 503, 30_000);
    assert.ok(((await health()).body.delivery?.failedAttempts ?? 0) > 0);
    assert.equal(JSON.stringify(handle.task.committedOffset), committed);

    // Changes keep coming during the outage: the queue fills to its bound and the binlog reader waits, so memory
    // does not grow with the outage (the server keeps the binlog).
    await server.query(`INSERT INTO ${name}.t SELECT seq FROM ${name}.seq_3_to_1002`);
    await waitFor('the queue to fill to its bound', () => handle.task.queue.length >= 64 - 16, 30_000);
    const peak = { items: 0, bytes: 0 };
    for (let i = 0; i < 20; i++) {
      peak.items = Math.max(peak.items, handle.task.queue.length);
      peak.bytes = Math.max(peak.bytes, handle.task.queue.sizeInBytes);
      await new Promise((r) => setImmediate(r));
    }
    assert.ok(peak.items <= 64, `queue held ${peak.items} items (bound 64) during the outage`);

    await kinesalite().resume();

    await waitFor('recovery', () => messages().includes('kinesis delivery recovered'), 30_000);
    await waitFor(
      'the new row to be committed',
      () => JSON.stringify(handle.task.committedOffset) !== committed,
      30_000,
    );
    await consumer.waitForId(2, 30_000);
    await consumer.waitForId(1002, 60_000); // and every change made during the outage
    assert.equal((await health()).code, 200);
  } finally {
    // A task stopping during an outage keeps retrying (unlimited): bring Kinesis back so it can finish.
    await kinesalite()
      .resume()
      .catch(() => {});
    client.destroy();
    handle.stop();
    await handle.done.catch(() => {});
    await metrics.stop();
  }
});
