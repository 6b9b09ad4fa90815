/**
 * Snapshot throughput: 1,000,000 rows (~600 bytes, several column types; two tables of 500,000; SNAPSHOT_BENCH_ROWS) read by
 * MySqlSource into a no-op sink (records are built, then dropped), in consistent mode and in chunked mode with
 * 1 and 2 threads. Each capture runs in its own process as compiled JavaScript, like the image
 * (bench/support/snapshot-reader.ts bundled by harness.ts compiledScript), with the image's NODE_OPTIONS; its peak
 * RSS (VmHWM) is the memory figure and its user+system CPU gives rows per CPU-second. Reference, same run and
 * server: `mariadb --quick -e 'SELECT * ...' > /dev/null` (the raw read ceiling of the text protocol). Second
 * reference, same run: Debezium's embedded engine snapshotting the same tables (bench/support/debezium-reference.ts).
 * Figures are medians of SNAPSHOT_BENCH_RUNS interleaved runs (default 3).
 * Flatness: the consistent snapshot's peak RSS over SNAPSHOT_FLAT_ROWS rows (default 1,000,000, ~150-byte rows, a
 * database of its own) and again after the table grew to five times that: memory must not grow with the table.
 */
import { execFile, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type mysql from 'mysql2/promise';
import { startMariaDb } from '../test/harness/mariadb.js';
import { compiledScript, type Figure, imageNodeOptions, median } from './harness.js';
import { DEBEZIUM_REF, debeziumSnapshot } from './support/debezium-reference.js';
import type { SnapshotJob, SnapshotResult } from './support/snapshot-reader.js';

const exec = promisify(execFile);
const READER = join(dirname(fileURLToPath(import.meta.url)), 'support', 'snapshot-reader.ts');
/** Env SNAPSHOT_BENCH_PROFILE: directory for CPU profiles of each capture process. */
const PROFILE = process.env.SNAPSHOT_BENCH_PROFILE
  ? ['--cpu-prof', '--cpu-prof-dir', process.env.SNAPSHOT_BENCH_PROFILE]
  : [];

/** Env SNAPSHOT_BENCH_ROWS: rows in all (default 1,000,000), split over the two tables. */
const ROWS_PER_TABLE = Math.max(1, Math.floor(Number(process.env.SNAPSHOT_BENCH_ROWS ?? 1_000_000) / 2));
const TABLES = ['t1', 't2'];
/** Env SNAPSHOT_FLAT_ROWS: rows of the flatness table's first run (default 1,000,000); the second has 5x. */
const FLAT_ROWS = Math.max(1, Math.floor(Number(process.env.SNAPSHOT_FLAT_ROWS ?? 1_000_000)));
/**
 * Env SNAPSHOT_BENCH_RUNS: runs of the reference and of each mode, interleaved (default 3); figures are medians. One
 * run of the client swung by 29% from one benchmark run to the next on a quiet machine.
 */
const RUNS = Math.max(1, Math.floor(Number(process.env.SNAPSHOT_BENCH_RUNS ?? 3)));

/** Grows `db`.flat (created when missing) to `rows` rows of ~150 bytes by doubling INSERT ... SELECTs. */
async function growFlat(conn: mysql.Connection, db: string, rows: number): Promise<void> {
  await conn.query('SET SESSION sql_log_bin = 0');
  await conn.query(`CREATE TABLE IF NOT EXISTS \`${db}\`.flat (
    id INT PRIMARY KEY, account BIGINT NOT NULL, amount DECIMAL(12,2) NOT NULL, created DATETIME(3) NOT NULL,
    status VARCHAR(16) NOT NULL, title VARCHAR(100) NOT NULL) ENGINE=InnoDB`);
  const [[{ n: have }]] = (await conn.query(`SELECT COUNT(*) AS n FROM \`${db}\`.flat`)) as unknown as [
    [{ n: number }],
  ];
  let n = Number(have);
  if (n === 0) {
    await conn.query(
      `INSERT INTO \`${db}\`.flat VALUES (1, 1000001, 12.34, '2024-01-02 03:04:05.678', 'active', REPEAT('t', 90))`,
    );
    n = 1;
  }
  while (n < rows) {
    const take = Math.min(n, rows - n);
    await conn.query(
      `INSERT INTO \`${db}\`.flat SELECT id + ${n}, account + id, amount + id % 1000, created + INTERVAL id SECOND,
         ELT(1 + id % 3, 'active', 'closed', 'pending'), CONCAT(LEFT(title, 80), LPAD(id, 10, '0'))
       FROM \`${db}\`.flat WHERE id <= ${take}`,
    );
    n += take;
  }
}

async function generate(conn: mysql.Connection, db: string): Promise<void> {
  await conn.query('SET SESSION sql_log_bin = 0');
  for (const t of TABLES) {
    await conn.query(`CREATE TABLE \`${db}\`.${t} (
      id INT PRIMARY KEY, account BIGINT NOT NULL, amount DECIMAL(12,2) NOT NULL, ratio DOUBLE NOT NULL,
      created DATETIME(3) NOT NULL, status VARCHAR(16) NOT NULL, title VARCHAR(200) NOT NULL, body TEXT NOT NULL,
      flags TINYINT NOT NULL) ENGINE=InnoDB`);
    await conn.query(
      `INSERT INTO \`${db}\`.${t} VALUES (1, 1000001, 12.34, 0.5, '2024-01-02 03:04:05.678', 'active', REPEAT('t', 120), REPEAT('b', 380), 1)`,
    );
    let n = 1;
    while (n < ROWS_PER_TABLE) {
      const take = Math.min(n, ROWS_PER_TABLE - n);
      await conn.query(
        `INSERT INTO \`${db}\`.${t} SELECT id + ${n}, account + id, amount + id % 1000, ratio * 1.5, created + INTERVAL id SECOND,
           ELT(1 + id % 3, 'active', 'closed', 'pending'), CONCAT(LEFT(title, 110), LPAD(id, 10, '0')), body, id % 100
         FROM \`${db}\`.${t} WHERE id <= ${take}`,
      );
      n += take;
    }
  }
}

interface Run {
  rowsPerS: number;
  /** Rows per CPU-second of the reading process (user + system): steadier than wall time on a busy machine. */
  rowsPerCpuS: number;
  peakRssMb: number;
  /** RSS of the capture process with its code loaded, before the snapshot. */
  baseRssMb: number;
  rows: number;
}

/** The rates of a few runs as their medians, and the highest peak RSS of any (a memory bound holds in every run). */
function medianRun(rs: Run[]): Run {
  const of = (f: (r: Run) => number) => median(rs.map(f));
  const rows = rs[0]?.rows ?? 0;
  if (rs.some((r) => r.rows !== rows)) throw new Error(`runs read different row counts: ${rs.map((r) => r.rows)}`);
  return {
    rowsPerS: of((r) => r.rowsPerS),
    rowsPerCpuS: of((r) => r.rowsPerCpuS),
    peakRssMb: Math.max(...rs.map((r) => r.peakRssMb)),
    baseRssMb: of((r) => r.baseRssMb),
    rows,
  };
}

/** `mariadb --quick -e <sql> > /dev/null`, timed by bash's `time` (wall, and the client's own CPU). */
function clientRead(args: string[], rows: number): Promise<Run> {
  return new Promise((resolve, reject) => {
    const script = 'TIMEFORMAT="%3R %3U %3S"; time mariadb "$@" > /dev/null';
    const child = spawn('bash', ['-c', script, 'bash', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      const m = /(\d+\.\d+) (\d+\.\d+) (\d+\.\d+)\s*$/.exec(err);
      if (code !== 0 || !m) return reject(new Error(`mariadb exit ${code}: ${err.slice(-500)}`));
      const [wall, user, sys] = [Number(m[1]), Number(m[2]), Number(m[3])];
      resolve({
        rowsPerS: rows / wall,
        rowsPerCpuS: rows / Math.max(1e-3, user + sys),
        peakRssMb: 0,
        baseRssMb: 0,
        rows,
      });
    });
  });
}

export async function run(): Promise<Figure[]> {
  const server = await startMariaDb({
    options: { 'innodb-buffer-pool-size': '2G', 'innodb-flush-log-at-trx-commit': 0, 'innodb-log-file-size': '512M' },
  });
  try {
    const db = await server.createDatabase('bench');
    const gen = await server.connect();
    const tg = performance.now();
    await generate(gen, db);
    await gen.end();
    process.stderr.write(
      `generated ${TABLES.length * ROWS_PER_TABLE} rows in ${((performance.now() - tg) / 1000).toFixed(1)} s\n`,
    );

    // Reference: the mariadb client reading the same rows to /dev/null.
    const readReference = () =>
      clientRead(
        [
          '-h',
          server.host,
          '-P',
          String(server.port),
          '-u',
          server.admin.user,
          `-p${server.admin.password}`,
          '--quick',
          '-e',
          TABLES.map((t) => `SELECT * FROM \`${db}\`.${t}`).join('; '),
        ],
        TABLES.length * ROWS_PER_TABLE,
      ).then((r) => {
        process.stderr.write(`  mariadb --quick ${JSON.stringify(r)}\n`);
        return r;
      });

    const capture = async (props: Record<string, string>, database = db): Promise<Run> => {
      const job: SnapshotJob = {
        host: server.host,
        port: server.port,
        user: server.admin.user,
        password: server.admin.password,
        database,
        props,
      };
      const { stdout } = await exec(
        process.execPath,
        [...PROFILE, ...imageNodeOptions(), await compiledScript(READER), JSON.stringify(job)],
        { maxBuffer: 1 << 20 },
      );
      const r = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as SnapshotResult;
      process.stderr.write(`  snapshot ${JSON.stringify(props)} ${JSON.stringify(r)}\n`);
      return {
        rowsPerS: r.records / (r.ms / 1000),
        rowsPerCpuS: r.records / (r.cpuMs / 1000),
        peakRssMb: r.peakRssMb,
        baseRssMb: r.baseRssMb,
        rows: r.records,
      };
    };

    const runs: Record<'ref' | 'consistent' | 'chunked1' | 'chunked2', Run[]> = {
      ref: [],
      consistent: [],
      chunked1: [],
      chunked2: [],
    };
    for (let i = 0; i < RUNS; i++) {
      runs.ref.push(await readReference());
      runs.consistent.push(await capture({ 'snapshot.mode': 'initial_only' }));
      runs.chunked1.push(await capture({ 'snapshot.chunked': 'true', 'snapshot.max.threads': '1' }));
      runs.chunked2.push(await capture({ 'snapshot.chunked': 'true', 'snapshot.max.threads': '2' }));
    }
    const ref = medianRun(runs.ref);
    const consistent = medianRun(runs.consistent);
    const chunked1 = medianRun(runs.chunked1);
    const chunked2 = medianRun(runs.chunked2);
    // Flatness: the same consistent snapshot over FLAT_ROWS rows, then over five times as many.
    const flatDb = await server.createDatabase('flat');
    const flatConn = await server.connect();
    const flat: Run[] = [];
    try {
      for (const rows of [FLAT_ROWS, 5 * FLAT_ROWS]) {
        await growFlat(flatConn, flatDb, rows);
        const r = await capture({ 'snapshot.mode': 'initial_only' }, flatDb);
        if (r.rows !== rows) throw new Error(`flatness: ${r.rows} records of ${rows} rows`);
        process.stderr.write(`flatness: ${rows} rows, peak RSS ${Math.round(r.peakRssMb)} MB\n`);
        flat.push(r);
      }
    } finally {
      await flatConn.end();
    }
    const dbz = await debeziumSnapshot(
      server,
      TABLES.map((t) => `${db}.${t}`),
      TABLES.length * ROWS_PER_TABLE,
    );
    process.stderr.write(`debezium snapshot: ${JSON.stringify(dbz)}\n`);
    const refText = `mariadb --quick -e 'SELECT * ...' > /dev/null, same ${TABLES.length * ROWS_PER_TABLE} rows, medians of ${RUNS} interleaved runs`;
    const figures: Figure[] = [];
    for (const [name, r] of [
      ['consistent', consistent],
      ['chunked_1thread', chunked1],
      ['chunked_2threads', chunked2],
    ] as const) {
      if (r.rows !== TABLES.length * ROWS_PER_TABLE) throw new Error(`${name}: ${r.rows} records`);
      figures.push({
        name: `snapshot.${name}.rows_per_s`,
        ours: Math.round(r.rowsPerS),
        reference: Math.round(ref.rowsPerS),
        unit: 'rows/s',
        ref: refText,
      });
      figures.push({
        name: `snapshot.${name}.peak_rss_mb`,
        ours: Math.round(r.peakRssMb),
        reference: Math.round(r.baseRssMb),
        unit: 'MB',
        ref: 'RSS of the same capture process with its code loaded, before the snapshot (ours: its peak RSS)',
        lowerIsBetter: true,
      });
    }
    for (const [name, r] of [
      ['consistent', consistent],
      ['chunked_1thread', chunked1],
      ['chunked_2threads', chunked2],
    ] as const) {
      figures.push({
        // Wall-clock rates swing with other load on a shared machine; CPU-seconds of the reading process are steadier.
        name: `snapshot.${name}.rows_per_cpu_s`,
        ours: Math.round(r.rowsPerCpuS),
        reference: Math.round(ref.rowsPerCpuS),
        unit: 'rows/cpu-s',
        ref: `${refText}; user+system CPU of the reading process (ours: the capture process, building the records)`,
      });
    }
    figures.push({
      name: 'snapshot.rss_flatness_5x_rows',
      ours: Math.round(flat[1].peakRssMb),
      reference: Math.round(flat[0].peakRssMb),
      unit: 'MB',
      ref: `peak RSS of the same consistent snapshot over ${FLAT_ROWS} rows; ours = over ${5 * FLAT_ROWS} rows of the same table (1.0 = flat)`,
      lowerIsBetter: true,
    });
    const dbzWhat = `${DEBEZIUM_REF}, same ${TABLES.length * ROWS_PER_TABLE} rows, first to last record`;
    figures.push(
      {
        name: 'snapshot.vs_debezium.rows_per_s',
        ours: Math.round(consistent.rowsPerS),
        reference: dbz.rowsPerS,
        unit: 'rows/s',
        ref: `${dbzWhat}; ours = consistent snapshot`,
      },
      {
        name: 'snapshot.vs_debezium.peak_rss_mb',
        ours: Math.round(Math.max(consistent.peakRssMb, chunked1.peakRssMb, chunked2.peakRssMb)),
        reference: dbz.peakRssMb,
        unit: 'MB',
        ref: `${DEBEZIUM_REF}: the JVM's VmHWM (default heap); ours = the worst of our three modes`,
        lowerIsBetter: true,
      },
    );
    return figures;
  } finally {
    await server.stop();
  }
}
