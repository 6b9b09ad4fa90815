import type { Secret } from '../common/secret.js';
import type { TransformConfig } from '../transforms/config.js';

export type { TransformConfig };

/**
 * The fully resolved configuration every other module consumes, produced once by `parseConfig`/`loadConfig`.
 *
 * - Every value is typed and defaulted; `null` means "deliberately absent" (no filter, SDK default region, ...),
 *   never "forgot to default".
 * - Everything is frozen and typed `readonly`; nobody mutates configuration after load.
 * - Alternatives are discriminated unions: `sink.type`, `offsets.type`, `schemaHistory.type`, `lease.enabled`.
 * - Filters are compiled, anchored, case-insensitive RegExps (Debezium semantics: full match of `db`,
 *   `db.table`, `db.table.column`); `null` = no list configured.
 * - Secrets are `Secret` objects that print as `***`; `raw` is the merged key/value map with secrets redacted.
 * - Per-service AWS `region`/`endpoint` are already defaulted from `aws.*`; `null` = use the SDK default chain.
 */
export interface CdcConfig {
  /** `name`: identifies offsets, history and lease of this pipeline. */
  readonly name: string;
  /** `topic.prefix`. */
  readonly topicPrefix: string;
  readonly database: DatabaseConfig;
  /**
   * Set when `connector.class` names Debezium's Vitess connector: capture a keyspace through VTGate's VStream
   * (`database.*` then names the VTGate gRPC endpoint). Absent for MySQL/MariaDB.
   */
  readonly vitess?: VitessConfig;
  readonly filters: FiltersConfig;
  readonly signals: SignalsConfig;
  readonly snapshot: SnapshotConfig;
  readonly events: EventsConfig;
  readonly columns: ColumnsConfig;
  readonly topics: TopicsConfig;
  readonly engine: EngineConfig;
  readonly schemaHistory: SchemaHistoryConfig;
  readonly offsets: OffsetsConfig;
  readonly sink: SinkConfig;
  readonly lease: LeaseConfig;
  readonly aws: AwsConfig;
  /** In `transforms` order. Options are unvalidated here; the transforms module checks them. */
  readonly transforms: readonly TransformConfig[];
  readonly metrics: { readonly emfEnabled: boolean; readonly httpPort: number | null };
  readonly notifications: NotificationsConfig;
  readonly log: { readonly level: 'debug' | 'info' | 'warn' | 'error'; readonly format: 'auto' | 'json' | 'pretty' };
  /** Canonical key → value as merged from all sources (aliases renamed), secrets replaced by `***`. */
  readonly raw: Readonly<Record<string, string>>;
  /**
   * Start-up warnings for the CLI to print (parsing itself logs nothing): Debezium/Kafka Connect properties
   * accepted and ignored (one entry listing each key and why), and deprecated Debezium names that were renamed.
   */
  readonly warnings: readonly string[];
}

/** Debezium's notification channels (notification.*); empty `channels` = off. */
export interface NotificationsConfig {
  readonly channels: readonly ('log' | 'sink' | 'kinesis')[];
  /** notification.sink.topic.name, set when `channels` includes sink. */
  readonly sinkTopic: string | null;
  /** The kinesis channel's stream, set when `channels` includes kinesis. */
  readonly kinesis: {
    readonly streamName: string;
    readonly region: string | null;
    readonly endpoint: string | null;
  } | null;
}

export type SslMode = 'disabled' | 'preferred' | 'required' | 'verify_ca' | 'verify_identity';

export interface DatabaseConfig {
  /** '' only while `secret` is set and not yet resolved (see `resolveSecrets`). */
  readonly hostname: string;
  readonly port: number;
  /** '' only while `secret` is set and not yet resolved. */
  readonly user: string;
  readonly password: Secret;
  readonly serverId: number;
  /** Whether `serverId` was configured or derived from `name`. */
  readonly serverIdSource: 'configured' | 'derived';
  readonly ssl: {
    readonly mode: SslMode;
    /** PEM file paths. */
    readonly ca: string | null;
    readonly cert: string | null;
    readonly key: string | null;
  };
  readonly connectTimeoutMs: number;
  readonly keepAlive: boolean;
  readonly keepAliveIntervalMs: number;
  /** GTID source UUID filters (`gtid.source.includes/excludes`). */
  readonly gtidSourceIncludes: readonly RegExp[] | null;
  readonly gtidSourceExcludes: readonly RegExp[] | null;
  /** `database.iam.authentication`: sign in with RDS IAM tokens; `region` null = the SDK default chain. */
  readonly iam: { readonly enabled: boolean; readonly region: string | null };
  /** `database.secret.arn`; `resolved` turns true once `resolveSecrets` has merged it. */
  readonly secret: { readonly arn: string; readonly region: string | null; readonly resolved: boolean } | null;
}

