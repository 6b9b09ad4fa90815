/**
 * Live binlog replication transport for MySQL and MariaDB, on a mysql2 connection (handshake, auth including
 * caching_sha2_password, and TLS come from mysql2).
 *
 * - {@link BinlogReplicationClient}: one connection. Announces the checksum algorithm and heartbeat period (and,
 *   on MariaDB, GTID capability / `@slave_connect_state`), registers as a replica, dumps by file/position, MySQL
 *   GTID set (COM_BINLOG_DUMP_GTID) or MariaDB GTID list, and yields each event whole with its position.
 *   Bounded memory: the socket is paused while more than `maxBufferedBytes` wait for the consumer.
 * - {@link ResilientBinlogStream}: reconnects with backoff from the consumer's confirmed position; a heartbeat
 *   watchdog turns a silent connection into a reconnect.
 * - Errors: {@link BinlogPositionLostError} (code BINLOG_POSITION_LOST, fatal), {@link BinlogAuthError}
 *   (CONNECTION_FAILED, fatal), {@link BinlogStreamError} (BINLOG_STREAM; `retriable` says whether to reconnect).
 *
 * Events are not decoded here beyond the v4 header and ROTATE bodies; checksums are left for the decoder to
 * verify (`session.checksumAlgorithm` says which one is in use).
 */

export { type GtidInterval, type GtidSource, parseMySqlGtidSet } from '../../gtid.js';
export { callbackConnection } from './callback-connection.js';
export {
  BinlogReplicationClient,
  type BinlogReplicationClientOptions,
  type ConnectionSource,
} from './client.js';
export {
  BinlogAuthError,
  BinlogFailoverError,
  BinlogPositionLostError,
  BinlogStreamError,
  classifyError,
  describePosition,
} from './errors.js';
export {
  EVENT_HEADER_LENGTH,
  type EventHeader,
  EventType,
  LOG_EVENT_ARTIFICIAL_F,
  type RotateBody,
  readEventHeader,
  readRotateBody,
} from './event-header.js';
export { encodeMySqlGtidSet } from './gtid.js';
export {
  ResilientBinlogStream,
  type ResilientBinlogStreamOptions,
  type ResilientBinlogStreamState,
} from './resilient.js';
export type {
  BinlogStartPosition,
  RawBinlogEvent,
  ReplicationClientState,
  ReplicationSession,
  ServerFlavor,
} from './types.js';
