/**
 * The lock-free, resumable chunked snapshot (DBLog / Flink CDC / Debezium read-only incremental snapshot style),
 * interleaved with binlog streaming. See docs/snapshots.md "Chunked snapshots" for the design and its proof.
 *
 * Per table, chunks of `chunkSize` rows in primary-key order (`WHERE pk > last ORDER BY pk LIMIT n`). Per chunk:
 *   1. low watermark LW: the binlog position whose commits the chunk's read view contains for certain
 *      (MariaDB/Percona: Binlog_snapshot_position of a START TRANSACTION WITH CONSISTENT SNAPSHOT, exact; MySQL:
 *      performance_schema.log_status read before the read view is created — see snapshot-position.ts);
 *   2. the chunk SELECT, its rows kept as bytes (chunk-rows.ts);
 *   3. high watermark HW: SHOW MASTER STATUS after the SELECT;
 *   4. the window is handed to the streaming loop, which records every key touched by a row event of that table
 *      it handles until the chunk is emitted; once the stream has handled everything before HW, the rows of
 *      untouched keys are emitted as `op: r` — at that point in the stream, so every event before HW precedes
 *      them and every later event follows them.
 * When a chunk is full, the next one is read while it waits and is emitted (read ahead; emitted after it).
 * Progress (per table: the last primary key of the last emitted chunk) rides on every offset emitted afterwards
 * (`SourceOffset.snapshot_chunks`), so a restart resumes at the next chunk. No locks, no writes.
 */

import type { Connection, RowDataPacket } from 'mysql2/promise';
import { escape as sqlEscape } from 'mysql2/promise';
import type { Logger } from '../../../common/logger.js';
import { snapshotIdPrefix } from '../../../events/event-id.js';
import { BinlogPosition } from '../../../model/binlog-position.js';
import type { QueueItem } from '../../../model/queue-item.js';
import type { SnapshotMetrics } from '../../../model/snapshot-metrics.js';
import type { SourceOffset } from '../../../model/source-offset.js';
import type { TableDef } from '../../../model/table-def.js';
import type { CellValue, Row } from '../../../model/values.js';
import type { IncrementalSnapshotNotifications } from '../../../notifications/notification.js';
import type { SignalRecord, SnapshotControl } from '../../../signals/signal.js';
import type { BinlogEvent } from '../binlog/events.js';
import type { ServerVersion } from '../server-info.js';
import type { RecordFactory, SourceInfo } from '../streaming/ports.js';
import { ChunkArena, type ChunkRows, readChunkRows } from './chunk-rows.js';
import { describeSqlError } from './errors.js';
import { IncrementalNotes } from './incremental-notes.js';
import { detectServer, serverTimeMs } from './server.js';
import { quoteId } from './sql.js';
import { defaultSelect } from './table-scan.js';
import {
  type BinlogPos,
  chooseWatermarks,
  type HighWatermark,
  type StreamMark,
  type WatermarkStrategy,
} from './watermarks.js';

export type { BinlogPos } from './watermarks.js';
export { cmpPos } from './watermarks.js';

/** A primary-key value as stored in the offset: integer/decimal text, string, or base64 bytes. */
export type StoredKeyPart = { i: string } | { d: string } | { s: string } | { b: string };

/** Per-table progress in `SourceOffset.snapshot_chunks` (keyed by `db.table`). */
export interface ChunkTableState {
  /** Primary key of the last row of the last emitted chunk; null before the first chunk. */
  after: StoredKeyPart[] | null;
  /** Rows emitted so far (informational). */
  rows: number;
  /** Chunks emitted so far. */
  chunks: number;
  /** Why this table is being snapshotted: the initial snapshot or an ad-hoc (signal) request. */
  kind: 'initial' | 'incremental';
  /** The notifications' correlation id of the snapshot the table belongs to (set while notifications are on). */
  correlation?: string;
}

/** A chunked snapshot resumed from `offset` was paused there (pause-snapshot). */
export function chunkedSnapshotPaused(offset: SourceOffset | null): boolean {
  return offset?.snapshot_chunks_paused === true;
}

export function pendingChunkTables(offset: SourceOffset | null): Record<string, ChunkTableState> {
  const raw = offset?.snapshot_chunks;
  if (!raw || typeof raw !== 'object') return {};
  const out: Record<string, ChunkTableState> = {};
  for (const [id, v] of Object.entries(raw)) {
    if (v && typeof v === 'object' && 'after' in v) out[id] = v as ChunkTableState;
  }
  return out;
}

