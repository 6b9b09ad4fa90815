/**
 * End to end, in process: MariaDB -> snapshot + binlog streaming -> KinesisSink (4-shard kinesalite stream) with
 * offsets, schema history and the lease in dynalite, while a concurrent writer inserts, updates, deletes and changes
 * primary keys during and after the snapshot. A consumer reading every shard must rebuild exactly the table, with
 * per-key order (source file/pos/row) intact.
 *
 * The second test injects partial PutRecords failures and throttling with an SDK middleware on the sink's client.
 * That middleware is the only fake here: neither kinesalite nor any other emulator produces partial failures or
 * throttling, so they are simulated exactly where the service would report them (entries reported as failed are
 * removed from the request and really not written).
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import { startCapture } from '../../src/cli/commands/run.js';
import { createLogger } from '../../src/common/logger.js';
import { parseConfig } from '../../src/config/index.js';
import { createStream, kinesisClient } from '../harness/aws.js';
import { useDynalite, useKinesalite, useMariaDb } from '../harness/fixtures.js';
import { waitFor } from '../harness/wait.js';
import {
  analyse,
  ChangeWriter,
  captureProperties,
  type LogLine,
  StreamConsumer,
  seedTable,
  setStandInCredentials,
  stateDiff,
  TABLE,
  tableState,
} from './support/kinesis-e2e.js';
// The only fake here: injected partial PutRecords failures and throttling (no emulator produces them).
import { injectFaults } from './support/kinesis-faults.js';

const db = useMariaDb();
const kinesalite = useKinesalite();
const dynalite = useDynalite();
let adminClient: KinesisClient | undefined;
/** Created on first use: node:test may run this file's hooks before the harness hooks have started kinesalite. */
const admin = () => {
  adminClient ??= kinesisClient(kinesalite().endpoint);
  return adminClient;
};

before(() => setStandInCredentials());
after(() => adminClient?.destroy());

/** A JSON logger whose lines are also kept for the test to look at. */
function capturingLogger() {
  const lines: LogLine[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n')) if (l) lines.push(JSON.parse(l) as LogLine);
      if (process.env.CDC_TEST_DEBUG) process.stderr.write(chunk);
      cb();
    },
  });
  return { logger: createLogger({ level: 'info', format: 'json', stream }), lines };
}

async function captureWhileWriting(opts: { aggregation: boolean; faults: boolean }) {
  const server = db();
  const name = await server.createDatabase(opts.faults ? 'e2ef' : 'e2e');
  const rows = 12_000;
  await seedTable(server, name, rows);
  const stream = `e2e-${name}`;
  await createStream(admin(), stream, 4);
  const config = parseConfig(
    captureProperties(server, name, { kinesis: kinesalite().endpoint, dynamodb: dynalite().endpoint }, stream, {
      'sink.kinesis.aggregation': String(opts.aggregation),
      'max.batch.size': '1000',
      'max.queue.size': '4000',
      'offset.flush.interval.ms': '200',
      // One task, nobody to take over: the lease only has to survive a loaded machine (the stand-ins and the
      // capture share this process), so it stops only after 13 s without a renewal (6000/1000 allowed 4 s).
      'lease.duration.ms': '20000',
      'lease.renew.interval.ms': '1000',
    }),
  );
  const client = kinesisClient(kinesalite().endpoint);
  const faults = opts.faults ? injectFaults(client, 3, 4) : null;
  const writer = await ChangeWriter.open(server, name, rows, 0xc0ffee + (opts.faults ? 1 : 0));
  const { logger, lines } = capturingLogger();
  writer.start();
  await waitFor('the writer to get going', () => writer.ops >= 20, 60_000);
  const handle = startCapture(config, logger, { untilIdleMs: 500, overrides: { kinesisClient: client } });
  let opsDuringSnapshot = 0;
  try {
    const has = (msg: string) => lines.some((l) => l.msg === msg);
    // Timeouts only bound a failure: on a loaded machine (the writer, the capture and the stand-ins share this
    // process) the writer managed < 600 ops in 20 s and the 12,000-row snapshot took > 30 s.
    await waitFor('the snapshot position', () => has('snapshot position established'), 60_000);
    const opsAtSnapshotStart = writer.ops;
    await waitFor('the snapshot to complete', () => has('snapshot completed'), 120_000);
    opsDuringSnapshot = writer.ops - opsAtSnapshotStart;
    const opsAtStreaming = writer.ops;
    await waitFor('writes while streaming', () => writer.ops >= opsAtStreaming + 600, 120_000);
    await writer.bigInsert(2000);
    await writer.close();
    await handle.done;
  } finally {
    await writer.close().catch(() => {});
    handle.stop();
    await handle.done.catch(() => {});
    client.destroy();
  }
  const consumer = new StreamConsumer(admin(), stream);
  await consumer.poll();
  const a = analyse(consumer.events, TABLE);
  const expected = await tableState(server, name, TABLE);
  return { a, expected, consumer, faults, lines, writerOps: writer.ops, opsDuringSnapshot };
}

