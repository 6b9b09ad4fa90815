/**
 * The event layer alone, no server: a TableEventBuilder turning decoded rows of the streaming benchmark's three
 * shapes (narrow 8 columns, wide 50 mixed, json ~1 KB document) into SinkRecords, the records held in a ring the
 * size of max.queue.size so they live as long as they would in the change queue. For allocation and CPU
 * measurements that the load of a shared machine does not move (run under --trace-gc-nvp or --cpu-prof):
 *   node --import tsx bench/support/event-layer-micro.ts <narrow|wide|json|json-column> [row changes, default 200000]
 * Prints one JSON line: CPU ms, GC ms and count (PerformanceObserver), rows per CPU second.
 */

import { createHash } from 'node:crypto';
import { PerformanceObserver } from 'node:perf_hooks';
import type { SourceInfo } from '../../src/events/envelope.js';
import { TableEventBuilder } from '../../src/events/envelope.js';
import type { SinkRecord } from '../../src/model/sink-record.js';
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
import { col as fixtureCol, table } from '../../test/unit/events/fixtures.js';

/** The fixtures' column builder, in this file's shorthand (collation does not change any event text). */
function col(name: string, columnType: string, nullable: boolean, enumValues: string[] | null = null): ColumnDef {
  return fixtureCol(name, columnType, { nullable, enumValues });
}

const tableOf = (name: string, columns: ColumnDef[]): TableDef => table('workload_1', name, columns, ['id']);

const md5 = (s: string) => createHash('md5').update(s).digest('hex');
const sha1 = (s: string) => createHash('sha1').update(s).digest('hex');

interface Shape {
  table: TableDef;
  row(seq: number): Row;
  /** The after image of an update of `before` (fresh objects where the decoder would make them). */
  update(before: Row): Row;
}

function dt(seconds: number, micros: number, fsp: number): MysqlDateTime {
  const d = new Date(Date.UTC(2024, 0, 1) + seconds * 1000);
  return new MysqlDateTime(
    d.getUTCFullYear(),
    d.getUTCMonth() + 1,
    d.getUTCDate(),
    d.getUTCHours(),
    d.getUTCMinutes(),
    d.getUTCSeconds(),
    micros,
    fsp,
  );
}

const narrow: Shape = {
  table: tableOf('changes', [
    col('id', 'int(11)', false),
    col('amount_cents', 'bigint(20)', false),
    col('name', 'varchar(64)', false),
    col('price', 'decimal(12,2)', false),
    col('updated_at', 'datetime(6)', false),
    col('score', 'double', true),
    col('status', 'tinyint(4)', false),
    col('notes', 'text', true),
  ]),
  row: (seq) => [
    seq,
    seq * 1000003,
    `customer-${seq}-${md5(String(seq)).slice(0, 16)}`,
    ((seq % 1000000) / 100).toFixed(2),
    dt(seq, seq % 1000000, 6),
    seq * 1.25,
    seq % 128,
    `note ${md5(String(seq))} ${sha1(String(seq))}`,
  ],
  update: (b) => {
    const d = b[4] as MysqlDateTime;
    return [
      b[0],
      (b[1] as number) + 1,
      b[2],
      (Number(b[3]) + 0.01).toFixed(2),
      new MysqlDateTime(d.year, d.month, d.day, d.hour, d.minute, (d.second + 1) % 60, d.micros, 6),
      b[5],
      ((b[6] as number) + 1) % 128,
      `updated ${b[0]}`,
    ];
  },
};

