/**
 * Consistent initial snapshot against a real MariaDB: values, markers, every locking path (global lock, the
 * LOCK TABLES fallback for a user without RELOAD, extended, none) under a concurrent writer, and bounded memory.
 *
 * Consistency is verified independently of this project's binlog decoder: `mariadb-binlog -v` prints the row
 * events after the snapshot's position, and replaying them onto the snapshot rows must (a) apply cleanly —
 * every UPDATE/DELETE before-image equals the replayed state, no INSERT hits an existing key — and (b) end in
 * exactly the table's final contents. A lost or duplicated commit at the boundary breaks (a).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { basename } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Connection, RowDataPacket } from 'mysql2/promise';
import type { Logger } from '../../src/common/logger.js';
import type { ColumnDef, TableDef } from '../../src/model/table-def.js';
import {
  type CellValue,
  MysqlDate,
  MysqlDateTime,
  MysqlJson,
  MysqlTime,
  MysqlTimestamp,
  type Row,
} from '../../src/model/values.js';
import {
  type LockingMode,
  runConsistentSnapshot,
  type SnapshotOptions,
  type SnapshotResult,
} from '../../src/source/mysql/snapshot/consistent-snapshot.js';
import { SnapshotError } from '../../src/source/mysql/snapshot/errors.js';
import { useMariaDb } from '../harness/fixtures.js';
import type { Credentials, MariaDbServer } from '../harness/mariadb.js';
import { waitFor } from '../harness/wait.js';

const execFileP = promisify(execFile);
const mariadb = useMariaDb();

// ---------------------------------------------------------------------------------------------------------------
// Test-only schema loader (the real one belongs to the schema engineer): information_schema → TableDef.

async function loadSchema(conn: Connection, tables: Array<{ db: string; table: string }>): Promise<TableDef[]> {
  const out: TableDef[] = [];
  for (const { db, table } of tables) {
    const [cols] = await conn.query<RowDataPacket[]>(
      `SELECT COLUMN_NAME, ORDINAL_POSITION, DATA_TYPE, COLUMN_TYPE, CHARACTER_MAXIMUM_LENGTH, NUMERIC_PRECISION,
              NUMERIC_SCALE, DATETIME_PRECISION, IS_NULLABLE, CHARACTER_SET_NAME, COLLATION_NAME, COLUMN_KEY, EXTRA
         FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`,
      [db, table],
    );
    const columns: ColumnDef[] = cols.map((c, i) => {
      const dataType = String(c.DATA_TYPE).toLowerCase();
      const columnType = String(c.COLUMN_TYPE);
      const members = /^(enum|set)\((.*)\)$/i.exec(columnType);
      return {
        name: String(c.COLUMN_NAME),
        position: i,
        dataType,
        columnType,
        length:
          c.DATETIME_PRECISION !== null
            ? Number(c.DATETIME_PRECISION)
            : c.CHARACTER_MAXIMUM_LENGTH !== null
              ? Number(c.CHARACTER_MAXIMUM_LENGTH)
              : c.NUMERIC_PRECISION !== null
                ? Number(c.NUMERIC_PRECISION)
                : null,
        scale: c.NUMERIC_SCALE === null ? null : Number(c.NUMERIC_SCALE),
        unsigned: /unsigned/i.test(columnType),
        nullable: c.IS_NULLABLE === 'YES',
        charset:
          c.CHARACTER_SET_NAME === null ? (/binary|blob/.test(dataType) ? 'binary' : null) : c.CHARACTER_SET_NAME,
        collation: c.COLLATION_NAME,
        defaultValue: null,
        hasDefault: false,
        autoIncrement: /auto_increment/i.test(String(c.EXTRA)),
        enumValues: members ? [...members[2].matchAll(/'((?:[^']|'')*)'/g)].map((m) => m[1].replace(/''/g, "'")) : null,
        generated: /generated/i.test(String(c.EXTRA)),
        invisible: /invisible/i.test(String(c.EXTRA)),
        comment: null,
      };
    });
    out.push({
      database: db,
      name: table,
      columns,
      primaryKey: cols.filter((c) => c.COLUMN_KEY === 'PRI').map((c) => String(c.COLUMN_NAME)),
      uniqueKeys: [],
      charset: null,
      comment: null,
    });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Helpers

interface Emitted {
  table: string;
  row: Row;
  marker: string;
}

function recordingLogger(): Logger & {
  lines: Array<{ level: string; msg: string; fields?: Record<string, unknown> }>;
} {
  const lines: Array<{ level: string; msg: string; fields?: Record<string, unknown> }> = [];
  const make = (): Logger => ({
    debug: (msg, fields) => lines.push({ level: 'debug', msg, fields }),
    info: (msg, fields) => lines.push({ level: 'info', msg, fields }),
    warn: (msg, fields) => lines.push({ level: 'warn', msg, fields }),
    error: (msg, fields) => lines.push({ level: 'error', msg, fields }),
    child: () => make(),
  });
  return Object.assign(make(), { lines });
}

function connectAs(server: MariaDbServer, cred?: Credentials) {
  return () => server.connect(cred ? { user: cred.user, password: cred.password } : undefined);
}

function baseOptions(server: MariaDbServer, db: string, extra: Partial<SnapshotOptions> = {}) {
  const emitted: Emitted[] = [];
  const schemaCalls: Array<{ tables: string[]; position: { file: string; pos: number; gtids: string | null } }> = [];
  const logger = recordingLogger();
  const opts: SnapshotOptions = {
    connect: connectAs(server),
    tableFilter: (d, t) => d === db && t !== 'ignored',
    lockingMode: 'minimal',
    loadSchema,
    logger,
    emitter: {
      async onSchema(tables, position) {
        schemaCalls.push({ tables: tables.map((t) => t.name), position });
      },
      async onRow(table, row, marker) {
        emitted.push({ table: table.name, row, marker });
      },
    },
    ...extra,
  };
  return { opts, emitted, schemaCalls, logger };
}

// ---------------------------------------------------------------------------------------------------------------
// Values

describe('snapshot values and markers', () => {
  it('emits every column type exactly as the server stores it, with first/…/last markers', async () => {
    const server = mariadb();
    const db = await server.createDatabase('snapval');
    await server.query(`
      CREATE TABLE \`${db}\`.a_types (
        id INT PRIMARY KEY, ti TINYINT, tiu TINYINT UNSIGNED, si SMALLINT, mi MEDIUMINT UNSIGNED, i INT,
        bi BIGINT, biu BIGINT UNSIGNED, f FLOAT, d DOUBLE, de DECIMAL(20,6), bt BIT(10), dt DATE, dtm DATETIME(6),
        ts TIMESTAMP(3) NULL DEFAULT NULL, tm TIME(6), yr YEAR, ch CHAR(5), vc VARCHAR(50), tx TEXT, bn BINARY(4),
        vb VARBINARY(10), bl BLOB, en ENUM('a','b','c'), st SET('x','y','z'), js JSON, geo GEOMETRY,
        lat VARCHAR(10) CHARACTER SET latin1
      ) ENGINE=InnoDB;
      SET SESSION sql_mode = '', time_zone = '+00:00';
      INSERT INTO \`${db}\`.a_types VALUES
        (1, -128, 0, -32768, 0, -2147483648, -9223372036854775808, 0, -3.14, -1.7976931348623157e308,
         '-99999999999999.999999', b'0', '1000-01-01', '1000-01-01 00:00:00.000000', '1970-01-01 00:00:01.000',
         '-838:59:59.000000', 1901, '', '', '', x'00000000', x'', x'', 'a', '', '{}', ST_GeomFromText('POINT(0 0)'),
         'café'),
        (2, 127, 255, 32767, 16777215, 2147483647, 9223372036854775807, 18446744073709551615, 3.4028234e38,
         2.2250738585072014e-308, '99999999999999.999999', b'1111111111', '9999-12-31', '9999-12-31 23:59:59.999999',
         '2038-01-19 03:14:07.999', '838:59:59.000000', 2155, 'abcde', 'héllo 😀 "q" \\\\ ''s''',
         REPEAT('long text ', 100), x'DEADBEEF', x'00FF00', x'0102030405', 'c', 'x,y,z',
         '{"a": [1, 2.5, "x"], "b": null, "c": {"d": true}}', ST_GeomFromText('LINESTRING(0 0, 1 1, 2.5 -3)'), 'Zürich'),
        (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
         NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
        (4, 0, 1, 0, 1, 0, 9007199254740993, 9007199254740991, 0, 0, '0.000001', b'1000000001', '0000-00-00',
         '0000-00-00 00:00:00.000000', '0000-00-00 00:00:00.000', '-00:00:00.000001', 0, 'x', 'y', 'z', x'01',
         x'00', x'00', 'b', 'y', '[]', ST_GeomFromText('POLYGON((0 0, 4 0, 4 4, 0 0))'), '');
      CREATE TABLE \`${db}\`.b_empty (id INT PRIMARY KEY) ENGINE=InnoDB;
      CREATE TABLE \`${db}\`.c_one (id INT PRIMARY KEY) ENGINE=InnoDB;
      INSERT INTO \`${db}\`.c_one VALUES (7);
      CREATE TABLE \`${db}\`.d_empty (id INT PRIMARY KEY) ENGINE=InnoDB;
    `);

    const { opts, emitted, schemaCalls } = baseOptions(server, db);
    const done: string[] = [];
    opts.emitter.onTableDone = async (t, n) => {
      done.push(`${t.name}:${n}`);
    };
    const result = await runConsistentSnapshot(opts);

    assert.equal(result.lockMode, 'global');
    assert.deepEqual(result.rows, {
      [`${db}.a_types`]: 4,
      [`${db}.b_empty`]: 0,
      [`${db}.c_one`]: 1,
      [`${db}.d_empty`]: 0,
    });
    assert.deepEqual(schemaCalls.length, 1);
    assert.deepEqual(schemaCalls[0].tables, ['a_types', 'b_empty', 'c_one', 'd_empty']);
    assert.deepEqual(
      emitted.map((e) => `${e.table}:${e.marker}`),
      ['a_types:first', 'a_types:true', 'a_types:true', 'a_types:last_in_data_collection', 'c_one:last'],
    );
    assert.deepEqual(done, ['a_types:4', 'b_empty:0', 'c_one:1', 'd_empty:0']);

    // Expected values straight from the server, through casts that do not depend on textConverterFor.
    const expected = await server.query<RowDataPacket[]>(`
      SET time_zone = '+00:00';
      SELECT id, CAST(ti AS CHAR) ti, CAST(tiu AS CHAR) tiu, CAST(si AS CHAR) si, CAST(mi AS CHAR) mi,
        CAST(i AS CHAR) i, CAST(bi AS CHAR) bi, CAST(biu AS CHAR) biu, CAST(f AS DOUBLE) f, d, CAST(de AS CHAR) de, CAST(bt + 0 AS CHAR) bt, CAST(dt AS CHAR) dt, CAST(dtm AS CHAR) dtm,
        CAST(UNIX_TIMESTAMP(ts) * 1000000 AS DECIMAL(30,0)) ts,
        IF(tm IS NULL, NULL, CAST((HOUR(tm) * 3600 + MINUTE(tm) * 60 + SECOND(tm)) * 1000000 + MICROSECOND(tm) AS SIGNED) * IF(tm < 0, -1, 1)) tm,
        CAST(yr + 0 AS CHAR) yr, HEX(CONVERT(ch USING utf8mb4)) ch, HEX(CONVERT(vc USING utf8mb4)) vc,
        HEX(CONVERT(tx USING utf8mb4)) tx, HEX(bn) bn, HEX(vb) vb, HEX(bl) bl, en + 0 en, CAST(st + 0 AS CHAR) st,
        js, HEX(geo) geo, HEX(CONVERT(lat USING utf8mb4)) lat
      FROM \`${db}\`.a_types ORDER BY id`);
    const exp = (expected as unknown as RowDataPacket[][])[1];
    const got = emitted.filter((e) => e.table === 'a_types').map((e) => e.row);
    assert.equal(got.length, exp.length);
    const names = [
      'id',
      'ti',
      'tiu',
      'si',
      'mi',
      'i',
      'bi',
      'biu',
      'f',
      'd',
      'de',
      'bt',
      'dt',
      'dtm',
      'ts',
      'tm',
      'yr',
      'ch',
      'vc',
      'tx',
      'bn',
      'vb',
      'bl',
      'en',
      'st',
      'js',
      'geo',
      'lat',
    ];
    let checked = 0;
    for (let r = 0; r < exp.length; r++) {
      for (const [ci, name] of names.entries()) {
        const e = exp[r][name] as unknown;
        const v = got[r][ci];
        assert.equal(canon(name, v), canonExpected(name, e), `row ${r + 1} column ${name}`);
        checked++;
      }
    }
    assert.equal(checked, 4 * 28);
  });
});

/** Emitted CellValue → a comparable string. */
function canon(name: string, v: CellValue): string | null {
  if (v === null || v === undefined) return null;
  if (Buffer.isBuffer(v))
    return name === 'bt' ? BigInt(`0x${v.toString('hex') || '0'}`).toString() : v.toString('hex').toUpperCase();
  // MariaDB's JSON is LONGTEXT: without the schema loader's JSON detection it arrives as text.
  if (typeof v === 'string' && name === 'js') return JSON.stringify(JSON.parse(v));
  if (typeof v === 'string') return name === 'de' ? v : Buffer.from(v, 'utf8').toString('hex').toUpperCase();
  if (typeof v === 'number' || typeof v === 'bigint') return name === 'f' ? String(Math.fround(Number(v))) : String(v);
  if (v instanceof MysqlTimestamp) return String(v.toEpochMicros());
  if (v instanceof MysqlTime) return String(v.micros);
  if (v instanceof MysqlDate || v instanceof MysqlDateTime) return v.toString();
  if (v instanceof MysqlJson) return JSON.stringify(JSON.parse(v.text));
  return `unexpected ${typeof v}`;
}

