import { parseArgs } from 'node:util';
import { CdcError, errorMessage } from '../../common/errors.js';
import { createLogger, type Logger } from '../../common/logger.js';
import type { CdcConfig } from '../../config/types.js';
import { CaptureTask } from '../../engine/capture-task.js';
import { buildComponents, type ComponentOverrides, type Components } from '../../engine/components.js';
import { retryPolicyFrom } from '../../engine/retry.js';
import { startMetrics } from '../../metrics/index.js';
import type { ChangeSource } from '../../model/change-source.js';
import type { SinkRecord } from '../../model/sink-record.js';
import { createNotificationService, type NotificationService } from '../../notifications/index.js';
import { createConnectionFactory } from '../../source/mysql/connection-factory.js';
import { MySqlSource, type MySqlSourceOptions } from '../../source/mysql/mysql-source.js';
import { VitessSource } from '../../source/vitess/vitess-source.js';
import { applyTransforms, buildChain, TransformConfigError } from '../../transforms/index.js';
import { CONFIG_OPTIONS, CONFIG_USAGE, loadCliConfig } from '../config-loader.js';
import { type CliIo, type Command, ExitCode, wantsHelp } from '../io.js';
import { progressBarFor } from '../snapshot-progress-bar.js';
import { stateFiles } from '../state-location.js';

const usage = `usage: cdc run --config <file> [--until-idle <ms>] [--set key=value]...

The capture task: takes a consistent snapshot when needed (snapshot.mode), then streams the binlog, publishing
Debezium change events to the configured sink and committing offsets after delivery.

${CONFIG_USAGE}
  --until-idle <ms>     exit 0 once caught up with the server and no change was seen for <ms>

Exit codes: 0 stopped cleanly, 1 failed at run time, 2 bad configuration, 130 interrupted.
Logs: JSON lines on stderr (readable lines on a terminal; log.format to choose).
`;

export interface CaptureHandle {
  task: CaptureTask;
  source: ChangeSource;
  done: Promise<void>;
  stop(): void;
}

/** Builds and starts a capture task for `config` (shared by `cdc run` and `cdc demo`). */
export function startCapture(
  config: CdcConfig,
  logger: Logger,
  opts: {
    untilIdleMs?: number;
    stdout?: NodeJS.WritableStream;
    onDelivered?: CaptureTask['options']['onDelivered'];
    /** Replace built components (tests inject a Kinesis client carrying fault-injection middleware). */
    overrides?: ComponentOverrides;
    /** Wraps the source's connection factory (tests: act on the server between the source's own queries). */
    wrapConnect?: (connect: MySqlSourceOptions['connect']) => MySqlSourceOptions['connect'];
  } = {},
): CaptureHandle {
  // Built first so a bad transforms.* configuration fails at start-up, before anything connects.
  const chain = buildChain(config.transforms);
  const components = buildComponents(config, logger, opts.stdout, opts.overrides);
  const notifications = createNotificationService(config, logger);
  const source = createSource(config, components, logger, notifications, opts.wrapConnect);
  const task = new CaptureTask({
    source,
    sink: components.sink,
    offsetStore: components.offsetStore,
    lease: components.lease,
    logger,
    maxBatchSize: config.engine.maxBatchSize,
    maxQueueSize: config.engine.maxQueueSize,
    maxQueueSizeInBytes: config.engine.maxQueueSizeInBytes,
    offsetFlushIntervalMs: config.offsets.flushIntervalMs,
    retry: retryPolicyFrom(config.engine.errors),
    ...(opts.onDelivered ? { onDelivered: opts.onDelivered } : {}),
    ...(chain.steps.length > 0 ? { transform: (records: SinkRecord[]) => applyTransforms(chain, records) } : {}),
  });
  const abort = new AbortController();
  const done = task
    .run({ signal: abort.signal, ...(opts.untilIdleMs !== undefined ? { untilIdleMs: opts.untilIdleMs } : {}) })
    .finally(async () => {
      await components.offsetStore.close().catch(() => {});
      await components.schemaHistory.close().catch(() => {});
      await notifications?.close().catch(() => {});
    });
  return { task, source, done, stop: () => abort.abort() };
}

/**
 * The source seam: the engine only sees a ChangeSource; `connector.class` picks the implementation (the Vitess
 * source keeps no schema history: VStream describes every table in its FIELD events).
 */
function createSource(
  config: CdcConfig,
  components: Components,
  logger: Logger,
  notifications: NotificationService | null,
  wrapConnect: ((connect: MySqlSourceOptions['connect']) => MySqlSourceOptions['connect']) | undefined,
): ChangeSource {
  const sourceLogger = logger.child({ component: 'source' });
  if (config.vitess) return new VitessSource({ config, logger: sourceLogger });
  return new MySqlSource({
    config,
    history: components.schemaHistory,
    connect: (wrapConnect ?? ((c) => c))(createConnectionFactory({ config, logger })),
    logger: sourceLogger,
    notifications,
  });
}

export const runCommand: Command = {
  name: 'run',
  usage,
  async run(argv, io: CliIo) {
    if (wantsHelp(argv)) {
      io.stdout.write(usage);
      return ExitCode.OK;
    }
    const { values } = parseArgs({
      args: argv,
      options: { ...CONFIG_OPTIONS, 'until-idle': { type: 'string' } },
      strict: true,
    });
    const untilIdle = values['until-idle'] === undefined ? undefined : Number(values['until-idle']);
    if (untilIdle !== undefined && !(Number.isFinite(untilIdle) && untilIdle >= 0)) {
      io.stderr.write(`cdc run: --until-idle needs a number of milliseconds, got '${values['until-idle']}'\n`);
      return ExitCode.USAGE;
    }
    const config = await loadCliConfig(values, io);
    if (!config) return ExitCode.USAGE;
    const logger = createLogger({
      level: config.log.level,
      ...(config.log.format === 'auto' ? {} : { format: config.log.format }),
      stream: io.stderr,
      base: { connector: config.name },
    });
    const files = stateFiles(config);
    if (files.length > 0) {
      logger.info('state files', Object.fromEntries(files.map((f) => [f.property, f.absolute])));
    }
    let handle: CaptureHandle;
    try {
      handle = startCapture(config, logger, {
        ...(untilIdle !== undefined ? { untilIdleMs: untilIdle } : {}),
        stdout: io.stdout,
      });
    } catch (err) {
      if (err instanceof TransformConfigError) {
        io.stderr.write(`${err.message}\n`);
        return ExitCode.USAGE;
      }
      throw err;
    }
    // EMF lines go to stdout (CloudWatch extracts them from the task's log stream); stderr when stdout is the sink.
    const metrics =
      config.metrics.emfEnabled || config.metrics.httpPort !== null
        ? startMetrics({
            config,
            source: handle.source,
            task: handle.task,
            logger: logger.child({ component: 'metrics' }),
            stdout: config.sink.type === 'stdout' ? io.stderr : io.stdout,
          })
        : null;
    const progressBar = progressBarFor(handle.source.metrics.snapshot, io.stderr);
    let interrupted = false;
    const onSignal = () => {
      interrupted = true;
      logger.info('stopping on signal');
      handle.stop();
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      await handle.done;
      logger.info('capture stopped', { offset: handle.task.committedOffset });
      return interrupted ? ExitCode.INTERRUPTED : ExitCode.OK;
    } catch (err) {
      const code = err instanceof CdcError ? err.code : 'INTERNAL';
      logger.error('capture failed', { code, error: errorMessage(err) });
      return ExitCode.FAILURE;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      progressBar?.stop();
      await metrics?.stop();
    }
  },
};