function cellKey(v: CellValue): string {
  if (v === null || v === undefined) return '\u0000';
  if (typeof v === 'number' || typeof v === 'bigint') return `n${v}`;
  if (typeof v === 'string') return `s${v}`;
  if (Buffer.isBuffer(v)) return `b${v.toString('hex')}`;
  return `o${String(v)}`;
}

/** Map key of a row's primary key (same for snapshot rows and binlog images: both are CellValue rows). */
export function rowKey(row: Row, pkPositions: readonly number[]): string {
  if (pkPositions.length === 1) return cellKey(row[pkPositions[0]]);
  let k = '';
  for (const p of pkPositions) k += `${cellKey(row[p])}\u0001`;
  return k;
}

function storeKeyPart(v: CellValue, dataType: string): StoredKeyPart {
  if (typeof v === 'bigint') return { i: v.toString() };
  if (typeof v === 'number')
    return Number.isInteger(v) && !/float|double/.test(dataType) ? { i: String(v) } : { d: String(v) };
  if (typeof v === 'string') return dataType === 'decimal' ? { d: v } : { s: v };
  if (Buffer.isBuffer(v)) return { b: v.toString('base64') };
  return { s: String(v) };
}

function keyPartSql(p: StoredKeyPart): string {
  if ('i' in p) {
    if (!/^-?\d+$/.test(p.i)) throw new Error(`bad stored integer key '${p.i}'`);
    return p.i;
  }
  if ('d' in p) {
    if (!/^-?\d+(\.\d+)?(e[-+]?\d+)?$/i.test(p.d)) throw new Error(`bad stored numeric key '${p.d}'`);
    return p.d;
  }
  if ('b' in p) return `X'${Buffer.from(p.b, 'base64').toString('hex')}'`;
  return sqlEscape(p.s);
}

/**
 * The chunk statement: `WHERE (pk) > (last) ORDER BY pk LIMIT n`. Composite keys use the expanded form of the row
 * comparison, `a > x OR (a = x AND b > y)`, which both MySQL and MariaDB turn into an index range scan (MariaDB
 * does not range-optimise row constructors).
 */
export function chunkSql(def: TableDef, after: StoredKeyPart[] | null, limit: number): string {
  const pk = def.primaryKey.map(quoteId);
  let where = '';
  if (after) {
    if (after.length !== pk.length) throw new Error(`stored key has ${after.length} parts, primary key ${pk.length}`);
    const vals = after.map(keyPartSql);
    const ors: string[] = [];
    for (let i = 0; i < pk.length; i++) {
      const eqs = pk.slice(0, i).map((c, j) => `${c} = ${vals[j]}`);
      ors.push([...eqs, `${pk[i]} > ${vals[i]}`].join(' AND '));
    }
    where = ` WHERE ${ors.length === 1 ? ors[0] : ors.map((o) => `(${o})`).join(' OR ')}`;
  }
  return `${defaultSelect(def)}${where} ORDER BY ${pk.join(', ')} LIMIT ${limit}`;
}

/** At most this many bytes of rows per chunk (as the server sends them): wide rows make chunks of fewer rows. */
export const CHUNK_BYTES = 16 << 20;

/** The LIMIT of a chunk whose rows are about `rowBytes` long (0: unknown). */
export function chunkLimit(chunkSize: number, rowBytes: number): number {
  if (!(rowBytes > 0)) return chunkSize;
  return Math.max(1, Math.min(chunkSize, Math.floor(CHUNK_BYTES / rowBytes)));
}

/**
 * How long emitting a chunk runs before it lets other callbacks in: timers, and the replies of the read-ahead
 * chunk's statements (each of its round trips waits for the next yield).
 */
const YIELD_EVERY_MS = 1;

class Mutex {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(fn: () => Promise<T>): Promise<T> {
    const r = this.tail.then(fn);
    this.tail = r.catch(() => {});
    return r;
  }
}

interface Window {
  id: string;
  def: TableDef;
  pk: number[];
  /** Low watermark (for logs). */
  lw: string;
  /** Null while the chunk is being read. */
  hw: HighWatermark | null;
  /** The chunk's rows as read (bytes; null while being read); those with a touched key are not emitted. */
  rows: ChunkRows | null;
  /** Keys changed by events the stream handled since the window opened. */
  touched: Set<string>;
  /** Read ahead while the previous chunk of the table waits or is emitted: dropped if a pause comes first. */
  ahead: boolean;
  /** The chunk's LIMIT. */
  limit: number;
  /** The chunk reached the table's end: fewer rows than its LIMIT, none left out for CHUNK_BYTES. */
  complete: boolean;
  selected: number;
  last: StoredKeyPart[] | null;
  /** source.ts_ms of the chunk's rows: the server's clock inside the chunk's read transaction. */
  tsMs: number;
  resolve(outcome: Outcome): void;
  outcome: Promise<Outcome>;
}

