/** The configured signal channels besides `source` (which the MySQL source reads from the binlog itself). */
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import { newKinesisClient } from '../common/kinesis-sdk.js';
import type { Logger } from '../common/logger.js';
import type { SignalsConfig } from '../config/types.js';
import type { SignalChannel } from './channel.js';
import { FileSignalChannel } from './file-channel.js';
import { KinesisSignalChannel } from './kinesis-channel.js';

export type { SignalChannel } from './channel.js';
export { parseSignal, type SignalRecord, type SnapshotRequest, snapshotSignalJson } from './signal.js';

/** Stored read positions per channel (`SourceOffset.signal_offsets`). */
export type SignalPositions = Readonly<Record<string, Readonly<Record<string, string>>>>;

export function createSignalChannels(
  config: SignalsConfig,
  logger: Logger,
  resume: SignalPositions | null,
  overrides: { kinesisClient?: KinesisClient } = {},
): SignalChannel[] {
  const log = logger.child({ component: 'signals' });
  const out: SignalChannel[] = [];
  if (config.channels.has('file') && config.file)
    out.push(new FileSignalChannel({ path: config.file, pollIntervalMs: config.pollIntervalMs, logger: log }));
  if (config.channels.has('kinesis') && config.kinesis) {
    const k = config.kinesis;
    out.push(
      new KinesisSignalChannel({
        // Without an override the client (and the SDK) is created at the first poll.
        client:
          overrides.kinesisClient ??
          (() =>
            newKinesisClient({
              ...(k.region ? { region: k.region } : {}),
              ...(k.endpoint ? { endpoint: k.endpoint } : {}),
            })),
        streamName: k.streamName,
        pollIntervalMs: config.pollIntervalMs,
        logger: log,
        resume: resume?.kinesis ?? null,
      }),
    );
  }
  return out;
}

/** The channels' current read positions, for the next offset (null when none keeps one). */
export function signalPositions(channels: readonly SignalChannel[]): SignalPositions | null {
  const out: Record<string, Record<string, string>> = {};
  for (const c of channels) {
    const p = c.position();
    if (p) out[c.name] = p;
  }
  return Object.keys(out).length > 0 ? out : null;
}
