/**
 * `sink.kafka.*` validation: the pass-through map from the config module becomes typed Kafka sink settings, using
 * the Java producer's property names. Every problem is collected and reported at once (unknown keys with
 * did-you-mean, bad values, credentials missing for the chosen mechanism).
 */
import * as zlib from 'node:zlib';
import { ConfigError, type ConfigProblem } from '../common/config-error.js';
import { Secret } from '../common/secret.js';
import { suggest } from '../common/suggest.js';
import type { KafkaSinkConfig } from './types.js';

export type SecurityProtocol = 'PLAINTEXT' | 'SSL' | 'SASL_PLAINTEXT' | 'SASL_SSL';
export type SaslMechanism = 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512' | 'OAUTHBEARER' | 'AWS_MSK_IAM';
export type Compression = 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd';

export interface KafkaSinkSettings {
  readonly bootstrapServers: readonly string[];
  /** `client.id`. @default 'serverless-cdc' */
  readonly clientId: string;
  /** `acks`: -1 (all) or 1 (leader only). 0 is refused: `send()` must not resolve before the broker has the data. @default -1 */
  readonly acks: -1 | 1;
  /**
   * `enable.idempotence`. 'auto' (unset): use the idempotent producer when the cluster grants a producer id, else
   * fall back to one request in flight per partition with a warning. true: required. false: never.
   * @default 'auto'
   */
  readonly idempotence: boolean | 'auto';
  /** `compression.type`. @default 'none' */
  readonly compression: Compression;
  /** `batch.size`: bytes of records per partition in one produce request. @default 1048576 */
  readonly batchSize: number;
  /** `max.request.size`: largest single record (key + value + headers) accepted. @default 1048576 */
  readonly maxRequestSize: number;
  /** `linger.ms`: accepted for compatibility; the engine's batches already play this role. @default 0 */
  readonly lingerMs: number;
  /**
   * `retries`: resends of a failed request by the Kafka client, the one retry layer of this sink (exact resends
   * with idempotence). Null when not set: the task's policy decides (`errors.max.retries`, -1 = unlimited).
   */
  readonly retries: number | null;
  /** `retry.backoff.ms`: first backoff, doubling with jitter. Null when not set: `errors.retry.delay.initial.ms`. */
  readonly retryBackoffMs: number | null;
  /** `retry.backoff.max.ms`. Null when not set: `errors.retry.delay.max.ms`. */
  readonly retryBackoffMaxMs: number | null;
  /** `request.timeout.ms`. @default 30000 */
  readonly requestTimeoutMs: number;
  /** `max.in.flight.requests.per.connection`. @default 5 */
  readonly maxInFlight: number;
  /** `security.protocol`. @default 'PLAINTEXT' */
  readonly securityProtocol: SecurityProtocol;
  readonly sasl:
    | null
    | {
        readonly mechanism: 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512';
        readonly username: string;
        readonly password: Secret;
      }
    | { readonly mechanism: 'OAUTHBEARER'; readonly token: Secret }
    | { readonly mechanism: 'AWS_MSK_IAM'; readonly region: string };
  readonly ssl: {
    /** PEM file paths. */
    readonly caLocation: string | null;
    readonly certificateLocation: string | null;
    readonly keyLocation: string | null;
    readonly keyPassword: Secret | null;
    /** `ssl.endpoint.identification.algorithm`: 'https' checks the broker host name, '' does not. @default true */
    readonly verifyHostname: boolean;
  };
  readonly topicCreation: {
    /** `topic.creation.enable`: create missing topics on first use. @default false */
    readonly enabled: boolean;
    /** `topic.creation.default.partitions`. @default 1 */
    readonly partitions: number;
    /** `topic.creation.default.replication.factor`; -1 = broker default. @default -1 */
    readonly replicationFactor: number;
    /** `topic.creation.default.cleanup.policy`. @default 'compact' */
    readonly cleanupPolicy: 'compact' | 'delete' | 'compact,delete';
  };
}

