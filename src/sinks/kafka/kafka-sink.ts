/**
 * Kafka / Amazon MSK sink on @platformatic/kafka (1.x: the 2.x line needs Node 22).
 *
 * Records go to the topic they name (Debezium naming is done upstream), with the key JSON text as the Kafka key, the
 * envelope JSON text as the value (null for tombstones, so log compaction drops deleted keys) and Debezium's headers
 * as Kafka headers.
 *
 * Partitioning is Kafka's own (Java-compatible murmur2 of the key bytes, positive-masked, modulo the partition
 * count), so consumers that co-partition by key agree with us. Keyless records of one table all go to one partition
 * chosen from the table name, which keeps their order.
 *
 * Ordering and durability: a batch is split per partition into record batches of at most `batch.size` bytes; round
 * i sends the i-th record batch of every partition in one produce call (one request per broker) and waits for the
 * acknowledgement (acks=all by default) before round i+1, so at most one request per partition is in flight and a
 * retried request can never overtake a later one. A produce request that fails is resent by the client with
 * exponential backoff; without idempotence a resend after a lost acknowledgement can duplicate a record batch
 * (at-least-once, like Debezium), never reorder it. `send()` resolves only when every round is acknowledged.
 *
 * Retries, one layer per operation under the task's policy (`errors.max.retries`, -1 = unlimited, and
 * `errors.retry.delay.*`; Kafka's own `sink.kafka.retries` / `retry.backoff.*` override it when set): produce
 * requests are resent by the client, which keeps the idempotent producer's sequence numbers, so resends are exact;
 * when it gives up the failure is final and the Publisher does not retry it again. Metadata reads and topic
 * creation go through a control client that does not retry, so the Publisher's retries are theirs alone (and a
 * missing topic is created at once). Start-up's connection check is bounded (8 attempts, or `sink.kafka.retries`)
 * so that an unreachable cluster or bad credentials fail fast with a clear error.
 */

import { readFileSync } from 'node:fs';
import type { ConnectionOptions as TlsOptions } from 'node:tls';
import {
  Admin,
  type MessageToProduce,
  murmur2,
  Producer,
  type ProducerOptions,
  type SASLOptions,
} from '@platformatic/kafka';
import { exponentialBackoff } from '../../common/backoff.js';
import { errorMessage, SinkError } from '../../common/errors.js';
import { type Logger, silentLogger } from '../../common/logger.js';
import type { KafkaSinkSettings } from '../../config/kafka-sink.js';
import type { SinkRecord } from '../../model/sink-record.js';
import type { ClaimChecker } from '../claim-check/claim-checker.js';
import { type DeliveryStatus, DeliveryTracker } from '../delivery-status.js';
import type { Sink } from '../sink.js';
import { mskIamTokenProvider } from './msk-iam.js';

/** Tombstones carry an explicit null value (the client's schema requires the property; null encodes as length -1). */
type Message = MessageToProduce<Buffer, Buffer | null, Buffer, Buffer>;
type ClientOptions = ProducerOptions<Buffer, Buffer | null, Buffer, Buffer>;

/** The slice of the producer the sink uses; unit tests inject fakes for faults a single local broker does not produce. */
export interface KafkaProducerLike {
  send(options: { messages: Message[]; acks?: number }): Promise<unknown>;
  metadata(options: { topics: string[]; forceUpdate?: boolean }): Promise<{
    topics: Map<string, { partitionsCount: number }>;
  }>;
  initIdempotentProducer(options: object): Promise<unknown>;
  close(): Promise<void>;
}

export interface KafkaTopicCreator {
  createTopics(options: {
    topics: string[];
    partitions?: number;
    replicas?: number;
    configs?: { name: string; value?: string | null }[];
  }): Promise<unknown>;
  close(): Promise<void>;
}