/** `paused`: a chunk read ahead that a pause came before; it is read again after the resume. */
type Outcome = 'emitted' | 'stale' | 'aborted' | 'paused';

export interface ChunkedSnapshotOptions {
  connect(): Promise<Connection>;
  logger: Logger;
  chunkSize: number;
  maxThreads: number;
  fetchSize?: number;
  records: RecordFactory;
  /** The current definition of a table as the stream knows it. */
  tableDef(db: string, table: string): TableDef | undefined;
  /** Put an item on the queue (undecorated; the runner adds its progress itself). */
  emit(item: QueueItem): Promise<void>;
  /** The offset a restart would resume the stream from, given everything emitted so far. */
  checkpoint(): SourceOffset;
  /** Where the stream starts: everything before it counts as handled. */
  streamStart: BinlogPos;
  /** The GTID set/position the stream starts from (null when the server logs none). */
  streamStartGtids: string | null;
  /** `read.only`: GTID watermarks (see watermarks.ts). */
  readOnly: boolean;
  /** `db.table` of signal.data.collection (signals arrive as rows of it), null when the source channel is off. */
  signalTable: string | null;
  /** Receives each row inserted into the signalling table, as the stream decodes it. */
  onSignal?(signal: SignalRecord): void;
  /** Which tables may be snapshotted (the capture's table filter). */
  tableFilter(db: string, table: string): boolean;
  /** The capture's snapshot metrics: per-table rows, table counts, the last chunk. */
  metrics?: SnapshotMetrics | null;
  /** Called whenever rows are emitted (idle detection). */
  onActivity?(): void;
  signal: AbortSignal;
  /** Debezium's incremental snapshot notifications (notification.enabled.channels); absent = off. */
  notifications?: IncrementalSnapshotNotifications | null;
}

/**
 * Runs chunked snapshots of requested tables while the stream runs. The stream loop calls {@link exclusive}
 * around each event it handles, {@link observe} for each decoded event and {@link afterEvent} after it.
 */
export class ChunkedSnapshotRunner {
  private readonly lock = new Mutex();
  private readonly arena = new ChunkArena();
  private readonly state = new Map<string, ChunkTableState>();
  /** Frozen copy of `state` for offsets; rebuilt when progress changes. */
  private stateView: Record<string, ChunkTableState> | null = null;
  private readonly queue: string[] = [];
  private readonly active = new Set<string>();
  private readonly windows = new Set<Window>();
  private workers = 0;
  private streamPos: BinlogPos;
  private streamGtids: string | null;
  private startedAt = 0;
  private server: ServerVersion | null = null;
  private watermarks: WatermarkStrategy | null = null;
  private readonly log: Logger;
  private idleWaiters: Array<() => void> = [];
  failure: unknown = null;
  private readonly notes: IncrementalNotes | null;
  /** pause-snapshot: workers wait before their next chunk until resume-snapshot (or the capture stops). */
  private paused = false;
  private resumeWaiters: Array<() => void> = [];
  /** Counters for logs and the snapshot metrics. */
  readonly counters = { rowsScanned: 0, rowsEmitted: 0, chunks: 0, tablesDone: 0, tablesTotal: 0, aborted: false };

  constructor(
    private readonly opts: ChunkedSnapshotOptions,
    resume: Record<string, ChunkTableState>,
    /** The resumed snapshot was paused (the offset's snapshot_chunks_paused): it stays paused. */
    resumePaused = false,
  ) {
    this.log = opts.logger.child({ component: 'chunked-snapshot' });
    this.notes = opts.notifications ? new IncrementalNotes(opts.notifications) : null;
    this.streamPos = { ...opts.streamStart };
    this.streamGtids = opts.streamStartGtids;
    const ids = Object.keys(resume);
    for (const id of ids) this.state.set(id, { ...resume[id] });
    if (ids.length > 0 && this.notes) {
      // snapshot.chunked's plan (no id yet) starts an incremental snapshot; a resumed one keeps its id.
      const known = ids.map((id) => resume[id].correlation).find((c) => c !== undefined);
      if (known) this.notes.resumed(ids, known);
      else this.notes.requested(ids);
      for (const id of ids) this.state.get(id)!.correlation = this.notes.id ?? undefined;
    }
    if (ids.length > 0) {
      this.log.info('resuming chunked snapshot', {
        tables: Object.fromEntries(ids.map((id) => [id, { after: resume[id].after, chunks: resume[id].chunks }])),
        paused: resumePaused,
      });
      if (resumePaused) this.pause();
      this.refreshView();
      this.enqueue(ids);
    }
  }

