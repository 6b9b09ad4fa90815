/**
 * One reader of the streaming benchmark, in its own process so its peak RSS is its own:
 *   node --import tsx bench/support/streaming-reader.ts <ours|zongji> '<StreamingJob JSON>'
 * ours: the production pipeline (MySqlSource: replication client → decoder → BinlogStreamer → record factory →
 * ChangeQueue → Publisher) into a sink that discards the serialised records. zongji: @vlasky/zongji delivering
 * rows to a no-op handler. Both start at `file:pos` and stop after `rows` row changes; one JSON line on stdout.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants, type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';
import type { SinkRecord } from '../../src/model/sink-record.js';
import type { Sink } from '../../src/sinks/sink.js';
import { peakRssMb } from '../harness.js';

export type StreamingMode = 'ours' | 'zongji';

export interface StreamingJob {
  host: string;
  port: number;
  user: string;
  password: string;
  serverId: number;
  database: string;
  table: string;
  file: string;
  pos: number;
  rows: number;
}

export interface StreamingResult {
  mode: StreamingMode;
  rows: number;
  ms: number;
  rowsPerSecond: number;
  peakRssMb: number;
  /** User + system CPU time of the reader process (steadier than wall time on a busy machine). */
  cpuMs: number;
  /** Garbage-collector pauses of the reader's main thread (PerformanceObserver 'gc' entries): count and ms. */
  scavenges: number;
  markCompacts: number;
  gcMs: number;
  /** ours: the most items (bounded by max.queue.size) and bytes the change queue held at once. */
  peakQueue?: number;
  peakQueueBytes?: number;
  maxQueue?: number;
}

let keep: unknown;

/** What ours runs, loaded only by ours: each reader's CPU time includes loading its own code, not the other's. */
async function loadOurs() {
  const [logger, config, task, factory, source, offsets, history] = await Promise.all([
    import('../../src/common/logger.js'),
    import('../../src/config/index.js'),
    import('../../src/engine/capture-task.js'),
    import('../../src/source/mysql/connection-factory.js'),
    import('../../src/source/mysql/mysql-source.js'),
    import('../../src/stores/file/file-offset-store.js'),
    import('../../src/stores/file/file-schema-history.js'),
  ]);
  return {
    silentLogger: logger.silentLogger,
    parseConfig: config.parseConfig,
    CaptureTask: task.CaptureTask,
    createConnectionFactory: factory.createConnectionFactory,
    MySqlSource: source.MySqlSource,
    FileOffsetStore: offsets.FileOffsetStore,
    FileSchemaHistory: history.FileSchemaHistory,
  };
}

async function ours(
  job: StreamingJob,
): Promise<{ rows: number; peakQueue: number; peakQueueBytes: number; maxQueue: number }> {
  const {
    silentLogger,
    parseConfig,
    CaptureTask,
    createConnectionFactory,
    MySqlSource,
    FileOffsetStore,
    FileSchemaHistory,
  } = await loadOurs();
  const dir = mkdtempSync(join(tmpdir(), 'bench-streaming-'));
  const config = parseConfig({
    name: 'bench',
    'topic.prefix': 'bench',
    'database.hostname': job.host,
    'database.port': String(job.port),
    'database.user': job.user,
    'database.password': job.password,
    'database.server.id': String(job.serverId),
    'database.ssl.mode': 'disabled',
    'table.include.list': `${job.database}\\.${job.table}`,
    'sink.type': 'file',
    'sink.file.path': join(dir, 'unused.ndjson'),
    'offset.storage.file.filename': join(dir, 'offsets.json'),
    'schema.history.internal.file.filename': join(dir, 'history.jsonl'),
    ...(process.env.STREAMING_BENCH_PROPS
      ? (JSON.parse(process.env.STREAMING_BENCH_PROPS) as Record<string, string>)
      : {}),
  });
  // Resume from the workload start; with no history the source reads the table definition from the server.
  const offsets = new FileOffsetStore({ path: join(dir, 'offsets.json'), connectorName: config.name });
  await offsets.commit({ file: job.file, pos: job.pos });
  const abort = new AbortController();
  let rows = 0;
  const sink: Sink = {
    name: 'discard',
    async start() {},
    async send(records: SinkRecord[]) {
      for (const r of records) {
        if (r.topic.endsWith(job.table)) rows++;
        keep = r.value;
      }
      if (rows >= job.rows) abort.abort();
    },
    async close() {},
  };
  const source = new MySqlSource({
    config,
    history: new FileSchemaHistory({ path: join(dir, 'history.jsonl'), connectorName: config.name }),
    connect: createConnectionFactory({ config, logger: silentLogger }),
    logger: silentLogger,
  });
  const task = new CaptureTask({
    source,
    sink,
    offsetStore: offsets,
    logger: silentLogger,
    maxBatchSize: config.engine.maxBatchSize,
    maxQueueSize: config.engine.maxQueueSize,
    maxQueueSizeInBytes: config.engine.maxQueueSizeInBytes,
    offsetFlushIntervalMs: config.offsets.flushIntervalMs,
  });
  await task.run({ signal: abort.signal });
  return {
    rows,
    peakQueue: task.queue.peakLength,
    peakQueueBytes: task.queue.peakSizeInBytes,
    maxQueue: config.engine.maxQueueSize,
  };
}

async function zongji(job: StreamingJob): Promise<{ rows: number }> {
  const { default: ZongJi } = await import('@vlasky/zongji');
  return new Promise((resolve, reject) => {
    const z = new ZongJi({ host: job.host, port: job.port, user: job.user, password: job.password });
    let rows = 0;
    z.on('binlog', (ev) => {
      if (!('rows' in ev)) return;
      for (const row of ev.rows) keep = row;
      rows += ev.rows.length;
      if (rows >= job.rows && !z.stopped) {
        z.stop();
        resolve({ rows });
      }
    });
    z.on('error', reject);
    z.start({
      serverId: job.serverId,
      filename: job.file,
      position: job.pos,
      includeEvents: ['tablemap', 'writerows', 'updaterows', 'deleterows'],
    });
  });
}

const mode = process.argv[2] as StreamingMode;
const job = JSON.parse(process.argv[3] ?? '{}') as StreamingJob;
if (mode !== 'ours' && mode !== 'zongji') throw new Error(`unknown mode ${mode}`);
const gc = { scavenges: 0, markCompacts: 0, ms: 0 };
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const kind = (e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
    if (kind === constants.NODE_PERFORMANCE_GC_MINOR) gc.scavenges++;
    else if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) gc.markCompacts++;
    gc.ms += e.duration;
  }
}).observe({ entryTypes: ['gc'] });
const t0 = performance.now();
const cpu0 = process.cpuUsage();
const out = mode === 'ours' ? await ours(job) : await zongji(job);
const ms = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
if (keep === undefined) throw new Error('nothing consumed');
const result: StreamingResult = {
  mode,
  ...out,
  ms: Math.round(ms),
  cpuMs: Math.round((cpu.user + cpu.system) / 1000),
  scavenges: gc.scavenges,
  markCompacts: gc.markCompacts,
  gcMs: Math.round(gc.ms),
  rowsPerSecond: Math.round(out.rows / (ms / 1000)),
  peakRssMb: Math.round((await peakRssMb()) * 10) / 10,
};
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0);
