/** Helpers for Lambda adapter tests: real-shaped Kinesis events from records read back from kinesalite. */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { KinesisStreamEvent, KinesisStreamRecord } from 'aws-lambda';
import type { DeadLetter, DeadLetterQueue } from '../../../lambdas/lib/dead-letter.js';
import { recordSize, type SinkRecord } from '../../../src/model/sink-record.js';
import type { ReadRecord } from '../../harness/aws.js';

export function streamArn(stream: string): string {
  return `arn:aws:kinesis:us-east-1:000000000000:stream/${stream}`;
}

/** The event Lambda's Kinesis event source mapping would deliver for these records. */
export function kinesisEvent(records: readonly ReadRecord[], stream: string): KinesisStreamEvent {
  return {
    Records: records.map(
      (r): KinesisStreamRecord => ({
        kinesis: {
          kinesisSchemaVersion: '1.0',
          partitionKey: r.partitionKey,
          sequenceNumber: r.sequenceNumber,
          data: r.data.toString('base64'),
          approximateArrivalTimestamp: (r.arrivedAt?.getTime() ?? Date.now()) / 1000,
        },
        eventSource: 'aws:kinesis',
        eventVersion: '1.0',
        eventID: `${r.shardId}:${r.sequenceNumber}`,
        eventName: 'aws:kinesis:record',
        invokeIdentityArn: 'arn:aws:iam::000000000000:role/test',
        awsRegion: 'us-east-1',
        eventSourceARN: streamArn(stream),
      }),
    ),
  };
}

/** Quiet Powertools logger and metrics (metrics are disabled, so nothing is printed to stdout). */
export function quietTools(): { logger: Logger; metrics: Metrics } {
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  return {
    logger: new Logger({ serviceName: 'test', logLevel: 'SILENT' }),
    metrics: new Metrics({ namespace: 'Test', serviceName: 'test' }),
  };
}

/** A hand-written DLQ fake (there is no SQS emulator here): records every letter it is sent. */
export class RecordingDlq implements DeadLetterQueue {
  readonly letters: DeadLetter[] = [];
  async send(letters: readonly DeadLetter[]): Promise<void> {
    this.letters.push(...letters);
  }
}

export interface Change {
  op: 'c' | 'u' | 'd' | 'r';
  id: number;
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
  pos: number;
  row?: number;
  file?: string;
}

/** A Debezium MySQL change event for `shop.orders` as the capture would serialise it. */
export function changeRecord(c: Change, topic = 'it.shop.orders'): SinkRecord {
  const key = JSON.stringify({ id: c.id });
  const value = JSON.stringify({
    before: c.before ?? null,
    after: c.after ?? null,
    source: {
      version: '3.0.0',
      connector: 'mysql',
      name: 'it',
      ts_ms: 1,
      snapshot: c.op === 'r' ? 'true' : 'false',
      db: 'shop',
      table: 'orders',
      server_id: 1,
      gtid: null,
      file: c.file ?? 'mysql-bin.000001',
      pos: c.pos,
      row: c.row ?? 0,
    },
    transaction: null,
    op: c.op,
    ts_ms: 1,
  });
  return { topic, key, value, table: 'shop.orders', sizeBytes: recordSize(key, value) };
}

export function tombstoneRecord(id: number, topic = 'it.shop.orders'): SinkRecord {
  const key = JSON.stringify({ id });
  return { topic, key, value: null, table: 'shop.orders', sizeBytes: key.length };
}

/** `record` with the capture's stable event id header (`__cdc.id`, JSON text). */
export function withEventId(record: SinkRecord, id: string): SinkRecord {
  const headers = { ...record.headers, '__cdc.id': JSON.stringify(id) };
  return { ...record, headers, sizeBytes: recordSize(record.key, record.value, headers) };
}
