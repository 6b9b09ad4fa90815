/** The typed binlog events produced by BinlogDecoder: a discriminated union on `type`. */
import type { Row } from '../../../model/values.js';
import type { TableMapEvent } from './table-map.js';

export type { ColumnInfo, TableMapEvent } from './table-map.js';

export interface EventHeader {
  /** Seconds since the epoch when the statement/transaction began on the origin server. */
  timestamp: number;
  typeCode: number;
  serverId: number;
  /** Whole event length including header and checksum. */
  eventSize: number;
  /** Position of the next event in the origin binlog (0 inside TRANSACTION_PAYLOAD, artificial events). */
  nextPosition: number;
  flags: number;
}

interface Base<T extends string> {
  type: T;
  header: EventHeader;
}

export type ChecksumAlgorithm = 'NONE' | 'CRC32';

export interface FormatDescriptionEvent extends Base<'FORMAT_DESCRIPTION'> {
  binlogVersion: number;
  serverVersion: string;
  createTimestamp: number;
  headerLength: number;
  /** Post-header length per event type, index = type code - 1. */
  postHeaderLengths: number[];
  /** Checksum algorithm of the events that follow; 'NONE' also for servers older than 5.6.1. */
  checksum: ChecksumAlgorithm;
  mariadb: boolean;
}

export interface RotateEvent extends Base<'ROTATE'> {
  position: number;
  nextFile: string;
}

export interface QueryStatusVars {
  flags2?: number;
  sqlMode?: bigint;
  catalog?: string;
  autoIncrementIncrement?: number;
  autoIncrementOffset?: number;
  /** character_set_client, collation_connection, collation_server (collation ids). */
  charset?: { client: number; connection: number; server: number };
  timeZone?: string;
  lcTimeNames?: number;
  charsetDatabase?: number;
  tableMapForUpdate?: bigint;
  invoker?: { user: string; host: string };
  updatedDbNames?: string[];
  microseconds?: number;
  explicitDefaultsForTimestamp?: boolean;
  ddlXid?: bigint;
  defaultCollationForUtf8mb4?: number;
  sqlRequirePrimaryKey?: number;
  defaultTableEncryption?: number;
  /** MariaDB Q_XID: the XID of a DDL statement logged with one. */
  xid?: bigint;
}

export interface QueryEvent extends Base<'QUERY'> {
  threadId: number;
  executionTime: number;
  errorCode: number;
  /** Default database (schema) of the statement; '' when none. */
  database: string;
  query: string;
  statusVars: QueryStatusVars;
  /** True for MariaDB QUERY_COMPRESSED_EVENT (the text was zlib-compressed). */
  compressed: boolean;
}

export interface XidEvent extends Base<'XID'> {
  xid: bigint;
}

interface RowsBase<T extends string> extends Base<T> {
  tableId: number;
  /** The TABLE_MAP this event refers to. */
  table: TableMapEvent;
  flags: number;
  /** 0 (5.1 pre-GA), 1 or 2 (v2 adds extra data). */
  version: 0 | 1 | 2;
  /** v2 extra data (e.g. NDB info, MySQL 8 partition info), raw. */
  extraData?: Buffer;
  /** Column count of the rows event (the table's column count). */
  columnCount: number;
  /** Columns present in the (before) image, by column index. */
  columnsPresent: boolean[];
  /** MariaDB compressed rows event. */
  compressed: boolean;
}

export interface WriteRowsEvent extends RowsBase<'WRITE_ROWS'> {
  rows: Row[];
}
export interface DeleteRowsEvent extends RowsBase<'DELETE_ROWS'> {
  rows: Row[];
}
export interface UpdateRowsEvent extends RowsBase<'UPDATE_ROWS' | 'PARTIAL_UPDATE_ROWS'> {
  /** Columns present in the after image. */
  columnsPresentAfter: boolean[];
  rows: Array<{ before: Row; after: Row }>;
}
export type RowsEvent = WriteRowsEvent | DeleteRowsEvent | UpdateRowsEvent;

export interface GtidEvent extends Base<'GTID' | 'ANONYMOUS_GTID'> {
  /** 1 when the transaction may commit on its own (not part of a group). */
  commitFlag: boolean;
  uuid: string;
  /** MySQL 8.3+ tagged GTID tag, when present. */
  tag?: string;
  gno: number;
  /** "uuid:gno" or "uuid:tag:gno" (anonymous: uuid of zeros). */
  gtid: string;
  lastCommitted?: number;
  sequenceNumber?: number;
  /** Microseconds since the epoch. */
  immediateCommitTimestamp?: number;
  originalCommitTimestamp?: number;
  transactionLength?: number;
  immediateServerVersion?: number;
  originalServerVersion?: number;
}

