/**
 * The MySQL-family change source, a thin facade over the engine's CaptureCoordinator: it reads which server it
 * captures from, builds the capture context the runners share (src/source/mysql/capture-context.ts), and runs the
 * snapshot runner (snapshot/initial-snapshot-runner.ts) and the stream runner (streaming/binlog-stream-runner.ts).
 * Everything it produces goes through `ctx.emit` onto the queue.
 */

import type { Connection as PromiseConnection } from 'mysql2/promise';
import { CdcError, errorMessage } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { CdcConfig } from '../../config/types.js';
import { CaptureCoordinator } from '../../engine/capture-coordinator.js';
import { BinlogPosition } from '../../model/binlog-position.js';
import { CaptureMetrics, type CaptureMetricsView } from '../../model/capture-metrics.js';
import type { ChangeSource, SourceContext } from '../../model/change-source.js';
import { SchemaHistoryMetrics } from '../../model/schema-history-metrics.js';
import type { SourceOffset } from '../../model/source-offset.js';
import { InitialSnapshotNotifications, type NotificationService } from '../../notifications/index.js';
import type { SchemaHistory } from '../../stores/schema-history.js';
import { binaryLogs, gtidsAtOn } from './binlog-files.js';
import { readBinlogStatus } from './binlog-status.js';
import { CaptureServer, MySqlCaptureContext } from './capture-context.js';
import { assertNotRdsProxy } from './rds-endpoint.js';
import { POSITION_LOST_FIX, planResume, type ResumeFacts, type ResumePlan } from './resume-plan.js';
import { CaptureRunway } from './retention/capture-runway.js';
import { readServerIdentity, type ServerIdentity } from './server-identity.js';
import { readServerInfo } from './server-info.js';
import { InitialSnapshotRunner } from './snapshot/initial-snapshot-runner.js';
import { BinlogStreamRunner, type BinlogStreamRunnerOptions } from './streaming/binlog-stream-runner.js';
import { createTableFilter, type TableFilter } from './table-filter.js';

export interface MySqlSourceOptions {
  config: CdcConfig;
  history: SchemaHistory;
  /** A new promise-API connection to the source database (queries, snapshot). */
  connect(): Promise<PromiseConnection>;
  logger: Logger;
  /** Debezium's notification channels (notification.enabled.channels); absent = off. */
  notifications?: NotificationService | null;
}

export class MySqlSource implements ChangeSource {
  private readonly historyMetrics = new SchemaHistoryMetrics();
  /** Written by the runners; read by metrics/ and the CLI through {@link metrics}. */
  private readonly m = new CaptureMetrics({ schemaHistory: this.historyMetrics });
  private readonly filter: TableFilter;
  private stream: BinlogStreamRunner | null = null;
  private statusConn: PromiseConnection | null = null;
  private readonly runway: CaptureRunway;

  constructor(private readonly options: MySqlSourceOptions) {
    this.filter = createTableFilter(options.config.filters);
    this.runway = new CaptureRunway({ connect: options.connect, logger: options.logger });
    this.m.retentionRunwayFrom(() => this.runway.seconds);
    this.initialNotes = options.notifications
      ? new InitialSnapshotNotifications(options.notifications, { connectorName: options.config.topicPrefix })
      : null;
  }

  private readonly initialNotes: InitialSnapshotNotifications | null;

  get metrics(): CaptureMetricsView {
    return this.m;
  }

  /** Caught up: streaming, and our last handled event ends where the server's binlog ends. */
  async isCaughtUp(): Promise<boolean> {
    if (this.m.phase === 'stopped') return true;
    const ours = this.stream?.lastEventEnd;
    // Not before the stream's first event (its position is not known yet).
    if (this.m.phase !== 'streaming' || !ours?.file) return false;
    if (this.stream?.snapshotsBusy) return false;
    this.statusConn ??= await this.options.connect();
    const r = await readBinlogStatus(this.statusConn);
    if (!r) return true;
    return BinlogPosition.compare(ours, r) >= 0;
  }

  async run(ctx: SourceContext): Promise<void> {
    const { config } = this.options;
    assertNotRdsProxy(config.database.hostname);
    // One connection reads the server and checks the stored offset: each set-up (TCP, TLS, authentication) costs
    // round trips and CPU on every start.
    const setup = await this.options.connect();
    let ended: Promise<void> | null = null;
    const endSetup = () => {
      ended ??= setup.end().catch(() => {});
      return ended;
    };
    try {
      await this.capture(ctx, setup, endSetup);
    } finally {
      await endSetup();
    }
  }