export interface KafkaSinkOptions {
  settings: KafkaSinkSettings;
  logger?: Logger;
  /** Builds the producer (tests). @default a @platformatic/kafka Producer */
  createProducer?: (options: ClientOptions) => KafkaProducerLike;
  /** Builds the admin client used for topic creation (tests). @default a @platformatic/kafka Admin */
  createAdmin?: (options: ClientOptions) => KafkaTopicCreator;
  /** SASL/OAUTHBEARER token source for AWS_MSK_IAM (tests). @default mskIamTokenProvider({ region }) */
  mskTokenProvider?: () => Promise<string>;
  /** How long partition counts are trusted before they are re-read. @default 300000 */
  metadataMaxAgeMs?: number;
  /** Random source for backoff jitter (tests). @default Math.random */
  random?: () => number;
  /** Values of records over max.request.size (or `claimCheckThresholdBytes`) go to S3 first (docs/large-records.md). */
  claimCheck?: ClaimChecker;
  /** @default max.request.size */
  claimCheckThresholdBytes?: number;
  /**
   * The task's retry policy (`errors.max.retries`, -1 = unlimited; `errors.retry.delay.initial.ms` / `.max.ms`),
   * applied by the client to each failed request unless `sink.kafka.retries` / `retry.backoff.*` are set.
   * @default unlimited, 300 ms doubling up to 10 s
   */
  retry?: { maxRetries: number; initialDelayMs: number; maxDelayMs: number };
  /** Interval of the outage summary log line (tests). @default 30000 */
  outageSummaryIntervalMs?: number;
}

/** Attempts of the connection check in start() unless `sink.kafka.retries` is set. */
const START_RETRIES = 8;

export interface KafkaSinkStats {
  records: number;
  tombstones: number;
  /** Produce calls (one request per broker each). */
  rounds: number;
  bytes: number;
  topicsCreated: number;
}

interface Prepared {
  topic: string;
  partition: number;
  bytes: number;
  message: Message;
}

export class KafkaSink implements Sink {
  readonly name = 'kafka';
  readonly stats: KafkaSinkStats = { records: 0, tombstones: 0, rounds: 0, bytes: 0, topicsCreated: 0 };
  private readonly s: KafkaSinkSettings;
  private readonly log: Logger;
  private readonly clientOptions: ClientOptions;
  private producer: KafkaProducerLike | null = null;
  /** Metadata reads (partition counts), without client retries. */
  private control: KafkaProducerLike | null = null;
  private idempotent = false;
  private readonly partitions = new Map<string, { count: number; at: number }>();
  /** Outage visibility of the client's retries while records wait (logs, metrics, `/health`). */
  private readonly delivery: DeliveryTracker;
  /** Retries of one request: `sink.kafka.retries`, else the task's policy (-1 = unlimited). */
  private readonly retries: number;
  /** True while a send() waits: client retries then count as a delivery outage. */
  private sending = false;

  constructor(private readonly options: KafkaSinkOptions) {
    this.s = options.settings;
    this.log = (options.logger ?? silentLogger).child({ sink: 'kafka' });
    const policy = options.retry ?? { maxRetries: -1, initialDelayMs: 300, maxDelayMs: 10_000 };
    const retries = this.s.retries ?? policy.maxRetries;
    this.retries = retries < 0 ? Number.MAX_SAFE_INTEGER : retries;
    this.delivery = new DeliveryTracker({
      sink: 'kafka',
      logger: this.log,
      ...(options.outageSummaryIntervalMs !== undefined ? { summaryIntervalMs: options.outageSummaryIntervalMs } : {}),
    });
    this.clientOptions = this.buildClientOptions(policy);
  }

  deliveryStatus(): DeliveryStatus {
    return this.delivery.status();
  }

  /** Whether the producer runs idempotently (decided in `start()`). */
  get isIdempotent(): boolean {
    return this.idempotent;
  }

