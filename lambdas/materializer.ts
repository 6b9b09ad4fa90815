/**
 * Lambda: Kinesis change events → one DynamoDB "latest state" table per source table.
 *
 * Environment: `CDC_TABLE_NAME_TEMPLATE` (@default `{db}.{table}`; placeholders `{db}`, `{table}`, `{topic}`),
 * `CDC_INPUT_FORMAT` auto|value|record (@default auto), `CDC_DLQ_URL` (SQS, optional), `CDC_WRITE_CONCURRENCY`
 * (@default 16), `CDC_AWS_ENDPOINT` for local stand-ins,
 * `CDC_CONNECTOR_NAME` (logged as `connector`). Tables must exist with partition key `__key` (String).
 * Claim-checked records (values in S3, see docs/large-records.md) are resolved before they are written.
 *
 * Item layout: `__key` (the Debezium key as JSON text), `__order` (binlog-order text, see lib/binlog-order.ts),
 * `__seq` (Kinesis order text), `__deleted` (boolean), `__op`, and the row's columns as top-level attributes. Column names starting with `__` are
 * reserved.
 *
 * Idempotent and order-safe: every write is one conditional PutItem, applied only when the stored `__order` is
 * older (`attribute_not_exists(__key) OR __order < :order`). The order comes from the server generation (header
 * `__cdc.server_generation`, after a failover), the event's source position and its stable id (header `__cdc.id`,
 * lib/binlog-order.ts), so an event re-delivered after a crash has the order it
 * had and is never applied twice, nor is anything older than what was applied (docs/delivery.md). Creates, updates and snapshot reads replace the item
 * with the row; deletes replace it with a marker `{__key, __order, __deleted: true}` that keeps the position, so
 * an older update replayed later cannot resurrect the row. Retries, duplicates, replays and out-of-order batches
 * therefore converge on the newest state; a failed condition is a stale event, counted and skipped. Because no
 * write depends on an earlier one, records are written concurrently and a failed record does not block others.
 *
 * Tombstones carry no binlog position. The capture's tombstones carry an event id and follow their delete event,
 * which already wrote the marker at the delete's position: they are skipped (a re-published one would otherwise
 * delete a row re-created after it, and the re-published create, at the order already stored, could not bring it
 * back). A tombstone without an id (another producer) turns a live item into a marker (keeping the item's
 * `__order`) only when the stored state was published before it: every write stores `__seq`, the Kinesis sequence
 * number (+ KPL sub-sequence) it came from, and per key, records share a shard whose sequence numbers grow in
 * publish order. In `value` input format the topic is the stream's name, so such a tombstone maps to a table only
 * when streams are named after topics (the sink's default).
 * A row over DynamoDB's 400 KB item limit becomes a placeholder at its order (`__oversize`, `__size`, the claim-check
 * pointer `__claim_check` when it arrived claim-checked; no columns) and its record is dead-lettered with the reason
 * (docs/large-records.md): a row that can never fit must not block the shard.
 * Truncates, schema changes, heartbeats and transaction records are skipped; keyless tables cannot be
 * materialised (skipped with a warning). Markers are never removed (add a TTL if they matter).
 */

