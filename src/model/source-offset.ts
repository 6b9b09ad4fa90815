/**
 * Offsets: where a restarted capture resumes. The value mirrors Debezium's MySQL offset so operators recognise
 * it: the binlog file/position of the last transaction start, the GTID set, and how many events/rows of the
 * current transaction were already emitted (so a restart mid-transaction neither loses nor repeats events).
 */
export interface SourceOffset {
  /** Binlog file name, e.g. mysql-bin.000003. */
  file: string;
  /** Position of the start of the transaction (or event) to resume from. */
  pos: number;
  /** Executed GTID set when GTIDs are in use: MySQL `uuid:1-5,...` or MariaDB `0-1-42,...`. */
  gtids?: string;
  /** Events of the transaction at `pos` already emitted (skip that many on resume). */
  event?: number;
  /** Rows of the event after `event` already emitted. */
  row?: number;
  /** Server id and timestamp of the last event, informational. */
  server_id?: number;
  ts_sec?: number;
  /**
   * The server that wrote `file`/`pos` (`mysql:<server_uuid>` or `mariadb:<server_id>`): a file/position resumes
   * only there. Absent in offsets written before it was stored (then the server is assumed unchanged).
   */
  server_identity?: string;
  /**
   * Bumped each time the capture moves to another server (failover, resumed by GTID): file/position order restarts
   * there, so offsets are ordered by generation first. Absent means 0.
   */
  server_generation?: number;
  /** Set while an initial snapshot is in progress ("true") or finished in this offset's lifetime. */
  snapshot?: boolean;
  snapshot_completed?: boolean;
  /**
   * Vitess source only: the VGTID JSON list (Debezium Vitess's `vgtid` offset); `file` is then `vitess` and `pos`
   * counts checkpoints, which keeps the never-backwards rule of both stores meaningful.
   */
  vgtid?: string;
  /** Chunked snapshot progress, keyed by table id (owned by the snapshot module). */
  snapshot_chunks?: Record<string, unknown>;
  /** The chunked snapshot in `snapshot_chunks` is paused (pause-snapshot): a restart keeps it paused. */
  snapshot_chunks_paused?: boolean;
  /** Read positions of signal channels that keep one, by channel (e.g. Kinesis shard → sequence number). */
  signal_offsets?: Record<string, Record<string, string>>;
}
