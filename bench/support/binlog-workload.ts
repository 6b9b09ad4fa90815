/**
 * A reproducible change workload for binlog benchmarks: `inserts` new rows then `updates` updated rows, written by
 * multi-row statements the server generates itself (Sequence engine), so producing 400k row changes takes seconds.
 * Each statement is its own transaction (autocommit), as an application batch job would write them. Shapes:
 * - narrow (default): 8 columns (int PK, bigint, varchar(64), decimal(12,2), datetime(6), double, tinyint, text);
 * - wide: 50 columns of mixed types (ints, bigint, varchar, decimals, datetime/timestamp/date/time, double, float,
 *   enum, set, text, blob, bit, year, nullable ones holding NULLs), updates touching 5 of them;
 * - json: a JSON document of ~1 KB per row (nested objects, arrays, quoted text) next to two small columns,
 *   updates rewriting part of the document.
 */
import type { MariaDbServer } from '../../test/harness/mariadb.js';

export interface WorkloadOptions {
  inserts: number;
  updates: number;
  /** Rows per statement (default 1000). */
  batch?: number;
  /** Database to create the table in (default: a fresh one). */
  database?: string;
  shape?: WorkloadShape;
}

export type WorkloadShape = 'narrow' | 'wide' | 'json';

interface ShapeSql {
  columns: string;
  /** SELECT list over the sequence table's `seq` producing one row. */
  insert: string;
  /** SET clause of the updates. */
  update: string;
}

/** The wide shape: id plus 49 columns cycling through these kinds. */
const WIDE_KINDS: Array<{ type: string; value: (k: number) => string; update?: (k: number) => string }> = [
  { type: 'INT NOT NULL', value: (k) => `seq * ${k}`, update: (k) => `c${k} + 1` },
  { type: 'BIGINT NOT NULL', value: (k) => `seq * 1000003 + ${k}` },
  {
    type: 'VARCHAR(64) NOT NULL',
    value: (k) => `CONCAT('value-', ${k}, '-', seq)`,
    update: (k) => `CONCAT('changed-', id, '-', ${k})`,
  },
  { type: 'DECIMAL(12,3) NOT NULL', value: (k) => `(seq % 100000) / 1000 + ${k}`, update: (k) => `c${k} + 0.001` },
  { type: 'DATETIME(3) NOT NULL', value: (k) => `TIMESTAMP('2024-01-01 00:00:00') + INTERVAL (seq + ${k}) SECOND` },
  { type: 'TIMESTAMP(6) NULL', value: (k) => `FROM_UNIXTIME(1700000000 + seq + ${k} + (seq % 1000) / 1000)` },
  { type: 'DOUBLE', value: (k) => `IF(seq % 5 = 0, NULL, seq * 1.5 + ${k})` },
  { type: 'FLOAT NOT NULL', value: (k) => `seq / 7 + ${k}` },
  {
    type: "ENUM('new','paid','shipped','closed') NOT NULL",
    value: (k) => `1 + (seq + ${k}) % 4`,
    update: (k) => `1 + (c${k} % 4)`,
  },
  { type: 'TEXT', value: (k) => `CONCAT('text "quoted" ', MD5(seq + ${k}))` },
  { type: 'DATE NOT NULL', value: (k) => `DATE('2024-01-01') + INTERVAL ((seq + ${k}) % 3000) DAY` },
  { type: 'TIME(0) NOT NULL', value: (k) => `SEC_TO_TIME((seq + ${k}) % 86400)` },
  { type: 'TINYINT NOT NULL', value: (k) => `(seq + ${k}) % 128` },
  { type: "SET('a','b','c','d') NOT NULL", value: (k) => `(seq + ${k}) % 16` },
  { type: 'VARBINARY(32)', value: (k) => `UNHEX(MD5(seq + ${k}))` },
  { type: 'BIT(12) NOT NULL', value: (k) => `(seq + ${k}) % 4096` },
  { type: 'YEAR NOT NULL', value: (k) => `1901 + (seq + ${k}) % 250` },
  { type: 'SMALLINT UNSIGNED', value: (k) => `IF(seq % 3 = 0, NULL, (seq + ${k}) % 65536)` },
];

