/**
 * Turns the live binlog into queue items: decodes each raw event, keeps the schema current from DDL, builds
 * Debezium records for captured row changes, and attaches resumable offsets (see TransactionTracker).
 * Event handling is a table from event type to handler; everything else is ignored explicitly.
 */

import { CdcError, errorMessage } from '../../../common/errors.js';
import type { Logger } from '../../../common/logger.js';
import { PartialJsonUpdateError } from '../../../events/envelope.js';
import { rowsEventIdPrefix, statementId } from '../../../events/event-id.js';
import { transactionId } from '../../../events/transaction.js';
import { BinlogPosition, type PositionLike } from '../../../model/binlog-position.js';
import { ACCEPTED, type QueueItem } from '../../../model/queue-item.js';
import type { SinkRecord } from '../../../model/sink-record.js';
import type { SourceOffset } from '../../../model/source-offset.js';
import type { TableDef } from '../../../model/table-def.js';
import type { Row } from '../../../model/values.js';
import type { SchemaHistoryEntry } from '../../../stores/schema-history.js';
import type { BinlogEvent, QueryEvent, RowsEvent, TableMapEvent, XaPrepareEvent } from '../binlog/events.js';
import type { HistoryRecorder } from '../history-recorder.js';
import { schemaChangeEvents } from '../schema/change-events.js';
import { rowEndIndex, versionedChange } from '../schema/system-versioning.js';
import type { RecordFactory, SchemaPort, SourceInfo } from './ports.js';
import { TransactionTracker } from './transaction-tracker.js';
import { parseXaOutcome, XaTransactions, xidKey } from './xa-transactions.js';

/** What the streamer needs of a transport event (see replication/types.ts RawBinlogEvent). */
export interface RawBinlogEvent {
  raw: Buffer;
  file: string;
  position: number;
  nextPosition: number;
  /** Set on events the server made up for this stream; an artificial ROTATE starts a (re)connected stream. */
  artificial?: boolean;
  typeCode?: number;
}

const ROTATE_EVENT = 4;

export interface BinlogStreamerOptions {
  /**
   * Position of the last DDL already in schema history. DDLs at or before it are re-applied to the schema after a
   * restart from an earlier offset, but not recorded again, so history does not grow with each replay.
   */
  historyRecordedUpTo?: PositionLike | null;
  /**
   * Server generation of the events read now (SourceOffset.server_generation; it grows when the stream moves to
   * another server): ordered before file and position when comparing with historyRecordedUpTo. @default 0
   */
  serverGeneration?: () => number;
  /** Compares a TABLE_MAP with the schema model; returns the mismatches (empty when consistent). */
  checkTableMap?: (def: TableDef, map: TableMapEvent) => string[];
  /** inconsistent.schema.handling.mode: what to do with row events that do not match the schema. @default 'fail' */
  inconsistentSchemaHandlingMode?: 'fail' | 'warn' | 'skip';
  decode(raw: Buffer): BinlogEvent;
  schema: SchemaPort;
  /** Where DDLs are recorded: the capture's HistoryRecorder, which numbers the entries. */
  history: Pick<HistoryRecorder, 'record' | 'next'>;
  records: RecordFactory;
  tableFilter(db: string, table: string): boolean;
  /** Debezium's skipped.operations: any of c, u, d, t. */
  skippedOperations: ReadonlySet<string>;
  includeSchemaChanges: boolean;
  includeQuery: boolean;
  eventDeserializationFailureHandlingMode: 'fail' | 'warn' | 'skip';
  flavor: 'mysql' | 'mariadb';
  logger: Logger;
  /** Called for every event read (metrics, idle detection). */
  onEvent?(event: BinlogEvent, position: number): void;
}