function canonExpected(name: string, e: unknown): string | null {
  if (e === null || e === undefined) return null;
  if (name === 'js') return JSON.stringify(typeof e === 'string' ? JSON.parse(e) : e); // mysql2 may parse it
  if (name === 'f') return String(Math.fround(Number(e)));
  if (name === 'd') return String(Number(e));
  if (name === 'id' || name === 'en') return String(e);
  return String(e);
}

// ---------------------------------------------------------------------------------------------------------------
// Concurrent writer and binlog replay

/** Writes in a loop: inserts, updates, deletes, multi-statement transactions, and writes to a non-captured table. */
class Writer {
  commits = 0;
  maxLatencyMs = 0;
  inflightSince: number | null = null;
  private stopped = false;
  private done: Promise<void> | undefined;
  private nextId: number;
  private seed = 12345;
  error: unknown;
  worst: { sql: string; at: number } | undefined;

  constructor(
    private readonly conn: Connection,
    private readonly db: string,
    initialRows: number,
  ) {
    this.nextId = initialRows + 1;
  }

  private rand(n: number): number {
    this.seed = (this.seed * 1103515245 + 12345) % 2147483648;
    return this.seed % n;
  }

  private async exec(sql: string, params: unknown[] = []): Promise<void> {
    const t0 = performance.now();
    this.inflightSince = t0;
    await this.conn.query(sql, params);
    this.inflightSince = null;
    const lat = performance.now() - t0;
    if (lat > this.maxLatencyMs) {
      this.maxLatencyMs = lat;
      this.worst = { sql: sql.slice(0, 40), at: t0 };
    }
  }

