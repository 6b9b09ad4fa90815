/**
 * Kinesis sink throughput against kinesalite (in-process, so figures measure our overhead plus kinesalite's, not AWS),
 * and how much KPL aggregation cuts the number of Kinesis records for ~300-byte change events.
 */
import { PutRecordsCommand } from '@aws-sdk/client-kinesis';
import type { SinkRecord } from '../src/model/sink-record.js';
import { KinesisSink } from '../src/sinks/kinesis/kinesis-sink.js';
import { createStream, kinesisClient, readAllRecords, startKinesalite } from '../test/harness/aws.js';
import type { Figure } from './harness.js';

const EVENTS = 20_000;
const BATCH = 2_000;
const KEYS = 2_000;

function events(): SinkRecord[] {
  return Array.from({ length: EVENTS }, (_, i) => {
    const id = i % KEYS;
    // ~300 bytes: a typical small-row Debezium update envelope without schema.
    const value = JSON.stringify({
      before: { id, name: `customer-${id}`, status: 'active', balance: '1042.17' },
      after: { id, name: `customer-${id}`, status: 'active', balance: (1000 + (i % 97)).toFixed(2) },
      source: {
        version: '2.7',
        connector: 'mysql',
        name: 'app',
        ts_ms: 1_700_000_000_000 + i,
        db: 'shop',
        table: 'customers',
      },
      op: 'u',
      ts_ms: 1_700_000_000_000 + i,
    });
    return {
      topic: 'app.shop.customers',
      table: 'shop.customers',
      key: `{"id":${id}}`,
      value,
      sizeBytes: value.length,
    };
  });
}

export async function run(): Promise<Figure[]> {
  const k = await startKinesalite();
  const client = kinesisClient(k.endpoint);
  try {
    const records = events();
    const avgBytes = Math.round(records.reduce((n, r) => n + r.sizeBytes, 0) / records.length);

    // Reference: the plain SDK, PutRecords of 500 in arrival order, one request at a time, no retry or ordering logic.
    await createStream(client, 'ref', 4);
    let t = performance.now();
    for (let i = 0; i < records.length; i += 500) {
      await client.send(
        new PutRecordsCommand({
          StreamName: 'ref',
          Records: records.slice(i, i + 500).map((r) => ({ PartitionKey: r.key!, Data: Buffer.from(r.value!) })),
        }),
      );
    }
    const refRate = EVENTS / ((performance.now() - t) / 1000);

    const measure = async (stream: string, aggregation: boolean) => {
      await createStream(client, stream, 4);
      const sink = new KinesisSink({ client, streamName: stream, aggregation, maxInFlight: 4 });
      await sink.start();
      const start = performance.now();
      for (let i = 0; i < records.length; i += BATCH) await sink.send(records.slice(i, i + BATCH));
      const rate = EVENTS / ((performance.now() - start) / 1000);
      const onStream = (await readAllRecords(client, stream)).length;
      return { rate, onStream, stats: sink.stats };
    };
    t = performance.now();
    const plain = await measure('plain', false);
    const agg = await measure('agg', true);
    const perThousand = (agg.onStream / EVENTS) * 1000;
    return [
      {
        name: 'kinesis.sink_records_per_s',
        ours: Math.round(plain.rate),
        reference: Math.round(refRate),
        unit: 'records/s',
        ref: `plain SDK PutRecords x500 sequential, same kinesalite, ${EVENTS} events of ~${avgBytes} B, 4 shards`,
      },
      {
        name: 'kinesis.sink_aggregated_events_per_s',
        ours: Math.round(agg.rate),
        reference: Math.round(plain.rate),
        unit: 'events/s',
        ref: 'our sink without aggregation (per-key ordered PutRecords, maxInFlight 4)',
      },
      {
        name: 'kinesis.records_per_1000_events',
        ours: Number(perThousand.toFixed(2)),
        reference: 1000,
        unit: 'kinesis records',
        ref: `no aggregation (1 Kinesis record per event); ~${avgBytes} B events, ${KEYS} keys, 4 shards, 1 MiB aggregates`,
        lowerIsBetter: true,
      },
    ];
  } finally {
    client.destroy();
    await k.stop();
  }
}