/** sql_mode bit of ANSI_QUOTES in the QUERY event's Q_SQL_MODE status variable. */
const SQL_MODE_ANSI_QUOTES = 0x4n;
/** MariaDB GTID flag: the group holds an XA transaction's rows up to its XA PREPARE. */
const MARIADB_FL_PREPARED_XA = 64;
export const TXN_CONTROL = /^\s*(BEGIN|COMMIT|ROLLBACK|XA\s|SAVEPOINT|RELEASE\s+SAVEPOINT|ROLLBACK\s+TO)/i;
const ATOMIC_CTAS = /\s+START\s+TRANSACTION\s*$/i;
export const DML = /^\s*(INSERT|UPDATE|DELETE|REPLACE|LOAD\s+DATA|CALL)\b/i;

export class BinlogStreamer {
  readonly tracker: TransactionTracker;
  private readonly xa = new XaTransactions();
  private query: string | null = null;
  private threadId: number | null = null;
  /** Binlog coordinates of the last event handled (for caught-up checks). */
  lastEventEnd = { file: '', pos: 0 };
  eventsSeen = 0;
  private lastOffset: SourceOffset | null;
  private readonly checked = new WeakMap<TableMapEvent, WeakMap<TableDef, string | null>>();
  private connections = 0;
  private readonly sequences = new Map<string, boolean>();
  eventsFiltered = 0;
  /** Undecodable events skipped (event.deserialization.failure.handling.mode=warn|skip). */
  eventsSkipped = 0;
  committedTransactions = 0;

  constructor(
    private readonly options: BinlogStreamerOptions,
    start: SourceOffset | null,
  ) {
    this.tracker = new TransactionTracker(start);
    this.lastOffset = start;
  }

  /** The last offset handed out: where a reconnect must resume so nothing is lost or repeated. */
  get resumeOffset(): SourceOffset | null {
    return this.lastOffset;
  }

  /** Handle one raw event; `emit` awaits queue capacity (backpressure). */
  async handle(ev: RawBinlogEvent, sink: (item: QueueItem) => Promise<void>): Promise<void> {
    const t = this.tracker;
    const emit = (item: QueueItem) => {
      if (item.offset) {
        // A prepared XA transaction still waits for its outcome: no checkpoint may pass its start.
        const hold = this.xa.hold;
        if (hold) item = { ...item, offset: hold };
        this.lastOffset = item.offset;
      }
      return sink(item);
    };
    if (ev.artificial && ev.typeCode === ROTATE_EVENT) {
      // A new connection starts with a fake ROTATE; it resumed from `resumeOffset`, so drop half-read state.
      if (this.connections++ > 0) {
        t.restart(this.lastOffset);
        this.xa.reset();
      }
    }
    t.file = ev.file;
    t.eventPos = ev.position;
    t.nextPos = ev.nextPosition;
    let event: BinlogEvent;
    try {
      event = this.options.decode(ev.raw);
    } catch (err) {
      const where = `${ev.file}:${ev.position}`;
      if (this.options.eventDeserializationFailureHandlingMode === 'fail' || !(err instanceof CdcError)) {
        throw new CdcError(
          'BINLOG_DECODE',
          `cannot decode the binlog event at ${where}: ${errorMessage(err)}. Set event.deserialization.failure.handling.mode=warn or skip to continue past it (the event's changes are lost)`,
          { cause: err },
        );
      }
      this.eventsSkipped++;
      if (this.options.eventDeserializationFailureHandlingMode === 'warn')
        this.options.logger.warn('skipping undecodable binlog event', { position: where, error: errorMessage(err) });
      return;
    }
    this.eventsSeen++;
    t.serverId = event.header.serverId;
    t.tsSec = event.header.timestamp;
    this.lastEventEnd = { file: ev.file, pos: ev.nextPosition || this.lastEventEnd.pos };
    this.options.onEvent?.(event, ev.position);
    await this.dispatch(event, emit);
  }