  async start(): Promise<void> {
    if (this.s.lingerMs > 0) {
      this.log.info('linger.ms has no effect: the engine hands over whole batches and waits for them', {
        lingerMs: this.s.lingerMs,
      });
    }
    // The connection check is bounded, whatever the delivery policy: a wrong address, certificate or password
    // fails start-up with its own message instead of retrying forever.
    const probe = this.newProducer(false, this.s.retries ?? START_RETRIES);
    try {
      await probe.metadata({ topics: [] });
    } catch (err) {
      throw this.translate(err, [], 'connecting');
    } finally {
      await probe.close().catch(() => {});
    }
    const wanted = this.s.idempotence;
    if (wanted !== false) {
      const producer = this.newProducer(true);
      try {
        await producer.initIdempotentProducer({});
        this.producer = producer;
        this.idempotent = true;
      } catch (err) {
        await producer.close().catch(() => {});
        // Only a cluster that refuses producer ids is a reason to go on without idempotence; an unreachable one,
        // bad credentials or an untrusted certificate are errors in their own right.
        if (!refusesIdempotence(err)) throw this.translate(err, [], 'initialising the producer');
        if (wanted === true) {
          throw this.translate(err, [], 'initialising the idempotent producer', {
            hint: 'the cluster refused a producer id (needs Kafka 0.11+ and IDEMPOTENT_WRITE permission); grant it or set sink.kafka.enable.idempotence=false',
          });
        }
        this.log.warn('idempotent producer not available; continuing with one request in flight per partition', {
          error: errorMessage(err),
        });
      }
    }
    if (!this.producer) this.producer = this.newProducer(false);
    this.control = this.newProducer(false, 0);
  }

  async send(batch: SinkRecord[]): Promise<void> {
    if (batch.length === 0) return;
    const cc = this.options.claimCheck;
    const threshold = Math.min(this.s.maxRequestSize, this.options.claimCheckThresholdBytes ?? this.s.maxRequestSize);
    // Uploads finish before anything of the batch is produced: a pointer never precedes its payload.
    const records = cc ? await cc.checkAll(batch, (r) => recordBytes(r) > threshold) : batch;
    const producer = this.producer;
    const control = this.control;
    if (!producer || !control) throw new SinkError('kafka sink: send() before start()');
    this.sending = true;
    this.delivery.pending(Date.now());
    try {
      await this.sendRounds(producer, control, records);
      this.delivery.success();
    } finally {
      this.sending = false;
      this.delivery.settled();
    }
  }

  private async sendRounds(producer: KafkaProducerLike, control: KafkaProducerLike, records: SinkRecord[]) {
    const topics = [...new Set(records.map((r) => r.topic))];
    const counts = await this.partitionCounts(control, topics);

    // Per partition, in arrival order, cut into record batches of at most batch.size bytes.
    const perPartition = new Map<string, { chunks: Prepared[][]; lastBytes: number }>();
    for (const r of records) {
      const p = this.prepare(r, counts.get(r.topic) ?? 1);
      const id = `${p.topic}\u0000${p.partition}`;
      let part = perPartition.get(id);
      if (!part) {
        part = { chunks: [[]], lastBytes: 0 };
        perPartition.set(id, part);
      }
      let last = part.chunks[part.chunks.length - 1];
      if (last.length > 0 && part.lastBytes + p.bytes > this.s.batchSize) {
        last = [];
        part.chunks.push(last);
        part.lastBytes = 0;
      }
      last.push(p);
      part.lastBytes += p.bytes;
    }
    let rounds = 0;
    for (const part of perPartition.values()) rounds = Math.max(rounds, part.chunks.length);
    for (let i = 0; i < rounds; i++) {
      const messages: Message[] = [];
      let bytes = 0;
      for (const part of perPartition.values()) {
        for (const p of part.chunks[i] ?? []) {
          messages.push(p.message);
          bytes += p.bytes;
        }
      }
      try {
        this.stats.rounds++;
        await producer.send({ messages, acks: this.s.acks });
      } catch (err) {
        if (isUnknownTopic(err)) for (const t of topics) this.partitions.delete(t);
        const e = this.translate(err, topics, 'producing');
        // The client has used the retry policy up: final, so that the Publisher does not retry it again. A missing
        // topic is the exception: the next attempt re-reads partitions and creates it, which the client cannot.
        if (!e.retriable || isUnknownTopic(err)) throw e;
        throw new SinkError(e.message, { cause: err, retriable: true, retriesExhausted: true });
      }
      this.stats.bytes += bytes;
      this.stats.records += messages.length;
      for (const m of messages) if (m.value === null) this.stats.tombstones++;
    }
  }

