/**
 * Snapshot throughput: 1,000,000 rows (~600 bytes, several column types; two tables of 500,000; SNAPSHOT_BENCH_ROWS) read by
 * MySqlSource into a no-op sink (records are built, then dropped), in consistent mode and in chunked mode with
 * 1 and 2 threads. Reference, same run and server: `mariadb --quick -e 'SELECT * ...' > /dev/null` (the raw
 * read ceiling of the text protocol). RSS is sampled during each run (its max is the memory figure). Second
 * reference, same run: Debezium's embedded engine snapshotting the same tables (bench/support/debezium-reference.ts).
 * Flatness: the consistent snapshot's peak RSS over SNAPSHOT_FLAT_ROWS rows (default 1,000,000, ~150-byte rows, a
 * database of its own) and again after the table grew to five times that: memory must not grow with the table.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { silentLogger } from '../src/common/logger.js';
import { parseConfig } from '../src/config/index.js';
import { MySqlSource } from '../src/source/mysql/mysql-source.js';
import { FileSchemaHistory } from '../src/stores/file/file-schema-history.js';
import { startMariaDb } from '../test/harness/mariadb.js';
import type { Figure } from './harness.js';
import { DEBEZIUM_REF, debeziumSnapshot } from './support/debezium-reference.js';

/** Env SNAPSHOT_BENCH_ROWS: rows in all (default 1,000,000), split over the two tables. */
const ROWS_PER_TABLE = Math.max(1, Math.floor(Number(process.env.SNAPSHOT_BENCH_ROWS ?? 1_000_000) / 2));
const TABLES = ['t1', 't2'];
/** Env SNAPSHOT_FLAT_ROWS: rows of the flatness table's first run (default 1,000,000); the second has 5x. */
const FLAT_ROWS = Math.max(1, Math.floor(Number(process.env.SNAPSHOT_FLAT_ROWS ?? 1_000_000)));

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
  peakRssMb: number;
  rows: number;
}

async function measure(fn: () => Promise<number>): Promise<Run> {
  global.gc?.();
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 50);
  const t0 = performance.now();
  const rows = await fn();
  const s = (performance.now() - t0) / 1000;
  clearInterval(timer);
  return { rowsPerS: rows / s, peakRssMb: peak / 1048576, rows };
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
    const ref = await measure(
      () =>
        new Promise<number>((resolve, reject) => {
          const child = spawn(
            'mariadb',
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
            { stdio: ['ignore', openSync('/dev/null', 'w'), 'inherit'] },
          );
          child.on('error', reject);
          child.on('exit', (code) =>
            code === 0 ? resolve(TABLES.length * ROWS_PER_TABLE) : reject(new Error(`mariadb exit ${code}`)),
          );
        }),
    );

    const capture = async (props: Record<string, string>, database = db): Promise<Run> => {
      const dir = mkdtempSync(join(tmpdir(), 'cdc-bench-'));
      const config = parseConfig({
        name: 'bench',
        'topic.prefix': 'bench',
        'database.hostname': server.host,
        'database.port': String(server.port),
        'database.user': server.admin.user,
        'database.password': server.admin.password,
        'database.server.id': String(9000 + Math.floor(Math.random() * 900)),
        'database.include.list': database,
        'database.ssl.mode': 'disabled',
        'sink.type': 'stdout',
        'offset.storage.file.filename': join(dir, 'offsets.json'),
        'schema.history.internal.file.filename': join(dir, 'history.jsonl'),
        'include.schema.changes': 'false',
        ...props,
      });
      const source = new MySqlSource({
        config,
        history: new FileSchemaHistory({ path: join(dir, 'history.jsonl'), connectorName: 'bench' }),
        connect: () =>
          mysql.createConnection({
            host: server.host,
            port: server.port,
            user: server.admin.user,
            password: server.admin.password,
          }),
        logger: silentLogger,
      });
      return measure(async () => {
        const abort = new AbortController();
        let records = 0;
        const running = source.run({
          offset: null,
          // The no-op sink: records are built (the real cost) and dropped.
          emit: async (item) => {
            if (item.record) records++;
          },
          signal: abort.signal,
          logger: silentLogger,
        });
        if (config.snapshot.chunked) {
          while (!source.stats.SnapshotCompleted) await new Promise((r) => setTimeout(r, 20));
          abort.abort();
        }
        await running;
        return records;
      });
    };

    const consistent = await capture({ 'snapshot.mode': 'initial_only' });
    const chunked1 = await capture({ 'snapshot.chunked': 'true', 'snapshot.max.threads': '1' });
    const chunked2 = await capture({ 'snapshot.chunked': 'true', 'snapshot.max.threads': '2' });
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
    const refText = `mariadb --quick -e 'SELECT * ...' > /dev/null, same ${TABLES.length * ROWS_PER_TABLE} rows`;
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
        reference: Math.round(ref.peakRssMb),
        unit: 'MB',
        ref: 'RSS of this process while idle before the run (the client runs out of process)',
        lowerIsBetter: true,
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