  private async dispatch(event: BinlogEvent, emit: (item: QueueItem) => Promise<void>): Promise<void> {
    const t = this.tracker;
    switch (event.type) {
      case 'GTID':
      case 'ANONYMOUS_GTID':
        // The thread id comes from the transaction's BEGIN (MySQL); never carry over the previous statement's.
        this.threadId = null;
        t.begin(event.type === 'GTID' ? event.gtid : undefined, 'mysql');
        return;
      case 'MARIADB_GTID':
        // MariaDB logs no BEGIN for DML transactions, so they have no thread id (only DDL's QUERY event has one).
        this.threadId = null;
        t.begin(event.gtid, 'mariadb');
        // FL_PREPARED_XA: the group is an XA transaction's rows, ended by XA PREPARE (MariaDB logs no XA START).
        if (event.xid && (event.flags & MARIADB_FL_PREPARED_XA) !== 0) this.xa.open = true;
        return;
      case 'QUERY':
        return this.onQuery(event, emit);
      case 'XID':
        return this.onCommit(emit);
      case 'XA_PREPARE':
        return this.onXaPrepare(event, emit);
      case 'MARIADB_ANNOTATE_ROWS':
      case 'ROWS_QUERY':
        this.query = event.query;
        return;
      case 'WRITE_ROWS':
      case 'UPDATE_ROWS':
      case 'PARTIAL_UPDATE_ROWS':
      case 'DELETE_ROWS':
        return this.onRows(event, emit);
      case 'TRANSACTION_PAYLOAD':
        for (const inner of event.events) await this.dispatch(inner, emit);
        return;
      default:
        // FORMAT_DESCRIPTION, ROTATE, TABLE_MAP (the decoder keeps them), heartbeats, GTID lists, ...: nothing to emit.
        return;
    }
  }

  private async onQuery(event: QueryEvent, emit: (item: QueueItem) => Promise<void>): Promise<void> {
    const t = this.tracker;
    // MySQL 8.0.21+ logs CREATE TABLE ... SELECT atomically: the DDL with START TRANSACTION, then its rows and XID.
    const atomic = ATOMIC_CTAS.exec(event.query);
    const sql = atomic ? event.query.slice(0, atomic.index) : event.query;
    this.threadId = event.threadId;
    if (TXN_CONTROL.test(sql)) {
      const word = sql.trim().slice(0, 8).toUpperCase();
      if (word.startsWith('BEGIN')) t.begin();
      else if (word.startsWith('XA START')) {
        t.begin();
        this.xa.open = true;
      } else if (word.startsWith('XA COMMI') || word.startsWith('XA ROLLB')) await this.onXaOutcome(sql, emit);
      else if (word.startsWith('COMMIT') || word.startsWith('ROLLBACK')) await this.onCommit(emit);
      return;
    }
    if (DML.test(sql)) {
      // Statement-based logging of a change: it carries no row images, so it cannot be captured.
      this.options.logger.warn('ignoring a statement-based change; set binlog_format=ROW', {
        position: `${t.file}:${t.eventPos}`,
      });
      return;
    }
    // The statement's own sql_mode (QUERY status vars) decides how "..." reads: a string, or with ANSI_QUOTES a name.
    const sqlMode = event.statusVars.sqlMode;
    const session = sqlMode === undefined ? {} : { ansiQuotes: (sqlMode & SQL_MODE_ANSI_QUOTES) !== 0n };
    const applied = this.options.schema.applyDdl(sql, event.database, { file: t.file, pos: t.eventPos }, session);
    if (applied.needsReload?.length && this.options.schema.reload) {
      applied.tableChanges.push(...(await this.options.schema.reload(applied.needsReload)));
    }
    if (applied.truncated?.length) {
      // Debezium: a keyless op 't' event on the table's topic (unless skipped.operations has t); no schema change.
      await this.onTruncate(applied.truncated, emit);
    } else if (!applied.ignored) {
      const entry: SchemaHistoryEntry = {
        // The recorder decides the number when it records the entry; a replayed DDL takes none.
        seq: this.options.history.next(),
        position: { file: t.file, pos: t.eventPos, gtids: t.gtidSet },
        ts_ms: event.header.timestamp * 1000,
        databaseName: event.database,
        ddl: sql,
        tableChanges: applied.tableChanges,
      };
      const upTo = this.options.historyRecordedUpTo;
      const replayed =
        upTo && BinlogPosition.of(t.file, t.eventPos, this.options.serverGeneration?.() ?? 0).isAtOrBefore(upTo);
      if (!replayed) await this.options.history.record(entry);
      if (this.options.includeSchemaChanges) {
        let n = 0;
        for (const change of schemaChangeEvents(applied, applied.tableChanges, sql, event.database)) {
          const one = {
            ...entry,
            databaseName: change.databaseName,
            ddl: change.ddl,
            tableChanges: change.tableChanges,
          };
          if (!this.touchesCapturedTables(one, applied.namedTables)) continue;
          const source = this.sourceInfo(0);
          source.id = statementId(transactionId(source), 'ddl', n++);
          const record = this.options.records.schemaChange(one, source, change.tables);
          if (record) await emit({ record, offset: null });
        }
      }
    }
    // The atomic CREATE ... SELECT goes on with its rows: no checkpoint until its XID.
    if (atomic) {
      t.begin();
      return;
    }
    // A DDL commits implicitly (and MariaDB logs it as a standalone GTID group).
    const offset = t.commit();
    await emit({ record: null, offset });
  }