const WIDE_KINDS: Array<{
  type: string;
  nullable: boolean;
  enumValues?: string[];
  value: (seq: number, k: number) => CellValue;
}> = [
  { type: 'int(11)', nullable: false, value: (s, k) => s * k },
  { type: 'bigint(20)', nullable: false, value: (s, k) => s * 1000003 + k },
  { type: 'varchar(64)', nullable: false, value: (s, k) => `value-${k}-${s}` },
  { type: 'decimal(12,3)', nullable: false, value: (s, k) => ((s % 100000) / 1000 + k).toFixed(3) },
  { type: 'datetime(3)', nullable: false, value: (s, k) => dt(s + k, 0, 3) },
  {
    type: 'timestamp(6)',
    nullable: true,
    value: (s, k) => new MysqlTimestamp(1700000000 + s + k, (s % 1000) * 1000, 6),
  },
  { type: 'double', nullable: true, value: (s, k) => (s % 5 === 0 ? null : s * 1.5 + k) },
  { type: 'float', nullable: false, value: (s, k) => Math.fround(s / 7 + k) },
  {
    type: "enum('new','paid','shipped','closed')",
    nullable: false,
    enumValues: ['new', 'paid', 'shipped', 'closed'],
    value: (s, k) => 1 + ((s + k) % 4),
  },
  { type: 'text', nullable: true, value: (s, k) => `text "quoted" ${md5(String(s + k))}` },
  {
    type: 'date',
    nullable: false,
    value: (s, k) => {
      const d = new Date(Date.UTC(2024, 0, 1) + ((s + k) % 3000) * 86400000);
      return new MysqlDate(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate());
    },
  },
  { type: 'time', nullable: false, value: (s, k) => new MysqlTime(((s + k) % 86400) * 1_000_000, 0) },
  { type: 'tinyint(4)', nullable: false, value: (s, k) => (s + k) % 128 },
  {
    type: "set('a','b','c','d')",
    nullable: false,
    enumValues: ['a', 'b', 'c', 'd'],
    value: (s, k) => BigInt((s + k) % 16),
  },
  {
    type: 'varbinary(32)',
    nullable: true,
    value: (s, k) =>
      createHash('md5')
        .update(String(s + k))
        .digest(),
  },
  {
    type: 'bit(12)',
    nullable: false,
    value: (s, k) => {
      const v = (s + k) % 4096;
      return Buffer.from([v >> 8, v & 255]);
    },
  },
  { type: 'year(4)', nullable: false, value: (s, k) => 1901 + ((s + k) % 250) },
  { type: 'smallint(5) unsigned', nullable: true, value: (s, k) => (s % 3 === 0 ? null : (s + k) % 65536) },
];

const wideKinds = Array.from({ length: 49 }, (_, i) => WIDE_KINDS[i % WIDE_KINDS.length]);
const wide: Shape = {
  table: tableOf('changes_wide', [
    col('id', 'int(11)', false),
    ...wideKinds.map((k, i) => col(`c${i + 1}`, k.type, k.nullable, k.enumValues ?? null)),
  ]),
  row: (seq) => [seq, ...wideKinds.map((k, i) => k.value(seq, i + 1))],
  update: (b) => {
    const a = b.map((v) =>
      Buffer.isBuffer(v)
        ? Buffer.from(v)
        : v instanceof MysqlDateTime || v instanceof MysqlDate || v instanceof MysqlTime || v instanceof MysqlTimestamp
          ? Object.assign(Object.create(Object.getPrototypeOf(v)), v)
          : v,
    );
    a[1] = (a[1] as number) + 1;
    a[3] = `changed-${b[0]}-3`;
    a[4] = (Number(a[4]) + 0.001).toFixed(3);
    a[9] = 1 + ((a[9] as number) % 4);
    a[19] = (a[19] as number) + 1;
    return a;
  },
};

function jsonDoc(seq: number, active: boolean, qty: number): string {
  return JSON.stringify({
    id: seq,
    name: `customer "${seq}"`,
    active,
    tags: ['a', 'b', `t${seq % 97}`],
    address: { street: `${seq} Main St`, city: 'Springfield', zip: String(seq % 100000).padStart(5, '0') },
    items: [
      { sku: md5(String(seq)), qty, price: (seq % 1000) / 100 },
      { sku: sha1(String(seq)), qty: 1 + (seq % 3), price: 9.99 },
    ],
    notes: 'lorem ipsum \\ dolor\tsit '.repeat(12),
  })
    .replaceAll(',"', ', "')
    .replaceAll('":', '": ');
}

/** A document as the binlog decoder makes it from MariaDB's text of a JSON column: with its UTF-8 bytes. */
function decodedJson(text: string): MysqlJson {
  const bytes = Buffer.from(text, 'utf8');
  return MysqlJson.fromUtf8(bytes.toString('utf8'), bytes, 0, bytes.length);
}

/** A LONGTEXT cell as the decoder makes it: a fresh flat string decoded from the event's bytes. */
const decodedText = (text: string): string => Buffer.from(text, 'utf8').toString('utf8');