export interface FiltersConfig {
  readonly databaseInclude: readonly RegExp[] | null;
  readonly databaseExclude: readonly RegExp[] | null;
  readonly tableInclude: readonly RegExp[] | null;
  readonly tableExclude: readonly RegExp[] | null;
  readonly columnInclude: readonly RegExp[] | null;
  readonly columnExclude: readonly RegExp[] | null;
  /** `signal.data.collection` as `db.table`. */
  readonly signalDataCollection: string | null;
}

export type SignalChannelName = 'source' | 'file' | 'kinesis';

/** `signal.*`: where ad-hoc snapshot signals come from besides the signalling table. */
export interface SignalsConfig {
  /** `signal.enabled.channels`. */
  readonly channels: ReadonlySet<SignalChannelName>;
  /** `signal.file`; set when `channels` has `file`. */
  readonly file: string | null;
  readonly pollIntervalMs: number;
  /** Set when `signal.kinesis.stream.name` is. */
  readonly kinesis: {
    readonly streamName: string;
    readonly region: string | null;
    readonly endpoint: string | null;
  } | null;
}

export type SnapshotMode = 'initial' | 'initial_only' | 'when_needed' | 'never' | 'no_data' | 'recovery';

export interface SnapshotConfig {
  readonly mode: SnapshotMode;
  readonly chunked: boolean;
  /** `read.only`: chunk watermarks from GTIDs; nothing is written to the source (see snapshot/watermarks.ts). */
  readonly readOnly: boolean;
  readonly chunkSize: number;
  readonly lockingMode: 'minimal' | 'extended' | 'none';
  /** null = stream rows one by one. */
  readonly fetchSize: number | null;
  /** `db.table` → SELECT statement. */
  readonly selectStatementOverrides: ReadonlyMap<string, string>;
  /** null = every captured table. */
  readonly includeCollections: readonly RegExp[] | null;
  readonly delayMs: number;
  readonly lockTimeoutMs: number;
  readonly maxThreads: number;
}

export type Operation = 'c' | 'u' | 'd' | 't';
export type FailureHandlingMode = 'fail' | 'warn' | 'skip';

export interface MessageKeyColumns {
  /** Matches `db.table` (anchored, case-insensitive). */
  readonly table: RegExp;
  readonly columns: readonly string[];
}

export interface EventsConfig {
  readonly tombstonesOnDelete: boolean;
  readonly includeSchemaChanges: boolean;
  readonly includeQuery: boolean;
  readonly provideTransactionMetadata: boolean;
  readonly decimalHandlingMode: 'precise' | 'double' | 'string';
  readonly timePrecisionMode: 'adaptive_time_microseconds' | 'connect' | 'isostring';
  readonly bigintUnsignedHandlingMode: 'long' | 'precise';
  readonly binaryHandlingMode: 'bytes' | 'base64' | 'base64-url-safe' | 'hex';
  readonly enableTimeAdjuster: boolean;
  /** Operations not emitted (empty = emit all). */
  readonly skippedOperations: ReadonlySet<Operation>;
  /** First matching entry wins. */
  readonly messageKeyColumns: readonly MessageKeyColumns[];
  readonly keySchemasEnable: boolean;
  readonly valueSchemasEnable: boolean;
}

export interface ColumnsConfig {
  readonly maskWithChars: readonly { readonly length: number; readonly columns: readonly RegExp[] }[];
  /** `algorithm` as written (Java name, e.g. SHA-256); `nodeAlgorithm` is the node:crypto name. */
  readonly maskHash: readonly {
    readonly algorithm: string;
    readonly nodeAlgorithm: string;
    readonly salt: string;
    readonly version: 'v1' | 'v2';
    readonly columns: readonly RegExp[];
  }[];
  readonly truncateToChars: readonly { readonly length: number; readonly columns: readonly RegExp[] }[];
  readonly propagateSourceType: readonly RegExp[] | null;
  /** Matches database type names (e.g. `VARCHAR`), case-insensitive. */
  readonly datatypePropagateSourceType: readonly RegExp[] | null;
}

export interface TopicsConfig {
  readonly delimiter: string;
  readonly transaction: string;
  readonly heartbeatPrefix: string;
}