  private async onTruncate(ids: string[], emit: (item: QueueItem) => Promise<void>): Promise<void> {
    if (this.options.skippedOperations.has('t')) return;
    for (let n = 0; n < ids.length; n++) {
      const id = ids[n];
      const dot = id.indexOf('.');
      const def = this.options.schema.getTable(id.slice(0, dot), id.slice(dot + 1));
      if (!def || !this.options.tableFilter(def.database, def.name)) continue;
      const base = this.sourceInfo(0);
      const source = { ...base, query: null, id: statementId(transactionId(base), 'truncate', n) };
      for (const record of this.options.records.forTable(def).truncate?.(source) ?? [])
        await emit({ record, offset: null });
    }
  }

  private touchesCapturedTables(entry: SchemaHistoryEntry, namedTables: string[] | undefined): boolean {
    const captured = (id: string) => {
      const dot = id.indexOf('.');
      return this.options.tableFilter(id.slice(0, dot), id.slice(dot + 1));
    };
    // A table statement about tables the capture does not model (another database, an excluded table).
    if (entry.tableChanges.length === 0 && namedTables) return namedTables.some(captured);
    if (entry.tableChanges.length === 0) return true; // database-level DDL
    return entry.tableChanges.some((c) => {
      const dot = c.id.indexOf('.');
      return this.options.tableFilter(c.id.slice(0, dot), c.id.slice(dot + 1));
    });
  }

  private async onCommit(emit: (item: QueueItem) => Promise<void>): Promise<void> {
    const t = this.tracker;
    const offset = t.commit();
    this.committedTransactions++;
    this.query = null;
    const record = this.options.records.transactions?.end(t.tsSec * 1000) ?? null;
    await emit({ record, offset });
  }

  /** XA PREPARE ends the rows part: one-phase commits now, two-phase waits for XA COMMIT / XA ROLLBACK. */
  private async onXaPrepare(event: XaPrepareEvent, emit: (item: QueueItem) => Promise<void>): Promise<void> {
    const t = this.tracker;
    if (event.onePhase) {
      for (const item of this.xa.takeOpen()) await emit(item);
      return this.onCommit(emit);
    }
    const key = xidKey(event.gtrid, event.bqual, event.formatId);
    this.xa.prepare(key, t.txnGtid, { file: t.file, pos: t.txnStartPos, ...(t.gtidSet ? { gtids: t.gtidSet } : {}) });
    t.endUncommitted();
    this.query = null;
  }