/** The json shape's table with the document column of type `docType`, its cells made by `cell`. */
function jsonShape(docType: string, cell: (text: string) => CellValue): Shape {
  return {
    table: tableOf('changes_json', [
      col('id', 'int(11)', false),
      col('doc', docType, false),
      col('tag', 'varchar(32)', false),
    ]),
    row: (seq) => [seq, cell(jsonDoc(seq, seq % 2 === 0, seq % 7)), `tag-${seq % 100}`],
    update: (b) => {
      const seq = b[0] as number;
      return [seq, cell(jsonDoc(seq, seq % 2 !== 0, seq % 11)), `changed-${seq % 100}`];
    },
  };
}

/**
 * The streaming benchmark's table as the stream sees it there: its definition read from the server (no schema
 * history), where MariaDB shows the JSON column as LONGTEXT with a json_valid check, so the document is a string
 * column (as Debezium's SHOW CREATE TABLE path makes it) and each cell a decoded string.
 */
const json = jsonShape('longtext', decodedText);

/** The same table with the column's type from its DDL (schema history): io.debezium.data.Json, MysqlJson cells. */
const jsonColumn = jsonShape('json', decodedJson);

const shapes: Record<string, Shape> = { narrow, wide, json, 'json-column': jsonColumn };
const shape = shapes[process.argv[2] ?? 'narrow'];
if (!shape) throw new Error(`unknown shape ${process.argv[2]}`);
const total = Number(process.argv[3] ?? 200_000);
const QUEUE = Number(process.env.MICRO_QUEUE ?? 8192);
const POOL = 2000;

// Decoded rows, made before measuring (the decoder's cost is not the event layer's).
const inserts: Row[] = [];
const updates: Array<[Row, Row]> = [];
for (let i = 1; i <= POOL; i++) {
  const r = shape.row(i);
  inserts.push(r);
  updates.push([shape.row(i), shape.update(shape.row(i))]);
}

const builder = new TableEventBuilder(shape.table, { topicPrefix: 'bench', connectorName: 'mariadb' });
const ring: Array<SinkRecord | undefined> = new Array(QUEUE);
let slot = 0;
const source: SourceInfo = {
  tsMs: 1_733_100_000_000,
  serverId: 1,
  gtid: '0-1-1000',
  file: 'mysql-bin.000001',
  pos: 4,
  row: 0,
  thread: 7,
  query: null,
};

let gcMs = 0;
let gcCount = 0;
const obs = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    gcMs += e.duration;
    gcCount++;
  }
});
obs.observe({ entryTypes: ['gc'] });

function run(n: number): number {
  let bytes = 0;
  const half = n >> 1;
  // One transaction of 1000 rows per rows event, as the workload's statements write them.
  for (let i = 0; i < n; i++) {
    if (i % 1000 === 0) {
      source.gtid = `0-1-${1000 + i / 1000}`;
      source.pos += 1000;
      source.tsMs += 1000;
    }
    const k = i % POOL;
    source.row = i % 1000;
    source.id = `${source.gtid}/0/${i % 1000}`;
    const records =
      i < half ? builder.insert(inserts[k], source) : builder.update(updates[k][0], updates[k][1], source);
    for (const r of records) {
      ring[slot] = r;
      slot = (slot + 1) % QUEUE;
      bytes += r.sizeBytes;
    }
  }
  return bytes;
}

run(Math.min(20_000, total)); // warm-up
gcMs = 0;
gcCount = 0;
const cpu0 = process.cpuUsage();
const bytes = run(total);
const cpu = process.cpuUsage(cpu0);
await new Promise((r) => setTimeout(r, 10));
if (process.env.MICRO_SNAPSHOT) (await import('node:v8')).writeHeapSnapshot(process.env.MICRO_SNAPSHOT);
const cpuMs = (cpu.user + cpu.system) / 1000;
process.stdout.write(
  `${JSON.stringify({ shape: process.argv[2] ?? 'narrow', rows: total, cpuMs: Math.round(cpuMs), gcMs: Math.round(gcMs), gcCount, gcShare: Math.round((gcMs / cpuMs) * 1000) / 10, rowsPerCpuS: Math.round(total / (cpuMs / 1000)), mbOut: Math.round(bytes / 1e5) / 10, last: ring[(slot + QUEUE - 1) % QUEUE]?.value?.length })}\n`,
);
