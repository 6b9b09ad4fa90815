/** Debezium's snapshot notifications and their channels (docs/notifications.md). */
import type { Logger } from '../common/logger.js';
import type { CdcConfig } from '../config/types.js';
import {
  KinesisNotificationChannel,
  LogNotificationChannel,
  type NotificationChannel,
  NotificationService,
  SinkNotificationChannel,
} from './channels.js';

export * from './channels.js';
export * from './notification.js';

/** The channels `notification.enabled.channels` asks for; null when notifications are off. */
export function createNotificationService(
  config: Pick<CdcConfig, 'notifications' | 'events'>,
  logger: Logger,
): NotificationService | null {
  const n = config.notifications;
  if (n.channels.length === 0) return null;
  const channels: NotificationChannel[] = [];
  for (const name of n.channels) {
    if (name === 'log') channels.push(new LogNotificationChannel(logger.child({ component: 'notifications' })));
    if (name === 'sink' && n.sinkTopic)
      channels.push(
        new SinkNotificationChannel(n.sinkTopic, {
          key: config.events.keySchemasEnable,
          value: config.events.valueSchemasEnable,
        }),
      );
    if (name === 'kinesis' && n.kinesis)
      channels.push(
        new KinesisNotificationChannel({
          streamName: n.kinesis.streamName,
          clientConfig: {
            ...(n.kinesis.region ? { region: n.kinesis.region } : {}),
            ...(n.kinesis.endpoint ? { endpoint: n.kinesis.endpoint } : {}),
          },
        }),
      );
  }
  return new NotificationService(channels, logger);
}