  /** True while tables are pending or being read. */
  get running(): boolean {
    return this.state.size > 0;
  }

  /** Serialises the stream's event handling with the emission of chunks. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.lock.run(fn);
  }

  /** Adds the chunk progress to an offset the stream (or a heartbeat) emits. */
  decorate(offset: SourceOffset): SourceOffset {
    if (!this.stateView) return offset;
    return this.paused
      ? { ...offset, snapshot_chunks: this.stateView, snapshot_chunks_paused: true }
      : { ...offset, snapshot_chunks: this.stateView };
  }

  /** Request tables (`db.table`) to be snapshotted in chunks. Already pending tables are left as they are. */
  request(ids: string[], kind: ChunkTableState['kind'], correlationId?: string | null): string[] {
    const added: string[] = [];
    for (const id of ids) {
      if (this.state.has(id)) continue;
      const [db, table] = splitId(id);
      if (!this.opts.tableFilter(db, table)) {
        this.log.warn('snapshot requested for a table that is not captured; ignored', { table: id });
        continue;
      }
      const def = this.opts.tableDef(db, table);
      if (!def) {
        this.log.warn('snapshot requested for an unknown table; ignored', { table: id });
        continue;
      }
      if (def.primaryKey.length === 0) {
        this.log.warn(
          'table has no primary key: it cannot be snapshotted in chunks; ignored (the initial snapshot reads such tables with the consistent snapshot)',
          { table: id },
        );
        continue;
      }
      this.state.set(id, { after: null, rows: 0, chunks: 0, kind });
      added.push(id);
    }
    if (added.length > 0) {
      this.log.info('chunked snapshot requested', { tables: added, kind });
      if (this.notes) {
        this.notes.requested(added, correlationId);
        for (const id of added) this.state.get(id)!.correlation = this.notes.id ?? undefined;
      }
      this.refreshView();
      this.enqueue(added);
    }
    return added;
  }

  /**
   * Debezium's pause-snapshot, resume-snapshot and stop-snapshot signals. A pause takes effect before the next
   * chunk (a chunk being read is emitted) and lasts until resume-snapshot, across restarts (the offset's
   * snapshot_chunks_paused); stop drops the named tables (or all) from the snapshot and from the offset.
   */
  async control(c: SnapshotControl): Promise<void> {
    if (!this.running) {
      this.log.info('no incremental snapshot is running; signal ignored', { signal: c.kind });
      return;
    }
    if (c.kind === 'pause') {
      if (this.paused) return;
      this.pause();
      return this.checkpointPause();
    }
    if (c.kind === 'resume') {
      if (!this.paused) return;
      this.paused = false;
      this.opts.metrics?.unpaused();
      this.log.info('incremental snapshot resumed');
      this.notes?.unpaused();
      for (const r of this.resumeWaiters.splice(0)) r();
      return this.checkpointPause();
    }
    await this.exclusive(async () => {
      const stopped = c.tables === null ? [...this.state.keys()] : c.tables.filter((t) => this.state.has(t));
      if (stopped.length === 0) return;
      for (const id of stopped) this.state.delete(id);
      this.queue.splice(0, this.queue.length, ...this.queue.filter((id) => this.state.has(id)));
      this.log.info('incremental snapshot stopped', { tables: stopped, remaining: [...this.state.keys()] });
      this.notes?.stopped(c.tables === null ? null : stopped);
      this.refreshView();
    });
    // A window still open for a stopped table is dropped by its flush (no state: aborted).
    if (this.state.size === 0) {
      this.paused = false;
      this.opts.metrics?.unpaused();
      this.opts.metrics?.aborted();
      for (const r of this.resumeWaiters.splice(0)) r();
      for (const r of this.idleWaiters.splice(0)) r();
    }
  }

  private pause(): void {
    this.paused = true;
    this.opts.metrics?.paused();
    this.log.info('incremental snapshot paused');
    this.notes?.paused();
  }

