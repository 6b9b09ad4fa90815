/**
 * One binlog reader of the decode benchmark, run in its own process so its peak RSS is its own:
 *   node --import tsx bench/support/decode-reader.ts <ours-live|zongji-live|ours-file> '<ReaderJob JSON>'
 * Reads `rows` row changes starting at `file:pos`, hands each row to a no-op consumer, and prints one JSON line
 * (ReaderResult) on stdout.
 */
import { join } from 'node:path';
import ZongJi from '@vlasky/zongji';
import { BinlogDecoder } from '../../src/source/mysql/binlog/decoder.js';
import type { BinlogEvent } from '../../src/source/mysql/binlog/events.js';
import { readBinlogFile } from '../../src/source/mysql/binlog/file-reader.js';
import { BinlogReplicationClient } from '../../src/source/mysql/binlog/replication/index.js';
import { peakRssMb } from '../harness.js';

export type ReaderMode = 'ours-live' | 'zongji-live' | 'ours-file';

export interface ReaderJob {
  host: string;
  port: number;
  user: string;
  password: string;
  serverId: number;
  file: string;
  pos: number;
  /** Directory of the binlog files (ours-file). */
  binlogDir: string;
  rows: number;
}

export interface ReaderResult {
  mode: ReaderMode;
  rows: number;
  ms: number;
  rowsPerSecond: number;
  peakRssMb: number;
}

// The no-op consumer: keeps a value alive so the work cannot be optimised away.
let sink: unknown;
function consume(row: unknown): void {
  sink = row;
}

function rowsOf(ev: BinlogEvent): number {
  if (ev.type === 'WRITE_ROWS' || ev.type === 'DELETE_ROWS') {
    for (const row of ev.rows) consume(row);
    return ev.rows.length;
  }
  if (ev.type === 'UPDATE_ROWS') {
    for (const row of ev.rows) consume(row.after);
    return ev.rows.length;
  }
  return 0;
}

async function oursLive(job: ReaderJob): Promise<number> {
  const client = new BinlogReplicationClient({
    connection: { host: job.host, port: job.port, user: job.user, password: job.password },
    serverId: job.serverId,
    start: { file: job.file, pos: job.pos },
    requestAnnotateRows: false,
  });
  const decoder = new BinlogDecoder();
  await client.start();
  decoder.setChecksum(client.session?.checksumAlgorithm === 'CRC32' ? 'CRC32' : 'NONE');
  let seen = 0;
  for await (const raw of client) {
    seen += rowsOf(decoder.decode(raw.raw, raw.position));
    if (seen >= job.rows) break;
  }
  return seen;
}

async function oursFile(job: ReaderJob): Promise<number> {
  let seen = 0;
  for await (const entry of readBinlogFile(join(job.binlogDir, job.file), { startPosition: job.pos })) {
    seen += rowsOf(entry.event);
    if (seen >= job.rows) break;
  }
  return seen;
}

function zongjiLive(job: ReaderJob): Promise<number> {
  return new Promise((resolve, reject) => {
    const zongji = new ZongJi({ host: job.host, port: job.port, user: job.user, password: job.password });
    let seen = 0;
    zongji.on('binlog', (ev) => {
      if (!('rows' in ev)) return;
      for (const row of ev.rows) consume(row);
      seen += ev.rows.length;
      if (seen >= job.rows && !zongji.stopped) {
        zongji.stop();
        resolve(seen);
      }
    });
    zongji.on('error', reject);
    zongji.start({
      serverId: job.serverId,
      filename: job.file,
      position: job.pos,
      includeEvents: ['tablemap', 'writerows', 'updaterows'],
    });
  });
}

const readers: Record<ReaderMode, (job: ReaderJob) => Promise<number>> = {
  'ours-live': oursLive,
  'zongji-live': zongjiLive,
  'ours-file': oursFile,
};

const mode = process.argv[2] as ReaderMode;
const job = JSON.parse(process.argv[3] ?? '{}') as ReaderJob;
const read = readers[mode];
if (!read) throw new Error(`unknown reader mode ${mode}`);
const t0 = performance.now();
const rows = await read(job);
const ms = performance.now() - t0;
if (sink === undefined) throw new Error('no rows consumed');
const result: ReaderResult = {
  mode,
  rows,
  ms: Math.round(ms),
  rowsPerSecond: Math.round(rows / (ms / 1000)),
  peakRssMb: Math.round((await peakRssMb()) * 10) / 10,
};
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0);