export interface EngineConfig {
  readonly maxBatchSize: number;
  readonly maxQueueSize: number;
  /** 0 = unbounded. */
  readonly maxQueueSizeInBytes: number;
  readonly pollIntervalMs: number;
  /** 0 = heartbeats off. */
  readonly heartbeatIntervalMs: number;
  readonly heartbeatActionQuery: string | null;
  readonly eventDeserializationFailureHandlingMode: FailureHandlingMode;
  readonly inconsistentSchemaHandlingMode: FailureHandlingMode;
  readonly errors: {
    /** -1 = unlimited. */
    readonly maxRetries: number;
    readonly retryDelayInitialMs: number;
    readonly retryDelayMaxMs: number;
  };
}

export interface DynamoDbTableConfig {
  readonly type: 'dynamodb';
  readonly table: string;
  readonly region: string | null;
  readonly endpoint: string | null;
  readonly createTable: boolean;
}

export type SchemaHistoryConfig = {
  readonly skipUnparseableDdl: boolean;
  readonly storeOnlyCapturedTablesDdl: boolean;
} & ({ readonly type: 'file'; readonly filename: string } | DynamoDbTableConfig);

export type OffsetsConfig = { readonly flushIntervalMs: number } & (
  | { readonly type: 'file'; readonly filename: string }
  | DynamoDbTableConfig
);

export interface KinesisSinkConfig {
  readonly type: 'kinesis';
  /** Exactly one of `streamName` / `streamNameTemplate` is set. */
  readonly streamName: string | null;
  /** Placeholders `{topic}`, `{prefix}`, `{db}`, `{table}`. */
  readonly streamNameTemplate: string | null;
  readonly region: string | null;
  readonly endpoint: string | null;
  readonly aggregation: boolean;
  /** 'record' keeps key and headers (the event id) in the data; 'value' is the value JSON only. */
  readonly payload: 'value' | 'record';
  readonly oversizeHandling: 'fail' | 'truncate' | 'claim-check';
  /** null = each stream's own limit (DescribeStreamSummary). */
  readonly maxRecordBytes: number | null;
  /** Set exactly when oversizeHandling is 'claim-check'. */
  readonly claimCheck: ClaimCheckConfig | null;
  readonly maxInFlight: number;
}

export interface ClaimCheckConfig {
  readonly bucket: string;
  readonly prefix: string;
  /** null = the stream's record limit. */
  readonly thresholdBytes: number | null;
  readonly region: string | null;
  readonly endpoint: string | null;
}

export interface KafkaSinkConfig {
  readonly type: 'kafka';
  readonly bootstrapServers: readonly string[];
  /** Every other `sink.kafka.*` key without the prefix; credential-like values are `Secret`s. */
  readonly properties: Readonly<Record<string, string | Secret>>;
  /** Set when `sink.claim.check.bucket` is: records over max.request.size (or the threshold) go to S3. */
  readonly claimCheck: ClaimCheckConfig | null;
}

export type SinkConfig =
  | KinesisSinkConfig
  | KafkaSinkConfig
  | { readonly type: 'file'; readonly path: string }
  | { readonly type: 'stdout' };

export type LeaseConfig =
  | { readonly enabled: false }
  | {
      readonly enabled: true;
      readonly table: string;
      readonly region: string | null;
      readonly endpoint: string | null;
      readonly durationMs: number;
      readonly renewIntervalMs: number;
    };

export interface AwsConfig {
  readonly region: string | null;
  readonly endpoint: string | null;
}

export interface VitessConfig {
  readonly keyspace: string;
  /** null = every shard of the keyspace. */
  readonly shards: readonly string[] | null;
  /** `current` or a VGTID JSON list (start position without a stored offset, snapshot.mode=never). */
  readonly vgtid: string;
  readonly tabletType: 'MASTER' | 'PRIMARY' | 'REPLICA' | 'RDONLY';
  readonly stopOnReshard: boolean;
  /** 0 = no keepalive pings. */
  readonly keepaliveIntervalMs: number;
  readonly grpcHeaders: Readonly<Record<string, string>>;
  readonly maxInboundMessageSize: number;
  readonly includeUnknownDatatypes: boolean;
  /** Copy-phase rows as op `r` (our option) instead of Debezium Vitess's op `c`. */
  readonly copyPhaseReadEvents: boolean;
  readonly tls: {
    readonly enabled: boolean;
    readonly ca: string | null;
    readonly cert: string | null;
    readonly key: string | null;
    readonly serverName: string | null;
  };
}