  /** The pause is kept in the offset: a checkpoint now, between events, so an idle stream stores it too. */
  private checkpointPause(): Promise<void> {
    return this.exclusive(() => this.opts.emit({ record: null, offset: this.decorate(this.opts.checkpoint()) }));
  }

  private async whilePaused(): Promise<void> {
    while (this.paused && !this.opts.signal.aborted) await new Promise<void>((r) => this.resumeWaiters.push(r));
  }

  /** Resolves once no table is pending (or the runner failed/aborted). */
  whenIdle(): Promise<void> {
    if (!this.running || this.failure || this.opts.signal.aborted) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  /** Stream side: a decoded event at `at` (position of the raw event that carried it). */
  observe(event: BinlogEvent, at: BinlogPos): void {
    if (event.type === 'TRANSACTION_PAYLOAD') {
      for (const inner of event.events) this.observe(inner, at);
      return;
    }
    if (
      event.type !== 'WRITE_ROWS' &&
      event.type !== 'UPDATE_ROWS' &&
      event.type !== 'PARTIAL_UPDATE_ROWS' &&
      event.type !== 'DELETE_ROWS'
    )
      return;
    const id = `${event.table.database}.${event.table.table}`;
    if (this.opts.signalTable === id && event.type === 'WRITE_ROWS') {
      for (const row of event.rows) this.onSignal(row);
    }
    if (this.windows.size === 0) return;
    // Every event the stream handles before a chunk is emitted is emitted before the chunk's rows: the rows of the
    // keys it changed are stale. (Until the high watermark is known these are the events of [LW, HW); a chunk read
    // ahead can also wait for the previous chunk's flush while the stream handles events past its HW.)
    for (const w of this.windows) {
      if (w.id !== id) continue;
      const touched = w.touched;
      if (event.type === 'UPDATE_ROWS' || event.type === 'PARTIAL_UPDATE_ROWS') {
        for (const r of event.rows) {
          touched.add(rowKey(r.before, w.pk));
          touched.add(rowKey(r.after, w.pk));
        }
      } else {
        for (const r of event.rows as Row[]) touched.add(rowKey(r, w.pk));
      }
    }
  }

  /**
   * Stream side, under {@link exclusive}: the stream has handled everything before `handled`; `gtids` is its
   * GTID set/position after it (it changes at commits only).
   */
  async afterEvent(handled: BinlogPos | null, gtids?: string | null): Promise<void> {
    if (handled && BinlogPosition.compare(handled, this.streamPos) > 0) this.streamPos = handled;
    if (gtids) this.streamGtids = gtids;
    if (this.windows.size === 0) return;
    for (const w of [...this.windows]) {
      if (this.flushable(w)) await this.flush(w);
    }
  }

  /** The stream has reached the window's high watermark, and the table's previous chunk is out. */
  private flushable(w: Window): boolean {
    if (!w.hw?.reachedBy(this.mark())) return false;
    for (const o of this.windows) {
      if (o === w) return true;
      if (o.id === w.id) return false;
    }
    return false;
  }

  private mark(): StreamMark {
    return { pos: this.streamPos, gtids: this.streamGtids };
  }

  /** Stops the workers; pending windows are dropped (their chunks are re-read after a restart). */
  stop(): void {
    for (const w of this.windows) w.resolve('aborted');
    this.windows.clear();
    for (const r of this.resumeWaiters.splice(0)) r();
    for (const r of this.idleWaiters.splice(0)) r();
  }

  /** A row of the signalling table: Debezium's (id, type, data) columns, handed to the source's dispatcher. */
  private onSignal(row: Row): void {
    this.opts.onSignal?.({
      id: textOf(row[0]) ?? '',
      type: textOf(row[1]) ?? '',
      data: textOf(row[2]),
      channel: 'source',
    });
  }

  private refreshView(): void {
    this.stateView = this.state.size === 0 ? null : Object.fromEntries([...this.state].map(([k, v]) => [k, { ...v }]));
    const c = this.counters;
    c.tablesTotal = Math.max(c.tablesTotal, c.tablesDone + this.state.size);
    this.opts.metrics?.chunkedTables(c.tablesTotal, c.tablesDone, this.running);
  }

  private enqueue(ids: string[]): void {
    if (this.startedAt === 0) this.startedAt = performance.now();
    this.counters.tablesTotal = this.counters.tablesDone + this.state.size;
    this.opts.metrics?.chunkedTables(this.counters.tablesTotal, this.counters.tablesDone, this.running);
    this.queue.push(...ids.filter((id) => !this.active.has(id) && !this.queue.includes(id)));
    while (this.workers < Math.max(1, this.opts.maxThreads) && this.queue.length > 0) {
      this.workers++;
      void this.worker().finally(() => {
        this.workers--;
        if (this.state.size === 0 || this.failure || this.opts.signal.aborted) {
          if (this.state.size === 0 && this.workers === 0) this.finished();
          for (const r of this.idleWaiters.splice(0)) r();
        }
      });
    }
  }

  private finished(): void {
    const s = (performance.now() - this.startedAt) / 1000;
    this.log.info('chunked snapshot completed', {
      tables: this.counters.tablesDone,
      rows: this.counters.rowsEmitted,
      chunks: this.counters.chunks,
      seconds: Number(s.toFixed(2)),
    });
  }

  private async worker(): Promise<void> {
    let conn: Connection | null = null;
    try {
      while (this.queue.length > 0 && !this.opts.signal.aborted) {
        const id = this.queue.shift()!;
        this.active.add(id);
        try {
          conn ??= await this.openSession();
          await this.snapshotTable(conn, id);
        } finally {
          this.active.delete(id);
        }
      }
    } catch (err) {
      if (!this.opts.signal.aborted) {
        this.failure ??= err;
        this.log.error('chunked snapshot failed', { error: describeSqlError(err) });
      }
    } finally {
      conn?.destroy();
    }
  }

  private async openSession(): Promise<Connection> {
    const conn = await this.opts.connect();
    const abort = () => conn.destroy();
    this.opts.signal.addEventListener('abort', abort, { once: true });
    this.server ??= await detectServer(conn);
    if (!this.watermarks) {
      const chosen = await chooseWatermarks(conn, this.server, {
        readOnly: this.opts.readOnly,
        streamGtids: this.streamGtids,
      });
      this.watermarks ??= chosen.strategy;
      this.log.info('chunk watermarks', { strategy: chosen.strategy.kind, reason: chosen.reason });
    }
    // TIMESTAMP text in UTC (text-values.ts relies on it); a slow sink must not make the server drop the scan.
    await conn.query("SET SESSION time_zone = '+00:00'");
    await conn.query('SET SESSION net_write_timeout = 86400');
    await conn.query('SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    return conn;
  }

  private async snapshotTable(conn: Connection, id: string): Promise<void> {
    const [db, table] = splitId(id);
    const st = this.state.get(id);
    if (!st) return;
    const estimated = await estimateRows(conn, db, table);
    this.opts.metrics?.tableEstimated(id, estimated, st.rows);
    // Chunks of wide rows hold fewer than snapshot.chunk.size rows, so a chunk's bytes stay within CHUNK_BYTES: a
    // chunk ends at the row that reaches them, and the next chunk's LIMIT follows the bytes per row seen so far.
    let limit = this.opts.chunkSize;
    this.log.info('chunked snapshot of table', {
      table: id,
      estimatedRows: estimated,
      resumeAfter: st.after,
      chunkSize: this.opts.chunkSize,
    });
    const startDef = this.opts.tableDef(db, table);
    if (this.notes && startDef) await this.notes.tableStarted(conn, id, startDef);
    const t0 = performance.now();
    // The next chunk, read while this one waits for the stream and is emitted (its rows as bytes: a chunk more).
    let ahead: Promise<Window> | null = null;
    const dropAhead = async () => {
      const next = ahead;
      ahead = null;
      const w = await next?.catch(() => null);
      if (!w) return;
      if (this.windows.delete(w)) w.resolve('aborted');
      w.rows?.release();
      w.rows = null;
    };
    try {
      for (;;) {
        await this.whilePaused();
        if (this.opts.signal.aborted || !this.state.has(id)) return;
        const def = this.opts.tableDef(db, table);
        if (!def || def.primaryKey.length === 0) {
          this.log.warn('table vanished or lost its primary key during the chunked snapshot; stopping it', {
            table: id,
          });
          await dropAhead();
          await this.exclusive(async () => this.tableDone(id));
          this.notes?.tableEnded(id, st.rows, 'UNKNOWN_SCHEMA');
          return;
        }
        const current: Promise<Window> = ahead ?? this.readChunk(conn, id, def, st.after, false, limit);
        ahead = null;
        const w = await current;
        if (w.rows && w.selected > 0) limit = chunkLimit(this.opts.chunkSize, w.rows.bytes / w.selected);
        if (!w.complete && w.last && !this.paused && this.windows.has(w)) {
          ahead = this.readChunk(conn, id, w.def, w.last, true, limit);
          // Awaited later (a failure then fails the worker); not an unhandled rejection meanwhile.
          ahead.catch(() => {});
        }
        // The stream flushes the window once it has handled everything before HW; if it already has, do it now.
        await this.exclusive(async () => {
          if (this.flushable(w)) await this.flush(w);
        });
        const outcome = await w.outcome;
        if (outcome === 'aborted') return;
        if (outcome === 'stale' || outcome === 'paused') {
          await dropAhead();
          if (outcome === 'stale')
            this.log.info('table definition changed while a chunk was read; re-reading the chunk', { table: id });
          continue;
        }
        if (!this.state.has(id)) {
          this.log.info('table snapshotted', {
            table: id,
            rows: st.rows,
            chunks: st.chunks,
            ms: Math.round(performance.now() - t0),
          });
          return;
        }
      }
    } finally {
      await dropAhead();
    }
  }

  /**
   * Opens the window *before* the low watermark is read: from then on the stream records every key of the table
   * it sees changed (`touched`), so no event at or after the low watermark can slip past, however far ahead the
   * stream is. Rows of touched keys are not emitted: the stream carries them.
   */
  private async readChunk(
    conn: Connection,
    id: string,
    def: TableDef,
    after: StoredKeyPart[] | null,
    ahead: boolean,
    limit: number,
  ): Promise<Window> {
    const pk = def.primaryKey.map((name) => def.columns.find((c) => c.name === name)!.position);
    const touched = new Set<string>();
    let resolve: (o: Outcome) => void = () => {};
    const outcome = new Promise<Outcome>((r) => {
      resolve = r;
    });
    const w: Window = {
      id,
      def,
      pk,
      lw: '',
      hw: null,
      rows: null,
      touched,
      ahead,
      limit,
      complete: false,
      selected: 0,
      last: null,
      tsMs: 0,
      resolve,
      outcome,
    };
    this.windows.add(w);
    try {
      await this.fillWindow(conn, w, after);
    } catch (err) {
      this.windows.delete(w);
      throw err;
    }
    return w;
  }

  private async fillWindow(conn: Connection, w: Window, after: StoredKeyPart[] | null) {
    const { def, pk } = w;
    const watermarks = this.watermarks!;
    // The window is open: everything the stream had handled until now must be visible in the read view.
    w.lw = await watermarks.openReadView(conn, this.mark(), this.opts.signal);
    // The rest is queued at once: mysql2 runs the statements in order, each sent as soon as the previous reply is
    // in, without a turn of this code in between (which, while a chunk is emitted, waits for its next yield).
    const sql = chunkSql(def, after, w.limit);
    const [ts, read, , high] = await Promise.allSettled([
      serverTimeMs(conn),
      readChunkRows(conn, def, sql, this.arena, { expected: w.limit, maxBytes: CHUNK_BYTES, signal: this.opts.signal }),
      conn.query('COMMIT'),
      watermarks.readHigh(conn),
    ]);
    if (read.status === 'rejected') throw read.reason;
    const rows = read.value;
    if (ts.status === 'rejected' || high.status === 'rejected') {
      rows.release();
      throw ts.status === 'rejected' ? ts.reason : (high as PromiseRejectedResult).reason;
    }
    w.tsMs = ts.value;
    const hw = high.value;
    const selected = rows.length;
    w.complete = selected < w.limit && !rows.truncated;
    this.counters.rowsScanned += selected;
    w.selected = selected;
    if (selected > 0) {
      const lastRow = rows.row(selected - 1);
      w.last = pk.map((p, i) => storeKeyPart(lastRow[p], def.columns[pk[i]].dataType.toLowerCase()));
    }
    w.rows = rows;
    w.hw = hw;
  }

  /** Under the lock: emit the chunk's surviving rows, then the checkpoint carrying the new progress. */
  private async flush(w: Window): Promise<void> {
    if (!this.windows.delete(w)) return;
    if (w.ahead && this.paused) {
      w.resolve('paused');
      return;
    }
    const [db, table] = splitId(w.id);
    if (this.opts.tableDef(db, table) !== w.def) {
      w.resolve('stale');
      return;
    }
    const st = this.state.get(w.id);
    if (!st) {
      w.resolve('aborted');
      return;
    }
    const builder = this.opts.records.forTable(w.def);
    const source: SourceInfo = {
      tsMs: w.tsMs,
      snapshot: 'incremental',
      serverId: 0,
      gtid: null,
      // Where in the stream the rows are emitted (the high watermark's position when it has one).
      file: w.hw?.position?.file ?? this.streamPos.file,
      pos: w.hw?.position?.pos ?? this.streamPos.pos,
      row: 0,
      thread: null,
      query: null,
    };
    let emitted = 0;
    // Stable ids (event-id.ts): the high watermark, the table, the chunk's number and the row's index in it. Two
    // chunks can share a high watermark (nothing written in between); their numbers differ.
    const idPrefix = `${snapshotIdPrefix('incremental', source, w.id)}${st.chunks}.`;
    const rows = w.rows!;
    const touched = w.touched.size > 0 ? w.touched : null;
    let lastYield = performance.now();
    for (let i = 0; i < rows.length; i++) {
      const row = rows.row(i);
      if (touched?.has(rowKey(row, w.pk))) continue;
      source.id = idPrefix + emitted;
      for (const record of builder.read(row, source)) await this.opts.emit({ record, offset: null });
      emitted++;
      // A sink that never blocks hands over through microtasks only: let the next chunk's read (and timers) in.
      if ((i & 31) === 31 && performance.now() - lastYield > YIELD_EVERY_MS) {
        await new Promise((r) => setImmediate(r));
        lastYield = performance.now();
      }
    }
    rows.release();
    w.rows = null;
    this.opts.metrics?.chunkEmitted(w.id, st.chunks, keyText(st.after), keyText(w.last));
    st.rows += emitted;
    st.chunks++;
    this.counters.rowsEmitted += emitted;
    this.counters.chunks++;
    if (w.last) st.after = w.last;
    const done = w.complete;
    this.opts.metrics?.rowsScanned(w.id, w.selected);
    this.log.debug('chunk emitted', {
      table: w.id,
      selected: w.selected,
      emitted,
      dropped: w.selected - emitted,
      lw: w.lw,
      hw: w.hw?.text,
    });
    this.notes?.chunkEmitted(w.id, w.selected, st.after, st.rows, done);
    if (done) this.tableDone(w.id);
    else this.refreshView();
    await this.opts.emit({ record: null, offset: this.decorate(this.opts.checkpoint()) });
    this.opts.onActivity?.();
    w.resolve('emitted');
  }

  private tableDone(id: string): void {
    this.state.delete(id);
    this.counters.tablesDone++;
    this.opts.metrics?.chunkedTableScanned(id);
    this.refreshView();
  }
}

/** A chunk bound for the snapshot metrics (the stored key form, as in offsets); null = open. */
function keyText(key: StoredKeyPart[] | null): string | null {
  return key ? JSON.stringify(key) : null;
}

function splitId(id: string): [string, string] {
  const dot = id.indexOf('.');
  return [id.slice(0, dot), id.slice(dot + 1)];
}

function textOf(v: CellValue | undefined): string | null {
  if (v === null || v === undefined) return null;
  if (Buffer.isBuffer(v)) return v.toString('utf8');
  return String(v);
}

/** information_schema.TABLES.TABLE_ROWS: InnoDB's estimate (can be off by tens of percent). */
export async function estimateRows(conn: Connection, db: string, table: string): Promise<number> {
  try {
    const [rows] = await conn.query<RowDataPacket[]>(
      'SELECT TABLE_ROWS AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?',
      [db, table],
    );
    return Number(rows[0]?.n ?? 0);
  } catch {
    return 0;
  }
}

/** Captured base tables that have no primary key (they cannot be chunked). */
export async function tablesWithoutPrimaryKey(
  conn: Connection,
  filter: (db: string, table: string) => boolean,
): Promise<string[]> {
  const [rows] = await conn.query<RowDataPacket[]>(
    `SELECT t.TABLE_SCHEMA AS db, t.TABLE_NAME AS t FROM information_schema.TABLES t
      WHERE t.TABLE_TYPE IN ('BASE TABLE', 'SYSTEM VERSIONED')
        AND t.TABLE_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys')
        AND NOT EXISTS (SELECT 1 FROM information_schema.TABLE_CONSTRAINTS c
                         WHERE c.TABLE_SCHEMA = t.TABLE_SCHEMA AND c.TABLE_NAME = t.TABLE_NAME
                           AND c.CONSTRAINT_TYPE = 'PRIMARY KEY')`,
  );
  return rows.map((r) => `${r.db}.${r.t}`).filter((id) => filter(...splitId(id)));
}
