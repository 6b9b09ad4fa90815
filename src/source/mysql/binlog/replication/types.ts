/** Shared types of the replication transport. */

/** Where to start streaming: a binlog file and position, or a GTID set (MySQL `uuid:1-5`, MariaDB `0-1-42`). */
export type BinlogStartPosition = { file: string; pos: number } | { gtidSet: string };

/** One whole binlog event as the server sent it, with where it sits in the binlog. */
export interface RawBinlogEvent {
  /** The event bytes: 19-byte v4 header + body + checksum (when the server uses one). Owned by the consumer. */
  raw: Buffer;
  /** Binlog file the event belongs to (for a ROTATE: the file it rotates to when artificial, else its own). */
  file: string;
  /** Start offset of this event in `file`; for events with no place in the file, the current position. */
  position: number;
  /** Offset of the next event in `file`: the position to resume from once this event is handled. */
  nextPosition: number;
  /** Event type code from the header (e.g. 4 ROTATE, 15 FORMAT_DESCRIPTION, 16 XID, 19 TABLE_MAP). */
  typeCode: number;
  /** Header timestamp (seconds since the epoch; 0 on the fake ROTATE at dump start). */
  timestamp: number;
  /** Header flags. */
  flags: number;
  /** True for events the server made up for this stream (fake ROTATE, heartbeats): not in the binlog file. */
  artificial: boolean;
}

import type { ServerFlavor } from '../../server-info.js';

export type { ServerFlavor };

/** What the server told us during set-up. */
export interface ReplicationSession {
  flavor: ServerFlavor;
  /** `SELECT VERSION()`. */
  serverVersion: string;
  /** `@@global.binlog_checksum`: 'CRC32' or 'NONE'. Events carry a 4-byte CRC32 trailer when 'CRC32'. */
  checksumAlgorithm: string;
  /** The server's thread id of the replication connection (for KILL, SHOW PROCESSLIST). */
  connectionId: number;
  /** Which server this is: `mysql:<server_uuid>` or `mariadb:<server_id>` (see server-identity.ts). */
  serverKey: string;
}

/** Counters and gauges for metrics. */
export interface ReplicationClientState {
  connected: boolean;
  /** Bytes of event packets received (payload, without the OK byte). */
  bytesReceived: number;
  eventsReceived: number;
  heartbeatsReceived: number;
  /** Bytes received but not yet taken by the consumer. */
  bufferedBytes: number;
  /** Highest `bufferedBytes` seen. */
  peakBufferedBytes: number;
  /** True while the socket is paused because the consumer is behind. */
  paused: boolean;
  /** How often the socket was paused for backpressure. */
  pauseCount: number;
  /** When the last packet (event or heartbeat) arrived, ms since the epoch. */
  lastPacketAt: number | undefined;
  /** Current binlog file and next position as seen by the transport (not necessarily consumed). */
  file: string | undefined;
  position: number | undefined;
}
