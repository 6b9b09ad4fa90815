/**
 * The snapshot's own text-protocol reader (TextQueryCommand under scanTable): cells cut from the row packets by
 * their length prefixes (1-, 3- and 4-byte lengths, NULL), text decoded per column charset, bytes kept as bytes,
 * rows in order under backpressure (the connection paused at highWaterMark and resumed), server errors mid-result
 * and consumer errors. The chunked snapshot's reader of whole chunks (readChunkRows): the same rows kept as bytes in
 * reused arena blocks and converted on demand.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ColumnDef, TableDef } from '../../../src/model/table-def.js';
import { MysqlDateTime, type Row } from '../../../src/model/values.js';
import { ChunkArena, readChunkRows } from '../../../src/source/mysql/snapshot/chunk-rows.js';
import { SnapshotError } from '../../../src/source/mysql/snapshot/errors.js';
import { scanTable } from '../../../src/source/mysql/snapshot/table-scan.js';
import { fakeTextProtocolConnection } from './text-protocol-fake.js';

function col(name: string, position: number, dataType: string, extra: Partial<ColumnDef> = {}): ColumnDef {
  return {
    name,
    position,
    dataType,
    columnType: dataType,
    length: null,
    scale: null,
    unsigned: false,
    nullable: true,
    charset: null,
    collation: null,
    defaultValue: null,
    hasDefault: false,
    autoIncrement: false,
    enumValues: null,
    generated: false,
    invisible: false,
    comment: null,
    ...extra,
  };
}

const table: TableDef = {
  database: 'd',
  name: 't',
  columns: [
    col('id', 0, 'int'),
    col('big', 1, 'bigint'),
    col('name', 2, 'varchar', { charset: 'utf8mb4' }),
    col('amount', 3, 'decimal'),
    col('at', 4, 'datetime', { length: 3 }),
    col('data', 5, 'blob'),
    col('latin', 6, 'varchar', { charset: 'latin1' }),
  ],
  primaryKey: ['id'],
  uniqueKeys: [],
  charset: null,
  comment: null,
};

const fields = [
  { name: 'id', columnType: 3, characterSet: 63 },
  { name: 'BIG', columnType: 8, characterSet: 63 },
  { name: 'name', columnType: 253, characterSet: 224 },
  { name: 'amount', columnType: 246, characterSet: 63 },
  { name: 'at', columnType: 12, characterSet: 63 },
  { name: 'data', columnType: 252, characterSet: 63 },
  { name: 'latin', columnType: 253, characterSet: 8 },
];

async function scan(
  reply: Parameters<typeof fakeTextProtocolConnection>[0],
  opts: { highWaterMark?: number; onRow?: (r: Row) => Promise<void> } = {},
) {
  const fake = fakeTextProtocolConnection(reply);
  const rows: Row[] = [];
  const stats = await scanTable(fake.conn, table, 'SELECT * FROM d.t', {
    highWaterMark: opts.highWaterMark ?? 16,
    onRow:
      opts.onRow ??
      (async (r) => {
        rows.push(r);
      }),
  });
  return { rows, stats, fake };
}

describe('scanTable over the text protocol', () => {
  it('cuts cells of every length prefix, decodes text per charset, keeps bytes and NULLs', async () => {
    const long = `${'é'.repeat(150)}x`; // 301 bytes: a 3-byte length
    const blob = Buffer.alloc(70_000, 7); // a 4-byte length
    blob[0] = 0xff;
    const { rows, stats, fake } = await scan({
      fields,
      rows: [
        ['1', '9223372036854775807', 'émoji 😀', '-12.50', '2024-02-29 23:59:59.125', blob, Buffer.from([0xe9, 0x41])],
        ['2', '-7', long, '0.00', '0000-00-00 00:00:00.000', Buffer.alloc(0), 'plain'],
        ['3', null, null, null, null, null, null],
      ],
    });
    assert.deepEqual(fake.queries, ['SELECT * FROM d.t']);
    assert.equal(stats.rows, 3);
    assert.deepEqual(stats.missingColumns, []);
    const [a, b, c] = rows;
    assert.equal(a[0], 1);
    assert.equal(a[1], 9223372036854775807n);
    assert.equal(a[2], 'émoji 😀');
    assert.equal(a[3], '-12.50');
    assert.deepEqual(a[4], new MysqlDateTime(2024, 2, 29, 23, 59, 59, 125000, 3));
    assert.ok(Buffer.isBuffer(a[5]) && (a[5] as Buffer).equals(blob));
    assert.equal(a[6], 'éA', 'latin1 text decoded as latin1, as mysql2 does');
    assert.equal(b[1], -7);
    assert.equal(b[2], long);
    assert.ok(Buffer.isBuffer(b[5]) && (b[5] as Buffer).length === 0);
    assert.deepEqual(c, [3, null, null, null, null, null, null]);
  });

  it('pauses the connection at highWaterMark and resumes it, rows in order', async () => {
    const n = 40;
    const reply = {
      fields,
      rows: Array.from({ length: n }, (_, i) => [String(i), '1', 'x', '1.00', null, null, null]),
    };
    const seen: number[] = [];
    const { stats, fake } = await scan(reply, {
      highWaterMark: 4,
      onRow: async (r) => {
        seen.push(r[0] as number);
        await new Promise((resolve) => setImmediate(resolve));
      },
    });
    assert.deepEqual(
      seen,
      Array.from({ length: n }, (_, i) => i),
    );
    assert.ok(fake.pauses >= 1, 'paused at least once');
    assert.equal(fake.resumes, fake.pauses, 'every pause resumed');
    assert.ok(stats.peakBufferedRows <= 4, `buffered ${stats.peakBufferedRows} rows`);
  });

  it('a server error mid-result fails the scan (retriable for a changed table), after the rows before it', async () => {
    const reply = {
      fields,
      rows: Array.from({ length: 5 }, (_, i) => [String(i), '1', 'x', '1.00', null, null, null]),
      errorAfterRows: 3,
    };
    const rows: Row[] = [];
    await assert.rejects(
      scanTable(fakeTextProtocolConnection(reply).conn, table, 'SELECT * FROM d.t', {
        highWaterMark: 16,
        onRow: async (r) => {
          rows.push(r);
        },
      }),
      (e: unknown) => e instanceof SnapshotError && e.retriable === true && /was altered/.test(e.message),
    );
    assert.equal(rows.length, 3);
  });

  it("a consumer's error propagates untouched; a value that does not convert fails as a read error", async () => {
    const boom = new Error('sink down');
    await assert.rejects(
      scan({ fields, rows: [['1', '1', 'x', '1.00', null, null, null]] }, { onRow: async () => Promise.reject(boom) }),
      (e: unknown) => e === boom,
    );
    await assert.rejects(
      scan({ fields, rows: [['1', 'not a number at all', 'x', '1.00', null, null, null]] }),
      (e: unknown) => e instanceof SnapshotError && /reading d\.t failed/.test(e.message),
    );
  });
});

describe('readChunkRows: a chunk kept as bytes', () => {
  const chunk = (rows: Array<Array<string | Buffer | null>>, arena: ChunkArena, expected = 4, maxBytes?: number) =>
    readChunkRows(fakeTextProtocolConnection({ fields, rows }).conn, table, 'SELECT * FROM d.t', arena, {
      expected,
      ...(maxBytes ? { maxBytes } : {}),
    });
  const all = (c: { length: number; row(i: number): Row }) => Array.from({ length: c.length }, (_, i) => c.row(i));

  it('converts rows as scanTable does: every length prefix, NULLs, a row larger than an arena block', async () => {
    const huge = Buffer.alloc(1_500_000, 9); // more than one 1 MiB block
    const reply = [
      ['1', '9223372036854775807', 'émoji 😀', '-12.50', '2024-02-29 23:59:59.125', huge, Buffer.from([0xe9, 0x41])],
      ['2', null, null, null, null, null, null],
      ['3', '-7', 'x'.repeat(300), '0.00', null, Buffer.alloc(0), 'plain'],
    ];
    const c = await chunk(reply, new ChunkArena());
    const { rows } = await scan({ fields, rows: reply });
    assert.equal(c.length, 3);
    assert.deepEqual(all(c), rows);
    assert.ok((c.row(0)[5] as Buffer).equals(huge));
  });

  it('more rows than expected grow the index; released blocks are reused without touching other chunks', async () => {
    const arena = new ChunkArena();
    const make = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => [String(from + i), String(i), `row ${from + i}`, '1.00', null, null, null]);
    const a = await chunk(make(0, 50), arena, 4);
    assert.deepEqual(
      all(a).map((r) => r[2]),
      make(0, 50).map((r) => r[2]),
    );
    const kept = await chunk(make(1000, 20), arena);
    a.release();
    assert.equal(a.length, 0);
    const b = await chunk(make(2000, 30), arena);
    assert.deepEqual(
      all(b).map((r) => r[0]),
      make(2000, 30).map((r) => Number(r[0])),
    );
    assert.deepEqual(
      all(kept).map((r) => r[2]),
      make(1000, 20).map((r) => r[2]),
      'a chunk still held is not overwritten by the next one',
    );
  });

  it('maxBytes: the rows after the one that reaches it are left out (the first row always kept)', async () => {
    const rows = Array.from({ length: 10 }, (_, i) => [String(i), '1', 'x'.repeat(100), '1.00', null, null, null]);
    const c = await chunk(rows, new ChunkArena(), 10, 250);
    assert.equal(c.truncated, true);
    assert.deepEqual(
      all(c).map((r) => r[0]),
      [0, 1, 2],
      'a prefix of the result, up to the row reaching 250 bytes',
    );
    const whole = await chunk(rows, new ChunkArena(), 10, 100_000);
    assert.equal(whole.truncated, false);
    assert.equal(whole.length, 10);
    const one = await chunk([[String(1), '1', 'x'.repeat(1000), '1.00', null, null, null]], new ChunkArena(), 10, 10);
    assert.equal(one.length, 1, 'a row larger than maxBytes on its own is kept');
  });

  it('a value that does not convert fails as a read error of the table when its row is taken', async () => {
    const c = await chunk([['1', 'not a number at all', 'x', '1.00', null, null, null]], new ChunkArena());
    assert.throws(
      () => c.row(0),
      (e: unknown) => e instanceof SnapshotError && /reading d\.t failed/.test(e.message),
    );
  });

  it('a server error fails the read', async () => {
    const fake = fakeTextProtocolConnection({
      fields,
      rows: [['1', '1', 'x', '1.00', null, null, null]],
      errorAfterRows: 0,
    });
    await assert.rejects(
      readChunkRows(fake.conn, table, 'SELECT * FROM d.t', new ChunkArena(), { expected: 4 }),
      (e: unknown) => e instanceof SnapshotError && /was altered/.test(e.message),
    );
  });
});