  private async onXaOutcome(sql: string, emit: (item: QueueItem) => Promise<void>): Promise<void> {
    const outcome = parseXaOutcome(sql);
    const prepared = outcome ? this.xa.resolve(outcome.key) : undefined;
    if (outcome?.onePhase) for (const item of this.xa.takeOpen()) await emit(item);
    else if (prepared) {
      if (outcome?.commit) for (const item of prepared.items) await emit(item);
      this.tracker.addGtid(prepared.gtid);
    } else if (outcome?.commit) {
      this.options.logger.warn(
        'XA COMMIT of a transaction prepared before the stream started: its rows were not read, so they are not emitted',
        { position: `${this.tracker.file}:${this.tracker.eventPos}` },
      );
    }
    return this.onCommit(emit);
  }

  private async onRows(event: RowsEvent, out: (item: QueueItem) => Promise<void>): Promise<void> {
    const t = this.tracker;
    // Rows of an XA transaction wait for its outcome (xa-transactions.ts); they carry no checkpoint.
    const emit = this.xa.open
      ? async (item: QueueItem) => {
          this.xa.buffer(item);
        }
      : out;
    const { database, table } = event.table;
    if (!t.inTransaction) t.begin();
    const skip = t.nextRowsEvent();
    if (skip < 0) return;
    if (!this.options.tableFilter(database, table)) {
      this.eventsFiltered++;
      return;
    }
    const op = event.type === 'WRITE_ROWS' ? 'c' : event.type === 'DELETE_ROWS' ? 'd' : 'u';
    const def = this.options.schema.getTable(database, table);
    // A system-versioned table's UPDATE can be a delete of the current row: skip per row there.
    if (this.options.skippedOperations.has(op) && !def?.systemVersioned) return;
    if (!def && (await this.isSequence(database, table))) return;
    const problem = def
      ? this.schemaMismatch(def, event.table)
      : `its schema is unknown (the schema history does not cover ${database}.${table}); restart with snapshot.mode=recovery to rebuild it`;
    if (problem !== null || !def) {
      const message = `row change for ${database}.${table} at ${t.file}:${t.eventPos}: ${problem}`;
      const mode = this.options.inconsistentSchemaHandlingMode ?? 'fail';
      if (mode === 'fail') {
        throw new CdcError(
          'SCHEMA_INCONSISTENT',
          `${message}. Set inconsistent.schema.handling.mode=warn or skip to continue past such events (their changes are lost)`,
        );
      }
      if (mode === 'warn') this.options.logger.warn('skipping a row event that does not match the schema', { message });
      return;
    }
    const builder = this.options.records.forTable(def);
    const source = this.sourceInfo(0);
    const tx = this.options.records.transactions ?? undefined;
    if (tx && !tx.inTransaction) tx.begin(t.txnGtid || `file=${t.file},pos=${t.txnStartPos}`, t.tsSec * 1000);
    const n = event.rows.length;
    const rowEnd = rowEndIndex(def);
    // Stable ids (event-id.ts): transaction, rows event index (every rows event counts, captured or not), row.
    const idPrefix = rowsEventIdPrefix(transactionId(source), t.rowsEventIndex);
    for (let i = skip; i < n; i++) {
      source.row = i;
      source.id = idPrefix + i;
      let records: SinkRecord[];
      const rowOp = rowEnd < 0 ? op : this.versionedOp(op, rowEnd, event.rows[i]);
      if (rowOp === null) records = [];
      else if (op === 'c') records = builder.insert(event.rows[i] as Row, source, tx);
      else if (op === 'd') records = builder.delete(event.rows[i] as Row, source, tx);
      else if (rowOp === 'd') records = builder.delete((event.rows[i] as { before: Row }).before, source, tx);
      else {
        const pair = event.rows[i] as { before: Row; after: Row };
        try {
          records = builder.update(pair.before, pair.after, source, tx);
        } catch (err) {
          // A partial JSON update that cannot be rebuilt into the full document is an undecodable change.
          if (!(err instanceof PartialJsonUpdateError)) throw err;
          records = this.undecodableRow(err, i);
        }
      }
      // One checkpoint per rows event (its last row) keeps allocation off the per-row path; a restart inside
      // the event re-delivers at most that event's rows (at-least-once), never loses them.
      const offset = i === n - 1 ? t.offsetInTransaction(i + 1) : null;
      if (records.length === 0 && offset) await emit({ record: null, offset });
      for (let r = 0; r < records.length; r++) {
        // Only wait when the queue is full (backpressure); an item taken at once needs no await.
        const accepted = emit({ record: records[r], offset: r === records.length - 1 ? offset : null });
        if (accepted !== ACCEPTED) await accepted;
      }
    }
  }