  async close(): Promise<void> {
    const p = this.producer;
    this.producer = null;
    await this.control?.close().catch(() => {});
    this.control = null;
    await p?.close();
    this.options.claimCheck?.close();
  }

  // --- internals ------------------------------------------------------------------------------------------------

  private prepare(r: SinkRecord, partitionCount: number): Prepared {
    const key = r.key === null ? undefined : Buffer.from(r.key, 'utf8');
    const value = r.value === null ? null : Buffer.from(r.value, 'utf8');
    let headers: Map<Buffer, Buffer> | undefined;
    let bytes = (key?.length ?? 0) + (value?.length ?? 0);
    if (r.headers) {
      headers = new Map();
      for (const [k, v] of Object.entries(r.headers)) {
        const hk = Buffer.from(k, 'utf8');
        const hv = Buffer.from(v, 'utf8');
        headers.set(hk, hv);
        bytes += hk.length + hv.length;
      }
    }
    if (bytes > this.s.maxRequestSize) {
      throw new SinkError(
        `record for topic "${r.topic}" is ${bytes} bytes, over sink.kafka.max.request.size=${this.s.maxRequestSize}; ` +
          `exclude or truncate the large columns (column.exclude.list, column.truncate.to.<N>.chars), or raise ` +
          `max.request.size together with the topic's max.message.bytes`,
      );
    }
    const partitionKey = key ?? Buffer.from(r.table ?? r.topic, 'utf8');
    const partition = (murmur2(partitionKey) & 0x7fffffff) % partitionCount;
    return {
      topic: r.topic,
      partition,
      bytes,
      message: headers ? { topic: r.topic, partition, key, value, headers } : { topic: r.topic, partition, key, value },
    };
  }

  private async partitionCounts(producer: KafkaProducerLike, topics: string[]): Promise<Map<string, number>> {
    const maxAge = this.options.metadataMaxAgeMs ?? 300_000;
    const now = Date.now();
    const stale = topics.filter((t) => {
      const c = this.partitions.get(t);
      return !c || now - c.at > maxAge;
    });
    if (stale.length) {
      const meta = await this.readMetadata(producer, stale);
      for (const t of stale) {
        const count = meta.get(t);
        if (count !== undefined) this.partitions.set(t, { count, at: now });
      }
    }
    return new Map(topics.map((t) => [t, this.partitions.get(t)?.count ?? 1]));
  }

  private async readMetadata(producer: KafkaProducerLike, topics: string[]): Promise<Map<string, number>> {
    try {
      const md = await producer.metadata({ topics, forceUpdate: true });
      return new Map(topics.map((t) => [t, md.topics.get(t)?.partitionsCount ?? 1]));
    } catch (err) {
      if (!isUnknownTopic(err)) throw this.translate(err, topics, 'reading topic metadata');
      if (!this.s.topicCreation.enabled) {
        throw this.translate(err, topics, 'reading topic metadata', {
          hint: `a topic among ${topics.map((t) => `"${t}"`).join(', ')} does not exist; create it (cleanup.policy=compact for table topics) or set sink.kafka.topic.creation.enable=true`,
          retriable: true,
        });
      }
    }
    await this.createTopics(topics);
    try {
      const md = await producer.metadata({ topics, forceUpdate: true });
      return new Map(topics.map((t) => [t, md.topics.get(t)?.partitionsCount ?? 1]));
    } catch (err) {
      throw this.translate(err, topics, 'reading metadata of created topics');
    }
  }