import { Logger } from '@aws-lambda-powertools/logger';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import {
  ConditionalCheckFailedException,
  DynamoDBClient,
  DynamoDBServiceException,
  GetItemCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { KinesisStreamEvent, KinesisStreamRecord } from 'aws-lambda';
import { errorMessage } from '../src/common/errors.js';
import { CONSUMER_SERVICES, ConsumerMetric } from '../src/metrics/names.js';
import { ClaimCheckResolver } from '../src/sinks/claim-check/resolver.js';
import { S3ClaimCheckStore } from '../src/sinks/claim-check/s3-store.js';
import { stringifyJson } from '../src/transforms/json.js';
import { asEnvelope, isObject, type JsonObject, type TransformRecord } from '../src/transforms/record.js';
import { changeOrder, sequenceOrder } from './lib/binlog-order.js';
import { claimCheckOf, resolveClaimChecks } from './lib/claim-check.js';
import { type DeadLetter, type DeadLetterQueue, SqsDeadLetterQueue } from './lib/dead-letter.js';
import { itemBytes, MAX_ITEM_BYTES, toItem } from './lib/dynamo-values.js';
import { clientConfig, consumerLogger, consumerMetrics, envEnum, envInt } from './lib/env.js';
import { eventIdOf, serverGenerationOf } from './lib/event-ids.js';
import { decodeEvent, type InputFormat, type ParentRecord } from './lib/kinesis-input.js';
import { processKinesisBatch } from './lib/partial-batch.js';
import type { KinesisHandler } from './transform-router.js';

export interface MaterializerOptions {
  dynamo: DynamoDBClient;
  /** @default '{db}.{table}' */
  tableNameTemplate?: string;
  /** @default 'auto' */
  inputFormat?: InputFormat;
  dlq?: DeadLetterQueue;
  /** Parent records written at once. @default 16 */
  concurrency?: number;
  logger?: Logger;
  metrics?: Metrics;
  /** Reads claim-checked records. @default one on an S3 client with the default configuration, built on first use */
  claimCheckResolver?: ClaimCheckResolver;
}

/** A record that can never be materialised (bad data, reserved column names): dead-lettered, not retried. */
class PoisonError extends Error {
  override name = 'PoisonError';
}

/** An item over DynamoDB's item size limit, by our count or by DynamoDB's. */
class ItemTooLargeError extends Error {
  override name = 'ItemTooLargeError';
  constructor(readonly bytes: number) {
    super(`item of ${bytes} bytes is over DynamoDB's ${MAX_ITEM_BYTES}-byte item limit`);
  }
}

/** Placeholders of rows over the item limit: `pointer` when the row's claim-check pointer is kept, else `oversize`. */
type Outcome = 'written' | 'stale' | 'skipped' | 'pointer' | 'oversize';

export function createMaterializer(options: MaterializerOptions): KinesisHandler {
  const logger = options.logger ?? new Logger({ serviceName: 'cdc-materializer' });
  const metrics = options.metrics ?? consumerMetrics(process.env, CONSUMER_SERVICES.materializer);
  const template = options.tableNameTemplate ?? '{db}.{table}';
  const dynamo = options.dynamo;
  let resolver = options.claimCheckResolver;
  const claimChecks = () => {
    resolver ??= new ClaimCheckResolver(new S3ClaimCheckStore());
    return resolver;
  };

  const tableName = (db: string, table: string, topic: string) =>
    template.replace(/\{(db|table|topic)\}/g, (_m, p: string) => (p === 'db' ? db : p === 'table' ? table : topic));

  const put = async (table: string, item: JsonObject, order: string): Promise<'written' | 'stale'> => {
    const attributes = toItem(item);
    const bytes = itemBytes(attributes);
    if (bytes > MAX_ITEM_BYTES) throw new ItemTooLargeError(bytes);
    try {
      await dynamo.send(
        new PutItemCommand({
          TableName: table,
          Item: attributes,
          ConditionExpression: 'attribute_not_exists(#k) OR #o < :o',
          ExpressionAttributeNames: { '#k': '__key', '#o': '__order' },
          ExpressionAttributeValues: { ':o': { S: order } },
        }),
      );
      return 'written';
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) return 'stale';
      if (
        err instanceof DynamoDBServiceException &&
        err.name === 'ValidationException' &&
        /item size/i.test(err.message)
      )
        throw new ItemTooLargeError(bytes);
      throw err;
    }
  };

  /**
   * A row too large for one item: the item becomes a placeholder (`__oversize`, `__size`, no columns) at the
   * change's order, so the key neither goes on showing an older row nor lets one come back, and the reason (table,
   * position, sizes; never values) goes to `notices` for the dead-letter queue. A row that arrived claim-checked
   * keeps its S3 pointer in `__claim_check` (the object is the change event's value, whose `after` is the row); the
   * object expires with the claim-check bucket's lifecycle rule, so it is a way to repair the row, not a store.
   */
  const oversize = async (
    r: TransformRecord,
    table: string,
    base: JsonObject & { __order: string },
    bytes: number,
    where: string,
    notices: string[],
  ): Promise<Outcome> => {
    const pointer = claimCheckOf(r);
    const placeholder: JsonObject = { ...base, __oversize: true, __size: bytes };
    if (pointer) {
      const { bucket, key, size, sha256 } = pointer;
      placeholder.__claim_check = { bucket, key, size, sha256 };
    }
    const stored = await put(table, placeholder, base.__order);
    if (stored !== 'written') return stored;
    notices.push(
      `the row of ${where} is ${bytes} bytes as a DynamoDB item, over DynamoDB's ${MAX_ITEM_BYTES}-byte item limit: ` +
        `its item in ${table} is a placeholder (__oversize: true, __size) without the columns` +
        (pointer
          ? `, with the S3 pointer of the full change (__claim_check, until the bucket's lifecycle expires it)`
          : '') +
        '. Keep the row under the limit in the capture: drop or shorten its large columns for this table ' +
        '(column.exclude.list, column.truncate.to.<N>.chars)',
    );
    return pointer ? 'pointer' : 'oversize';
  };

  const tombstone = async (table: string, key: string, seq: string): Promise<Outcome> => {
    for (let attempt = 0; attempt < 3; attempt++) {
      const got = await dynamo.send(
        new GetItemCommand({ TableName: table, Key: { __key: { S: key } }, ConsistentRead: true }),
      );
      const order = got.Item?.__order?.S;
      const storedSeq = got.Item?.__seq?.S ?? '';
      // Already deleted, or the stored state was published after this tombstone (a replay): nothing to do.
      if (!got.Item || got.Item.__deleted?.BOOL === true || order === undefined || storedSeq >= seq) return 'stale';
      try {
        await dynamo.send(
          new PutItemCommand({
            TableName: table,
            Item: toItem({ __key: key, __order: order, __seq: seq, __deleted: true, __op: 'd' }),
            ConditionExpression: '#o = :o AND #s = :s',
            ExpressionAttributeNames: { '#o': '__order', '#s': '__seq' },
            ExpressionAttributeValues: { ':o': { S: order }, ':s': { S: storedSeq } },
          }),
        );
        return 'written';
      } catch (err) {
        if (!(err instanceof ConditionalCheckFailedException)) throw err;
      }
    }
    return 'stale';
  };

  const apply = async (r: TransformRecord, p: ParentRecord, sub: number, notices: string[]): Promise<Outcome> => {
    if (r.key === null) return 'skipped';
    const key = stringifyJson(r.key);
    const seq = sequenceOrder(p.sequenceNumber, sub);
    if (r.value === null) {
      // The capture's tombstone (it has an id) follows its delete event, which wrote the marker at the delete's
      // position: replaying it (with a newer Kinesis sequence number) must not delete a row re-created after it.
      if (eventIdOf(r) !== undefined) return 'skipped';
      const parts = r.topic.split('.');
      if (parts.length < 3) return 'skipped';
      const [db, table] = r.table?.split('.') ?? parts.slice(-2);
      return tombstone(tableName(db, table, r.topic), key, seq);
    }
    const env = asEnvelope(r.value);
    if (!env || !['c', 'u', 'r', 'd'].includes(env.op)) return 'skipped';
    const { db, table } = env.source;
    if (typeof db !== 'string' || typeof table !== 'string') throw new PoisonError('the source block has no db/table');
    let order: string;
    try {
      order = changeOrder(env, eventIdOf(r), p.sequenceNumber, sub, serverGenerationOf(r));
    } catch (err) {
      throw new PoisonError(errorMessage(err));
    }
    const name = tableName(db, table, r.topic);
    if (env.op === 'd') return put(name, { __key: key, __order: order, __seq: seq, __deleted: true, __op: 'd' }, order);
    if (!isObject(env.after)) throw new PoisonError(`op '${env.op}' without an after row`);
    const reserved = Object.keys(env.after).filter((c) => c.startsWith('__'));
    if (reserved.length > 0)
      throw new PoisonError(`column(s) ${reserved.join(', ')} use the reserved "__" prefix of materialised items`);
    const base = { __key: key, __order: order, __seq: seq, __deleted: false, __op: env.op };
    try {
      return await put(name, { ...env.after, ...base }, order);
    } catch (err) {
      if (!(err instanceof ItemTooLargeError)) throw err;
      return oversize(r, name, base, err.bytes, `${db}.${table} at ${env.source.file}:${env.source.pos}`, notices);
    }
  };

  return async (event: KinesisStreamEvent) => {
    const parents = decodeEvent(event.Records, options.inputFormat ?? 'auto');
    await resolveClaimChecks(parents, claimChecks);
    const counts: Record<Outcome, number> = { written: 0, stale: 0, skipped: 0, pointer: 0, oversize: 0 };
    /** Send one poison record to the DLQ; throws (so the record is reported failed) when that is impossible. */
    const deadLetter = async (p: ParentRecord, reason: string) => {
      if (!options.dlq) {
        logger.error('poison record and no dead-letter queue (CDC_DLQ_URL)', { sequenceNumber: p.sequenceNumber });
        throw new PoisonError(reason);
      }
      const letter: DeadLetter = {
        reason,
        attempts: 1,
        eventSourceArn: event.Records[p.index].eventSourceARN,
        eventId: p.eventId,
        sequenceNumber: p.sequenceNumber,
        partitionKey: p.partitionKey,
        data: p.data,
        approximateArrivalTimestamp: p.arrivalMs,
      };
      try {
        await options.dlq.send([letter]);
      } catch (err) {
        logger.error('dead-letter queue send failed; the records will be retried', { error: errorMessage(err) });
        throw err;
      }
    };

    // Records of different keys are independent (the conditional writes order each key), so up to `concurrency`
    // records are written at once.
    const slots = new Slots(Math.max(1, options.concurrency ?? 16));
    const parentOf = new Map(event.Records.map((r, i) => [r, parents[i]]));
    const handle = (record: KinesisStreamRecord) =>
      slots.run(async () => {
        const p = parentOf.get(record)!;
        if (p.error) return deadLetter(p, p.error);
        const oversized: string[] = [];
        try {
          for (const u of p.records) counts[await apply(u.record, p, u.subSequence, oversized)]++;
        } catch (err) {
          if (err instanceof PoisonError) return deadLetter(p, err.message);
          logger.warn('write failed; the record will be retried', {
            sequenceNumber: p.sequenceNumber,
            error: errorMessage(err),
          });
          throw err;
        }
        if (oversized.length === 0) return;
        // The placeholder is written; the letter says what is missing so the row can be repaired.
        if (options.dlq) return deadLetter(p, oversized.join('; '));
        logger.error(
          'row over the DynamoDB item limit stored as a placeholder, and no dead-letter queue (CDC_DLQ_URL)',
          {
            sequenceNumber: p.sequenceNumber,
            reason: oversized.join('; '),
          },
        );
      });
    const response = await processKinesisBatch(event, handle, { inParallel: true });
    metrics.addMetric(ConsumerMetric.ItemsWritten, MetricUnit.Count, counts.written);
    metrics.addMetric(ConsumerMetric.OversizeRows, MetricUnit.Count, counts.oversize + counts.pointer);
    metrics.addMetric(ConsumerMetric.StaleEventsSkipped, MetricUnit.Count, counts.stale);
    metrics.addMetric(ConsumerMetric.EventsIgnored, MetricUnit.Count, counts.skipped);
    metrics.addMetric(ConsumerMetric.FailedRecords, MetricUnit.Count, response.batchItemFailures.length);
    metrics.publishStoredMetrics();
    return response;
  };
}

