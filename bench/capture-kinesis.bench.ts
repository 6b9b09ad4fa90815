/**
 * Whole capture path into Kinesis: MariaDB binlog -> decoder -> events -> KinesisSink -> kinesalite (4 shards), with
 * and without KPL aggregation, next to kinesalite's own PutRecords ceiling measured in the same run (plain SDK
 * PutRecords of 500-record batches of the very same payloads, 4 requests in flight like the sink). Also Kinesis
 * records and bytes per 1,000 change events. bench/kinesis.bench.ts measures the sink alone on synthetic records;
 * this one measures catch-up of a real binlog backlog (the capture is stopped while the rows are written).
 *
 * Everything runs in this process (kinesalite included), so absolute figures are kinesalite-bound, not AWS figures.
 * Kinesalite's rate swings from run to run: each capture and the ceiling run RUNS times, interleaved, and the
 * figures are medians, after an untimed warm-up round of each (up to 5000 rows) so that both run JIT-optimised code.
 * Env: CAPTURE_KINESIS_BENCH_ROWS (default 20000), CAPTURE_KINESIS_BENCH_RUNS (default 3),
 * CAPTURE_KINESIS_BENCH_WARMUP (warm-up rounds, default 1).
 * Because everything shares this process's main thread, rows per main-thread CPU-second (Linux schedstat) is also
 * reported: waiting for a busy machine's cores does not move it, so it compares ours and the ceiling under load too.
 */
import { readFileSync } from 'node:fs';
import { PutRecordsCommand, type PutRecordsRequestEntry } from '@aws-sdk/client-kinesis';
import { startCapture } from '../src/cli/commands/run.js';
import { silentLogger } from '../src/common/logger.js';
import { parseConfig } from '../src/config/index.js';
import { createStream, kinesisClient, startKinesalite } from '../test/harness/aws.js';
import { startMariaDb } from '../test/harness/mariadb.js';
import { StreamConsumer, setStandInCredentials } from '../test/integration/support/kinesis-e2e.js';
import type { Figure } from './harness.js';
import { median } from './harness.js';

const ROWS = Number(process.env.CAPTURE_KINESIS_BENCH_ROWS ?? 20_000);
const RUNS = Number(process.env.CAPTURE_KINESIS_BENCH_RUNS ?? 3);
const PER_TXN = 500;
const WARMUP = Number(process.env.CAPTURE_KINESIS_BENCH_WARMUP ?? 1);
const WARMUP_ROWS = Math.min(ROWS, 5_000);

/** CPU time of this process's main thread in ms (Linux schedstat), else the whole process's user+system time. */
function mainThreadCpuMs(): number {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  }
}

