/**
 * End-to-end streaming throughput: binlog from a live MariaDB → replication client → decoder → BinlogStreamer →
 * Debezium envelopes → serialised JSON records → ChangeQueue → Publisher → a sink that discards them (the
 * production MySqlSource + CaptureTask), vs @vlasky/zongji delivering the same rows from the same server to a
 * no-op handler. Workloads (bench/support/binlog-workload.ts): 200k inserts + 200k updates of an 8-column table,
 * and a quarter of that of a 50-column mixed-type table (wide) and of a table with a ~1 KB JSON document (json),
 * so a speed-up that only fits one shape shows. Each reader runs in its own child process, as compiled JavaScript
 * like the image (compiledScript in harness.ts), so its peak RSS is its own; figures are medians of RUNS runs.
 * Env: STREAMING_BENCH_ROWS (inserts = updates of the narrow table, default 200000), STREAMING_BENCH_RUNS (default
 * 3), STREAMING_BENCH_PROFILE (directory for CPU profiles of each reader), STREAMING_BENCH_SHAPES (comma-separated
 * subset of narrow,wide,json to run; default all, to profile or iterate on one shape).
 */
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startMariaDb } from '../test/harness/mariadb.js';
import type { Figure } from './harness.js';
import { compiledScript, imageNodeOptions, median } from './harness.js';
import { type ChangeWorkload, generateChangeWorkload, type WorkloadShape } from './support/binlog-workload.js';
import type { StreamingJob, StreamingMode, StreamingResult } from './support/streaming-reader.js';

const exec = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const HALF = Number(process.env.STREAMING_BENCH_ROWS ?? 200_000);
const RUNS = Number(process.env.STREAMING_BENCH_RUNS ?? 3);
const SHAPES = new Set((process.env.STREAMING_BENCH_SHAPES ?? 'narrow,wide,json').split(','));
const PROFILE = process.env.STREAMING_BENCH_PROFILE
  ? ['--cpu-prof', '--cpu-prof-dir', process.env.STREAMING_BENCH_PROFILE]
  : [];

async function readOnce(mode: StreamingMode, job: StreamingJob): Promise<StreamingResult> {
  const { stdout } = await exec(
    process.execPath,
    // Ours runs with the capture image's heap settings (Dockerfile NODE_OPTIONS and ENTRYPOINT flags); zongji with
    // Node's defaults.
    [
      ...PROFILE,
      ...(mode === 'ours' ? imageNodeOptions() : []),
      await compiledScript(join(here, 'support', 'streaming-reader.ts')),
      mode,
      JSON.stringify(job),
    ],
    { maxBuffer: 1 << 20 },
  );
  const result = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as StreamingResult;
  if (result.rows < job.rows) throw new Error(`${mode} saw ${result.rows} rows, expected ${job.rows}`);
  return result;
}

let serverId = 2000;

/** Both readers RUNS times over one workload. */
async function measureShape(
  server: Awaited<ReturnType<typeof startMariaDb>>,
  w: ChangeWorkload,
): Promise<Record<StreamingMode, StreamingResult[]>> {
  const job = (): StreamingJob => ({
    host: server.host,
    port: server.port,
    user: server.admin.user,
    password: server.admin.password,
    serverId: serverId++,
    database: w.database,
    table: w.table,
    file: w.start.file,
    pos: w.start.pos,
    rows: w.rows,
  });
  const results: Record<StreamingMode, StreamingResult[]> = { ours: [], zongji: [] };
  for (let i = 0; i < RUNS; i++) {
    for (const mode of ['ours', 'zongji'] as const) {
      const r = await readOnce(mode, job());
      process.stderr.write(`  ${w.table} ${JSON.stringify(r)}\n`);
      results[mode].push(r);
    }
  }
  return results;
}

const perCpuOf = (rs: StreamingResult[]) => median(rs.map((r) => Math.round(r.rows / (r.cpuMs / 1000))));