  /** Creates the topics that are missing; ones that appeared meanwhile are fine. */
  private async createTopics(topics: string[]): Promise<void> {
    const tc = this.s.topicCreation;
    const admin = this.options.createAdmin
      ? this.options.createAdmin(this.clientOptions)
      : (new Admin({
          clientId: this.clientOptions.clientId,
          bootstrapBrokers: this.clientOptions.bootstrapBrokers,
          ...(this.clientOptions.tls ? { tls: this.clientOptions.tls } : {}),
          ...(this.clientOptions.sasl ? { sasl: this.clientOptions.sasl } : {}),
          retries: 0, // the Publisher's retries are the only layer for topic creation
          timeout: this.clientOptions.timeout,
        }) as unknown as KafkaTopicCreator);
    try {
      for (const topic of topics) {
        try {
          await admin.createTopics({
            topics: [topic],
            partitions: tc.partitions,
            replicas: tc.replicationFactor,
            configs: [{ name: 'cleanup.policy', value: tc.cleanupPolicy }],
          });
          this.stats.topicsCreated++;
          this.log.info('created topic', { topic, partitions: tc.partitions, cleanupPolicy: tc.cleanupPolicy });
        } catch (err) {
          if (hasError(err, 'TOPIC_ALREADY_EXISTS')) continue;
          throw this.translate(err, [topic], 'creating the topic', {
            hint: `could not create topic "${topic}"; grant CREATE on the cluster (MSK IAM: kafka-cluster:CreateTopic) or create it beforehand`,
          });
        }
      }
    } finally {
      await admin.close().catch(() => {});
    }
  }

  private newProducer(idempotent: boolean, retries = this.retries): KafkaProducerLike {
    const opts: ClientOptions = {
      ...this.clientOptions,
      idempotent,
      // Rounds already keep one request per partition in flight; idempotence additionally makes resends exact.
      maxInflights: idempotent ? 1 : this.s.maxInFlight,
      // The client turns retries <= 1 of an idempotent producer into unlimited ones: keep the configured bound.
      retries: idempotent ? Math.max(2, retries) : retries,
    };
    return this.options.createProducer
      ? this.options.createProducer(opts)
      : (new Producer<Buffer, Buffer | null, Buffer, Buffer>(opts) as unknown as KafkaProducerLike);
  }

  private buildClientOptions(policy: { initialDelayMs: number; maxDelayMs: number }): ClientOptions {
    const s = this.s;
    const random = this.options.random ?? Math.random;
    const initial = s.retryBackoffMs ?? policy.initialDelayMs;
    const max = s.retryBackoffMaxMs ?? policy.maxDelayMs;
    const opts: ClientOptions = {
      clientId: s.clientId,
      bootstrapBrokers: [...s.bootstrapServers],
      acks: s.acks,
      compression: s.compression,
      retries: this.retries,
      // Exponential backoff with full jitter, capped; a retry while records wait is a delivery outage to report.
      retryDelay: (_client, operation, attempt, _retries, error) => {
        if (this.sending) this.delivery.failure(errorMessage(error), { operation, attempt });
        return exponentialBackoff(attempt, { initialMs: initial, maxMs: max }, random) + 1;
      },
      timeout: s.requestTimeoutMs,
      requestTimeout: s.requestTimeoutMs,
      autocreateTopics: false,
      strict: true,
    };
    if (s.securityProtocol === 'SSL' || s.securityProtocol === 'SASL_SSL') opts.tls = this.tlsOptions();
    if (s.sasl) opts.sasl = this.saslOptions();
    return opts;
  }