export interface PreviousGtidsEvent extends Base<'PREVIOUS_GTIDS'> {
  /** MySQL GTID set text, e.g. "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5:7,…" ('' when empty). */
  gtidSet: string;
}

export interface TransactionPayloadEvent extends Base<'TRANSACTION_PAYLOAD'> {
  compression: 'ZSTD' | 'NONE';
  payloadSize: number;
  uncompressedSize: number;
  /** The events inside the payload, decoded (they carry no checksums and nextPosition 0). */
  events: BinlogEvent[];
}

export interface RowsQueryEvent extends Base<'ROWS_QUERY'> {
  query: string;
}

export interface HeartbeatEvent extends Base<'HEARTBEAT'> {
  version: 1 | 2;
  logFile: string;
  /** Binlog position the server has reached (v1: header.nextPosition). */
  position: number;
}

export interface MariadbAnnotateRowsEvent extends Base<'MARIADB_ANNOTATE_ROWS'> {
  query: string;
}

export interface MariadbGtidEvent extends Base<'MARIADB_GTID'> {
  domainId: number;
  /** header.serverId, repeated for convenience. */
  serverId: number;
  sequence: number;
  /** "domain-server-sequence". */
  gtid: string;
  flags: number;
  /** FL_STANDALONE: a single statement without BEGIN/COMMIT (usually DDL). */
  standalone: boolean;
  /** Group commit id (FL_GROUP_COMMIT_ID), when present. */
  commitId?: bigint;
  transactional: boolean;
  ddl: boolean;
  /** XA transaction id when the event starts an XA PREPARE / XA COMMIT group. */
  xid?: { formatId: number; gtrid: Buffer; bqual: Buffer };
}

export interface MariadbGtidListEvent extends Base<'MARIADB_GTID_LIST'> {
  flags: number;
  gtids: Array<{ domainId: number; serverId: number; sequence: number }>;
  /** "d-s-n,d-s-n" */
  gtidList: string;
}

export interface MariadbBinlogCheckpointEvent extends Base<'MARIADB_BINLOG_CHECKPOINT'> {
  logFile: string;
}

export interface StopEvent extends Base<'STOP'> {}

export interface IntvarEvent extends Base<'INTVAR'> {
  /** 1 = LAST_INSERT_ID, 2 = INSERT_ID. */
  subtype: number;
  value: bigint;
}

export interface RandEvent extends Base<'RAND'> {
  seed1: bigint;
  seed2: bigint;
}

export interface UserVarEvent extends Base<'USER_VAR'> {
  name: string;
  /** Item_result: 0 STRING, 1 REAL, 2 INT, 4 DECIMAL; null for a NULL value. */
  valueType: number | null;
  charset: number | null;
  value: Buffer | null;
  unsigned: boolean;
}

export interface IncidentEvent extends Base<'INCIDENT'> {
  incident: number;
  message: string;
}

export interface XaPrepareEvent extends Base<'XA_PREPARE'> {
  onePhase: boolean;
  formatId: number;
  gtrid: Buffer;
  bqual: Buffer;
}

/** An event type unknown to this decoder that the server flagged LOG_EVENT_IGNORABLE_F. */
export interface UnknownIgnorableEvent extends Base<'UNKNOWN_IGNORABLE'> {
  typeCode: number;
}

/** A known event type this decoder does not model in detail (legacy LOAD DATA events, group replication, ...). */
export interface OtherEvent extends Base<'OTHER'> {
  name: string;
  body: Buffer;
}

export type BinlogEvent =
  | FormatDescriptionEvent
  | RotateEvent
  | QueryEvent
  | XidEvent
  | TableMapEvent
  | WriteRowsEvent
  | UpdateRowsEvent
  | DeleteRowsEvent
  | GtidEvent
  | PreviousGtidsEvent
  | TransactionPayloadEvent
  | RowsQueryEvent
  | HeartbeatEvent
  | MariadbAnnotateRowsEvent
  | MariadbGtidEvent
  | MariadbGtidListEvent
  | MariadbBinlogCheckpointEvent
  | StopEvent
  | IntvarEvent
  | RandEvent
  | UserVarEvent
  | IncidentEvent
  | XaPrepareEvent
  | UnknownIgnorableEvent
  | OtherEvent;

export type BinlogEventType = BinlogEvent['type'];
