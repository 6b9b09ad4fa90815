/**
 * Kinesis event source input for the Lambda adapters: deaggregates KPL records and parses each user record into the
 * transform form. Two data layouts are understood (see the Kinesis sink's `payload` option):
 * - `record`: the file sink's line `{"topic","key","value","headers"}`;
 * - `value` (Debezium Server style): the data is the value JSON (empty = tombstone), the partition key is the key
 *   JSON, and the topic is the stream name (the sink names streams after topics by default).
 * `auto` picks `record` when the data is an object with a string `topic` and a `value` member, else `value`.
 */
import type { KinesisStreamRecord } from 'aws-lambda';
import { deaggregate } from '../../src/sinks/kinesis/kpl-aggregation.js';
import { type Json, parseJson } from '../../src/transforms/json.js';
import {
  asEnvelope,
  fromRecordLine,
  isObject,
  type TransformRecord,
  unwrapSchema,
} from '../../src/transforms/record.js';

export type InputFormat = 'auto' | 'value' | 'record';

/** One Kinesis record of the event (a KPL aggregate counts once) and what it decoded to. */
export interface ParentRecord {
  /** Position in the event, for ordering. */
  index: number;
  sequenceNumber: string;
  eventId: string;
  partitionKey: string;
  /** Base64 data as received (for the dead-letter queue). */
  data: string;
  arrivalMs: number;
  /** User records, in order (several for a KPL aggregate). Empty when decoding failed. */
  records: DecodedRecord[];
  /** Why the record could not be decoded (a poison record); undefined when it decoded. */
  error?: string;
}

export interface DecodedRecord {
  record: TransformRecord;
  /** Index of the user record inside a KPL aggregate (0 for plain records). */
  subSequence: number;
}

/** The stream name in a Kinesis stream ARN (`arn:aws:kinesis:<region>:<account>:stream/<name>`). */
export function streamNameOf(arn: string): string {
  const i = arn.indexOf(':stream/');
  return i >= 0 ? arn.slice(i + ':stream/'.length).split('/')[0] : arn;
}

export function decodeEvent(records: readonly KinesisStreamRecord[], format: InputFormat): ParentRecord[] {
  return records.map((r, index) => {
    const parent: ParentRecord = {
      index,
      sequenceNumber: r.kinesis.sequenceNumber,
      eventId: r.eventID,
      partitionKey: r.kinesis.partitionKey,
      data: r.kinesis.data,
      arrivalMs: Math.round(r.kinesis.approximateArrivalTimestamp * 1000),
      records: [],
    };
    try {
      const users = deaggregate({ partitionKey: r.kinesis.partitionKey, data: Buffer.from(r.kinesis.data, 'base64') });
      parent.records = users.map((u, subSequence) => ({
        record: decodeUserRecord(u.partitionKey, u.data, streamNameOf(r.eventSourceARN), parent.arrivalMs, format),
        subSequence,
      }));
    } catch (err) {
      parent.records = [];
      parent.error = `cannot decode: ${(err as Error).message}`;
    }
    return parent;
  });
}

function decodeUserRecord(
  partitionKey: string,
  data: Buffer,
  stream: string,
  arrivalMs: number,
  format: InputFormat,
): TransformRecord {
  const text = data.toString('utf8');
  if (format !== 'value' && text.startsWith('{')) {
    const parsed = parseJson(text);
    if (format === 'record' || (isObject(parsed) && typeof parsed.topic === 'string' && 'value' in parsed)) {
      const r = fromRecordLine(text);
      r.timestamp = arrivalMs;
      setTable(r);
      return r;
    }
    return valueRecord(partitionKey, parsed, stream, arrivalMs);
  }
  if (format === 'record') throw new Error('data is not a record line');
  return valueRecord(partitionKey, text === '' ? null : parseJson(text), stream, arrivalMs);
}

function valueRecord(partitionKey: string, data: Json | null, stream: string, arrivalMs: number): TransformRecord {
  const value = unwrapSchema(data);
  const key = unwrapSchema(parseKey(partitionKey));
  const r: TransformRecord = {
    topic: stream,
    key: key.payload,
    value: value.payload,
    headers: {},
    timestamp: arrivalMs,
  };
  if (value.schema !== undefined) r.valueSchema = value.schema;
  if (key.schema !== undefined) r.keySchema = key.schema;
  setTable(r);
  return r;
}

/** Partition keys are the key JSON text; hashed (over-long) keys and table/topic fallbacks are not JSON objects. */
function parseKey(partitionKey: string): Json | null {
  if (!partitionKey.startsWith('{')) return null;
  try {
    return parseJson(partitionKey);
  } catch {
    return null;
  }
}

/** `db.table` from the envelope's source block, for stream routing templates. */
function setTable(r: TransformRecord): void {
  const env = asEnvelope(r.value);
  if (env && typeof env.source.db === 'string' && typeof env.source.table === 'string')
    r.table = `${env.source.db}.${env.source.table}`;
}
