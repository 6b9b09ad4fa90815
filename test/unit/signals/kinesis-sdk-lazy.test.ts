/**
 * The signal and notification channels load the AWS Kinesis SDK only when a Kinesis channel is used: a child
 * process whose module resolution refuses the SDK builds every channel kind (Kinesis ones included, as a
 * capture with file or Kafka sinks does at start-up) and must only fail once a Kinesis channel is first used.
 */
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runRefusingModules } from '../../harness/refuse-modules.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const url = (p: string) => pathToFileURL(join(root, p)).href;

const child = `
const { parseConfig } = await import(${JSON.stringify(url('src/config/index.ts'))});
const { createSignalChannels } = await import(${JSON.stringify(url('src/signals/index.ts'))});
const { createNotificationService } = await import(${JSON.stringify(url('src/notifications/index.ts'))});
const logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => logger };
const config = parseConfig({
  'topic.prefix': 'shop', 'database.hostname': 'db.local', 'database.user': 'cdc',
  'signal.enabled.channels': 'source,kinesis', 'signal.kinesis.stream.name': 'signals',
  'notification.enabled.channels': 'log,kinesis', 'notification.kinesis.stream.name': 'notes',
  'notification.kinesis.region': 'eu-west-1',
});
const signals = createSignalChannels(config.signals, logger, null);
const notifications = createNotificationService(config, logger);
console.log('built', signals.map((c) => c.name).join(), notifications.channels.map((c) => c.name).join());
const kinesis = notifications.channels.find((c) => c.name === 'kinesis');
await kinesis.send({ id: 'n1', aggregateType: 'Snapshot', type: 'STARTED', additionalData: {}, timestamp: 1 })
  .then(() => console.log('sent'), (err) => console.log('send failed:', err.message));
`;

describe('Kinesis SDK loading', () => {
  it('signals and notifications build their channels without the SDK and load it at first use', () => {
    const r = runRefusingModules(/^@aws-sdk\/client-kinesis/, 'REFUSED: the Kinesis SDK was loaded:', child, {
      cwd: root,
      timeoutMs: 60_000,
    });
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.deepEqual(lines, [
      'built kinesis log,kinesis',
      'send failed: REFUSED: the Kinesis SDK was loaded: @aws-sdk/client-kinesis',
    ]);
  });
});
