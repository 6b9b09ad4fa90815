/**
 * Schema history as one capture writes it: the sequence of entries (the snapshot's table structure, DDLs while
 * streaming, a schema read from the server) is owned here, every position carries the server generation like the
 * offsets do, and DDLs at or before the newest entry recovered at start are re-applied after a restart but not
 * recorded twice (`recordedUpTo`, compared generation first).
 */
import { BinlogPosition, type PositionLike } from '../../model/binlog-position.js';
import type { SchemaHistoryMetrics } from '../../model/schema-history-metrics.js';
import type { SchemaHistory, SchemaHistoryEntry } from '../../stores/schema-history.js';

export class HistoryRecorder implements SchemaHistory {
  private seq = 0;
  /** Position of the newest entry recovered at start (null: none). */
  recordedUpTo: PositionLike | null = null;
  /** The entries stored when the capture started. */
  recovered: SchemaHistoryEntry[] = [];

  constructor(
    private readonly inner: SchemaHistory,
    private readonly generation: () => number,
    private readonly metrics: SchemaHistoryMetrics | null = null,
  ) {}

  /** Sequence number of the last entry recorded (or recovered). */
  get sequence(): number {
    return this.seq;
  }

  /** The next sequence number, for an entry about to be recorded. */
  next(): number {
    return this.seq + 1;
  }

  /** Reads the stored history and takes its sequence and newest position over. */
  async recoverAll(): Promise<SchemaHistoryEntry[]> {
    await this.inner.initializeStorage();
    const entries = await this.inner.recover();
    let newest: PositionLike | null = null;
    for (const e of entries) {
      this.seq = Math.max(this.seq, e.seq);
      if (!newest || BinlogPosition.compare(e.position, newest) > 0)
        newest = {
          file: e.position.file,
          pos: e.position.pos,
          ...(e.position.server_generation ? { server_generation: e.position.server_generation } : {}),
        };
    }
    this.recordedUpTo = newest;
    this.recovered = entries;
    return entries;
  }

  /**
   * Records `entry` as the next of the sequence (whatever `seq` the writer gave it: the streamer and the snapshot
   * number their entries too, and this is where the numbers are decided), with the current server generation on
   * its position.
   */
  async record(entry: SchemaHistoryEntry): Promise<void> {
    const seq = ++this.seq;
    const generation = this.generation();
    const position = generation > 0 ? { ...entry.position, server_generation: generation } : entry.position;
    await this.inner.record({ ...entry, seq, position });
    this.metrics?.recorded(entry.ddl);
  }

  initializeStorage(): Promise<void> {
    return this.inner.initializeStorage();
  }

  exists(): Promise<boolean> {
    return this.inner.exists();
  }

  recover(upTo?: Parameters<SchemaHistory['recover']>[0]): Promise<SchemaHistoryEntry[]> {
    return this.inner.recover(upTo);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
