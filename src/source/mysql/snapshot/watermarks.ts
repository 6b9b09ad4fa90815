/**
 * Watermarks of one chunk of the chunked snapshot (see chunked-snapshot.ts): where the chunk's read view sits
 * relative to the binlog stream. Two strategies, neither writes to the source:
 *
 * - `binlog_position` (default): low = the exact binlog position of the read view (MariaDB/Percona
 *   Binlog_snapshot_position; MySQL performance_schema.log_status, BACKUP_ADMIN), high = SHOW MASTER STATUS after
 *   the chunk query. Only meaningful when the chunk connection and the binlog stream reach the same server.
 * - `gtid` (`read.only=true`, Debezium's read-only incremental snapshot; also MySQL's fallback without
 *   BACKUP_ADMIN): low = the GTID set/position read before the read view, high = the one read after the chunk
 *   query. GTIDs name transactions on every server of a replication topology, so this works with a user that has
 *   only SELECT + REPLICATION SLAVE/CLIENT and against a replica (read_only=ON), even behind a reader endpoint.
 *   MySQL: @@global.gtid_executed (gtid_mode=ON). MariaDB: @@global.gtid_binlog_pos (domain-server-seq).
 *
 * The invariant both keep (the runner's window opens before the low watermark is read): every transaction the
 * stream had handled when the window opened is visible in the chunk's read view. If the stream is ahead of what
 * the server reports as committed (it read a transaction from the binlog before its engine commit finished),
 * the read view is not started until the server catches up. The high watermark covers every transaction the
 * read view can see, so once the stream has handled it, the chunk's surviving rows can be emitted.
 */

import type { Connection, RowDataPacket } from 'mysql2/promise';
import { BinlogPosition } from '../../../model/binlog-position.js';
import { MariaDbGtidSet, MysqlGtidSet } from '../gtid.js';
import type { ServerVersion } from '../server-info.js';
import { describeSqlError, SnapshotError } from './errors.js';
import { readBinlogStatus } from './server.js';
import { readSnapshotStatus, startLockFreeSnapshot } from './snapshot-position.js';

export interface BinlogPos {
  file: string;
  pos: number;
}

/** Binlog order of two stream positions (BinlogPosition: numeric file suffixes, so .1000000 follows .999999). */
export function cmpPos(a: BinlogPos, b: BinlogPos): number {
  return BinlogPosition.compare(a, b);
}

/** What the stream has handled: the end of its last handled event and its GTID set/position after it. */
export interface StreamMark {
  readonly pos: BinlogPos;
  /** MySQL GTID set or MariaDB GTID position; null when the server logs none. */
  readonly gtids: string | null;
}

export interface HighWatermark {
  /** For logs. */
  readonly text: string;
  /** The binlog position, when the strategy has one (row events at or after it are outside the window). */
  readonly position: BinlogPos | null;
  /** True once the stream has handled every transaction the chunk's read view can see. */
  reachedBy(stream: StreamMark): boolean;
}

export type WatermarkKind = 'binlog_position' | 'gtid';

export interface WatermarkStrategy {
  readonly kind: WatermarkKind;
  /**
   * Starts START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY on `conn` so that everything the stream had
   * handled at `opened` is visible in it. Returns the low watermark (for logs).
   */
  openReadView(conn: Connection, opened: StreamMark, signal: AbortSignal): Promise<string>;
  /** After the chunk's transaction ended. */
  readHigh(conn: Connection): Promise<HighWatermark>;
}

/** How long the stream may be ahead of the server's committed set before the chunk gives up. */
const CATCH_UP_MS = 60_000;

async function waitABit(attempt: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) throw signal.reason;
  await new Promise((r) => setTimeout(r, Math.min(100, 2 ** attempt)));
}

function ahead(what: string, opened: string, low: string): SnapshotError {
  return new SnapshotError(
    `the binlog stream has handled transactions that ${what} still does not report after ${CATCH_UP_MS / 1000} s ` +
      `(stream ${opened}, server ${low}): the chunk connection reaches a server that is behind the binlog stream's ` +
      '(a lagging replica?). Point database.hostname at one server, or let the replica catch up.',
  );
}

class BinlogPositionWatermarks implements WatermarkStrategy {
  readonly kind = 'binlog_position' as const;
  constructor(private readonly server: ServerVersion) {}

