/**
 * Lambda: Kinesis event source → deaggregate → transform chain → PutRecords to destination streams.
 *
 * Environment:
 * - transforms: `CDC_TRANSFORMS`, `CDC_TRANSFORMS_<NAME>_TYPE`, `CDC_TRANSFORMS_<NAME>_<OPTION>` and/or
 *   `TRANSFORMS_CONFIG` (JSON object of `transforms*` properties);
 * - output (one is required): `CDC_OUTPUT_STREAM` (one stream) or `CDC_OUTPUT_STREAM_TEMPLATE` (`{topic}`,
 *   `{prefix}`, `{db}`, `{table}`; in `value` input format the topic is the source stream's name), `CDC_OUTPUT_PAYLOAD` value|record (@default value), `CDC_OUTPUT_AGGREGATION` (@default false),
 *   `CDC_PUT_MAX_ATTEMPTS` PutRecords attempts per invocation (@default 3);
 * - input: `CDC_INPUT_FORMAT` auto|value|record (@default auto);
 * - poison records: `CDC_DLQ_URL` (SQS queue URL), `CDC_MAX_ATTEMPTS` deliveries before a retriable failure is
 *   dead-lettered (@default 3); `CDC_AWS_ENDPOINT` for local stand-ins;
 * - large records: input claim-check pointers are resolved from S3 (lib/claim-check.ts); outputs over the destination
 *   stream's limit are claim-checked again when `CDC_CLAIM_CHECK_BUCKET` is set (`CDC_CLAIM_CHECK_PREFIX`,
 *   @default `cdc/claim-check/`), else they are poison;
 * - repeats: `CDC_DEDUP_IDS` (@default 100000; 0 turns it off) — the ids (header `__cdc.id`) of that many records
 *   last delivered are remembered, and a record whose id is among them is dropped (docs/delivery.md). An id is
 *   remembered only once its record was delivered (or dead-lettered), so a retried record is never dropped;
 * - `CDC_CONNECTOR_NAME`: logged as `connector` on every line (CdcPipeline sets it).
 *
 * Failure handling (enable `ReportBatchItemFailures` on the event source mapping):
 * - Records that cannot be decoded or transformed, and records Kinesis refuses (over the record size limit), fail
 *   the same way on every retry: they go to the DLQ at once with the reason, and the batch moves on.
 *   Request-level refusals (missing stream, access denied, KMS) are configuration problems: always retried.
 * - Retriable delivery failures (throttling, service errors) are reported in `batchItemFailures` with the failed
 *   record's sequence number — Lambda then restarts the shard from the lowest reported record, so later records
 *   are redelivered too (duplicates, never gaps). For a KPL aggregate the whole parent record is retried.
 * - Attempts are counted per record in memory (a warm container sees its shard's retries); after
 *   `CDC_MAX_ATTEMPTS` the record goes to the DLQ. A cold start resets the count, so also set the event source
 *   mapping's `MaximumRetryAttempts` and an on-failure destination as the backstop.
 * - Without `CDC_DLQ_URL`, poison records are reported as failures (the shard waits for the mapping's retry limit).
 * Per-key order is the KinesisSink's; a record sent to the DLQ lets later records of its key pass it.
 */

import { Logger } from '@aws-lambda-powertools/logger';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { KinesisClient } from '@aws-sdk/client-kinesis';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { KinesisStreamBatchResponse, KinesisStreamEvent, KinesisStreamRecord } from 'aws-lambda';
import { errorMessage, isRetriable } from '../src/common/errors.js';
import { CONSUMER_SERVICES, ConsumerMetric } from '../src/metrics/names.js';
import type { SinkRecord } from '../src/model/sink-record.js';
import { ClaimChecker } from '../src/sinks/claim-check/claim-checker.js';
import { ClaimCheckResolver } from '../src/sinks/claim-check/resolver.js';
import { S3ClaimCheckStore } from '../src/sinks/claim-check/s3-store.js';
import { KinesisSink } from '../src/sinks/kinesis/kinesis-sink.js';
import type { StreamRoutingOptions } from '../src/sinks/kinesis/routing.js';
import { buildChain, type TransformChain, toSinkRecord, transformsFromEnv } from '../src/transforms/index.js';
import { resolveClaimChecks } from './lib/claim-check.js';
import { type DeadLetter, type DeadLetterQueue, SqsDeadLetterQueue } from './lib/dead-letter.js';
import { DeliveryTracker } from './lib/delivery-tracker.js';
import {
  clientConfig,
  consumerLogger,
  consumerMetrics,
  envBool,
  envEnum,
  envInt,
  LambdaConfigError,
} from './lib/env.js';
import { eventIdOf, RecentIds } from './lib/event-ids.js';
import { decodeEvent, type InputFormat, type ParentRecord } from './lib/kinesis-input.js';
import { processKinesisBatch } from './lib/partial-batch.js';