export async function run(): Promise<Figure[]> {
  setStandInCredentials();
  const [db, k] = await Promise.all([startMariaDb(), startKinesalite()]);
  const client = kinesisClient(k.endpoint);
  const { mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  try {
    /** Creates a table, lets the capture take its (empty) snapshot, writes ROWS rows, then times the catch-up. */
    const capture = async (aggregation: boolean, wanted = ROWS) => {
      const name = await db.createDatabase(aggregation ? 'bagg' : 'bplain');
      const rows = Math.max(PER_TXN, Math.ceil(wanted / PER_TXN) * PER_TXN);
      await db.query(
        `CREATE TABLE ${name}.orders (id INT PRIMARY KEY, customer VARCHAR(40), status VARCHAR(16), total DECIMAL(10,2), note VARCHAR(120))`,
      );
      const stream = `bench-${name}`;
      await createStream(client, stream, 4);
      const dir = mkdtempSync(join(tmpdir(), 'cdc-bench-'));
      const config = parseConfig({
        name: `bench-${name}`,
        'topic.prefix': 'bench',
        'database.hostname': db.host,
        'database.port': String(db.port),
        'database.user': db.admin.user,
        'database.password': db.admin.password,
        'database.server.id': String(9000 + Math.floor(Math.random() * 500)),
        'database.include.list': name,
        'database.ssl.mode': 'disabled',
        'sink.type': 'kinesis',
        'sink.kinesis.stream.name': stream,
        'sink.kinesis.endpoint': k.endpoint,
        'sink.kinesis.aggregation': String(aggregation),
        'aws.region': k.region,
        'offset.storage.file.filename': join(dir, 'offsets.json'),
        'schema.history.internal.file.filename': join(dir, 'history.jsonl'),
        'include.schema.changes': 'false',
      });
      await startCapture(config, silentLogger, { untilIdleMs: 300 }).done;
      for (let start = 0; start < rows; start += PER_TXN) {
        const values: string[] = [];
        for (let id = start; id < start + PER_TXN; id++) {
          values.push(
            `(${id},'customer-${id % 997}','NEW',${(id % 1000) + 0.25},'note ${'n'.repeat(40 + (id % 60))}')`,
          );
        }
        await db.query(`INSERT INTO ${name}.orders VALUES ${values.join(',')}`);
      }
      let delivered = 0;
      let lastAt = 0;
      let lastCpu = 0;
      const t0 = performance.now();
      const cpu0 = mainThreadCpuMs();
      await startCapture(config, silentLogger, {
        untilIdleMs: 300,
        onDelivered: (records) => {
          delivered += records.length;
          lastAt = performance.now();
          lastCpu = mainThreadCpuMs();
        },
      }).done;
      if (delivered < rows) throw new Error(`only ${delivered} of ${rows} events were delivered`);
      const consumer = new StreamConsumer(client, stream);
      await consumer.poll(undefined, 10_000);
      return { rate: rows / ((lastAt - t0) / 1000), perCpu: rows / ((lastCpu - cpu0) / 1000), consumer };
    };

    // Reference ceiling: the same payloads, plain SDK PutRecords x500, 4 in flight, no ordering logic.
    const ceiling = async (consumer: StreamConsumer, run: number | string) => {
      const stream = `bench-ref-${run}`;
      await createStream(client, stream, 4);
      const entries: PutRecordsRequestEntry[] = consumer.events.map((e) => ({
        PartitionKey: e.partitionKey,
        Data: Buffer.from(e.value === null ? '' : JSON.stringify(e.value)),
      }));
      const batches: PutRecordsRequestEntry[][] = [];
      for (let i = 0; i < entries.length; i += 500) batches.push(entries.slice(i, i + 500));
      const t = performance.now();
      const cpu0 = mainThreadCpuMs();
      let next = 0;
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          while (next < batches.length) {
            const batch = batches[next++];
            await client.send(new PutRecordsCommand({ StreamName: stream, Records: batch }));
          }
        }),
      );
      const rate = entries.length / ((performance.now() - t) / 1000);
      return { rate, perCpu: entries.length / ((mainThreadCpuMs() - cpu0) / 1000) };
    };

    const plainRates: number[] = [];
    const aggRates: number[] = [];
    const refRates: number[] = [];
    const plainPerCpu: number[] = [];
    const refPerCpu: number[] = [];
    let plain: Awaited<ReturnType<typeof capture>> | undefined;
    let agg: Awaited<ReturnType<typeof capture>> | undefined;
    // Untimed warm-up of both sides first: a capture runs for hours with its code optimised by the JIT, and the
    // ceiling's SDK code is warm from the capture before it anyway. Small, so kinesalite's heap barely grows.
    for (let w = 0; w < WARMUP; w++) {
      const warm = await capture(false, WARMUP_ROWS);
      await capture(true, WARMUP_ROWS);
      await ceiling(warm.consumer, `warmup-${w}`);
    }
    for (let run = 0; run < Math.max(1, RUNS); run++) {
      plain = await capture(false);
      agg = await capture(true);
      plainRates.push(plain.rate);
      aggRates.push(agg.rate);
      const ref = await ceiling(plain.consumer, run);
      refRates.push(ref.rate);
      plainPerCpu.push(plain.perCpu);
      refPerCpu.push(ref.perCpu);
      process.stderr.write(
        `  capture_kinesis run ${run + 1}: plain ${Math.round(plain.rate)}, aggregated ${Math.round(agg.rate)}, ceiling ${Math.round(ref.rate)} rows/s; per main-thread CPU-s plain ${Math.round(plain.perCpu)}, ceiling ${Math.round(ref.perCpu)}\n`,
      );
    }
    if (!plain || !agg) throw new Error('no capture run');
    const refRate = median(refRates);

    const events = plain.consumer.events.length;
    const avgBytes = Math.round(plain.consumer.kinesisBytes / plain.consumer.kinesisRecords);
    const per1000 = (n: number, c: StreamConsumer) => Number(((n / c.events.length) * 1000).toFixed(2));
    const ref = `kinesalite's ceiling: plain SDK PutRecords x500, 4 in flight, same ${events} payloads (~${avgBytes} B), 4 shards, same run; medians of ${plainRates.length} interleaved runs`;
    return [
      {
        name: 'capture_kinesis.rows_per_s',
        ours: Math.round(median(plainRates)),
        reference: Math.round(refRate),
        unit: 'rows/s',
        ref: `${ref}; ours = binlog catch-up of ${events} inserted rows through cdc into kinesalite, no aggregation`,
      },
      {
        name: 'capture_kinesis.rows_per_main_cpu_s',
        ours: Math.round(median(plainPerCpu)),
        reference: Math.round(median(refPerCpu)),
        unit: 'rows per main-thread CPU-s',
        ref: `${ref}; rows over the CPU time of this process's main thread (which runs kinesalite, and for ours the capture too), from the capture's start to its last delivery; load does not move it`,
      },
      {
        name: 'capture_kinesis.aggregated_rows_per_s',
        ours: Math.round(median(aggRates)),
        reference: Math.round(refRate),
        unit: 'rows/s',
        ref: `${ref}; ours = the same catch-up with KPL aggregation`,
      },
      {
        name: 'capture_kinesis.records_per_1000_events',
        ours: per1000(agg.consumer.kinesisRecords, agg.consumer),
        reference: per1000(plain.consumer.kinesisRecords, plain.consumer),
        unit: 'kinesis records',
        ref: 'without aggregation (one Kinesis record per change event); target >= 5x fewer with aggregation',
        lowerIsBetter: true,
      },
      {
        name: 'capture_kinesis.bytes_per_1000_events',
        ours: Math.round((agg.consumer.kinesisBytes / agg.consumer.events.length) * 1000),
        reference: Math.round((plain.consumer.kinesisBytes / plain.consumer.events.length) * 1000),
        unit: 'bytes (data + partition keys)',
        ref: 'without aggregation',
        lowerIsBetter: true,
      },
    ];
  } finally {
    client.destroy();
    await k.stop();
    await db.stop();
  }
}
