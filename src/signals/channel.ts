/**
 * A signal channel (Debezium's `signal.enabled.channels`): something other than the binlog that delivers
 * signals. The `source` channel (rows of signal.data.collection) is read from the binlog by the source itself.
 */
import type { SignalRecord } from './signal.js';

export interface SignalChannel {
  readonly name: string;
  /** Starts delivering; `deliver` resolves once the signal has been acted on (or refused). */
  start(deliver: (signal: SignalRecord) => Promise<void>): void;
  /** Where a restart resumes reading (kept in the offsets), or null when the channel keeps none. */
  position(): Record<string, string> | null;
  stop(): Promise<void>;
}
