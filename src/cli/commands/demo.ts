/**
 * `cdc demo`: the whole pipeline on embedded defaults. A private MariaDB with Debezium's tutorial `inventory`
 * database, in-memory Kinesis (kinesalite) and DynamoDB (dynalite), the capture task with offsets, schema history
 * and lease in DynamoDB publishing to Kinesis, a few live changes, and a live view of what arrives on the stream.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { errorMessage } from '../../common/errors.js';
import { createLogger } from '../../common/logger.js';
import { parseConfig } from '../../config/index.js';
import * as aws from '../../embedded/aws-stand-ins.js';
import { ensureMariaDbInstalled, startMariaDb } from '../../embedded/mariadb.js';
import { INVENTORY_DATA, INVENTORY_LIVE_CHANGES, INVENTORY_SCHEMA } from '../demo/inventory.js';
import { LiveView } from '../demo/live-view.js';
import { tailStream } from '../demo/stream-tail.js';
import { type Command, ExitCode, wantsHelp } from '../io.js';
import { startCapture } from './run.js';

const usage = `usage: cdc demo [--for <seconds>]

Runs the capture end to end on embedded defaults: a private MariaDB (installed from Debian's packages when
missing and running as root), kinesalite and dynalite in memory, the Debezium tutorial's inventory database.
Shows the snapshot, then live changes (insert, update, ALTER TABLE, delete) as they arrive on the Kinesis stream,
with the lag. Ctrl-C stops it cleanly.

  --for <seconds>   stop by itself after this long and exit 0 (default: run until Ctrl-C)
`;

const STREAM = 'dbserver1';

export const demoCommand: Command = {
  name: 'demo',
  usage,
  async run(argv, io) {
    if (wantsHelp(argv)) {
      io.stdout.write(usage);
      return ExitCode.OK;
    }
    const { values } = parseArgs({ args: argv, options: { for: { type: 'string' } }, strict: true });
    const forSeconds = values.for === undefined ? null : Number(values.for);
    if (forSeconds !== null && !(forSeconds > 0)) {
      io.stderr.write(`cdc demo: --for needs a positive number of seconds, got '${values.for}'\n`);
      return ExitCode.USAGE;
    }
    const view = new LiveView(io.stdout, Boolean((io.stdout as { isTTY?: boolean }).isTTY));
    const stop = new AbortController();
    const onSignal = () => {
      view.note('stopping (Ctrl-C)');
      stop.abort();
    };
    // `on`, not `once`: the listener must stay registered while the demo stops, so the MariaDB harness's own signal
    // hook sees that the signal is handled and neither kills the server nor re-raises the signal (no summary then).
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    const cleanups: Array<() => Promise<unknown>> = [];
    const dir = mkdtempSync(join(tmpdir(), 'cdc-demo-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    let exit: number = ExitCode.OK;
    try {
      view.note('starting a private MariaDB (binlog ROW, FULL row image and metadata)');
      await ensureMariaDbInstalled();
      const db = await startMariaDb();
      cleanups.push(() => db.stop());
      await db.query('CREATE DATABASE inventory');
      const admin = await db.connect({ database: 'inventory', multipleStatements: true });
      cleanups.push(() => admin.end());
      for (const sql of [...INVENTORY_SCHEMA, ...INVENTORY_DATA]) await admin.query(sql);
      view.note(`MariaDB ${db.version} on 127.0.0.1:${db.port} with the inventory database`);

      const kinesis = await aws.startKinesalite();
      cleanups.push(() => kinesis.stop());
      const dynamo = await aws.startDynalite();
      cleanups.push(() => dynamo.stop());
      // The SDK's notice about Node 22 is for maintainers, not for someone watching the demo.
      process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
      const kinesisClient = aws.kinesisClient(kinesis.endpoint);
      // One shard keeps the live view in publication order (per-key order holds on any number of shards).
      await aws.createStream(kinesisClient, STREAM, 1);
      // The stand-ins accept any credentials; the SDK just needs some.
      process.env.AWS_ACCESS_KEY_ID ??= aws.STAND_IN_CREDENTIALS.accessKeyId;
      process.env.AWS_SECRET_ACCESS_KEY ??= aws.STAND_IN_CREDENTIALS.secretAccessKey;
      view.note(`kinesalite ${kinesis.endpoint} (stream ${STREAM}), dynalite ${dynamo.endpoint}`);

      const config = parseConfig({
        name: 'inventory-connector',
        'topic.prefix': STREAM,
        'database.hostname': db.host,
        'database.port': String(db.port),
        'database.user': db.aurora.user,
        'database.password': db.aurora.password,
        'database.server.id': '184054',
        'database.include.list': 'inventory',
        'database.ssl.mode': 'disabled',
        'sink.type': 'kinesis',
        'sink.kinesis.stream.name': STREAM,
        'aws.region': aws.STAND_IN_REGION,
        'aws.endpoint': '', // per-service endpoints below
        'sink.kinesis.endpoint': kinesis.endpoint,
        'offset.storage': 'dynamodb',
        'offset.storage.dynamodb.table': 'cdc-offsets',
        'offset.storage.dynamodb.endpoint': dynamo.endpoint,
        'offset.storage.dynamodb.table.create': 'true',
        'schema.history.internal': 'dynamodb',
        'schema.history.internal.dynamodb.table': 'cdc-schema-history',
        'schema.history.internal.dynamodb.endpoint': dynamo.endpoint,
        'schema.history.internal.dynamodb.table.create': 'true',
        'lease.enabled': 'true',
        'lease.dynamodb.table': 'cdc-lease',
        'lease.dynamodb.endpoint': dynamo.endpoint,
        'offset.flush.interval.ms': '500',
      });
      const logger = createLogger({ level: 'warn', stream: io.stderr });
      view.note('capture task: snapshot (as the RELOAD-less, Aurora-like user), then streaming');
      const capture = startCapture(config, logger);
      cleanups.push(async () => {
        capture.stop();
        await capture.done.catch(() => {});
      });
      const tail = tailStream(kinesisClient, STREAM, (r) => view.record(r), stop.signal);

      const until = forSeconds === null ? null : Date.now() + forSeconds * 1000;
      const timer = until === null ? null : setTimeout(() => stop.abort(), until - Date.now());
      const failed = capture.done.then(
        () => null,
        (err: unknown) => err,
      );

      await waitFor(() => capture.source.metrics.phase === 'streaming' || stop.signal.aborted, 60_000);
      for (const change of INVENTORY_LIVE_CHANGES) {
        if (stop.signal.aborted) break;
        await delay(1500, stop.signal);
        if (stop.signal.aborted) break;
        view.note(`live change: ${change.label}: ${change.sql}`);
        await admin.query(change.sql);
      }
      if (!stop.signal.aborted) view.note('waiting for more changes (Ctrl-C to stop)');
      // The time may be up already (a --for shorter than the start-up): a listener added now would never fire.
      const stopped = stop.signal.aborted
        ? Promise.resolve()
        : new Promise((r) => stop.signal.addEventListener('abort', r, { once: true }));
      await Promise.race([stopped, failed]);
      if (timer) clearTimeout(timer);
      stop.abort();
      capture.stop();
      const err = await failed;
      await tail.catch(() => {});
      if (err && stoppedMidSnapshot(err)) view.note('stopped during the snapshot');
      else if (err) {
        io.stderr.write(`cdc demo: the capture failed: ${errorMessage(err)}\n`);
        exit = ExitCode.FAILURE;
      }
      const offset = capture.task.committedOffset;
      view.note(`summary: ${view.summary()}`);
      if (offset)
        view.note(
          `committed offset in DynamoDB: ${offset.file}:${offset.pos}${offset.gtids ? ` (GTIDs ${offset.gtids})` : ''}`,
        );
    } catch (err) {
      io.stderr.write(`cdc demo: ${errorMessage(err)}\n`);
      exit = ExitCode.FAILURE;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      for (const c of cleanups.reverse()) await c().catch(() => {});
    }
    return exit;
  },
};

/** The snapshot ended by the demo's own stop (its abort), not by a failure. */
function stoppedMidSnapshot(err: unknown): boolean {
  const cause = (err as { cause?: unknown }).cause;
  return (err as Error).name === 'SnapshotError' && (cause as Error | undefined)?.name === 'AbortError';
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        resolve();
      },
      { once: true },
    );
  });
}

async function waitFor(cond: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the capture to reach streaming');
    await new Promise((r) => setTimeout(r, 100));
  }
}
