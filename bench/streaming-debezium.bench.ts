/**
 * Streaming against Debezium: the streaming bench's workload (200k inserts + 200k updates of the 8-column table,
 * bench/support/binlog-workload.ts) on a fresh server, read by our full pipeline (bench/support/streaming-reader.ts,
 * as in streaming.bench.ts) and by Debezium's embedded engine with a no-op consumer
 * (bench/support/debezium-reference.ts), in the same run. Debezium's rate and CPU span its first to last record
 * (JVM start excluded); ours span the whole reader. Env: STREAMING_BENCH_ROWS (inserts = updates, default 200000).
 */
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startMariaDb } from '../test/harness/mariadb.js';
import type { Figure } from './harness.js';
import { generateChangeWorkload } from './support/binlog-workload.js';
import { DEBEZIUM_REF, debeziumStreaming } from './support/debezium-reference.js';
import type { StreamingJob, StreamingResult } from './support/streaming-reader.js';

const exec = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const HALF = Number(process.env.STREAMING_BENCH_ROWS ?? 200_000);

export async function run(): Promise<Figure[]> {
  const server = await startMariaDb({ options: { 'max-binlog-size': '1G', 'innodb-buffer-pool-size': '256M' } });
  try {
    const w = await generateChangeWorkload(server, { inserts: HALF, updates: HALF });
    const job: StreamingJob = {
      host: server.host,
      port: server.port,
      user: server.admin.user,
      password: server.admin.password,
      serverId: 2900,
      database: w.database,
      table: w.table,
      file: w.start.file,
      pos: w.start.pos,
      rows: w.rows,
    };
    const { stdout } = await exec(
      process.execPath,
      [
        '--max-old-space-size=256',
        '--import',
        'tsx',
        join(here, 'support', 'streaming-reader.ts'),
        'ours',
        JSON.stringify(job),
      ],
      { maxBuffer: 1 << 20 },
    );
    const ours = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as StreamingResult;
    if (ours.rows < w.rows) throw new Error(`ours saw ${ours.rows} rows, expected ${w.rows}`);
    const dbz = await debeziumStreaming(server, `${w.database}.${w.table}`, w.rows);
    process.stderr.write(`streaming vs debezium: ours ${JSON.stringify(ours)} debezium ${JSON.stringify(dbz)}\n`);
    const what = `${DEBEZIUM_REF}, same ${w.rows} row changes (${HALF} inserts + ${HALF} updates, 8 columns), same server`;
    return [
      {
        name: 'streaming.vs_debezium.rows_per_s',
        ours: Math.round(ours.rowsPerSecond),
        reference: dbz.rowsPerS,
        unit: 'rows/s',
        ref: what,
      },
      {
        name: 'streaming.vs_debezium.rows_per_cpu_s',
        ours: Math.round(ours.rows / (ours.cpuMs / 1000)),
        reference: dbz.rowsPerCpuS,
        unit: 'rows/cpu-s',
        ref: `${what}; process CPU (all threads, GC included)`,
      },
      {
        name: 'streaming.vs_debezium.peak_rss_mb',
        ours: Math.round(ours.peakRssMb),
        reference: dbz.peakRssMb,
        unit: 'MB',
        ref: `${DEBEZIUM_REF}: the JVM's VmHWM (default heap); ours with --max-old-space-size=256`,
        lowerIsBetter: true,
      },
    ];
  } finally {
    await server.stop();
  }
}