export async function run(): Promise<Figure[]> {
  const server = await startMariaDb({ options: { 'max-binlog-size': '1G', 'innodb-buffer-pool-size': '256M' } });
  try {
    const database = await server.createDatabase('workload');
    const w = SHAPES.has('narrow')
      ? await generateChangeWorkload(server, { inserts: HALF, updates: HALF, database })
      : null;
    if (w)
      process.stderr.write(`streaming bench: ${w.rows} row changes, ${(w.binlogBytes / 1048576).toFixed(1)} MiB\n`);
    const shapes: Figure[] = [];
    for (const shape of (['wide', 'json'] as WorkloadShape[]).filter((s) => SHAPES.has(s))) {
      const quarter = Math.max(1, Math.round(HALF / 4));
      const ws = await generateChangeWorkload(server, {
        inserts: quarter,
        updates: quarter,
        shape,
        database,
      });
      process.stderr.write(
        `streaming bench (${shape}): ${ws.rows} row changes, ${(ws.binlogBytes / 1048576).toFixed(1)} MiB\n`,
      );
      const rs = await measureShape(server, ws);
      const what =
        shape === 'wide'
          ? '50 columns of mixed types, updates touching 5'
          : 'a ~1 KB JSON document and two small columns, updates rewriting part of it';
      shapes.push({
        name: `streaming.${shape}.rows_per_cpu_s`,
        ours: perCpuOf(rs.ours),
        reference: perCpuOf(rs.zongji),
        unit: 'rows/cpu-s',
        ref: `@vlasky/zongji 0.9.0, same run; user+system CPU of each reader process; ${ws.rows} row changes (${quarter} inserts + ${quarter} updates, ${what}), median of ${RUNS}`,
      });
    }
    if (!w) return shapes;
    const job = (): StreamingJob => ({
      host: server.host,
      port: server.port,
      user: server.admin.user,
      password: server.admin.password,
      serverId: serverId++,
      database: w.database,
      table: w.table,
      file: w.start.file,
      pos: w.start.pos,
      rows: w.rows,
    });
    const results: Record<StreamingMode, StreamingResult[]> = { ours: [], zongji: [] };
    for (let i = 0; i < RUNS; i++) {
      for (const mode of ['ours', 'zongji'] as const) {
        const r = await readOnce(mode, job());
        process.stderr.write(`  ${JSON.stringify(r)}\n`);
        results[mode].push(r);
      }
    }
    const rate = (m: StreamingMode) => median(results[m].map((r) => r.rowsPerSecond));
    const perCpu = (m: StreamingMode) => median(results[m].map((r) => Math.round(r.rows / (r.cpuMs / 1000))));
    const rss = (m: StreamingMode) => median(results[m].map((r) => r.peakRssMb));
    const peakQueue = Math.max(...results.ours.map((r) => r.peakQueue ?? 0));
    const peakQueueKb = Math.round(Math.max(...results.ours.map((r) => r.peakQueueBytes ?? 0)) / 1024);
    // GC pauses are wall time of the main thread, so a busy machine inflates them; the counts are steady.
    const gcShare = (m: StreamingMode) => median(results[m].map((r) => Math.round((1000 * r.gcMs) / r.cpuMs) / 10));
    const gcCounts = (m: StreamingMode) =>
      `${median(results[m].map((r) => r.scavenges))} scavenges + ${median(results[m].map((r) => r.markCompacts))} mark-compacts`;
    const what = `${w.rows} row changes (${HALF} inserts + ${HALF} updates, 8 columns), median of ${RUNS}`;
    return [
      {
        name: 'streaming.end_to_end_rows_per_s',
        ours: rate('ours'),
        reference: rate('zongji'),
        unit: 'rows/s',
        ref: `@vlasky/zongji 0.9.0 rows to a no-op handler, same binlog, same server; ours = full pipeline to serialised Debezium JSON; ${what}`,
      },
      {
        // Wall-clock rates swing with other load on a shared machine; rows per CPU second (all threads, GC
        // included) is the steadier comparison.
        name: 'streaming.rows_per_cpu_s',
        ours: perCpu('ours'),
        reference: perCpu('zongji'),
        unit: 'rows/cpu-s',
        ref: `@vlasky/zongji 0.9.0, same run; user+system CPU of each reader process; ${what}`,
      },
      {
        name: 'streaming.peak_rss_mb',
        ours: rss('ours'),
        reference: rss('zongji'),
        unit: 'MB',
        ref: `@vlasky/zongji 0.9.0, same run, each in its own process; our change queue peaked at ${peakQueue} of max.queue.size ${results.ours[0]?.maxQueue} items, ${peakQueueKb} KB`,
        lowerIsBetter: true,
      },
      {
        name: 'streaming.gc_pause_share',
        ours: gcShare('ours'),
        reference: gcShare('zongji'),
        unit: '% of cpu',
        ref: `@vlasky/zongji 0.9.0, same run: main-thread GC pause time over the reader's CPU time; ours ${gcCounts('ours')}, zongji ${gcCounts('zongji')}; ${what}`,
        lowerIsBetter: true,
      },
      ...shapes,
    ];
  } finally {
    await server.stop();
  }
}
