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
 *   dead-lettered (@default 3); `CDC_AWS_ENDPOINT` for local stand-ins.
 * - large records: input claim-check pointers are resolved from S3 (lib/claim-check.ts); outputs over the destination
 *   stream's limit are claim-checked again when `CDC_CLAIM_CHECK_BUCKET` is set (`CDC_CLAIM_CHECK_PREFIX`,
 *   @default `cdc/claim-check/`), else they are poison.
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
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { KinesisClient } from '@aws-sdk/client-kinesis';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { KinesisStreamBatchResponse, KinesisStreamEvent } from 'aws-lambda';
import { errorMessage, isRetriable } from '../src/common/errors.js';
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
import { clientConfig, envBool, envEnum, envInt, LambdaConfigError } from './lib/env.js';
import { decodeEvent, type InputFormat, type ParentRecord } from './lib/kinesis-input.js';

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
  const metrics = options.metrics ?? new Metrics({ namespace: 'ServerlessCdc', serviceName: 'transform-router' });
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
    for (const p of parents) {
      if (p.error) continue;
      const outs: { id: number; record: SinkRecord }[] = [];
      try {
        for (const u of p.records) {
          inCount++;
          for (const t of options.chain.apply(u.record))
            outs.push({ id: all.length + outs.length, record: toSinkRecord(t) });
        }
      } catch (err) {
        p.error = `transform failed: ${errorMessage(err)}`;
        continue;
      }
      outputsOf.set(p.index, outs);
      all.push(...outs);
    }

    const letters: { parent: ParentRecord; letter: DeadLetter }[] = [];
    const dead = (p: ParentRecord, reason: string, n: number) =>
      letters.push({ parent: p, letter: toLetter(event.Records[p.index].eventSourceARN, p, reason, n) });
    for (const p of parents) if (p.error) dead(p, p.error, 1);

    const failed: ParentRecord[] = [];
    const firstError = all.length > 0 ? await deliver(all) : null;
    if (firstError) {
      logger.warn('batch delivery failed; isolating records', { error: errorMessage(firstError) });
      const delivered = new Set(all.filter((o) => tracker.isDelivered(o.id)).map((o) => o.id));
      let stopped = false;
      for (const p of parents) {
        const outs = (outputsOf.get(p.index) ?? []).filter((o) => !delivered.has(o.id));
        if (p.error || outs.length === 0) continue;
        if (stopped) {
          failed.push(p);
          continue;
        }
        const err = await deliver(outs);
        if (!err) continue;
        // Record-level refusals (over the size limit, an entry rejected) fail the same way every time: poison.
        // Request-level ones (no such stream, access denied, KMS) need an operator: retry, never dead-letter.
        const requestLevel = (err as { cause?: unknown }).cause !== undefined;
        if (!isRetriable(err) && !requestLevel) {
          dead(p, `rejected by Kinesis: ${errorMessage(err)}`, 1);
          continue;
        }
        const n = attempts.next(p.eventId);
        if (n >= maxAttempts && options.dlq && !requestLevel) {
          dead(p, `delivery failed ${n} times: ${errorMessage(err)}`, n);
          continue;
        }
        logger.warn('record delivery failed; reporting it for retry', {
          sequenceNumber: p.sequenceNumber,
          attempt: n,
          error: errorMessage(err),
        });
        failed.push(p);
        stopped = true;
      }
    }

    if (letters.length > 0) {
      if (!options.dlq) {
        for (const l of letters) {
          logger.error('poison record and no dead-letter queue (CDC_DLQ_URL); reporting it as failed', {
            sequenceNumber: l.parent.sequenceNumber,
            reason: l.letter.reason,
          });
          failed.push(l.parent);
        }
      } else {
        try {
          await options.dlq.send(letters.map((l) => l.letter));
          for (const l of letters) attempts.clear(l.parent.eventId);
        } catch (err) {
          logger.error('dead-letter queue send failed; the records will be retried', { error: errorMessage(err) });
          for (const l of letters) failed.push(l.parent);
        }
      }
    }

    const failedSeqs = [...new Set(failed.sort((a, b) => a.index - b.index).map((p) => p.sequenceNumber))];
    const failedSet = new Set(failedSeqs);
    for (const p of parents) if (!failedSet.has(p.sequenceNumber)) attempts.clear(p.eventId);
    metrics.addMetric('RecordsIn', MetricUnit.Count, inCount);
    metrics.addMetric('RecordsOut', MetricUnit.Count, all.length);
    metrics.addMetric('DeadLettered', MetricUnit.Count, options.dlq ? letters.length : 0);
    metrics.addMetric('FailedRecords', MetricUnit.Count, failedSeqs.length);
    metrics.publishStoredMetrics();
    return { batchItemFailures: failedSeqs.map((itemIdentifier) => ({ itemIdentifier })) };
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
  });
}

let instance: KinesisHandler | undefined;

/** Lambda entry point; configuration errors surface on the first invocation with the variable to fix. */
export const handler: KinesisHandler = (event) => {
  instance ??= transformRouterFromEnv(process.env);
  return instance(event);
};
