/**
 * Heartbeat records (heartbeat.interval.ms): key `{serverName}`, value `{ts_ms}` on
 * `__debezium-heartbeat.<topic.prefix>`, as Debezium's HeartbeatImpl emits them.
 */
import type { SinkRecord } from '../model/sink-record.js';
import { recordSize } from '../model/sink-record.js';
import { schemaToJson, struct, withSchema } from './connect-schema.js';
import { adjustSchemaName, heartbeatTopic } from './topics.js';

export interface HeartbeatOptions {
  topicPrefix: string;
  schemasEnable?: boolean;
  /** topic.heartbeat.prefix (default `__debezium-heartbeat`). */
  heartbeatTopicPrefix?: string;
  schemaNameAdjustmentMode?: 'none' | 'avro';
}

export class HeartbeatBuilder {
  readonly topic: string;
  private readonly key: string;
  private readonly valueSchemaJson: string | null;

  constructor(options: HeartbeatOptions) {
    this.topic = heartbeatTopic(options.topicPrefix, options.heartbeatTopicPrefix);
    const mode = options.schemaNameAdjustmentMode ?? 'none';
    const keyPayload = `{"serverName":${JSON.stringify(options.topicPrefix)}}`;
    if (options.schemasEnable) {
      const keySchema = struct(
        adjustSchemaName('io.debezium.connector.common.ServerNameKey', mode),
        [{ field: 'serverName', schema: { type: 'string', optional: false } }],
        false,
        1,
      );
      this.key = withSchema(schemaToJson(keySchema), keyPayload);
      this.valueSchemaJson = schemaToJson(
        struct(
          adjustSchemaName('io.debezium.connector.common.Heartbeat', mode),
          [{ field: 'ts_ms', schema: { type: 'int64', optional: false } }],
          false,
          1,
        ),
      );
    } else {
      this.key = keyPayload;
      this.valueSchemaJson = null;
    }
  }

  /** A heartbeat record stamped `tsMs` (defaults to now). */
  build(tsMs: number = Date.now()): SinkRecord {
    const payload = `{"ts_ms":${tsMs}}`;
    const value = this.valueSchemaJson ? withSchema(this.valueSchemaJson, payload) : payload;
    return { topic: this.topic, key: this.key, value, sizeBytes: recordSize(this.key, value) };
  }
}
