/**
 * Capture → Kafka throughput on a real Apache Kafka broker (test/harness/kafka.ts: one local KRaft node, PLAINTEXT
 * listener, full JIT): ROWS inserted rows streamed from a live MariaDB by the full pipeline into the Kafka sink
 * (idempotent, acks=all, max.batch.size 2048), next to @platformatic/kafka's raw produce rate against the same
 * broker in the same run (idempotent, acks=all, 2048 messages of the same average size per send, awaited one at a
 * time, no ordering logic). Broker and clients share this machine's cores, so the figures are a local ceiling,
 * not a cluster's. Env: KAFKA_BENCH_ROWS (default 20000; any size from 1 works, e.g. CI's tiny runs).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Producer } from '@platformatic/kafka';
import { startCapture } from '../src/cli/commands/run.js';
import { silentLogger } from '../src/common/logger.js';
import { parseConfig } from '../src/config/index.js';
import { parseKafkaSinkConfig } from '../src/config/kafka-sink.js';
import type { SinkRecord } from '../src/model/sink-record.js';
import { KafkaSink } from '../src/sinks/kafka/kafka-sink.js';
import { startKafkaBroker } from '../test/harness/kafka.js';
import { startMariaDb } from '../test/harness/mariadb.js';
import type { Figure } from './harness.js';

const ROWS = Number(process.env.KAFKA_BENCH_ROWS ?? 20_000);
const BATCH = 2048;
const PARTITIONS = 8;
const IDLE_MS = 300;
const RUNS = 3;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

export async function run(): Promise<Figure[]> {
  const server = await startMariaDb();
  const kafka = await startKafkaBroker({ jit: 'full' });
  process.stderr.write(`kafka bench: broker ready in ${kafka.startMs} ms\n`);
  try {
    const db = await server.createDatabase('kbench');
    await server.query(
      `CREATE TABLE ${db}.orders (id INT PRIMARY KEY, customer VARCHAR(40), status VARCHAR(16), amount DECIMAL(10,2), note VARCHAR(100), created DATETIME(3))`,
    );
    const topic = `bench.${db}.orders`;
    await kafka.createTopic({ name: topic, partitions: PARTITIONS });
    await kafka.createTopic('bench');
    const dir = mkdtempSync(join(tmpdir(), 'cdc-kafka-bench-'));
    const config = parseConfig({
      name: 'kafka-bench',
      'topic.prefix': 'bench',
      'database.hostname': server.host,
      'database.port': String(server.port),
      'database.user': server.admin.user,
      'database.password': server.admin.password,
      'database.server.id': '4242',
      'database.include.list': db,
      'database.ssl.mode': 'disabled',
      'sink.type': 'kafka',
      'sink.kafka.bootstrap.servers': kafka.plaintext,
      'offset.storage.file.filename': join(dir, 'offsets.json'),
      'schema.history.internal.file.filename': join(dir, 'history.jsonl'),
      'max.batch.size': String(BATCH),
    });
    await startCapture(config, silentLogger, { untilIdleMs: IDLE_MS }).done; // empty snapshot, position taken
    for (let i = 0; i < ROWS; i += 1000) {
      const rows = Array.from(
        { length: Math.min(1000, ROWS - i) },
        (_, j) => `(${i + j},'customer-${(i + j) % 997}','open',${((i + j) % 10_000) / 100},'note ${i + j}',NOW(3))`,
      );
      await server.query(`INSERT INTO ${db}.orders VALUES ${rows.join(',')}`);
    }
    let t = performance.now();
    await startCapture(config, silentLogger, { untilIdleMs: IDLE_MS }).done;
    const captureRate = ROWS / ((performance.now() - t - IDLE_MS) / 1000);
    const produced = await kafka.consume(topic);
    if (produced.length !== ROWS) throw new Error(`capture produced ${produced.length} messages, expected ${ROWS}`);
    const avgValue = Math.round(produced.reduce((n, m) => n + (m.value?.length ?? 0), 0) / produced.length);

    // Back in capture (id) order: consume returns them partition by partition, and 2048 texts of one partition are
    // one record batch over the broker's message.max.bytes for the raw client (MESSAGE_TOO_LARGE at full size).
    const texts = produced
      .map((m) => ({ key: m.key?.toString('utf8') ?? '', value: m.value?.toString('utf8') ?? '' }))
      .sort((a, b) => (JSON.parse(a.key) as { id: number }).id - (JSON.parse(b.key) as { id: number }).id);
    const producer = new Producer({
      clientId: 'bench-raw',
      bootstrapBrokers: [kafka.plaintext],
      acks: -1,
      idempotent: true,
    });
    if (config.sink.type !== 'kafka') throw new Error('unreachable');
    const sink = new KafkaSink({ settings: parseKafkaSinkConfig(config.sink) });
    await sink.start();
    // Raw client vs the sink alone (no database, no pipeline) on the captured texts, interleaved, median of RUNS.
    const raw: number[] = [];
    const ours: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const rawTopic = `raw-${run}`;
      const sinkTopic = `sink-${run}`;
      await kafka.createTopic({ name: rawTopic, partitions: PARTITIONS });
      await kafka.createTopic({ name: sinkTopic, partitions: PARTITIONS });
      t = performance.now();
      for (let i = 0; i < ROWS; i += BATCH) {
        const messages = texts.slice(i, i + BATCH).map((m) => ({
          topic: rawTopic,
          key: Buffer.from(m.key),
          value: Buffer.from(m.value),
        }));
        await producer.send({ messages });
      }
      raw.push(ROWS / ((performance.now() - t) / 1000));
      const records: SinkRecord[] = texts.map((m) => ({
        topic: sinkTopic,
        key: m.key,
        value: m.value,
        sizeBytes: m.key.length + m.value.length,
      }));
      t = performance.now();
      for (let i = 0; i < records.length; i += BATCH) await sink.send(records.slice(i, i + BATCH));
      ours.push(ROWS / ((performance.now() - t) / 1000));
    }
    await producer.close();
    await sink.close();
    const rawRate = median(raw);
    const sinkRate = median(ours);
    process.stderr.write(`kafka bench: raw ${raw.map(Math.round).join(',')} sink ${ours.map(Math.round).join(',')}\n`);
    return [
      {
        name: 'kafka.capture_rows_per_s',
        ours: Math.round(captureRate),
        reference: Math.round(rawRate),
        unit: 'rows/s',
        ref: `@platformatic/kafka 1.35 raw idempotent produce of the same ${ROWS} key/value texts (avg value ${avgValue} B), ${BATCH} per awaited send, acks=all, same Apache Kafka 4.1 broker (1 KRaft node on this machine, ${PARTITIONS} partitions); ours = MariaDB binlog -> full pipeline -> Kafka sink, idle wait excluded`,
      },
      {
        name: 'kafka.sink_records_per_s',
        ours: Math.round(sinkRate),
        reference: Math.round(rawRate),
        unit: 'records/s',
        ref: `same raw produce (median of ${RUNS}, interleaved); ours = KafkaSink.send of the ${ROWS} captured records (partitioning, per-partition rounds, acks=all) in ${BATCH}-record batches`,
      },
    ];
  } finally {
    await kafka.stop();
    await server.stop();
  }
}
