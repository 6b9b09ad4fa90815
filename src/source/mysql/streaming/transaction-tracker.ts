/**
 * Tracks where we are in the binlog in terms a restart can use: the current file, the start of the current
 * transaction, how many rows events / rows of it were emitted, and the GTID set before and after it.
 * Offsets handed out mid-transaction point at the transaction start plus "skip this many"; offsets at a commit
 * point at the next transaction. A restart therefore neither loses nor repeats events.
 */
import type { SourceOffset } from '../../../model/source-offset.js';
import { type GtidSet, MariaDbGtidSet, MysqlGtidSet, parseGtidSet } from '../gtid.js';

export class TransactionTracker {
  file = '';
  /** Position of the event being processed. */
  eventPos = 0;
  /** Position after the event being processed. */
  nextPos = 0;
  serverId = 0;
  tsSec = 0;
  private gtids: GtidSet | null = null;
  /** GTID of the last transaction committed (null: none yet, or no GTIDs). */
  lastCommittedGtid: string | null = null;
  /** gtids.toString(), cached: every emitted row's offset carries it and it only changes at commit. */
  private gtidText: string | undefined | null = null;
  inTransaction = false;
  txnStartPos = 0;
  /** GTID of the current transaction ('' without GTIDs). */
  txnGtid = '';
  /** Rows events of the current transaction seen so far (0-based index of the current one after `nextRowsEvent`). */
  rowsEventIndex = -1;
  /** Resume skip counts, applied to the first transaction after a restart only. */
  private skipEvents = 0;
  private skipRows = 0;

  constructor(start: SourceOffset | null) {
    this.restart(start);
  }

  /**
   * Forget in-flight transaction state and resume as from `start` (used at start and when the replication
   * connection was re-established from the last emitted offset).
   */
  restart(start: SourceOffset | null): void {
    this.gtids = start?.gtids ? parseGtidSet(start.gtids) : null;
    this.gtidText = null;
    this.inTransaction = false;
    this.txnGtid = '';
    this.rowsEventIndex = -1;
    this.skipEvents = 0;
    this.skipRows = 0;
    if (start) {
      this.file = start.file;
      this.nextPos = start.pos;
      this.skipEvents = start.event ?? 0;
      this.skipRows = start.row ?? 0;
    }
  }

  get gtidSet(): string | undefined {
    if (this.gtidText === null) this.gtidText = this.gtids?.toString() || undefined;
    return this.gtidText;
  }

  /** A GTID (MySQL or MariaDB) or BEGIN opens a transaction; a second marker (BEGIN after GTID) is a no-op. */
  begin(gtid?: string, flavor?: 'mysql' | 'mariadb'): void {
    if (gtid !== undefined) {
      this.txnGtid = gtid;
      if (!this.gtids) {
        this.gtids = flavor === 'mariadb' ? new MariaDbGtidSet() : new MysqlGtidSet();
        this.gtidText = null;
      }
    }
    if (this.inTransaction) return;
    this.inTransaction = true;
    this.txnStartPos = this.eventPos;
    this.rowsEventIndex = -1;
  }

  /** Marks the next rows event; returns how many of its rows to skip (resume), or -1 to skip it entirely. */
  nextRowsEvent(): number {
    this.rowsEventIndex++;
    if (this.skipEvents === 0 && this.skipRows === 0) return 0;
    if (this.rowsEventIndex < this.skipEvents) return -1;
    const skip = this.skipRows;
    this.skipRows = 0;
    this.skipEvents = 0;
    return skip;
  }

  /** The offset to store after emitting `rowsDone` rows of the current rows event. */
  offsetInTransaction(rowsDone: number): SourceOffset {
    return {
      file: this.file,
      pos: this.txnStartPos,
      gtids: this.gtidSet,
      event: this.rowsEventIndex,
      row: rowsDone,
      server_id: this.serverId,
      ts_sec: this.tsSec,
    };
  }

  /** Commit (XID / COMMIT / a standalone DDL): the GTID joins the set and the offset moves past the event. */
  commit(): SourceOffset {
    if (this.txnGtid && this.gtids && !this.txnGtid.startsWith('00000000-0000-0000-0000-000000000000')) {
      this.gtids.add(this.txnGtid);
      this.gtidText = null;
      this.lastCommittedGtid = this.txnGtid;
    }
    this.inTransaction = false;
    this.txnGtid = '';
    this.rowsEventIndex = -1;
    this.skipEvents = 0;
    this.skipRows = 0;
    return this.offsetAfterEvent();
  }

  /** Ends the current group without committing it (a prepared XA transaction): no GTID joins the set. */
  endUncommitted(): void {
    this.inTransaction = false;
    this.txnGtid = '';
    this.rowsEventIndex = -1;
  }

  /** A GTID whose transaction is known to be finished later than its group (XA PREPARE, then COMMIT/ROLLBACK). */
  addGtid(gtid: string): void {
    if (!gtid || !this.gtids || gtid.startsWith('00000000-0000-0000-0000-000000000000')) return;
    this.gtids.add(gtid);
    this.gtidText = null;
  }

  /** Offset just after the current event, outside any transaction. */
  offsetAfterEvent(): SourceOffset {
    return { file: this.file, pos: this.nextPos, gtids: this.gtidSet, server_id: this.serverId, ts_sec: this.tsSec };
  }
}