  start(): void {
    this.done = (async () => {
      const t = (name: string) => `\`${this.db}\`.\`${name}\``;
      try {
        while (!this.stopped) {
          const table = this.rand(2) === 0 ? 'acct' : 'other';
          const id = 1 + this.rand(this.nextId - 1);
          switch (this.rand(5)) {
            case 0:
              await this.exec(`INSERT INTO ${t(table)} (id, v) VALUES (?, ?)`, [this.nextId++, this.rand(1000)]);
              break;
            case 1:
              await this.exec(`UPDATE ${t(table)} SET v = v + 1 WHERE id = ?`, [id]);
              break;
            case 2:
              await this.exec(`DELETE FROM ${t(table)} WHERE id = ?`, [id]);
              break;
            case 3:
              await this.exec('BEGIN');
              await this.exec(`UPDATE ${t('acct')} SET v = v + 7 WHERE id = ?`, [id]);
              await this.exec(`INSERT INTO ${t('other')} (id, v) VALUES (?, 1)`, [this.nextId++]);
              await this.exec(`DELETE FROM ${t('acct')} WHERE id = ?`, [1 + this.rand(this.nextId - 1)]);
              await this.exec('COMMIT');
              break;
            default:
              await this.exec(`INSERT INTO ${t('ignored')} (v) VALUES (?)`, [this.rand(1000)]);
          }
          this.commits++;
        }
      } catch (err) {
        this.error = err;
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.done;
    if (this.error) throw this.error;
  }
}

interface RowEvent {
  kind: 'INSERT' | 'UPDATE' | 'DELETE';
  table: string;
  before: number[];
  after: number[];
}

/** Row events for `db` after `pos` in `file` (and in every later binlog file), as printed by mariadb-binlog -v. */
async function binlogRowEvents(server: MariaDbServer, db: string, file: string, pos: number): Promise<RowEvent[]> {
  const all = await server.binlogFiles();
  const from = all.findIndex((p) => basename(p) === file);
  assert.ok(from >= 0, `binlog ${file} not found among ${all.join(', ')}`);
  const { stdout } = await execFileP(
    'mariadb-binlog',
    ['--base64-output=DECODE-ROWS', '--verbose', `--start-position=${pos}`, ...all.slice(from)],
    { maxBuffer: 512 * 1024 * 1024 },
  );
  const events: RowEvent[] = [];
  let cur: RowEvent | null = null;
  let image: number[] | null = null;
  const head = /^### (INSERT INTO|UPDATE|DELETE FROM) `([^`]+)`\.`([^`]+)`$/;
  for (const line of stdout.split('\n')) {
    const h = head.exec(line);
    if (h) {
      cur = null;
      image = null;
      if (h[2] !== db) continue;
      cur = { kind: h[1].split(' ')[0] as RowEvent['kind'], table: h[3], before: [], after: [] };
      events.push(cur);
      image = cur.kind === 'INSERT' ? cur.after : cur.before;
      continue;
    }
    if (!cur) continue;
    if (line === '### WHERE') image = cur.before;
    else if (line === '### SET') image = cur.after;
    else {
      const m = /^###\s+@(\d+)=(-?\d+)/.exec(line);
      if (m && image) image[Number(m[1]) - 1] = Number(m[2]);
    }
  }
  return events;
}

/** Replays `events` onto the snapshot state; returns problems (empty = consistent) and the final state. */
function replay(snapshot: Map<string, Map<number, number>>, events: RowEvent[]) {
  const problems: string[] = [];
  for (const e of events) {
    const t = snapshot.get(e.table);
    if (!t) continue; // not captured
    const [bid, bv] = e.before;
    const [aid, av] = e.after;
    if (e.kind === 'INSERT') {
      if (t.has(aid)) problems.push(`INSERT ${e.table} id=${aid}: already in the snapshot state (duplicate)`);
      t.set(aid, av);
    } else {
      if (t.get(bid) !== bv) problems.push(`${e.kind} ${e.table} id=${bid}: before v=${bv}, state has ${t.get(bid)}`);
      if (e.kind === 'DELETE') t.delete(bid);
      else {
        t.delete(bid);
        t.set(aid, av);
      }
    }
  }
  return problems;
}

async function tableState(server: MariaDbServer, db: string, table: string): Promise<Map<number, number>> {
  const rows = await server.query<Array<{ id: number; v: number }>>(`SELECT id, v FROM \`${db}\`.\`${table}\``);
  return new Map(rows.map((r) => [r.id, r.v]));
}

const INITIAL_ROWS = 3000;

async function writerScenario(mode: LockingMode, user: 'admin' | 'aurora') {
  const server = mariadb();
  const db = await server.createDatabase(`snap${mode}`);
  await server.query(`
    CREATE TABLE \`${db}\`.acct (id INT PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB;
    CREATE TABLE \`${db}\`.other (id INT PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB;
    CREATE TABLE \`${db}\`.ignored (id INT AUTO_INCREMENT PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB;
    INSERT INTO \`${db}\`.acct SELECT seq, seq FROM \`${db}\`.seq_1_to_${INITIAL_ROWS};
    INSERT INTO \`${db}\`.other SELECT seq, seq * 2 FROM \`${db}\`.seq_1_to_${INITIAL_ROWS};`);

  const writerConn = await server.connect();
  const writer = new Writer(writerConn, db, INITIAL_ROWS);
  const snapshotState = new Map<string, Map<number, number>>([
    ['acct', new Map()],
    ['other', new Map()],
  ]);
  const blocking = mode === 'extended';
  let commitsAtFirstRow = -1;
  let commitsAtLastRow = -1;
  let rowsSeen = 0;
  let observedBlockedMs = 0;
  let firstRowAt = 0;
  const { opts, logger } = baseOptions(server, db, {
    lockingMode: mode,
    connect: connectAs(server, user === 'aurora' ? server.aurora : undefined),
    user: user === 'aurora' ? server.aurora.user : undefined,
  });
  opts.emitter.onRow = async (table, row) => {
    snapshotState.get(table.name)!.set(row[0] as number, row[1] as number);
    rowsSeen++;
    if (rowsSeen === 1) {
      commitsAtFirstRow = writer.commits;
      firstRowAt = performance.now();
    }
    if (rowsSeen === 10) {
      if (blocking) {
        // 'extended': writers must be stuck behind the lock while the scan runs; wait until one demonstrably is.
        // Counted from the first row at the earliest: the lock is taken before it, but the blocked write may have
        // been sent a little before the lock.
        const blockedSince = () => (writer.inflightSince === null ? null : Math.max(writer.inflightSince, firstRowAt));
        await waitFor('the writer to be blocked by the extended lock', () => {
          const since = blockedSince();
          return since !== null && performance.now() - since > 300;
        });
        observedBlockedMs = performance.now() - (blockedSince() ?? firstRowAt);
      } else {
        // Locks are gone: the writer must make progress while the scan is still running.
        const target = writer.commits + 50;
        await waitFor('the writer to commit while the scan runs', () => writer.commits >= target);
      }
    }
    commitsAtLastRow = writer.commits;
  };

  writer.start();
  await waitFor('the writer to get going', () => writer.commits >= 50);
  let result: SnapshotResult;
  let snapStart = 0;
  const loopDelay = monitorEventLoopDelay({ resolution: 5 });
  try {
    snapStart = performance.now();
    loopDelay.enable();
    result = await runConsistentSnapshot(opts);
    // Some more writes after the snapshot, then stop and compare.
    const after = writer.commits + 20;
    await waitFor('post-snapshot writes', () => writer.commits >= after);
  } finally {
    await writer.stop();
    await writerConn.end();
  }

  // The position + rows are consistent: replaying the binlog after the position yields the final table contents.
  const events = await binlogRowEvents(server, db, result.position.file, result.position.pos);
  assert.ok(events.length > 0, 'the writer produced binlog events after the snapshot position');
  const problems = replay(snapshotState, events);
  assert.deepEqual(problems.slice(0, 10), [], `replay after ${result.position.file}:${result.position.pos}`);
  for (const table of ['acct', 'other']) {
    assert.deepEqual(snapshotState.get(table), await tableState(server, db, table), `${table} final state`);
  }
  // Emitted row counts match what the emitter received.
  assert.equal(result.totalRows, rowsSeen);
  assert.equal(result.rows[`${db}.ignored`], undefined, 'filtered table not captured');
  assert.ok(result.position.gtids && /^\d+-\d+-\d+/.test(result.position.gtids), `gtids: ${result.position.gtids}`);
  loopDelay.disable();
  const figures = {
    loopDelayMaxMs: loopDelay.max / 1e6,
    lockMode: result.lockMode,
    lockMs: Number(result.lockMs.toFixed(1)),
    writerMaxLatencyMs: Number(writer.maxLatencyMs.toFixed(1)),
    writerCommits: writer.commits,
    commitsDuringScan: commitsAtLastRow - commitsAtFirstRow,
    binlogEventsAfterPosition: events.length,
    rows: result.totalRows,
    durationMs: Math.round(result.durationMs),
    position: result.position,
    worst: writer.worst && { ...writer.worst, at: Math.round(writer.worst.at - snapStart) },
  };
  return { result, writer, commitsAtFirstRow, commitsAtLastRow, observedBlockedMs, logger, figures };
}

/**
 * The writer runs in this process, so its measured latency also contains this process's own event-loop stalls
 * (measured: loopDelayMaxMs); beyond those, a small slack for scheduling noise on a busy machine.
 */
const SLACK_MS = 250;
function writerBound(lockMs: number, figures: { loopDelayMaxMs: number }): number {
  return lockMs + figures.loopDelayMaxMs + SLACK_MS;
}

describe('snapshot under a concurrent writer', () => {
  it('minimal, admin (global read lock): consistent; writer blocked only during the lock phase', async (t) => {
    const { result, writer, commitsAtFirstRow, commitsAtLastRow, figures } = await writerScenario('minimal', 'admin');
    t.diagnostic(JSON.stringify(figures));
    assert.equal(result.lockMode, 'global');
    assert.equal(result.positionSource, 'binlog_snapshot');
    assert.ok(result.lockMs > 0);
    assert.ok(commitsAtLastRow - commitsAtFirstRow >= 50, 'writes proceeded during the scan');
    assert.ok(
      writer.maxLatencyMs <= writerBound(result.lockMs, figures),
      `writer max latency ${writer.maxLatencyMs.toFixed(1)} ms vs lock ${result.lockMs.toFixed(1)} ms`,
    );
  });

  it('minimal, user without RELOAD (Aurora-like): falls back to LOCK TABLES, still consistent, lock-free scan', async (t) => {
    const { result, writer, commitsAtFirstRow, commitsAtLastRow, logger, figures } = await writerScenario(
      'minimal',
      'aurora',
    );
    t.diagnostic(JSON.stringify(figures));
    assert.equal(result.lockMode, 'tables');
    assert.ok(
      logger.lines.some((l) => l.level === 'warn' && /global read lock denied/.test(l.msg)),
      'the fallback is logged',
    );
    assert.ok(commitsAtLastRow - commitsAtFirstRow >= 50, 'writes proceeded while the scan was running');
    assert.ok(
      writer.maxLatencyMs <= writerBound(result.lockMs, figures),
      `writer max latency ${writer.maxLatencyMs.toFixed(1)} ms vs lock ${result.lockMs.toFixed(1)} ms`,
    );
  });

  it('extended, admin: consistent; the lock is held for the whole scan', async (t) => {
    const { result, writer, commitsAtFirstRow, commitsAtLastRow, observedBlockedMs, figures } = await writerScenario(
      'extended',
      'admin',
    );
    t.diagnostic(JSON.stringify(figures));
    assert.equal(result.lockMode, 'global');
    assert.equal(commitsAtLastRow, commitsAtFirstRow, 'no write committed during the scan');
    assert.ok(observedBlockedMs > 300);
    assert.ok(result.lockMs >= observedBlockedMs, `lockMs ${result.lockMs} covers the blocked write`);
    assert.ok(writer.maxLatencyMs <= writerBound(result.lockMs, figures));
  });

  it('extended, user without RELOAD: table locks held for the whole scan', async (t) => {
    const { result, commitsAtFirstRow, commitsAtLastRow, figures } = await writerScenario('extended', 'aurora');
    t.diagnostic(JSON.stringify(figures));
    assert.equal(result.lockMode, 'tables');
    assert.equal(commitsAtLastRow, commitsAtFirstRow, 'no write committed during the scan');
  });

  it('none: no locks; MariaDB still gives the exact position of the snapshot transaction', async (t) => {
    const { result, writer, commitsAtFirstRow, commitsAtLastRow, figures } = await writerScenario('none', 'aurora');
    t.diagnostic(JSON.stringify(figures));
    assert.equal(result.lockMode, 'none');
    assert.equal(result.lockMs, 0);
    assert.equal(result.positionSource, 'binlog_snapshot');
    assert.ok(commitsAtLastRow - commitsAtFirstRow >= 50);
    assert.ok(
      writer.maxLatencyMs <= writerBound(0, figures),
      `writer max latency ${writer.maxLatencyMs.toFixed(1)} ms`,
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Failures and memory

describe('snapshot failures and limits', () => {
  it('table-lock fallback: a table created between listing and locking is locked, snapshotted and in the schema', async () => {
    const server = mariadb();
    const db = await server.createDatabase('snaprace');
    await server.query(`
      CREATE TABLE \`${db}\`.a (id INT PRIMARY KEY) ENGINE=InnoDB;
      INSERT INTO \`${db}\`.a VALUES (1);`);
    let calls = 0;
    const { opts, emitted, schemaCalls, logger } = baseOptions(server, db, {
      connect: connectAs(server, server.aurora),
      beforeTableLock: async () => {
        if (++calls === 1) {
          await server.query(`CREATE TABLE \`${db}\`.b_new (id INT PRIMARY KEY) ENGINE=InnoDB`);
          await server.query(`INSERT INTO \`${db}\`.b_new VALUES (2)`);
        }
      },
    });
    const result = await runConsistentSnapshot(opts);
    assert.equal(result.lockMode, 'tables');
    assert.equal(calls, 2, 'listed and locked again after the set changed');
    assert.deepEqual(schemaCalls[0].tables, ['a', 'b_new']);
    assert.deepEqual(
      emitted.map((e) => `${e.table}:${e.row.join('/')}`),
      ['a:1', 'b_new:2'],
    );
    assert.ok(logger.lines.some((l) => l.level === 'warn' && /changed between listing and locking/.test(l.msg)));

    // A set that never settles fails after a bounded number of attempts, retriably.
    let n = 0;
    const churn = baseOptions(server, db, {
      connect: connectAs(server, server.aurora),
      beforeTableLock: async () => {
        await server.query(`CREATE TABLE \`${db}\`.churn_${++n} (id INT PRIMARY KEY) ENGINE=InnoDB`);
      },
    });
    await assert.rejects(runConsistentSnapshot(churn.opts), (err: unknown) => {
      assert.ok(err instanceof SnapshotError);
      assert.equal(err.retriable, true);
      assert.match(err.message, /changed while they were being locked, 5 times/);
      return true;
    });
    assert.equal(n, 5);
  });

  it('names the missing GRANT when neither RELOAD nor LOCK TABLES is available', async () => {
    const server = mariadb();
    const db = await server.createDatabase('snapnolock');
    await server.query(`CREATE TABLE \`${db}\`.t (id INT PRIMARY KEY) ENGINE=InnoDB`);
    const cred = await server.createUser('cdc_nolock', ['SELECT', 'REPLICATION CLIENT']);
    const { opts } = baseOptions(server, db, { connect: connectAs(server, cred), user: cred.user });
    await assert.rejects(runConsistentSnapshot(opts), (err: unknown) => {
      assert.ok(err instanceof SnapshotError);
      assert.equal(err.code, 'SNAPSHOT_FAILED');
      assert.match(err.message, /GRANT LOCK TABLES, SELECT ON \*\.\* TO 'cdc_nolock'/);
      return true;
    });
  });

  it('abort mid-scan fails with SnapshotError and releases an extended lock at once', async () => {
    const server = mariadb();
    const db = await server.createDatabase('snapabort');
    await server.query(`
      CREATE TABLE \`${db}\`.t (id INT PRIMARY KEY) ENGINE=InnoDB;
      INSERT INTO \`${db}\`.t SELECT seq FROM \`${db}\`.seq_1_to_5000;`);
    const ac = new AbortController();
    const { opts } = baseOptions(server, db, { lockingMode: 'extended', signal: ac.signal });
    let rows = 0;
    opts.emitter.onRow = async () => {
      if (++rows === 100) ac.abort(new Error('operator stop'));
    };
    await assert.rejects(runConsistentSnapshot(opts), (err: unknown) => {
      assert.ok(err instanceof SnapshotError);
      assert.match(err.message, /aborted: operator stop/);
      return true;
    });
    assert.ok(rows >= 100 && rows < 5000, `stopped mid-scan (${rows} rows)`);
    // The global read lock died with the session: a write goes through.
    const t0 = performance.now();
    await server.query(`INSERT INTO \`${db}\`.t VALUES (999999)`);
    assert.ok(performance.now() - t0 < 2000);
  });

  it('reads non-transactional tables first under the lock, honours select overrides and schema-only runs', async () => {
    const server = mariadb();
    const db = await server.createDatabase('snapmix');
    await server.query(`
      CREATE TABLE \`${db}\`.a_inno (id INT PRIMARY KEY, v INT) ENGINE=InnoDB;
      CREATE TABLE \`${db}\`.b_my (id INT PRIMARY KEY, v INT) ENGINE=MyISAM;
      INSERT INTO \`${db}\`.a_inno VALUES (1, 10), (2, 20), (3, 30);
      INSERT INTO \`${db}\`.b_my VALUES (1, 100), (2, 200);`);
    const { opts, emitted, logger, schemaCalls } = baseOptions(server, db, {
      connect: connectAs(server, server.aurora),
      selectOverrides: new Map([[`${db}.a_inno`, `SELECT id, v FROM \`${db}\`.a_inno WHERE id >= 2`]]),
    });
    const result = await runConsistentSnapshot(opts);
    assert.equal(result.lockMode, 'tables');
    assert.deepEqual(
      emitted.map((e) => `${e.table}:${e.row.join('/')}:${e.marker}`),
      [
        'b_my:1/100:first',
        'b_my:2/200:last_in_data_collection',
        'a_inno:2/20:first_in_data_collection',
        'a_inno:3/30:last',
      ],
    );
    assert.ok(logger.lines.some((l) => l.level === 'warn' && /non-transactional/.test(l.msg)));
    assert.deepEqual(schemaCalls[0].tables, ['a_inno', 'b_my'], 'onSchema lists tables in name order');

    const schemaOnly = baseOptions(server, db, { includeData: false });
    const r2 = await runConsistentSnapshot(schemaOnly.opts);
    assert.equal(r2.totalRows, 0);
    assert.equal(schemaOnly.emitted.length, 0);
    assert.equal(schemaOnly.schemaCalls.length, 1);
    assert.deepEqual(r2.position, schemaOnly.schemaCalls[0].position);
  });

  it('streams a large table with bounded memory behind a slow emitter', async (t) => {
    const server = mariadb();
    const db = await server.createDatabase('snapbig');
    const ROWS = 50_000;
    await server.query(`
      CREATE TABLE \`${db}\`.big (id INT PRIMARY KEY, pad VARCHAR(2000) NOT NULL) ENGINE=InnoDB;
      INSERT INTO \`${db}\`.big SELECT seq, REPEAT(CHAR(65 + seq % 26), 2000) FROM \`${db}\`.seq_1_to_${ROWS};`);
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    gc();
    const baseline = process.memoryUsage().heapUsed;
    let midHeapGrowth: number | null = null;
    let count = 0;
    let lastId = 0;
    const fetchSize = 256;
    const { opts } = baseOptions(server, db, { fetchSize });
    opts.emitter.onRow = async (_t, row) => {
      count++;
      assert.equal(row[0], lastId + 1, 'rows arrive in order, none skipped');
      lastId = row[0] as number;
      assert.equal((row[1] as string).length, 2000);
      // A slow consumer: yields to the event loop often (the socket keeps delivering meanwhile, if allowed to).
      if (count % 50 === 0) await new Promise((r) => setImmediate(r));
      if (count % 1000 === 0) await new Promise((r) => setTimeout(r, 1));
      if (count === ROWS / 2) {
        gc();
        midHeapGrowth = process.memoryUsage().heapUsed - baseline;
      }
    };
    const result = await runConsistentSnapshot(opts);
    assert.equal(result.totalRows, ROWS);
    assert.equal(count, ROWS);
    // ~100 MB of rows; half-way through, far less than the unread half may be in memory.
    // Measured half-way (null: never reached); the heap may end below its baseline (GC freed start-up garbage).
    assert.ok(midHeapGrowth !== null && midHeapGrowth < 30 * 1024 * 1024, `heap growth ${midHeapGrowth} bytes`);
    t.diagnostic(JSON.stringify({ midHeapGrowth, peakBufferedRows: result.peakBufferedRows, ms: result.durationMs }));
    assert.ok(result.peakBufferedRows <= fetchSize + 2, `peak buffered rows ${result.peakBufferedRows}`);
  });
});