  private tlsOptions(): TlsOptions {
    const ssl = this.s.ssl;
    const read = (path: string, what: string) => {
      try {
        return readFileSync(path);
      } catch (err) {
        throw new SinkError(`cannot read ${what} "${path}": ${errorMessage(err)}; fix sink.kafka.${what}`, {
          cause: err,
        });
      }
    };
    return {
      ...(ssl.caLocation ? { ca: read(ssl.caLocation, 'ssl.ca.location') } : {}),
      ...(ssl.certificateLocation ? { cert: read(ssl.certificateLocation, 'ssl.certificate.location') } : {}),
      ...(ssl.keyLocation ? { key: read(ssl.keyLocation, 'ssl.key.location') } : {}),
      ...(ssl.keyPassword ? { passphrase: ssl.keyPassword.reveal() } : {}),
      ...(ssl.verifyHostname ? {} : { checkServerIdentity: () => undefined }),
    };
  }

  private saslOptions(): SASLOptions {
    const sasl = this.s.sasl;
    switch (sasl?.mechanism) {
      case 'PLAIN':
      case 'SCRAM-SHA-256':
      case 'SCRAM-SHA-512': {
        const password = sasl.password;
        return { mechanism: sasl.mechanism, username: sasl.username, password: () => password.reveal() };
      }
      case 'OAUTHBEARER': {
        const token = sasl.token;
        return { mechanism: 'OAUTHBEARER', token: () => token.reveal() };
      }
      case 'AWS_MSK_IAM':
        return {
          mechanism: 'OAUTHBEARER',
          token: this.options.mskTokenProvider ?? mskIamTokenProvider({ region: sasl.region }),
        };
      default:
        throw new SinkError('kafka sink: SASL options requested without a mechanism');
    }
  }

  /** A client error as a SinkError that names the operation, the topics and what to do. */
  private translate(
    err: unknown,
    topics: string[],
    operation: string,
    extra: { hint?: string; retriable?: boolean } = {},
  ): SinkError {
    const where = topics.length ? ` (topics ${topics.map((t) => `"${t}"`).join(', ')})` : '';
    const brokers = this.s.bootstrapServers.join(',');
    let hint = extra.hint;
    let retriable = extra.retriable ?? isRetriableKafkaError(err);
    if (!hint) {
      if (hasError(err, 'TOPIC_AUTHORIZATION_FAILED')) {
        hint = `not allowed to write${where}; grant WRITE on the topics (MSK IAM: kafka-cluster:WriteData and DescribeTopic)`;
        retriable = false;
      } else if (hasError(err, 'CLUSTER_AUTHORIZATION_FAILED')) {
        hint = 'not authorised on the cluster (IDEMPOTENT_WRITE for idempotence); grant it or disable idempotence';
        retriable = false;
      } else if (hasError(err, 'MESSAGE_TOO_LARGE') || hasError(err, 'RECORD_LIST_TOO_LARGE')) {
        hint = `a record batch was larger than the broker accepts${where}; lower sink.kafka.batch.size or raise the topic's max.message.bytes`;
        retriable = false;
      } else if (tlsCertificateError(err)) {
        hint = `the TLS certificate of ${brokers} did not verify (${tlsCertificateError(err)}); set sink.kafka.ssl.ca.location to the CA that signed it (host-name mismatch: sink.kafka.ssl.endpoint.identification.algorithm)`;
        retriable = false;
      } else if (isAuthError(err)) {
        hint = `authentication with ${brokers} failed; check sink.kafka.sasl.* credentials and sasl.mechanism`;
        retriable = false;
      } else if (isUnknownTopic(err)) {
        hint = `a topic does not exist${where}; create it or set sink.kafka.topic.creation.enable=true`;
        retriable = true;
      } else if (isNetworkError(err)) {
        hint = `cannot reach the Kafka brokers ${brokers}; check sink.kafka.bootstrap.servers, security.protocol and network access`;
        retriable = true;
      } else {
        hint = `Kafka ${operation} failed${where}`;
      }
    }
    return new SinkError(`${hint}: ${describe(err)}`, { cause: err, retriable });
  }
}

/**
 * Finds an error in the tree the client builds: aggregated `errors` and `cause` chains (a failed SASL handshake
 * or TLS verification is the cause of a network error inside "Cannot connect to any broker").
 */