export interface TransformRouterOptions {
  chain: TransformChain;
  /** Client for the destination streams; the router observes its PutRecords results. */
  kinesis: KinesisClient;
  routing: StreamRoutingOptions;
  /** @default 'value' */
  payload?: 'value' | 'record';
  /** @default false */
  aggregation?: boolean;
  /** PutRecords attempts per record within one invocation. @default 3 */
  putMaxAttempts?: number;
  /** @default 'auto' */
  inputFormat?: InputFormat;
  dlq?: DeadLetterQueue;
  /** Deliveries of a record before a retriable failure sends it to the DLQ. @default 3 */
  maxAttempts?: number;
  logger?: Logger;
  metrics?: Metrics;
  /** Backoff randomness for the sink (tests). */
  random?: () => number;
  /** Reads claim-checked inputs. @default one on an S3 client with the default configuration, built on first use */
  claimCheckResolver?: ClaimCheckResolver;
  /** Claim-checks outputs over the destination stream's record limit; without it they are poison. */
  claimCheck?: ClaimChecker;
  /** Ids of records delivered last that are remembered to drop repeats; 0 turns it off. @default 100000 */
  dedupIds?: number;
}

export type KinesisHandler = (event: KinesisStreamEvent) => Promise<KinesisStreamBatchResponse>;

/** Counts deliveries per Kinesis record id across invocations of a warm container (bounded). */
class AttemptCounter {
  private readonly counts = new Map<string, number>();
  next(id: string): number {
    const n = (this.counts.get(id) ?? 0) + 1;
    if (this.counts.size >= 10_000) this.counts.clear();
    this.counts.set(id, n);
    return n;
  }
  clear(id: string): void {
    this.counts.delete(id);
  }
}