  async openReadView(conn: Connection, opened: StreamMark, signal: AbortSignal): Promise<string> {
    const t0 = Date.now();
    for (let attempt = 0; ; attempt++) {
      const lw = await startLockFreeSnapshot(conn, this.server, true);
      if (cmpPos(opened.pos, lw) <= 0) return `${lw.file}:${lw.pos}`;
      // The stream read a transaction whose commit the read view does not contain yet.
      await conn.query('ROLLBACK');
      if (Date.now() - t0 > CATCH_UP_MS)
        throw ahead('the read view', `${opened.pos.file}:${opened.pos.pos}`, `${lw.file}:${lw.pos}`);
      await waitABit(attempt, signal);
    }
  }

  async readHigh(conn: Connection): Promise<HighWatermark> {
    const hw = await readBinlogStatus(conn, this.server);
    const position = { file: hw.file, pos: hw.pos };
    return {
      text: `${hw.file}:${hw.pos}`,
      position,
      reachedBy: (stream) => cmpPos(stream.pos, position) >= 0,
    };
  }
}

/** MySQL GTID sets: the stream has reached `high` when `high` holds no transaction the stream has not handled. */
class MysqlGtidWatermarks implements WatermarkStrategy {
  readonly kind = 'gtid' as const;

  async openReadView(conn: Connection, opened: StreamMark, signal: AbortSignal): Promise<string> {
    const mine = MysqlGtidSet.parse(opened.gtids ?? '');
    const t0 = Date.now();
    for (let attempt = 0; ; attempt++) {
      // gtid_executed only gains a transaction after its engine commit: all of it is visible to a later read view.
      const low = await gtidExecuted(conn);
      if (mine.minus(MysqlGtidSet.parse(low)) === '') {
        await conn.query('START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY');
        return low;
      }
      if (Date.now() - t0 > CATCH_UP_MS) throw ahead('@@global.gtid_executed', mine.toString(), low);
      await waitABit(attempt, signal);
    }
  }

  async readHigh(conn: Connection): Promise<HighWatermark> {
    const text = await gtidExecuted(conn);
    const high = MysqlGtidSet.parse(text);
    return gtidHighWatermark(text, (stream) => high.minus(MysqlGtidSet.parse(stream)) === '');
  }
}

/**
 * MariaDB GTID positions (one `domain-server-seq` per replication domain; within a domain the binlog is in
 * sequence order): the stream has reached `high` when it is at or past `high` in every domain.
 */
class MariaDbGtidWatermarks implements WatermarkStrategy {
  readonly kind = 'gtid' as const;
  constructor(private readonly server: ServerVersion) {}

  async openReadView(conn: Connection, opened: StreamMark, signal: AbortSignal): Promise<string> {
    const mine = MariaDbGtidSet.parse(opened.gtids ?? '');
    const t0 = Date.now();
    for (let attempt = 0; ; attempt++) {
      // gtid_binlog_pos moves when a transaction is written to the binlog, just before its engine commit. The
      // binlog end read after it lies past every transaction it names; once the read view's own binlog position
      // (Binlog_snapshot_position) has reached that end, all of `low` is visible.
      const low = await gtidBinlogPos(conn);
      const end = await readBinlogStatus(conn, this.server);
      if (MariaDbGtidSet.parse(low).behind(mine) !== '') {
        if (Date.now() - t0 > CATCH_UP_MS) throw ahead('@@global.gtid_binlog_pos', mine.toString(), low);
        await waitABit(attempt, signal);
        continue;
      }
      await conn.query('START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY');
      const view = await readSnapshotStatus(conn);
      if (!view || cmpPos(view, end) >= 0) return low;
      await conn.query('ROLLBACK');
      if (Date.now() - t0 > CATCH_UP_MS) throw ahead('the read view', `${end.file}:${end.pos}`, low);
      await waitABit(attempt, signal);
    }
  }

  async readHigh(conn: Connection): Promise<HighWatermark> {
    const text = await gtidBinlogPos(conn);
    const high = MariaDbGtidSet.parse(text);
    return gtidHighWatermark(text, (stream) => MariaDbGtidSet.parse(stream).behind(high) === '');
  }
}

