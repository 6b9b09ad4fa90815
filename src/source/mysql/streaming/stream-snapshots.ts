/**
 * Snapshots that run while the binlog streams: chunked (incremental) snapshots beside the stream, and blocking
 * snapshots at a transaction boundary with the stream held; both are started by the initial snapshot's plan, a
 * resumed offset, or an execute-snapshot signal from any channel (the signalling table, a file, Kinesis).
 */
import { errorMessage } from '../../../common/errors.js';
import type { QueueItem } from '../../../model/queue-item.js';
import type { SourceOffset } from '../../../model/source-offset.js';
import type { TableDef } from '../../../model/table-def.js';
import {
  IncrementalSnapshotNotifications,
  InitialSnapshotNotifications,
  type NotificationService,
} from '../../../notifications/index.js';
import {
  createSignalChannels,
  parseSignal,
  type SignalChannel,
  type SignalRecord,
  signalPositions,
} from '../../../signals/index.js';
import type { MySqlCaptureContext } from '../capture-context.js';
import { runBlockingSnapshot } from '../snapshot/blocking-snapshot.js';
import { ChunkedSnapshotRunner, chunkedSnapshotPaused, pendingChunkTables } from '../snapshot/chunked-snapshot.js';

export interface StreamSnapshotsOptions {
  /** The stream's start offset (chunk progress and signal read positions stored in it resume). */
  start: SourceOffset;
  /** Items of chunked snapshots go here (the stream's emit, before offsets are decorated). */
  emit(item: QueueItem): Promise<void>;
  /** The offset a chunk's checkpoint carries (the stream's last). */
  checkpoint(): SourceOffset;
  signal: AbortSignal;
  notifications: NotificationService | null;
}

export class StreamSnapshots {
  readonly chunked: ChunkedSnapshotRunner;
  private channels: SignalChannel[] = [];
  /** Blocking snapshot requests waiting for the stream loop to pause. */
  private readonly blockingQueue: Array<{ id: string; tables: readonly string[] }> = [];
  private blockingRunning = false;
  /** Runs pending blocking snapshots now if the stream is between transactions (set by the stream loop). */
  private kick: (() => Promise<void>) | null = null;

  constructor(
    private readonly context: MySqlCaptureContext,
    private readonly options: StreamSnapshotsOptions,
  ) {
    const { config, logger, metrics } = context;
    const runner = new ChunkedSnapshotRunner(
      {
        connect: context.connect,
        logger,
        chunkSize: config.snapshot.chunkSize,
        maxThreads: config.snapshot.maxThreads,
        ...(config.snapshot.fetchSize ? { fetchSize: config.snapshot.fetchSize } : {}),
        records: context.records,
        tableDef: (db, t) => context.getTable(db, t),
        emit: (item) => options.emit(item),
        checkpoint: options.checkpoint,
        streamStart: { file: options.start.file, pos: options.start.pos },
        streamStartGtids: options.start.gtids ?? null,
        readOnly: config.snapshot.readOnly,
        signalTable: config.signals.channels.has('source') ? config.filters.signalDataCollection : null,
        onSignal: (s) => void this.handle(s),
        tableFilter: context.filter,
        metrics: metrics.snapshot,
        notifications: options.notifications
          ? new IncrementalSnapshotNotifications(options.notifications, { connectorName: config.topicPrefix })
          : null,
        onActivity: () => {
          metrics.streaming.activity();
          metrics.snapshot.chunkedActivity();
        },
        signal: options.signal,
      },
      pendingChunkTables(options.start),
      chunkedSnapshotPaused(options.start),
    );
    if (runner.running) metrics.snapshot.chunkedResumed();
    this.chunked = runner;
    this.channels = createSignalChannels(config.signals, logger, options.start.signal_offsets ?? null);
  }

  /** True while a snapshot runs or waits to (the capture is not caught up). */
  get busy(): boolean {
    return this.chunked.running || this.blockingQueue.length > 0 || this.blockingRunning;
  }

  get blockingPending(): boolean {
    return this.blockingQueue.length > 0;
  }