function shapeSql(shape: WorkloadShape): ShapeSql {
  if (shape === 'wide') {
    const cols: string[] = ['id INT PRIMARY KEY'];
    const values: string[] = ['seq'];
    const updates: string[] = [];
    for (let k = 1; k < 50; k++) {
      const kind = WIDE_KINDS[(k - 1) % WIDE_KINDS.length];
      cols.push(`c${k} ${kind.type}`);
      values.push(kind.value(k));
      if (kind.update && updates.length < 5) updates.push(`c${k} = ${kind.update(k)}`);
    }
    return { columns: cols.join(', '), insert: values.join(', '), update: updates.join(', ') };
  }
  if (shape === 'json') {
    const doc = `JSON_OBJECT('id', seq, 'name', CONCAT('customer "', seq, '"'), 'active', seq % 2 = 0,
      'tags', JSON_ARRAY('a', 'b', CONCAT('t', seq % 97)),
      'address', JSON_OBJECT('street', CONCAT(seq, ' Main St'), 'city', 'Springfield', 'zip', LPAD(seq % 100000, 5, '0')),
      'items', JSON_ARRAY(JSON_OBJECT('sku', MD5(seq), 'qty', seq % 7, 'price', (seq % 1000) / 100),
                          JSON_OBJECT('sku', SHA1(seq), 'qty', 1 + seq % 3, 'price', 9.99)),
      'notes', REPEAT('lorem ipsum \\ dolor\tsit ', 12))`;
    return {
      columns: 'id INT PRIMARY KEY, doc JSON NOT NULL, tag VARCHAR(32) NOT NULL',
      insert: `seq, ${doc}, CONCAT('tag-', seq % 100)`,
      update: `doc = JSON_SET(doc, '$.active', NOT JSON_EXTRACT(doc, '$.active'), '$.items[0].qty', id % 11), tag = CONCAT('changed-', id % 100)`,
    };
  }
  return {
    columns: `id INT PRIMARY KEY, amount_cents BIGINT NOT NULL, name VARCHAR(64) NOT NULL,
       price DECIMAL(12,2) NOT NULL, updated_at DATETIME(6) NOT NULL, score DOUBLE, status TINYINT NOT NULL,
       notes TEXT`,
    insert: `seq, seq * 1000003, CONCAT('customer-', seq, '-', LEFT(MD5(seq), 16)),
           (seq % 1000000) / 100, TIMESTAMP('2024-01-01 00:00:00') + INTERVAL seq SECOND + INTERVAL seq % 1000000 MICROSECOND,
           seq * 1.25, seq % 128, CONCAT('note ', MD5(seq), ' ', SHA1(seq))`,
    update: `amount_cents = amount_cents + 1, price = price + 0.01, status = (status + 1) % 128,
           updated_at = updated_at + INTERVAL 1 SECOND, notes = CONCAT('updated ', id)`,
  };
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
  const shape = opts.shape ?? 'narrow';
  const table = shape === 'narrow' ? 'changes' : `changes_${shape}`;
  const fq = `\`${database}\`.\`${table}\``;
  const sql = shapeSql(shape);
  await server.query(`CREATE TABLE ${fq} (${sql.columns}) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`);
  const start = await binlogPoint(server);
  const conn = await server.connect();
  try {
    for (let from = 1; from <= opts.inserts; from += batch) {
      const to = Math.min(opts.inserts, from + batch - 1);
      await conn.query(`INSERT INTO ${fq} SELECT ${sql.insert} FROM \`${database}\`.seq_${from}_to_${to}`);
    }
    // Updates touch existing rows round-robin (several passes when updates > inserts).
    for (let done = 0; done < opts.updates; ) {
      const from = (done % Math.max(1, opts.inserts)) + 1;
      const n = Math.min(batch, opts.updates - done, opts.inserts - from + 1);
      await conn.query(`UPDATE ${fq} SET ${sql.update} WHERE id BETWEEN ${from} AND ${from + n - 1}`);
      done += n;
    }
  } finally {
    await conn.end();
  }
  const end = await binlogPoint(server);
  const binlogBytes = end.file === start.file ? end.pos - start.pos : Number.NaN;
  return { database, table, start, end, rows: opts.inserts + opts.updates, binlogBytes };
}