export function createTransformRouter(options: TransformRouterOptions): KinesisHandler {
  const logger = options.logger ?? new Logger({ serviceName: 'cdc-transform-router' });
  const metrics = options.metrics ?? consumerMetrics(process.env, CONSUMER_SERVICES.transformRouter);
  const payload = options.payload ?? 'value';
  const tracker = new DeliveryTracker(options.routing, payload, false);
  tracker.attach(options.kinesis);
  const sink = new KinesisSink({
    ...options.routing,
    client: options.kinesis,
    payload,
    aggregation: options.aggregation ?? false,
    ...(options.claimCheck
      ? { oversizeHandling: 'claim-check' as const, claimCheck: options.claimCheck }
      : { oversizeHandling: 'fail' as const }),
    tombstones: 'empty',
    retry: { maxAttempts: options.putMaxAttempts ?? 3, baseDelayMs: 50, maxDelayMs: 1000 },
    ...(options.random ? { random: options.random } : {}),
  });
  const attempts = new AttemptCounter();
  const maxAttempts = options.maxAttempts ?? 3;
  let resolver = options.claimCheckResolver;
  const claimChecks = () => {
    resolver ??= new ClaimCheckResolver(new S3ClaimCheckStore());
    return resolver;
  };
  const seen = new RecentIds(options.dedupIds ?? 100_000);

  /** Send outputs; returns null when all were delivered, else the error. */
  const deliver = async (outputs: { id: number; record: SinkRecord }[]): Promise<unknown> => {
    tracker.reset();
    for (const o of outputs) tracker.register(o.id, o.record);
    try {
      await sink.send(outputs.map((o) => o.record));
      return null;
    } catch (err) {
      return err;
    }
  };

  return async (event) => {
    const parents = decodeEvent(event.Records, options.inputFormat ?? 'auto');
    await resolveClaimChecks(parents, claimChecks);
    const outputsOf = new Map<number, { id: number; record: SinkRecord }[]>();
    const all: { id: number; record: SinkRecord }[] = [];
    let inCount = 0;
    let repeats = 0;
    // Event ids of this batch by parent: remembered once the parent is done (delivered or dead-lettered).
    const idsOf = new Map<number, string[]>();
    const inBatch = new Set<string>();
    for (const p of parents) {
      if (p.error) continue;
      const outs: { id: number; record: SinkRecord }[] = [];
      const ids: string[] = [];
      try {
        for (const u of p.records) {
          inCount++;
          const eventId = eventIdOf(u.record);
          if (eventId !== undefined) {
            if (seen.has(eventId) || inBatch.has(eventId)) {
              repeats++;
              continue;
            }
            inBatch.add(eventId);
            ids.push(eventId);
          }
          for (const t of options.chain.apply(u.record))
            outs.push({ id: all.length + outs.length, record: toSinkRecord(t) });
        }
      } catch (err) {
        p.error = `transform failed: ${errorMessage(err)}`;
        continue;
      }
      outputsOf.set(p.index, outs);
      idsOf.set(p.index, ids);
      all.push(...outs);
    }

    const firstError = all.length > 0 ? await deliver(all) : null;
    const delivered = new Set(firstError ? all.filter((o) => tracker.isDelivered(o.id)).map((o) => o.id) : []);
    if (firstError) logger.warn('batch delivery failed; isolating records', { error: errorMessage(firstError) });

    let deadLettered = 0;
    /** Send one poison record to the DLQ; throws (so the record is reported failed) when that is impossible. */
    const deadLetter = async (p: ParentRecord, reason: string, n: number) => {
      if (!options.dlq) {
        logger.error('poison record and no dead-letter queue (CDC_DLQ_URL); reporting it as failed', {
          sequenceNumber: p.sequenceNumber,
          reason,
        });
        throw new Error(`poison record: ${reason}`);
      }
      deadLettered++;
      try {
        await options.dlq.send([toLetter(event.Records[p.index].eventSourceARN, p, reason, n)]);
      } catch (err) {
        logger.error('dead-letter queue send failed; the records will be retried', { error: errorMessage(err) });
        throw err;
      }
      attempts.clear(p.eventId);
    };

    // In order, one record at a time: after the first record reported for retry, later undelivered records are
    // reported too (Lambda restarts the shard from the lowest), without another delivery attempt.
    let stopped = false;
    const parentOf = new Map(event.Records.map((r, i) => [r, parents[i]]));
    const handle = async (record: KinesisStreamRecord) => {
      const p = parentOf.get(record)!;
      if (p.error) return deadLetter(p, p.error, 1);
      const outs = (outputsOf.get(p.index) ?? []).filter((o) => !delivered.has(o.id));
      if (!firstError || outs.length === 0) return;
      if (stopped) throw new Error('an earlier record of the batch is being retried');
      const err = await deliver(outs);
      if (!err) return;
      // Record-level refusals (over the size limit, an entry rejected) fail the same way every time: poison.
      // Request-level ones (no such stream, access denied, KMS) need an operator: retry, never dead-letter.
      const requestLevel = (err as { cause?: unknown }).cause !== undefined;
      if (!isRetriable(err) && !requestLevel) return deadLetter(p, `rejected by Kinesis: ${errorMessage(err)}`, 1);
      const n = attempts.next(p.eventId);
      if (n >= maxAttempts && options.dlq && !requestLevel)
        return deadLetter(p, `delivery failed ${n} times: ${errorMessage(err)}`, n);
      logger.warn('record delivery failed; reporting it for retry', {
        sequenceNumber: p.sequenceNumber,
        attempt: n,
        error: errorMessage(err),
      });
      stopped = true;
      throw err;
    };
    const response = await processKinesisBatch(event, handle, { inParallel: false });
    const failedSet = new Set(response.batchItemFailures.map((f) => f.itemIdentifier));
    for (const p of parents) {
      if (failedSet.has(p.sequenceNumber)) continue;
      attempts.clear(p.eventId);
      for (const id of idsOf.get(p.index) ?? []) seen.add(id);
    }
    metrics.addMetric(ConsumerMetric.RecordsIn, MetricUnit.Count, inCount);
    metrics.addMetric(ConsumerMetric.RecordsOut, MetricUnit.Count, all.length);
    metrics.addMetric(ConsumerMetric.DuplicatesDropped, MetricUnit.Count, repeats);
    metrics.addMetric(ConsumerMetric.DeadLettered, MetricUnit.Count, deadLettered);
    metrics.addMetric(ConsumerMetric.FailedRecords, MetricUnit.Count, response.batchItemFailures.length);
    metrics.publishStoredMetrics();
    return response;
  };
}

