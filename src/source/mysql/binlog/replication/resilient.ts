/**
 * Reconnects a binlog stream after retriable failures (network, server restart, KILL, silent connection), always
 * from the position the consumer confirmed, with exponential backoff and jitter. Non-retriable errors (position
 * lost, credentials, configuration) end iteration at once.
 */
import { exponentialBackoff } from '../../../../common/backoff.js';
import { errorMessage, isRetriable } from '../../../../common/errors.js';
import type { Logger } from '../../../../common/logger.js';
import { silentLogger } from '../../../../common/logger.js';
import { BinlogReplicationClient, type BinlogReplicationClientOptions } from './client.js';
import { BinlogFailoverError, BinlogStreamError, classifyError } from './errors.js';
import type { BinlogStartPosition, RawBinlogEvent, ReplicationClientState, ReplicationSession } from './types.js';

export interface ResilientBinlogStreamOptions extends Omit<BinlogReplicationClientOptions, 'start'> {
  /**
   * Where to (re)start: called before every connection attempt, including the first. Return the position after
   * the last event the consumer has durably handled, ideally a transaction boundary: events after it are
   * streamed again, so a mid-transaction position would resume without the transaction's TABLE_MAPs.
   */
  resumePosition: () => BinlogStartPosition;
  /** First retry delay (default 500 ms). */
  initialDelayMs?: number;
  /** Retry delay cap (default 30 000 ms). */
  maxDelayMs?: number;
  /** Consecutive failed attempts before giving up (default 10; Infinity retries forever). */
  maxAttempts?: number;
  /**
   * How long failover symptoms (BinlogFailoverError: binary log not open, read-only server) are retried before
   * they are reported as fatal (default 300 000 ms: an Aurora failover and its DNS change settle well within it).
   */
  failoverRetryMs?: number;
}

export interface ResilientBinlogStreamState extends ReplicationClientState {
  /** Established streams that were lost. */
  disconnects: number;
  /** Connection attempts after the first one. */
  reconnects: number;
  /** Failed attempts since the last successful start. */
  consecutiveFailures: number;
  lastError: string | undefined;
}

/**
 * An async iterable of raw binlog events that survives disconnects. One iteration at a time.
 *
 * @example
 * const stream = new ResilientBinlogStream({ connection, serverId: 4242, resumePosition: () => confirmed });
 * for await (const ev of stream) { handle(ev); if (endsTransaction(ev)) confirmed = { file: ev.file, pos: ev.nextPosition }; }
 */
export class ResilientBinlogStream implements AsyncIterable<RawBinlogEvent> {
  private readonly opts: ResilientBinlogStreamOptions;
  private readonly log: Logger;
  private client: BinlogReplicationClient | undefined;
  private stopped = false;
  private cancelSleep: (() => void) | undefined;
  private totals = { bytesReceived: 0, eventsReceived: 0, heartbeatsReceived: 0, pauseCount: 0, peak: 0 };
  private counters = { disconnects: 0, reconnects: 0, consecutiveFailures: 0 };
  private lastError: string | undefined;

  constructor(options: ResilientBinlogStreamOptions) {
    this.opts = options;
    this.log = (options.logger ?? silentLogger).child({ component: 'binlog-replication' });
  }

  /** Metrics across all connections (counters) and of the current one (gauges). */
  get state(): ResilientBinlogStreamState {
    const cur = this.client?.state;
    return {
      connected: cur?.connected ?? false,
      bytesReceived: this.totals.bytesReceived + (cur?.bytesReceived ?? 0),
      eventsReceived: this.totals.eventsReceived + (cur?.eventsReceived ?? 0),
      heartbeatsReceived: this.totals.heartbeatsReceived + (cur?.heartbeatsReceived ?? 0),
      bufferedBytes: cur?.bufferedBytes ?? 0,
      peakBufferedBytes: Math.max(this.totals.peak, cur?.peakBufferedBytes ?? 0),
      paused: cur?.paused ?? false,
      pauseCount: this.totals.pauseCount + (cur?.pauseCount ?? 0),
      lastPacketAt: cur?.lastPacketAt,
      file: cur?.file,
      position: cur?.position,
      ...this.counters,
      lastError: this.lastError,
    };
  }

  /** `state.connected` and `state.disconnects` without building the state (the stream runner reads them per event). */
  get connected(): boolean {
    return this.client?.connected ?? false;
  }
  get disconnects(): number {
    return this.counters.disconnects;
  }

  /** The current connection's server facts (thread id, flavour, checksum), if connected. */
  get session(): ReplicationSession | undefined {
    return this.client?.session;
  }

  /** Ends iteration and closes the connection; cancels a pending retry. Idempotent. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelSleep?.();
    await this.client?.stop();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<RawBinlogEvent, void, undefined> {
    const maxAttempts = this.opts.maxAttempts ?? 10;
    let first = true;
    let failoverSince: number | undefined;
    while (!this.stopped) {
      if (!first) this.counters.reconnects++;
      first = false;
      const start = this.opts.resumePosition();
      const client = new BinlogReplicationClient({ ...this.opts, start });
      this.client = client;
      let established = false;
      try {
        await client.start();
        established = true;
        failoverSince = undefined;
        this.counters.consecutiveFailures = 0;
        for await (const ev of client) yield ev;
        if (this.stopped) return;
        throw new BinlogStreamError('binlog stream ended unexpectedly', { retriable: true });
      } catch (err) {
        if (this.stopped) return;
        const e = classifyError(err, start, this.opts.serverId);
        this.lastError = e.message;
        if (!isRetriable(e)) throw e;
        if (e instanceof BinlogFailoverError) {
          failoverSince ??= Date.now();
          const window = this.opts.failoverRetryMs ?? 300_000;
          if (Date.now() - failoverSince >= window) {
            throw new BinlogStreamError(`still failing after ${window} ms: ${e.message}`, {
              cause: e,
              retriable: false,
              ...(e.errno !== undefined ? { errno: e.errno } : {}),
            });
          }
        } else failoverSince = undefined;
        if (established) this.counters.disconnects++;
        const failures = ++this.counters.consecutiveFailures;
        if (failures >= maxAttempts) {
          throw new BinlogStreamError(
            `gave up on the binlog stream after ${failures} consecutive failed attempts: ${e.message}`,
            { cause: e, retriable: true },
          );
        }
        const delay = this.backoff(failures);
        this.log.warn('binlog stream lost; reconnecting', {
          error: errorMessage(e),
          attempt: failures,
          delayMs: delay,
        });
        await this.sleep(delay);
      } finally {
        this.absorb(client);
        await client.stop();
      }
    }
  }

  /** Exponential backoff with "equal jitter": half fixed, half random, so replicas do not reconnect in step. */
  private backoff(failures: number): number {
    const initialMs = this.opts.initialDelayMs ?? 500;
    return exponentialBackoff(failures - 1, { initialMs, maxMs: this.opts.maxDelayMs ?? 30_000, jitter: 'equal' });
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        resolve();
      }
      this.cancelSleep = done;
    }).finally(() => {
      this.cancelSleep = undefined;
    });
  }

  /** Folds a finished connection's counters into the totals. */
  private absorb(client: BinlogReplicationClient): void {
    if (this.client !== client) return;
    const s = client.state;
    this.totals.bytesReceived += s.bytesReceived;
    this.totals.eventsReceived += s.eventsReceived;
    this.totals.heartbeatsReceived += s.heartbeatsReceived;
    this.totals.pauseCount += s.pauseCount;
    this.totals.peak = Math.max(this.totals.peak, s.peakBufferedBytes);
    this.client = undefined;
  }
}