function findError(err: unknown, match: (e: Record<string, unknown>) => boolean, depth = 0): boolean {
  if (depth > 8 || err === null || typeof err !== 'object') return false;
  const e = err as Record<string, unknown>;
  if (match(e)) return true;
  const nested = e.errors;
  if (Array.isArray(nested) && nested.some((n) => findError(n, match, depth + 1))) return true;
  return findError(e.cause, match, depth + 1);
}

/** Bytes of key, value and headers as the producer counts them against max.request.size (batch overhead aside). */
function recordBytes(r: SinkRecord): number {
  let n = (r.key === null ? 0 : Buffer.byteLength(r.key)) + (r.value === null ? 0 : Buffer.byteLength(r.value));
  if (r.headers) for (const [k, v] of Object.entries(r.headers)) n += Buffer.byteLength(k) + Buffer.byteLength(v);
  return n;
}

/** Whether a protocol error with this id (e.g. MESSAGE_TOO_LARGE) is anywhere in the error tree. */
export function hasError(err: unknown, apiId: string): boolean {
  return findError(err, (e) => e.apiId === apiId);
}

/**
 * A topic that does not exist. The client turns the broker's UNKNOWN_TOPIC_OR_PARTITION in a metadata response
 * into its own "Unknown topic <name>." user error, without the protocol error inside.
 */
function isUnknownTopic(err: unknown): boolean {
  return (
    hasError(err, 'UNKNOWN_TOPIC_OR_PARTITION') ||
    findError(
      err,
      (e) => e.code === 'PLT_KFK_USER' && typeof e.message === 'string' && e.message.startsWith('Unknown topic '),
    )
  );
}

function isAuthError(err: unknown): boolean {
  return (
    findError(err, (e) => e.code === 'PLT_KFK_AUTHENTICATION') ||
    hasError(err, 'SASL_AUTHENTICATION_FAILED') ||
    hasError(err, 'UNSUPPORTED_SASL_MECHANISM') ||
    hasError(err, 'ILLEGAL_SASL_STATE')
  );
}

/** Node's codes for a broker certificate that does not verify (untrusted CA, wrong host name, expired). */
const TLS_CERT_CODES = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

function tlsCertificateError(err: unknown): string | null {
  let code: string | null = null;
  findError(err, (e) => {
    if (typeof e.code === 'string' && TLS_CERT_CODES.has(e.code)) code = e.code;
    return code !== null;
  });
  return code;
}

function isNetworkError(err: unknown): boolean {
  return findError(err, (e) => e.code === 'PLT_KFK_NETWORK' || e.code === 'PLT_KFK_TIMEOUT');
}

/** The cluster refused idempotence itself (no permission, too old), as opposed to being unreachable. */
function refusesIdempotence(err: unknown): boolean {
  return (
    hasError(err, 'CLUSTER_AUTHORIZATION_FAILED') ||
    hasError(err, 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED') ||
    hasError(err, 'UNSUPPORTED_VERSION') ||
    findError(err, (e) => e.code === 'PLT_KFK_UNSUPPORTED_API')
  );
}

/** Retriable unless some error in the tree says it cannot be retried (or is a certificate that will not verify). */
export function isRetriableKafkaError(err: unknown): boolean {
  if (tlsCertificateError(err)) return false;
  return !findError(err, (e) => e.canRetry === false);
}

/** The innermost distinct messages, so "produce failed 9 times" also says why. */
function describe(err: unknown): string {
  const seen = new Set<string>();
  const walk = (e: unknown, depth: number) => {
    if (depth > 6 || !(e instanceof Error)) return;
    const nested = (e as { errors?: unknown[] }).errors;
    if (Array.isArray(nested) && nested.length) {
      for (const n of nested.slice(-3)) walk(n, depth + 1);
    } else {
      seen.add(e.message);
    }
    if (e.cause) walk(e.cause, depth + 1);
  };
  walk(err, 0);
  const top = errorMessage(err);
  const inner = [...seen].filter((m) => m !== top);
  return inner.length ? `${top} (${inner.join('; ')})` : top;
}
