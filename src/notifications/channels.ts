/**
 * Notification channels (Debezium's `notification.enabled.channels`): `log` (a log line per notification, like
 * LogNotificationChannel), `sink` (a record on `notification.sink.topic.name` through the capture's own sink, like
 * SinkNotificationChannel: key `{id}`, value `{id, type, aggregate_type, additional_data, timestamp}`), and ours,
 * `kinesis` (one PutRecord per notification on a dedicated stream, `notification.kinesis.stream.name`).
 */
import type { KinesisClient, KinesisClientConfig } from '@aws-sdk/client-kinesis';
import { errorMessage } from '../common/errors.js';
import { kinesisSdk, newKinesisClient } from '../common/kinesis-sdk.js';
import type { Logger } from '../common/logger.js';
import { type ConnectSchema, schemaToJson, struct, withSchema } from '../events/connect-schema.js';
import { recordSize, type SinkRecord } from '../model/sink-record.js';
import type { Notification, Notifier } from './notification.js';

export interface NotificationChannel {
  readonly name: string;
  send(notification: Notification): Promise<void>;
  close?(): Promise<void>;
}

/** Keys whose values are primary-key values of rows: never written to the log (row values are never logged). */
const ROW_VALUE_KEYS = ['maximum_key', 'last_processed_key'];

export class LogNotificationChannel implements NotificationChannel {
  readonly name = 'log';
  constructor(private readonly logger: Logger) {}

  async send(n: Notification): Promise<void> {
    const data = { ...n.additional_data };
    for (const k of ROW_VALUE_KEYS) if (k in data) data[k] = '***';
    this.logger.info('[Notification Service]', {
      id: n.id,
      aggregate_type: n.aggregate_type,
      type: n.type,
      additional_data: data,
      timestamp: n.timestamp,
    });
  }
}

/** Debezium's value layout (SchemaFactory.notificationValueSchema field order). */
export function notificationJson(n: Notification): string {
  return JSON.stringify({
    id: n.id,
    type: n.type,
    aggregate_type: n.aggregate_type,
    additional_data: n.additional_data,
    timestamp: n.timestamp,
  });
}

const STRING: ConnectSchema = { type: 'string', optional: false };
const KEY_SCHEMA = schemaToJson(
  struct('io.debezium.connector.common.NotificationKey', [{ field: 'id', schema: STRING }], false, 1),
);
const VALUE_SCHEMA = schemaToJson(
  struct(
    'io.debezium.connector.common.Notification',
    [
      { field: 'id', schema: STRING },
      { field: 'type', schema: STRING },
      { field: 'aggregate_type', schema: STRING },
      { field: 'additional_data', schema: { type: 'map', optional: true, keys: STRING, values: STRING } },
      { field: 'timestamp', schema: { type: 'int64', optional: false } },
    ],
    false,
    1,
  ),
);

/** The sink channel's record (exported for tests). */
export function notificationRecord(
  n: Notification,
  topic: string,
  schemas: { key: boolean; value: boolean },
): SinkRecord {
  const keyPayload = JSON.stringify({ id: n.id });
  const key = schemas.key ? withSchema(KEY_SCHEMA, keyPayload) : keyPayload;
  const valuePayload = notificationJson(n);
  const value = schemas.value ? withSchema(VALUE_SCHEMA, valuePayload) : valuePayload;
  return { topic, key, value, sizeBytes: recordSize(key, value) };
}

/** Records go onto the capture's queue, so they reach the sink in order with the change events around them. */
export class SinkNotificationChannel implements NotificationChannel {
  readonly name = 'sink';
  private emit: ((record: SinkRecord) => Promise<void>) | null = null;
  private readonly early: Notification[] = [];

  constructor(
    private readonly topic: string,
    private readonly schemas: { key: boolean; value: boolean },
  ) {}

  /** Connects the channel to the running capture's queue; notifications sent before are delivered now. */
  async attach(emit: (record: SinkRecord) => Promise<void>): Promise<void> {
    this.emit = emit;
    for (const n of this.early.splice(0)) await this.send(n);
  }

  async send(n: Notification): Promise<void> {
    if (!this.emit) {
      this.early.push(n);
      return;
    }
    await this.emit(notificationRecord(n, this.topic, this.schemas));
  }
}

export interface KinesisNotificationChannelOptions {
  streamName: string;
  clientConfig?: KinesisClientConfig;
  client?: KinesisClient;
}

/** One record per notification, partition key = notification id, data = the notification JSON. */
export class KinesisNotificationChannel implements NotificationChannel {
  readonly name = 'kinesis';
  /** Created (and the SDK loaded) at the first notification. */
  private client: Promise<KinesisClient> | null;
  private readonly ownsClient: boolean;

  constructor(private readonly options: KinesisNotificationChannelOptions) {
    this.ownsClient = !options.client;
    this.client = options.client ? Promise.resolve(options.client) : null;
  }

  async send(n: Notification): Promise<void> {
    this.client ??= newKinesisClient(this.options.clientConfig);
    const [client, { PutRecordCommand }] = await Promise.all([this.client, kinesisSdk()]);
    await client.send(
      new PutRecordCommand({
        StreamName: this.options.streamName,
        PartitionKey: n.id,
        Data: Buffer.from(notificationJson(n)),
      }),
    );
  }

  async close(): Promise<void> {
    if (this.ownsClient && this.client)
      await this.client.then(
        (c) => c.destroy(),
        () => undefined,
      );
  }
}

/**
 * Fans notifications out to the channels, in order per channel, without making the snapshot wait: a failing
 * channel is logged (once per outage) and never stops the capture.
 */
export class NotificationService implements Notifier {
  private readonly chains = new Map<string, Promise<void>>();
  private readonly failing = new Set<string>();

  constructor(
    readonly channels: readonly NotificationChannel[],
    private readonly logger: Logger,
  ) {}

  notify(n: Notification): void {
    for (const ch of this.channels) {
      const prev = this.chains.get(ch.name) ?? Promise.resolve();
      const next = prev.then(() =>
        ch.send(n).then(
          () => {
            if (this.failing.delete(ch.name)) this.logger.info('notification channel recovered', { channel: ch.name });
          },
          (err: unknown) => {
            if (!this.failing.has(ch.name))
              this.logger.warn('cannot send a notification', {
                channel: ch.name,
                type: n.type,
                error: errorMessage(err),
              });
            this.failing.add(ch.name);
          },
        ),
      );
      this.chains.set(ch.name, next);
    }
  }

  /** Resolves once every notification so far was handed to its channels. */
  async flush(): Promise<void> {
    await Promise.all(this.chains.values());
  }

  async close(): Promise<void> {
    await this.flush();
    await Promise.all(this.channels.map((c) => c.close?.().catch(() => {})));
  }

  sinkChannel(): SinkNotificationChannel | null {
    return (this.channels.find((c) => c instanceof SinkNotificationChannel) as SinkNotificationChannel) ?? null;
  }
}