  /** Every offset emitted while streaming carries the chunk progress and the signal channels' read positions. */
  decorate(offset: SourceOffset): SourceOffset {
    const decorated = this.chunked.decorate(offset);
    const positions = signalPositions(this.channels);
    return positions
      ? { ...decorated, signal_offsets: positions as Record<string, Record<string, string>> }
      : decorated;
  }

  /**
   * Starts the signal channels other than the signalling table (file, Kinesis); `blocking` runs the pending blocking
   * snapshots if the stream is between transactions.
   */
  startSignals(blocking: () => Promise<void>): void {
    this.kick = () => this.chunked.exclusive(blocking);
    for (const channel of this.channels) channel.start((s) => this.handle(s));
  }

  async stop(): Promise<void> {
    if (this.chunked.running) this.context.metrics.snapshot.aborted();
    this.chunked.stop();
    for (const channel of this.channels) await channel.stop().catch(() => {});
    this.channels = [];
    this.kick = null;
  }

  /** Acts on one signal from any channel; a bad signal is logged, never fatal. */
  private async handle(signal: SignalRecord): Promise<void> {
    const { logger } = this.context;
    const parsed = parseSignal(signal);
    if (parsed.action === 'ignore') {
      logger.info('ignoring signal', { id: signal.id, channel: signal.channel, reason: parsed.reason });
      return;
    }
    if (parsed.action === 'control') return this.chunked.control(parsed.control);
    const { kind, tables } = parsed.request;
    logger.info('execute-snapshot signal received', { id: signal.id, channel: signal.channel, kind, tables });
    if (kind === 'incremental') {
      this.chunked.request([...tables], 'incremental', signal.id);
      return;
    }
    this.blockingQueue.push({ id: signal.id, tables });
    // Signalling-table rows arrive inside the stream loop, which runs the snapshot after the transaction.
    if (signal.channel !== 'source') await this.kick?.();
  }

  /** Runs the pending blocking snapshots, at `at()`, while the stream is between transactions. */
  async runPendingBlocking(
    emit: (item: QueueItem) => Promise<void>,
    inTransaction: () => boolean,
    at: () => { file: string; pos: number },
  ): Promise<void> {
    const { config, logger, metrics } = this.context;
    const signal = this.options.signal;
    while (this.blockingQueue.length > 0 && !inTransaction() && !signal.aborted) {
      const req = this.blockingQueue.shift()!;
      const defs: TableDef[] = [];
      for (const id of req.tables) {
        const dot = id.indexOf('.');
        const [db, name] = [id.slice(0, dot), id.slice(dot + 1)];
        const def = this.context.filter(db, name) ? this.context.getTable(db, name) : undefined;
        if (def) defs.push(def);
        else
          logger.warn('blocking snapshot requested for a table that is not captured or unknown; ignored', {
            table: id,
          });
      }
      if (defs.length === 0) continue;
      const pausedAt = at();
      logger.info('blocking snapshot: streaming paused', {
        id: req.id,
        tables: defs.map((d) => `${d.database}.${d.name}`),
        position: `${pausedAt.file}:${pausedAt.pos}`,
      });
      this.blockingRunning = true;
      metrics.snapshot.blockingStarted();
      try {
        const r = await runBlockingSnapshot({
          connect: this.context.connect,
          tables: defs,
          records: this.context.records,
          emit,
          at: pausedAt,
          selectOverrides: config.snapshot.selectStatementOverrides,
          ...(config.snapshot.fetchSize ? { fetchSize: config.snapshot.fetchSize } : {}),
          logger,
          signal,
          // Debezium reports a blocking snapshot as an on-demand initial snapshot.
          notifications: this.options.notifications
            ? new InitialSnapshotNotifications(this.options.notifications, { connectorName: config.topicPrefix })
            : null,
        });
        logger.info('blocking snapshot completed; streaming resumes', { id: req.id, rows: r.rows, ms: r.ms });
      } catch (err) {
        if (signal.aborted) return;
        // As Debezium does: a failed blocking snapshot is reported and streaming resumes.
        logger.warn('blocking snapshot failed; streaming resumes', { id: req.id, error: errorMessage(err) });
      } finally {
        this.blockingRunning = false;
        metrics.snapshot.blockingEnded();
        metrics.streaming.activity();
      }
    }
  }
}
