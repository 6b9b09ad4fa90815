/**
 * Builds the configured sink, offset store, schema history and lease from a resolved configuration. The only
 * place that knows which implementation backs which `*.type`; AWS clients come from the standard credential
 * chain, with `*.endpoint` overrides for local stand-ins.
 *
 * Only the file/stdout sinks and file stores are imported statically. The Kinesis, Kafka and DynamoDB
 * implementations (and their SDKs, ~100+ ms of CPU to load) are dynamic imports behind lazy wrappers
 * (lazy-components.ts), loaded when the task first uses them, so a task loads only what its config names.
 */
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import type { Logger } from '../common/logger.js';
import { parseKafkaSinkConfig } from '../config/kafka-sink.js';
import type { CdcConfig, ClaimCheckConfig } from '../config/types.js';
import type { ClaimChecker } from '../sinks/claim-check/claim-checker.js';
import { FileSink, StdoutSink } from '../sinks/file/file-sink.js';
import type { Sink } from '../sinks/sink.js';
import { FileOffsetStore } from '../stores/file/file-offset-store.js';
import { FileSchemaHistory } from '../stores/file/file-schema-history.js';
import type { Lease } from '../stores/lease.js';
import type { OffsetStore } from '../stores/offset-store.js';
import type { SchemaHistory } from '../stores/schema-history.js';
import { LazyLease, LazyOffsetStore, LazySchemaHistory, LazySink } from './lazy-components.js';
import { maxAttempts, type RetryPolicy, retryPolicyFrom } from './retry.js';

export interface Components {
  sink: Sink;
  offsetStore: OffsetStore;
  schemaHistory: SchemaHistory;
  lease: Lease | null;
}

/** Injected pieces that replace what the config would build (tests: fault-injecting SDK middleware). */
export interface ComponentOverrides {
  /** Client of the Kinesis sink (the sink does not destroy it). */
  kinesisClient?: KinesisClient;
  /** Period of the Kinesis sink's "still failing" log line (tests). @default 30000 */
  kinesisOutageSummaryIntervalMs?: number;
  /** Wraps the built sink (tests: inject delivery failures in front of a real sink). */
  wrapSink?: (sink: Sink) => Sink;
}

/**
 * Safety margin of the lease: the holder stops this long before its lease could look expired to others. 10 s (the
 * lease's default) for the default 30 s lease, scaled down for short leases so that every duration/renewal pair the
 * config accepts (renewal < duration) leaves room for a few renewals before the local deadline.
 */
export function leaseSafetyMarginMs(durationMs: number, renewIntervalMs: number): number {
  let margin = Math.min(10_000, Math.floor(durationMs / 3));
  if (renewIntervalMs >= durationMs - margin) margin = Math.floor((durationMs - renewIntervalMs) / 2);
  return margin;
}

/** The task's retry policy in the Kinesis sink's terms (it retries failed entries itself). */
function kinesisRetry(policy: RetryPolicy) {
  return { baseDelayMs: policy.initialDelayMs, maxDelayMs: policy.maxDelayMs, maxAttempts: maxAttempts(policy) };
}

function awsClientConfig(region: string | null, endpoint: string | null) {
  return {
    ...(region ? { region } : {}),
    ...(endpoint ? { endpoint } : {}),
  };
}

async function claimChecker(c: ClaimCheckConfig): Promise<ClaimChecker> {
  const [{ ClaimChecker }, { S3ClaimCheckStore }] = await Promise.all([
    import('../sinks/claim-check/claim-checker.js'),
    import('../sinks/claim-check/s3-store.js'),
  ]);
  return new ClaimChecker({
    store: new S3ClaimCheckStore({ clientConfig: awsClientConfig(c.region, c.endpoint) }),
    bucket: c.bucket,
    prefix: c.prefix,
  });
}