/** At most `limit` tasks at once, started in call order. */
class Slots {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}

/** Build the materializer from environment variables (see the module comment). */
export function materializerFromEnv(env: Readonly<Record<string, string | undefined>>): KinesisHandler {
  const aws = clientConfig(env);
  return createMaterializer({
    dynamo: new DynamoDBClient(aws),
    tableNameTemplate: env.CDC_TABLE_NAME_TEMPLATE || '{db}.{table}',
    inputFormat: envEnum(env, 'CDC_INPUT_FORMAT', ['auto', 'value', 'record'] as const, 'auto'),
    concurrency: envInt(env, 'CDC_WRITE_CONCURRENCY', 16),
    claimCheckResolver: new ClaimCheckResolver(
      new S3ClaimCheckStore({ client: new S3Client({ ...aws, ...(aws.endpoint ? { forcePathStyle: true } : {}) }) }),
    ),
    ...(env.CDC_DLQ_URL ? { dlq: new SqsDeadLetterQueue(new SQSClient(aws), env.CDC_DLQ_URL) } : {}),
    logger: consumerLogger(env, 'cdc-materializer'),
    metrics: consumerMetrics(env, CONSUMER_SERVICES.materializer),
  });
}

let instance: KinesisHandler | undefined;

export const handler: KinesisHandler = (event) => {
  instance ??= materializerFromEnv(process.env);
  return instance(event);
};