  /** `endSetup` ends `setup` once the stored offset is checked, before the capture runs. */
  private async capture(ctx: SourceContext, setup: PromiseConnection, endSetup: () => Promise<void>): Promise<void> {
    const { config, logger } = this.options;
    const info = await readServerInfo(setup);
    const identity = await readServerIdentity(setup);
    const stored = ctx.offset;
    this.m.streaming.gtidMode(identity.gtidMode);
    const server = new CaptureServer(identity, info, stored?.server_generation ?? 0);
    const context = MySqlCaptureContext.create({
      config,
      logger,
      connect: this.options.connect,
      filter: this.filter,
      history: this.options.history,
      server,
      metrics: this.m,
      historyMetrics: this.historyMetrics,
    });
    context.position = () => stored;
    this.runway.start(() => (this.m.phase === 'stopped' ? null : (context.position()?.file ?? null)));
    void this.runway.measure();
    const notifications = this.options.notifications ?? null;
    await notifications?.sinkChannel()?.attach((record) => ctx.emit({ record, offset: null }));
    if (stored?.server_identity !== undefined && stored.server_identity !== identity.key) {
      // Another server's binlog: its file names and positions are not comparable with the stored ones.
      server.generation++;
      logger.warn('the stored offset was written on another server', {
        stored: stored.server_identity,
        server: identity.key,
      });
    }
    const entries = await context.history.recoverAll();
    // DDLs at or before the newest history entry are not recorded again (BinlogPosition orders generations first).
    // History can be a generation ahead of the stored offset (a failover whose offset was never committed): back on
    // the offset's server, its positions do not compare with that history's, so they become the next generation.
    const historyGeneration = context.history.recordedUpTo?.server_generation ?? 0;
    if (historyGeneration > server.generation) server.generation = historyGeneration + 1;
    // Every offset and schema-history position says which server (generation) it belongs to, and so does every
    // record read after a failover.
    const emit = context.stamping(ctx.emit);
    const plan: ResumePlan | null = stored ? planResume(await this.resumeFacts(setup, stored, identity)) : null;
    await endSetup();
    const streamOptions: BinlogStreamRunnerOptions = { context, emit, signal: ctx.signal, plan, notifications };
    const stream = new BinlogStreamRunner(streamOptions);
    this.stream = stream;
    const snapshot = new InitialSnapshotRunner({
      context,
      emit,
      signal: ctx.signal,
      stored,
      runway: this.runway,
      notifications,
      initialNotes: this.initialNotes,
      streamOver: (other) => new BinlogStreamRunner({ ...streamOptions, context: other, plan: null }),
    });
    const coordinator = new CaptureCoordinator({
      snapshot,
      stream,
      signal: ctx.signal,
      logger,
      positionLost: () => positionLostError(stored as SourceOffset, plan),
      onPhase: (phase) => {
        this.m.enter(phase);
        if (phase === 'stopped') this.runway.stop();
      },
    });
    try {
      await coordinator.run({
        mode: config.snapshot.mode,
        chunkedConfigured: config.snapshot.chunked,
        offset: stored,
        positionLost: plan?.kind === 'lost',
        historyEmpty: entries.length === 0,
      });
    } finally {
      await this.statusConn?.end().catch(() => {});
      this.statusConn = null;
    }
  }

  private async resumeFacts(
    conn: PromiseConnection,
    offset: SourceOffset,
    server: ServerIdentity,
  ): Promise<ResumeFacts> {
    try {
      const logs = await binaryLogs(conn);
      const oldest = server.flavor === 'mariadb' && logs.length > 0 ? await gtidsAtOn(conn, logs[0], 4) : null;
      return { offset, server, fileExists: logs.includes(offset.file), oldestGtidPos: oldest };
    } catch (err) {
      this.options.logger.warn('cannot list binary logs to check the stored offset', { error: errorMessage(err) });
      return { offset, server, fileExists: true };
    }
  }
}

function positionLostError(lost: SourceOffset, plan: ResumePlan | null): CdcError {
  const reason = plan?.kind === 'lost' ? plan.reason : 'unknown';
  return new CdcError(
    'BINLOG_POSITION_LOST',
    `the stored offset ${lost.file}:${lost.pos} cannot be resumed on this server: ${reason}. ${POSITION_LOST_FIX}; ` +
      'increase binlog retention so a stopped connector does not lose its position',
  );
}