/** A GTID high watermark; `reached` is asked again only when the stream's GTID set has changed (it is parsed). */
function gtidHighWatermark(text: string, reached: (streamGtids: string) => boolean): HighWatermark {
  let seen: string | null = null;
  let last = false;
  return {
    text,
    position: null,
    reachedBy: (stream) => {
      if (stream.gtids !== seen) {
        seen = stream.gtids;
        last = reached(seen ?? '');
      }
      return last;
    },
  };
}

async function gtidExecuted(conn: Connection): Promise<string> {
  const [rows] = await conn.query<RowDataPacket[]>('SELECT @@global.gtid_executed AS g');
  return String(rows[0]?.g ?? '').replace(/\s+/g, '');
}

async function gtidBinlogPos(conn: Connection): Promise<string> {
  const [rows] = await conn.query<RowDataPacket[]>('SELECT @@global.gtid_binlog_pos AS g');
  return String(rows[0]?.g ?? '').replace(/\s+/g, '');
}

/** MySQL: can this session read performance_schema.log_status (8.0.17+, BACKUP_ADMIN)? */
async function hasLogStatus(conn: Connection): Promise<boolean> {
  try {
    const [rows] = await conn.query<RowDataPacket[]>('SELECT LOCAL FROM performance_schema.log_status');
    return rows.length > 0;
  } catch {
    return false;
  }
}

async function mysqlGtidMode(conn: Connection): Promise<string> {
  const [rows] = await conn.query<RowDataPacket[]>('SELECT @@global.gtid_mode AS m');
  return String(rows[0]?.m ?? 'OFF').toUpperCase();
}

/**
 * Picks the strategy for this server: `gtid` when `read.only=true`; otherwise `binlog_position`, except on MySQL
 * without performance_schema.log_status, where GTIDs (gtid_mode=ON) are the only exact lock-free watermark.
 * `streamGtids`: the GTID set the stream starts from; the gtid strategy needs a complete one.
 */
export async function chooseWatermarks(
  conn: Connection,
  server: ServerVersion,
  opts: { readOnly: boolean; streamGtids: string | null },
): Promise<{ strategy: WatermarkStrategy; reason: string }> {
  let reason = 'read.only=true';
  if (!opts.readOnly) {
    if (server.flavor === 'mariadb') return { strategy: new BinlogPositionWatermarks(server), reason: 'default' };
    if (await hasLogStatus(conn)) return { strategy: new BinlogPositionWatermarks(server), reason: 'default' };
    reason = 'performance_schema.log_status is not readable (BACKUP_ADMIN)';
  }
  if (server.flavor === 'mysql') {
    let mode: string;
    try {
      mode = await mysqlGtidMode(conn);
    } catch (err) {
      throw new SnapshotError(`reading @@global.gtid_mode failed: ${describeSqlError(err)}`, { cause: err });
    }
    if (mode !== 'ON') {
      throw new SnapshotError(
        opts.readOnly
          ? `read.only=true takes the chunked snapshot's watermarks from GTIDs, and this MySQL server has gtid_mode=${mode}: set gtid_mode=ON (with enforce_gtid_consistency=ON), or remove read.only.`
          : `The chunked snapshot needs an exact lock-free watermark: ${reason} and gtid_mode=${mode}. Grant BACKUP_ADMIN, or enable GTIDs (gtid_mode=ON), or set read.only=true on a server with gtid_mode=ON.`,
      );
    }
    if (!opts.streamGtids) throw noStreamGtids(reason);
    return { strategy: new MysqlGtidWatermarks(), reason };
  }
  if (!opts.streamGtids && (await gtidBinlogPos(conn)) !== '') throw noStreamGtids(reason);
  return { strategy: new MariaDbGtidWatermarks(server), reason };
}

function noStreamGtids(reason: string): SnapshotError {
  return new SnapshotError(
    `GTID watermarks (${reason}) need the stream's full GTID set, and the stored offset has none (it predates GTIDs): take a new snapshot (delete the offset, or snapshot.mode=when_needed after the position is lost), or remove read.only.`,
  );
}

/** For tests: a strategy by name. */
export function watermarksFor(kind: WatermarkKind, server: ServerVersion): WatermarkStrategy {
  if (kind === 'binlog_position') return new BinlogPositionWatermarks(server);
  return server.flavor === 'mysql' ? new MysqlGtidWatermarks() : new MariaDbGtidWatermarks(server);
}