const KNOWN = [
  'bootstrap.servers',
  'client.id',
  'acks',
  'enable.idempotence',
  'compression.type',
  'batch.size',
  'max.request.size',
  'linger.ms',
  'retries',
  'retry.backoff.ms',
  'retry.backoff.max.ms',
  'request.timeout.ms',
  'max.in.flight.requests.per.connection',
  'security.protocol',
  'sasl.mechanism',
  'sasl.username',
  'sasl.password',
  'sasl.oauthbearer.token',
  'aws.region',
  'ssl.ca.location',
  'ssl.certificate.location',
  'ssl.key.location',
  'ssl.key.password',
  'ssl.endpoint.identification.algorithm',
  'topic.creation.enable',
  'topic.creation.default.partitions',
  'topic.creation.default.replication.factor',
  'topic.creation.default.cleanup.policy',
] as const;

const MSK_HOST = /\.kafka(?:-serverless)?\.([a-z]{2}(?:-gov)?-[a-z]+-\d)\.amazonaws\.com(?:\.cn)?$/;

/** Validates `sink.kafka.*`; throws one ConfigError listing every problem. */
export function parseKafkaSinkConfig(sink: Omit<KafkaSinkConfig, 'claimCheck'>): KafkaSinkSettings {
  const problems: ConfigProblem[] = [];
  const props = sink.properties;
  const key = (k: string) => `sink.kafka.${k}`;
  const problem = (k: string, message: string, fix: string) => problems.push({ property: key(k), message, fix });

  for (const k of Object.keys(props)) {
    if ((KNOWN as readonly string[]).includes(k)) continue;
    const [near] = suggest(k, KNOWN);
    problem(
      k,
      'is not a Kafka sink property.',
      near ? `did you mean sink.kafka.${near}?` : `remove it; supported: ${KNOWN.map(key).join(', ')}.`,
    );
  }
  const text = (k: string): string | null => {
    const v = props[k];
    if (v === undefined) return null;
    return (v instanceof Secret ? v.reveal() : v).trim();
  };
  const secret = (k: string): Secret | null => {
    const v = props[k];
    if (v === undefined) return null;
    return v instanceof Secret ? v : new Secret(v);
  };
  const int = (k: string, def: number, min: number, max = Number.MAX_SAFE_INTEGER): number => {
    const v = text(k);
    if (v === null) return def;
    const n = /^-?\d+$/.test(v) ? Number(v) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      problem(k, `must be an integer between ${min} and ${max}, got "${v}".`, `set ${key(k)}=${def}.`);
      return def;
    }
    return n;
  };
  const bool = (k: string): boolean | null => {
    const v = text(k)?.toLowerCase() ?? null;
    if (v === null) return null;
    if (v === 'true' || v === 'false') return v === 'true';
    problem(k, `must be true or false, got "${v}".`, `set ${key(k)}=true or false.`);
    return null;
  };
  const oneOf = <T extends string>(k: string, allowed: readonly T[], def: T, normalize = (s: string) => s): T => {
    const v = text(k);
    if (v === null) return def;
    const n = normalize(v);
    const hit = allowed.find((a) => a === n);
    if (hit !== undefined) return hit;
    const [near] = suggest(v, allowed);
    problem(
      k,
      `must be one of ${allowed.join(', ')}, got "${v}".`,
      near ? `did you mean ${near}?` : `set ${key(k)}=${def}.`,
    );
    return def;
  };

  if (sink.bootstrapServers.length === 0) {
    problems.push({
      property: key('bootstrap.servers'),
      message: 'is required when sink.type=kafka.',
      fix: 'set sink.kafka.bootstrap.servers=<host:port>[,<host:port>...].',
    });
  }
  for (const s of sink.bootstrapServers) {
    if (!/^[^\s:]+:\d{1,5}$/.test(s) && !/^\[[0-9a-fA-F:]+\]:\d{1,5}$/.test(s)) {
      problem('bootstrap.servers', `entry "${s}" is not host:port.`, 'list brokers as host:port, comma separated.');
    }
  }

  const acksText = oneOf('acks', ['all', '-1', '1', '0'], 'all', (s) => s.toLowerCase());
  if (acksText === '0') {
    problem(
      'acks',
      'acks=0 would let the offset advance before any broker has the data.',
      'set sink.kafka.acks=all (recommended) or 1.',
    );
  }
  const acks: -1 | 1 = acksText === '1' ? 1 : -1;
  const idempotenceFlag = bool('enable.idempotence');
  if (idempotenceFlag === true && acks !== -1) {
    problem(
      'enable.idempotence',
      'requires acks=all.',
      'set sink.kafka.acks=all or sink.kafka.enable.idempotence=false.',
    );
  }

  const compression = oneOf('compression.type', ['none', 'gzip', 'snappy', 'lz4', 'zstd'], 'none', (s) =>
    s.toLowerCase(),
  );
  if (compression === 'zstd' && !hasZstd()) {
    problem(
      'compression.type',
      `zstd needs Node.js 22.15 or later (this is ${process.version}).`,
      'use lz4 (fastest) or gzip, or run on a newer Node.js.',
    );
  }

  const securityProtocol = oneOf(
    'security.protocol',
    ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'],
    'PLAINTEXT',
    (s) => s.toUpperCase(),
  );
  const usesSasl = securityProtocol.startsWith('SASL_');
  const mechanismText = text('sasl.mechanism');
  const mechanism = oneOf<SaslMechanism>(
    'sasl.mechanism',
    ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512', 'OAUTHBEARER', 'AWS_MSK_IAM'],
    'PLAIN',
    (s) => s.toUpperCase(),
  );
  let sasl: KafkaSinkSettings['sasl'] = null;
  if (usesSasl) {
    if (mechanismText === null) {
      problem(
        'sasl.mechanism',
        `is required with security.protocol=${securityProtocol}.`,
        'set it to PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER or AWS_MSK_IAM.',
      );
    } else if (mechanism === 'AWS_MSK_IAM') {
      const region = text('aws.region') ?? regionFromHosts(sink.bootstrapServers);
      if (!region) {
        problem(
          'aws.region',
          'is needed for AWS_MSK_IAM and cannot be read from the bootstrap host names.',
          'set sink.kafka.aws.region=<region>, e.g. us-east-1.',
        );
      }
      if (securityProtocol !== 'SASL_SSL') {
        problem(
          'security.protocol',
          'must be SASL_SSL for AWS_MSK_IAM (MSK IAM listens on TLS only).',
          'set sink.kafka.security.protocol=SASL_SSL.',
        );
      }
      sasl = { mechanism, region: region ?? '' };
    } else if (mechanism === 'OAUTHBEARER') {
      const token = secret('sasl.oauthbearer.token');
      if (!token || token.isEmpty) {
        problem(
          'sasl.oauthbearer.token',
          'is required for sasl.mechanism=OAUTHBEARER.',
          'set sink.kafka.sasl.oauthbearer.token (from a secret reference), or use AWS_MSK_IAM for MSK.',
        );
      }
      sasl = { mechanism, token: token ?? new Secret('') };
    } else {
      const username = text('sasl.username');
      const password = secret('sasl.password');
      if (!username)
        problem('sasl.username', `is required for sasl.mechanism=${mechanism}.`, 'set sink.kafka.sasl.username.');
      if (!password || password.isEmpty) {
        problem(
          'sasl.password',
          `is required for sasl.mechanism=${mechanism}.`,
          'set sink.kafka.sasl.password (from a secret reference).',
        );
      }
      sasl = { mechanism, username: username ?? '', password: password ?? new Secret('') };
    }
  } else if (mechanismText !== null) {
    problem(
      'sasl.mechanism',
      `has no effect with security.protocol=${securityProtocol}.`,
      'set sink.kafka.security.protocol=SASL_SSL (or SASL_PLAINTEXT), or remove sink.kafka.sasl.mechanism.',
    );
  }

  const usesTls = securityProtocol === 'SSL' || securityProtocol === 'SASL_SSL';
  for (const k of ['ssl.ca.location', 'ssl.certificate.location', 'ssl.key.location', 'ssl.key.password']) {
    if (!usesTls && text(k) !== null) {
      problem(
        k,
        `has no effect with security.protocol=${securityProtocol}.`,
        'set sink.kafka.security.protocol=SSL or SASL_SSL.',
      );
    }
  }
  const cert = text('ssl.certificate.location');
  const keyLoc = text('ssl.key.location');
  if ((cert === null) !== (keyLoc === null)) {
    problem(
      cert === null ? 'ssl.certificate.location' : 'ssl.key.location',
      'client certificates need both ssl.certificate.location and ssl.key.location.',
      'set both, or neither.',
    );
  }
  const endpointAlg = oneOf('ssl.endpoint.identification.algorithm', ['https', ''], 'https', (s) => s.toLowerCase());

  const topicCreationEnabled = bool('topic.creation.enable') ?? false;
  const cleanupPolicy = oneOf(
    'topic.creation.default.cleanup.policy',
    ['compact', 'delete', 'compact,delete'],
    'compact',
    (s) => s.toLowerCase().replace(/\s+/g, ''),
  );

  const batchSize = int('batch.size', 1_048_576, 1024, 64 * 1_048_576);
  const maxRequestSize = int('max.request.size', 1_048_576, 1024, 64 * 1_048_576);
  const settings: KafkaSinkSettings = {
    bootstrapServers: sink.bootstrapServers,
    clientId: text('client.id') || 'serverless-cdc',
    acks,
    idempotence: idempotenceFlag ?? 'auto',
    compression,
    batchSize,
    maxRequestSize,
    lingerMs: int('linger.ms', 0, 0, 60_000),
    // Unset: the task's one retry policy (errors.*) drives the client; set: Kafka's own names win for this sink.
    retries: text('retries') === null ? null : int('retries', 8, 0, 1_000_000),
    retryBackoffMs: text('retry.backoff.ms') === null ? null : int('retry.backoff.ms', 100, 0, 60_000),
    retryBackoffMaxMs: text('retry.backoff.max.ms') === null ? null : int('retry.backoff.max.ms', 1000, 0, 300_000),
    requestTimeoutMs: int('request.timeout.ms', 30_000, 100, 600_000),
    maxInFlight: int('max.in.flight.requests.per.connection', 5, 1, 100),
    securityProtocol,
    sasl,
    ssl: {
      caLocation: text('ssl.ca.location'),
      certificateLocation: cert,
      keyLocation: keyLoc,
      keyPassword: secret('ssl.key.password'),
      verifyHostname: endpointAlg === 'https',
    },
    topicCreation: {
      enabled: topicCreationEnabled,
      partitions: int('topic.creation.default.partitions', 1, 1, 100_000),
      replicationFactor: int('topic.creation.default.replication.factor', -1, -1, 32767),
      cleanupPolicy,
    },
  };
  if (settings.topicCreation.replicationFactor === 0) {
    problem(
      'topic.creation.default.replication.factor',
      'must be -1 (broker default) or at least 1.',
      'set it to -1 or 3.',
    );
  }
  if (problems.length) throw new ConfigError(problems);
  return settings;
}

/** The AWS region in MSK broker host names (`b-1.x.y.c2.kafka.us-east-1.amazonaws.com`), if all agree on one. */
export function regionFromHosts(servers: readonly string[]): string | null {
  const regions = new Set<string>();
  for (const s of servers) {
    const host = s.replace(/:\d+$/, '');
    const m = MSK_HOST.exec(host);
    if (!m) return null;
    regions.add(m[1]);
  }
  return regions.size === 1 ? [...regions][0] : null;
}

/** Node.js has zstd in zlib from 22.15 (and @platformatic/kafka only uses that). */
function hasZstd(): boolean {
  return typeof (zlib as unknown as Record<string, unknown>).zstdCompressSync === 'function';
}
