/**
 * A reproducible change workload for binlog benchmarks: an 8-column table (int PK, bigint, varchar(64),
 * decimal(12,2), datetime(6), double, tinyint, text), `inserts` new rows then `updates` updated rows, written by
 * multi-row statements the server generates itself (Sequence engine), so producing 400k row changes takes seconds.
 * Each statement is its own transaction (autocommit), as an application batch job would write them.
 */
import type { MariaDbServer } from '../../test/harness/mariadb.js';

export interface WorkloadOptions {
  inserts: number;
  updates: number;
  /** Rows per statement (default 1000). */
  batch?: number;
  /** Database to create the table in (default: a fresh one). */
  database?: string;
}

export interface BinlogPoint {
  file: string;
  pos: number;
  /** MariaDB @@gtid_binlog_pos at that point. */
  gtid: string;
}

export interface ChangeWorkload {
  database: string;
  table: string;
  /** Before the first insert (after the CREATE TABLE): stream from here to see exactly the workload. */
  start: BinlogPoint;
  /** After the last update. */
  end: BinlogPoint;
  /** Row changes in the binlog: inserts + updates (an update's before/after pair counts once). */
  rows: number;
  /** Bytes of binlog between start and end (same file when the workload fits in one). */
  binlogBytes: number;
}

export async function binlogPoint(server: MariaDbServer): Promise<BinlogPoint> {
  const [st] = await server.query<{ File: string; Position: number }[]>('SHOW MASTER STATUS');
  const [g] = await server.query<{ g: string }[]>('SELECT @@gtid_binlog_pos AS g');
  return { file: st.File, pos: Number(st.Position), gtid: g.g };
}

export async function generateChangeWorkload(server: MariaDbServer, opts: WorkloadOptions): Promise<ChangeWorkload> {
  const batch = opts.batch ?? 1000;
  const database = opts.database ?? (await server.createDatabase('workload'));
  const table = 'changes';
  const fq = `\`${database}\`.\`${table}\``;
  await server.query(
    `CREATE TABLE ${fq} (id INT PRIMARY KEY, amount_cents BIGINT NOT NULL, name VARCHAR(64) NOT NULL,
       price DECIMAL(12,2) NOT NULL, updated_at DATETIME(6) NOT NULL, score DOUBLE, status TINYINT NOT NULL,
       notes TEXT) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`,
  );
  const start = await binlogPoint(server);
  const conn = await server.connect();
  try {
    for (let from = 1; from <= opts.inserts; from += batch) {
      const to = Math.min(opts.inserts, from + batch - 1);
      await conn.query(
        `INSERT INTO ${fq} SELECT seq, seq * 1000003, CONCAT('customer-', seq, '-', LEFT(MD5(seq), 16)),
           (seq % 1000000) / 100, TIMESTAMP('2024-01-01 00:00:00') + INTERVAL seq SECOND + INTERVAL seq % 1000000 MICROSECOND,
           seq * 1.25, seq % 128, CONCAT('note ', MD5(seq), ' ', SHA1(seq))
         FROM \`${database}\`.seq_${from}_to_${to}`,
      );
    }
    // Updates touch existing rows round-robin (several passes when updates > inserts).
    for (let done = 0; done < opts.updates; ) {
      const from = (done % Math.max(1, opts.inserts)) + 1;
      const n = Math.min(batch, opts.updates - done, opts.inserts - from + 1);
      await conn.query(
        `UPDATE ${fq} SET amount_cents = amount_cents + 1, price = price + 0.01, status = (status + 1) % 128,
           updated_at = updated_at + INTERVAL 1 SECOND, notes = CONCAT('updated ', id)
         WHERE id BETWEEN ${from} AND ${from + n - 1}`,
      );
      done += n;
    }
  } finally {
    await conn.end();
  }
  const end = await binlogPoint(server);
  const binlogBytes = end.file === start.file ? end.pos - start.pos : Number.NaN;
  return { database, table, start, end, rows: opts.inserts + opts.updates, binlogBytes };
}
