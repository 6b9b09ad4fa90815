/**
 * One capture of the snapshot benchmark, in its own process and as compiled JavaScript like the image (the
 * benchmark bundles it with esbuild), so its CPU time and peak RSS are its own:
 *   node <bundle>/snapshot-reader.mjs '<SnapshotJob JSON>'
 * Runs MySqlSource's snapshot (props decide which kind) into an emit that turns each record's key and value into
 * UTF-8 bytes and drops them, the least any sink does (file, Kinesis and Kafka all write bytes), as the reference
 * `mariadb --quick > /dev/null` writes its output; then prints one JSON line: records, wall ms, user+system CPU ms, peak RSS (VmHWM) and the RSS before the snapshot.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { silentLogger } from '../../src/common/logger.js';
import { parseConfig } from '../../src/config/index.js';
import { MySqlSource } from '../../src/source/mysql/mysql-source.js';
import { FileSchemaHistory } from '../../src/stores/file/file-schema-history.js';
import { peakRssMb } from '../harness.js';

export interface SnapshotJob {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  props: Record<string, string>;
}

export interface SnapshotResult {
  records: number;
  /** UTF-8 bytes of the records' keys and values. */
  bytes: number;
  ms: number;
  cpuMs: number;
  peakRssMb: number;
  /** RSS with the code loaded, before the snapshot: what the snapshot adds is peakRssMb minus this. */
  baseRssMb: number;
}

async function capture(job: SnapshotJob): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'cdc-bench-snapshot-'));
  const config = parseConfig({
    name: 'bench',
    'topic.prefix': 'bench',
    'database.hostname': job.host,
    'database.port': String(job.port),
    'database.user': job.user,
    'database.password': job.password,
    'database.server.id': String(9000 + Math.floor(Math.random() * 900)),
    'database.include.list': job.database,
    'database.ssl.mode': 'disabled',
    'sink.type': 'stdout',
    'offset.storage.file.filename': join(dir, 'offsets.json'),
    'schema.history.internal.file.filename': join(dir, 'history.jsonl'),
    'include.schema.changes': 'false',
    ...job.props,
  });
  const source = new MySqlSource({
    config,
    history: new FileSchemaHistory({ path: join(dir, 'history.jsonl'), connectorName: 'bench' }),
    connect: () => mysql.createConnection({ host: job.host, port: job.port, user: job.user, password: job.password }),
    logger: silentLogger,
  });
  const abort = new AbortController();
  let records = 0;
  const running = source.run({
    offset: null,
    // The least a sink does: the record's bytes, then dropped. (Without it the texts were never read, which hid
    // work that moves between the builder and the sink, such as flattening the text.)
    emit: async (item) => {
      const r = item.record;
      if (!r) return;
      records++;
      if (r.key !== null) bytes += Buffer.from(r.key, 'utf8').length;
      if (r.value !== null) bytes += Buffer.from(r.value, 'utf8').length;
    },
    signal: abort.signal,
    logger: silentLogger,
  });
  if (config.snapshot.chunked) {
    while (!source.metrics.snapshot.SnapshotCompleted) await new Promise((r) => setTimeout(r, 20));
    abort.abort();
  }
  await running;
  return records;
}

let bytes = 0;
const job = JSON.parse(process.argv[2] ?? '{}') as SnapshotJob;
const baseRssMb = Math.round((process.memoryUsage().rss / 1048576) * 10) / 10;
const t0 = performance.now();
const cpu0 = process.cpuUsage();
const records = await capture(job);
const cpu = process.cpuUsage(cpu0);
const result: SnapshotResult = {
  records,
  bytes,
  ms: Math.round(performance.now() - t0),
  cpuMs: Math.round((cpu.user + cpu.system) / 1000),
  peakRssMb: Math.round((await peakRssMb()) * 10) / 10,
  baseRssMb,
};
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0);