export function buildComponents(
  config: CdcConfig,
  logger: Logger,
  stdout: NodeJS.WritableStream = process.stdout,
  overrides: ComponentOverrides = {},
): Components {
  const lc = config.lease;
  const lease: Lease | null = lc.enabled
    ? new LazyLease(config.name, async () => {
        const { DynamoDbLease } = await import('../stores/dynamodb/dynamodb-lease.js');
        return new DynamoDbLease({
          tableName: lc.table,
          leaseName: config.name,
          leaseDurationMs: lc.durationMs,
          renewIntervalMs: lc.renewIntervalMs,
          safetyMarginMs: leaseSafetyMarginMs(lc.durationMs, lc.renewIntervalMs),
          clientConfig: awsClientConfig(lc.region, lc.endpoint),
          createTables:
            (config.offsets.type === 'dynamodb' && config.offsets.createTable) ||
            (config.schemaHistory.type === 'dynamodb' && config.schemaHistory.createTable),
          logger: logger.child({ component: 'lease' }),
        });
      })
    : null;

  const offsets = config.offsets;
  const offsetStore: OffsetStore =
    offsets.type === 'file'
      ? new FileOffsetStore({ path: offsets.filename, connectorName: config.name })
      : new LazyOffsetStore(async () => {
          const { DynamoDbOffsetStore } = await import('../stores/dynamodb/dynamodb-offset-store.js');
          return new DynamoDbOffsetStore({
            tableName: offsets.table,
            connectorName: config.name,
            clientConfig: awsClientConfig(offsets.region, offsets.endpoint),
            createTables: offsets.createTable,
            // Fenced by the lease when there is one; with lease.enabled=false the writes are unfenced.
            ...(lease ? { fencingToken: () => lease.token } : {}),
          });
        });

  const history = config.schemaHistory;
  const schemaHistory: SchemaHistory =
    history.type === 'file'
      ? new FileSchemaHistory({ path: history.filename, connectorName: config.name })
      : new LazySchemaHistory(async () => {
          const { DynamoDbSchemaHistory } = await import('../stores/dynamodb/dynamodb-schema-history.js');
          return new DynamoDbSchemaHistory({
            tableName: history.table,
            connectorName: config.name,
            clientConfig: awsClientConfig(history.region, history.endpoint),
            createTables: history.createTable,
          });
        });

  const s = config.sink;
  let sink: Sink;
  switch (s.type) {
    case 'file':
      sink = new FileSink({ path: s.path });
      break;
    case 'stdout':
      sink = new StdoutSink({ stream: stdout });
      break;
    case 'kinesis':
      sink = new LazySink('kinesis', async () => {
        const [{ KinesisSink }, { NodeHttpHandler }] = await Promise.all([
          import('../sinks/kinesis/kinesis-sink.js'),
          import('@smithy/node-http-handler'),
        ]);
        return new KinesisSink({
          ...(s.streamName ? { streamName: s.streamName } : {}),
          ...(s.streamNameTemplate ? { streamNameTemplate: s.streamNameTemplate } : {}),
          ...(overrides.kinesisClient ? { client: overrides.kinesisClient } : {}),
          // PutRecords needs no HTTP/2; HTTP/1.1 also works against local stand-ins.
          clientConfig: { ...awsClientConfig(s.region, s.endpoint), requestHandler: new NodeHttpHandler() },
          aggregation: s.aggregation,
          payload: s.payload,
          oversizeHandling: s.oversizeHandling,
          ...(s.maxRecordBytes !== null ? { maxRecordBytes: s.maxRecordBytes } : {}),
          ...(s.claimCheck
            ? {
                claimCheck: await claimChecker(s.claimCheck),
                ...(s.claimCheck.thresholdBytes !== null
                  ? { claimCheckThresholdBytes: s.claimCheck.thresholdBytes }
                  : {}),
              }
            : {}),
          maxInFlight: s.maxInFlight,
          retry: kinesisRetry(retryPolicyFrom(config.engine.errors)),
          logger: logger.child({ component: 'sink' }),
          ...(overrides.kinesisOutageSummaryIntervalMs !== undefined
            ? { outageSummaryIntervalMs: overrides.kinesisOutageSummaryIntervalMs }
            : {}),
        });
      });
      break;
    case 'kafka': {
      // Parsed now: a bad sink.kafka.* setting fails at start-up like any other configuration error.
      const settings = parseKafkaSinkConfig(s);
      sink = new LazySink('kafka', async () => {
        const { KafkaSink } = await import('../sinks/kafka/kafka-sink.js');
        return new KafkaSink({
          settings,
          logger: logger.child({ component: 'sink' }),
          ...(s.claimCheck
            ? {
                claimCheck: await claimChecker(s.claimCheck),
                ...(s.claimCheck.thresholdBytes !== null
                  ? { claimCheckThresholdBytes: s.claimCheck.thresholdBytes }
                  : {}),
              }
            : {}),
          // One retry layer: the Kafka client's resends, under the task's policy (sink.kafka.retries overrides).
          retry: retryPolicyFrom(config.engine.errors),
        });
      });
      break;
    }
  }
  return { sink: overrides.wrapSink ? overrides.wrapSink(sink) : sink, offsetStore, schemaHistory, lease };
}