test('snapshot + streaming of a changing table to a 4-shard stream: consumer rebuilds the table, per-key order holds', async (t) => {
  const { a, expected, consumer, lines, writerOps, opsDuringSnapshot } = await captureWhileWriting({
    aggregation: false,
    faults: false,
  });
  t.diagnostic(
    `events ${a.dataEvents} (+${a.tombstones} tombstones), keys ${a.keys}, rows ${expected.size}, writer ops ${writerOps} ` +
      `(${opsDuringSnapshot} during the snapshot), kinesis records ${consumer.kinesisRecords}`,
  );
  assert.ok(opsDuringSnapshot > 0, 'the writer changed rows while the snapshot ran');
  assert.ok(
    lines.some((l) => l.msg === 'lease acquired'),
    'the task held the lease',
  );
  assert.deepEqual(stateDiff(expected, a.state).slice(0, 10), []);
  assert.equal(a.state.size, expected.size);
  assert.deepEqual(a.orderViolations.slice(0, 10), []);
  assert.equal(a.duplicates, 0, 'a clean run publishes every change once');
  // Every shard got data (keys spread by partition key hash).
  assert.equal(new Set(consumer.events.map((e) => e.shardId)).size, 4);
  assert.ok(writerOps > 600, `writer ops ${writerOps}`);
  assert.ok(a.tombstones > 0, 'deletes and PK changes produced tombstones');
  const ops = new Set(
    consumer.events.filter((e) => e.value && 'op' in e.value).map((e) => (e.value as { op: string }).op),
  );
  assert.deepEqual([...ops].sort(), ['c', 'd', 'r', 'u']);
});

test('injected partial PutRecords failures and throttling (aggregated): nothing lost, per-key order holds', async (t) => {
  const { a, expected, consumer, faults } = await captureWhileWriting({ aggregation: true, faults: true });
  t.diagnostic(
    `events ${a.dataEvents}, kinesis records ${consumer.kinesisRecords}, PutRecords calls ${faults!.calls}, ` +
      `failed entries ${faults!.failedEntries}, throttled calls ${faults!.throttledCalls}`,
  );
  assert.ok(faults!.failedEntries >= 10, `failed entries injected: ${faults!.failedEntries}`);
  assert.ok(faults!.throttledCalls >= 5, `throttled calls injected: ${faults!.throttledCalls}`);
  assert.deepEqual(stateDiff(expected, a.state).slice(0, 10), []);
  assert.equal(a.state.size, expected.size);
  assert.deepEqual(a.orderViolations.slice(0, 10), []);
  assert.equal(a.duplicates, 0, 'retries re-send only the entries Kinesis reported as failed');
  assert.ok(consumer.kinesisRecords * 5 < consumer.events.length, 'aggregation packed several events per record');
});
