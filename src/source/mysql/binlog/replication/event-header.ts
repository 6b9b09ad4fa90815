/**
 * Just enough of the binlog v4 format for the transport to track positions: the common event header and the
 * ROTATE body. Full decoding belongs to the decoder; this stays tiny on purpose.
 */

/** Length of the v4 common event header. */
export const EVENT_HEADER_LENGTH = 19;
/** LOG_EVENT_ARTIFICIAL_F: set on events the server makes up for the stream (fake ROTATE at dump start). */
export const LOG_EVENT_ARTIFICIAL_F = 0x20;

/** Event type codes the transport looks at (shared by MySQL and MariaDB). */
export const EventType = {
  QUERY: 2,
  ROTATE: 4,
  FORMAT_DESCRIPTION: 15,
  XID: 16,
  TABLE_MAP: 19,
  HEARTBEAT: 27,
  HEARTBEAT_V2: 41,
  MARIADB_ANNOTATE_ROWS: 160,
  MARIADB_GTID: 162,
  MARIADB_GTID_LIST: 163,
} as const;

export interface EventHeader {
  /** Seconds since the epoch; 0 on the fake ROTATE sent at dump start. */
  timestamp: number;
  typeCode: number;
  serverId: number;
  /** Whole event length: header + body + checksum. */
  eventSize: number;
  /** End position of this event in its file (`log_pos`); 0 when the event has no place in a file. */
  nextPosition: number;
  flags: number;
}

/** Reads the 19-byte v4 header at the start of `event`. The caller checks the length first. */
export function readEventHeader(event: Buffer): EventHeader {
  return {
    timestamp: event.readUInt32LE(0),
    typeCode: event[4],
    serverId: event.readUInt32LE(5),
    eventSize: event.readUInt32LE(9),
    nextPosition: event.readUInt32LE(13),
    flags: event.readUInt16LE(17),
  };
}

export interface RotateBody {
  /** Position of the first event to read in `file` (4 when a new file starts). */
  position: number;
  file: string;
}

/**
 * Reads a ROTATE body: 8-byte position then the file name up to the end of the event, minus the checksum when
 * one is in effect (`checksumLength` 4 for CRC32, else 0).
 */
export function readRotateBody(event: Buffer, checksumLength: number): RotateBody {
  const start = EVENT_HEADER_LENGTH;
  const end = event.length - checksumLength;
  if (end < start + 8) throw new RangeError(`ROTATE event too short (${event.length} bytes)`);
  return {
    position: Number(event.readBigUInt64LE(start)),
    file: event.toString('utf8', start + 8, end),
  };
}

/**
 * The checksum algorithm a FORMAT_DESCRIPTION event declares for the rest of its file: the byte before its own
 * 4-byte checksum field (present since MySQL 5.6.1 / MariaDB 5.3, even when the algorithm is OFF).
 * Returns 0 (OFF), 1 (CRC32), or undefined when the event is too short to carry it.
 */
export function readFormatDescriptionChecksumAlg(event: Buffer): number | undefined {
  // 19 header + 2 version + 50 server version + 4 timestamp + 1 header length = 76 before post-header lengths.
  if (event.length < 76 + 5) return undefined;
  return event[event.length - 5];
}
