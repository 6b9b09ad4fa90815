/**
 * Binlog decode throughput: our replication client + decoder vs @vlasky/zongji streaming the same binlog from
 * the same private MariaDB, plus our decoder reading the binlog file directly. Workload: 200k inserts + 200k
 * updates of an 8-column table (bench/support/binlog-workload.ts). Every reader runs in its own child process
 * (bench/support/decode-reader.ts) so its peak RSS is its own; each figure is the median of RUNS runs.
 * Env: DECODE_BENCH_ROWS (inserts = updates, default 200000), DECODE_BENCH_RUNS (default 3),
 * DECODE_BENCH_PROFILE (directory for per-reader CPU profiles).
 */
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startMariaDb } from '../test/harness/mariadb.js';
import type { Figure } from './harness.js';
import { median } from './harness.js';
import { generateChangeWorkload } from './support/binlog-workload.js';
import type { ReaderJob, ReaderMode, ReaderResult } from './support/decode-reader.js';

const run$ = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const HALF = Number(process.env.DECODE_BENCH_ROWS ?? 200_000);
const RUNS = Number(process.env.DECODE_BENCH_RUNS ?? 3);
// DECODE_BENCH_PROFILE=<dir>: write a V8 CPU profile of every reader there (for chrome://inspect or speedscope).
const PROFILE = process.env.DECODE_BENCH_PROFILE
  ? ['--cpu-prof', '--cpu-prof-dir', process.env.DECODE_BENCH_PROFILE]
  : [];

async function readOnce(mode: ReaderMode, job: ReaderJob): Promise<ReaderResult> {
  const { stdout } = await run$(
    process.execPath,
    [...PROFILE, '--import', 'tsx', join(here, 'support', 'decode-reader.ts'), mode, JSON.stringify(job)],
    { maxBuffer: 1 << 20 },
  );
  const result = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as ReaderResult;
  if (result.rows < job.rows) throw new Error(`${mode} saw ${result.rows} rows, expected ${job.rows}`);
  return result;
}

export async function run(): Promise<Figure[]> {
  const server = await startMariaDb({ options: { 'max-binlog-size': '1G', 'innodb-buffer-pool-size': '256M' } });
  try {
    const t0 = performance.now();
    const w = await generateChangeWorkload(server, { inserts: HALF, updates: HALF });
    const genSeconds = (performance.now() - t0) / 1000;
    process.stderr.write(
      `decode bench: ${w.rows} row changes, ${(w.binlogBytes / 1048576).toFixed(1)} MiB of binlog, generated in ${genSeconds.toFixed(1)} s\n`,
    );
    const [binlogPath] = (await server.binlogFiles()).filter((f) => f.endsWith(`/${w.start.file}`));
    let serverId = 1000;
    const job = (): ReaderJob => ({
      host: server.host,
      port: server.port,
      user: server.admin.user,
      password: server.admin.password,
      serverId: serverId++,
      file: w.start.file,
      pos: w.start.pos,
      binlogDir: dirname(binlogPath),
      rows: w.rows,
    });
    const results: Record<ReaderMode, ReaderResult[]> = { 'ours-live': [], 'zongji-live': [], 'ours-file': [] };
    // Interleaved so drift (page cache, CPU frequency) affects every reader alike.
    for (let i = 0; i < RUNS; i++) {
      for (const mode of Object.keys(results) as ReaderMode[]) {
        const r = await readOnce(mode, job());
        results[mode].push(r);
        process.stderr.write(`  ${mode}: ${r.rowsPerSecond} rows/s, ${r.ms} ms, peak RSS ${r.peakRssMb} MB\n`);
      }
    }
    const rate = (m: ReaderMode) => Math.round(median(results[m].map((r) => r.rowsPerSecond)));
    const rss = (m: ReaderMode) => median(results[m].map((r) => r.peakRssMb));
    const what = `${w.rows} row changes (${HALF} inserts + ${HALF} updates, 8 columns, 1000 rows/statement), median of ${RUNS}`;
    return [
      {
        name: 'decode.live_rows_per_s',
        ours: rate('ours-live'),
        reference: rate('zongji-live'),
        unit: 'rows/s',
        ref: `@vlasky/zongji 0.9.0 streaming the same binlog from the same MariaDB; ${what}`,
      },
      {
        name: 'decode.live_peak_rss_mb',
        ours: rss('ours-live'),
        reference: rss('zongji-live'),
        unit: 'MB',
        ref: '@vlasky/zongji 0.9.0, same run (each reader in its own process, node + tsx included)',
        lowerIsBetter: true,
      },
      {
        name: 'decode.file_rows_per_s',
        ours: rate('ours-file'),
        reference: rate('zongji-live'),
        unit: 'rows/s',
        ref: `our decoder via readBinlogFile vs @vlasky/zongji live; ${what}`,
      },
      {
        name: 'decode.file_peak_rss_mb',
        ours: rss('ours-file'),
        reference: 200,
        unit: 'MB',
        ref: 'target budget 200 MB',
        lowerIsBetter: true,
      },
    ];
  } finally {
    await server.stop();
  }
}