  /** The change a row of a system-versioned table makes to its current rows (null: history only, or skipped). */
  private versionedOp(op: 'c' | 'u' | 'd', rowEnd: number, row: unknown): 'c' | 'u' | 'd' | null {
    const pair = op === 'u' ? (row as { before: Row; after: Row }) : null;
    const before = pair ? pair.before : op === 'd' ? (row as Row) : null;
    const after = pair ? pair.after : op === 'c' ? (row as Row) : null;
    const change = versionedChange(op, rowEnd, before, after);
    return change !== null && this.options.skippedOperations.has(change) ? null : change;
  }

  /** Row events of a sequence (MariaDB logs NEXTVAL as a row of its table): not captured, said once per sequence. */
  private async isSequence(database: string, table: string): Promise<boolean> {
    const id = `${database}.${table}`;
    let verdict = this.sequences.get(id);
    if (verdict === undefined) {
      verdict = (await this.options.schema.isSequence?.(database, table)) ?? false;
      this.sequences.set(id, verdict);
      if (verdict)
        this.options.logger.info('not capturing sequence: its NEXTVAL row events are skipped', { table: id });
    }
    return verdict;
  }

  /** event.deserialization.failure.handling.mode for one row change: fail throws; warn/skip drop the row. */
  private undecodableRow(err: CdcError, row: number): SinkRecord[] {
    const t = this.tracker;
    const where = `${t.file}:${t.eventPos} (row ${row})`;
    const mode = this.options.eventDeserializationFailureHandlingMode;
    if (mode === 'fail') {
      throw new CdcError(
        'BINLOG_DECODE',
        `cannot decode the row change at ${where}: ${err.message}. Set event.deserialization.failure.handling.mode=warn or skip to continue past it (the change is lost)`,
        { cause: err },
      );
    }
    if (mode === 'warn')
      this.options.logger.warn('skipping an undecodable row change', { position: where, error: err.message });
    return [];
  }

  /** TABLE_MAP vs schema model, checked once per (TABLE_MAP, definition) pair: null when they agree. */
  private schemaMismatch(def: TableDef, map: TableMapEvent): string | null {
    const check = this.options.checkTableMap;
    if (!check) return null;
    let byDef = this.checked.get(map);
    if (!byDef) {
      byDef = new WeakMap();
      this.checked.set(map, byDef);
    }
    let verdict = byDef.get(def);
    if (verdict === undefined) {
      const problems = check(def, map);
      verdict = problems.length === 0 ? null : problems.join('; ');
      byDef.set(def, verdict);
    }
    return verdict;
  }

  private sourceInfo(row: number): SourceInfo {
    const t = this.tracker;
    return {
      tsMs: t.tsSec * 1000,
      snapshot: 'false',
      serverId: t.serverId,
      gtid: t.txnGtid || null,
      file: t.file,
      pos: t.txnStartPos,
      row,
      thread: this.threadId,
      query: this.options.includeQuery ? this.query : null,
    };
  }
}