function toLetter(arn: string, p: ParentRecord, reason: string, attempts: number): DeadLetter {
  return {
    reason,
    attempts,
    eventSourceArn: arn,
    eventId: p.eventId,
    sequenceNumber: p.sequenceNumber,
    partitionKey: p.partitionKey,
    data: p.data,
    approximateArrivalTimestamp: p.arrivalMs,
  };
}

/** Build the router from environment variables (see the module comment). */
export function transformRouterFromEnv(env: Readonly<Record<string, string | undefined>>): KinesisHandler {
  const aws = clientConfig(env);
  if (!env.CDC_OUTPUT_STREAM && !env.CDC_OUTPUT_STREAM_TEMPLATE)
    throw new LambdaConfigError(
      'set CDC_OUTPUT_STREAM=<stream> or CDC_OUTPUT_STREAM_TEMPLATE (e.g. {topic}.flat); without either, records would ' +
        'be written back to the streams they came from.',
    );
  const routing: StreamRoutingOptions = env.CDC_OUTPUT_STREAM
    ? { streamName: env.CDC_OUTPUT_STREAM }
    : { streamNameTemplate: env.CDC_OUTPUT_STREAM_TEMPLATE };
  const s3 = new S3ClaimCheckStore({
    client: new S3Client({ ...aws, ...(aws.endpoint ? { forcePathStyle: true } : {}) }),
  });
  return createTransformRouter({
    chain: buildChain(transformsFromEnv(env)),
    kinesis: new KinesisClient(aws),
    routing,
    payload: envEnum(env, 'CDC_OUTPUT_PAYLOAD', ['value', 'record'] as const, 'value'),
    aggregation: envBool(env, 'CDC_OUTPUT_AGGREGATION', false),
    putMaxAttempts: envInt(env, 'CDC_PUT_MAX_ATTEMPTS', 3),
    inputFormat: envEnum(env, 'CDC_INPUT_FORMAT', ['auto', 'value', 'record'] as const, 'auto'),
    maxAttempts: envInt(env, 'CDC_MAX_ATTEMPTS', 3),
    dedupIds: envInt(env, 'CDC_DEDUP_IDS', 100_000, 0),
    ...(env.CDC_DLQ_URL ? { dlq: new SqsDeadLetterQueue(new SQSClient(aws), env.CDC_DLQ_URL) } : {}),
    claimCheckResolver: new ClaimCheckResolver(s3),
    ...(env.CDC_CLAIM_CHECK_BUCKET
      ? {
          claimCheck: new ClaimChecker({
            store: s3,
            bucket: env.CDC_CLAIM_CHECK_BUCKET,
            prefix: env.CDC_CLAIM_CHECK_PREFIX || 'cdc/claim-check/',
          }),
        }
      : {}),
    logger: consumerLogger(env, 'cdc-transform-router'),
    metrics: consumerMetrics(env, CONSUMER_SERVICES.transformRouter),
  });
}

let instance: KinesisHandler | undefined;

/** Lambda entry point; configuration errors surface on the first invocation with the variable to fix. */
export const handler: KinesisHandler = (event) => {
  instance ??= transformRouterFromEnv(process.env);
  return instance(event);
};
