/**
 * The Vitess change source: one VStream from VTGate for a keyspace (all shards or `vitess.shard`), turned into
 * Debezium Vitess connector records on the engine's queue, run by the engine's CaptureCoordinator over the runners
 * in vstream-runner.ts. The position is the VGTID; it is checkpointed after every transaction (COMMIT) and every
 * VGTID event outside one (copy-phase batches, DDL), so a restart re-reads at most the transaction that was in
 * flight. The copy phase (snapshot.mode=initial) is VStream's own: shards start with an empty GTID, VTGate copies
 * the tables and then streams from the copy's position; its progress (the last primary key per table) is part of
 * the VGTID, so an interrupted copy resumes where it stopped.
 *
 * Resharding: VTGate follows a reshard by itself and reports the new shards in its VGTID events; with
 * vitess.stop_on_reshard it ends the stream with a JOURNAL event instead, and the source restarts the stream from
 * the journal's shard GTIDs in place of the participating shards.
 */
import { ConfigError } from '../../common/config-error.js';
import { CdcError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { CdcConfig, VitessConfig } from '../../config/types.js';
import { VITESS_SNAPSHOT_MODE_FIX, VITESS_SNAPSHOT_MODES } from '../../config/vitess.js';
import { CaptureCoordinator } from '../../engine/capture-coordinator.js';
import { DEFAULT_SOURCE_VERSION } from '../../events/options.js';
import { CaptureMetrics, type CaptureMetricsView } from '../../model/capture-metrics.js';
import type { ChangeSource, SourceContext } from '../../model/change-source.js';
import { createTableFilter, type TableFilter } from '../mysql/table-filter.js';
import type { Vgtid } from './vgtid.js';
import type { VitessEventOptions } from './vitess-events.js';
import { VITESS_OFFSET_FILE, VStreamCopyRunner, VStreamRunner } from './vstream-runner.js';
import { VtgateClient, type VtgateClientOptions } from './vtgate-client.js';

export {
  applyJournal,
  initialVgtid,
  splitTableName,
  VITESS_OFFSET_FILE,
  VitessStreamError,
} from './vstream-runner.js';

export function vtgateClientOptions(config: CdcConfig): VtgateClientOptions {
  const v = config.vitess as VitessConfig;
  return {
    host: config.database.hostname,
    port: config.database.port,
    user: config.database.user === '' ? null : config.database.user,
    password: config.database.password.isEmpty ? null : config.database.password.reveal(),
    tls: v.tls,
    headers: v.grpcHeaders,
    maxInboundMessageSize: v.maxInboundMessageSize,
    keepaliveIntervalMs: v.keepaliveIntervalMs,
  };
}

export interface VitessSourceOptions {
  config: CdcConfig;
  logger: Logger;
  /** Tests inject a client; by default one is built from the config. */
  client?: VtgateClient;
}

export class VitessSource implements ChangeSource {
  /** Written by the runners; read by metrics/ through {@link metrics} (no schema history: FIELD events describe tables). */
  private readonly m = new CaptureMetrics();
  private readonly eventOptions: VitessEventOptions;
  private readonly filter: TableFilter;
  private stream: VStreamRunner | null = null;

  constructor(private readonly options: VitessSourceOptions) {
    const { config } = options;
    if (!config.vitess) throw new Error('internal: VitessSource needs config.vitess');
    vitessSnapshotMode(config.snapshot.mode);
    const ev = config.events;
    this.eventOptions = {
      topicPrefix: config.topicPrefix,
      topicDelimiter: config.topics.delimiter,
      sourceVersion: DEFAULT_SOURCE_VERSION,
      schemasEnable: ev.valueSchemasEnable,
      tombstonesOnDelete: ev.tombstonesOnDelete,
      skippedOperations: ev.skippedOperations,
      // schema.name.adjustment.mode is accepted and ignored (JSON output), as for the MySQL source.
      schemaNameAdjustmentMode: 'none',
      timePrecisionMode: vitessTimePrecisionMode(ev.timePrecisionMode),
      bigintUnsignedHandlingMode: ev.bigintUnsignedHandlingMode as VitessEventOptions['bigintUnsignedHandlingMode'],
      binaryHandlingMode: ev.binaryHandlingMode,
      includeUnknownDatatypes: config.vitess.includeUnknownDatatypes,
    };
    this.filter = createTableFilter(config.filters);
    this.m.streaming.position(VITESS_OFFSET_FILE, 0, null);
  }

  get metrics(): CaptureMetricsView {
    return this.m;
  }

  /** Caught up: streaming (the copy phase is over), connected, and nothing read but not yet emitted. */
  async isCaughtUp(): Promise<boolean> {
    if (this.m.phase === 'stopped') return true;
    return this.m.phase === 'streaming' && this.m.streaming.Connected && (this.stream?.drained ?? true);
  }

  /** The VGTID of the last event handled (for tests and logs). */
  get position(): Vgtid {
    return this.stream?.position ?? [];
  }

  async run(ctx: SourceContext): Promise<void> {
    const { config, logger } = this.options;
    const stored = ctx.offset;
    if (stored && stored.vgtid === undefined)
      throw new CdcError(
        'OFFSET_STORE',
        `the stored offset (${stored.file}:${stored.pos}) is a MySQL binlog offset, not a Vitess VGTID; use another offset.storage file/table or name for the Vitess connector`,
      );
    const client = this.options.client ?? new VtgateClient(vtgateClientOptions(config));
    const stream = new VStreamRunner({
      config,
      logger,
      client,
      eventOptions: this.eventOptions,
      filter: this.filter,
      emit: ctx.emit,
      signal: ctx.signal,
      metrics: this.m,
    });
    this.stream = stream;
    const coordinator = new CaptureCoordinator({
      snapshot: new VStreamCopyRunner(config),
      stream,
      signal: ctx.signal,
      logger,
      positionLost: () => new Error('internal: a VGTID is never reported lost at start'),
      onPhase: (phase) => this.m.enter(phase),
    });
    try {
      await coordinator.run({
        mode: config.snapshot.mode,
        chunkedConfigured: false,
        offset: stored,
        positionLost: false,
        // VStream describes every table itself (FIELD events): there is no schema history to miss.
        historyEmpty: false,
      });
    } finally {
      if (!this.options.client) client.close();
    }
  }
}

/**
 * initial or never, as Debezium's Vitess connector. parseConfig rejects the others already; this guards configs
 * built in code, which would otherwise run a MySQL mode's start decision over VStream (initial_only would stream
 * without a copy, when_needed would start from vitess.vgtid on a first start).
 */
function vitessSnapshotMode(mode: CdcConfig['snapshot']['mode']): void {
  if (!VITESS_SNAPSHOT_MODES.includes(mode))
    throw new ConfigError([
      { property: 'snapshot.mode', message: `'${mode}' is not a Vitess snapshot mode.`, fix: VITESS_SNAPSHOT_MODE_FIX },
    ]);
}

/** isostring is implemented for the MySQL-family connector only. */
function vitessTimePrecisionMode(
  mode: CdcConfig['events']['timePrecisionMode'],
): 'adaptive_time_microseconds' | 'connect' {
  if (mode === 'isostring') {
    throw new ConfigError([
      {
        property: 'time.precision.mode',
        message: 'isostring is not supported by the Vitess connector',
        fix: 'set time.precision.mode=adaptive_time_microseconds or connect',
      },
    ]);
  }
  return mode;
}
