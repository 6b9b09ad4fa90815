/**
 * The replication commands, written as mysql2 command objects. mysql2 runs one command at a time per connection
 * and hands it every packet until `execute` returns true; this is the hook @vlasky/zongji uses too. These are
 * mysql2 internals (mysql2 is pinned to an exact version), typed here by small local interfaces.
 */
import { hostname } from 'node:os';

/** The parts of mysql2's Packet we read. */
export interface Mysql2Packet {
  buffer: Buffer;
  /** Start of the 4-byte packet header in `buffer`. */
  start: number;
  /** End of the payload in `buffer`. */
  end: number;
  /** How many wire packets were joined into this one (payloads of 16 MiB - 1 continue in the next packet). */
  numPackets: number;
  asError(encoding?: string): Error;
}

/** What mysql2's writePacket needs from an outgoing packet. */
interface OutgoingPacket {
  buffer: Buffer;
  length(): number;
  writeHeader(sequenceId: number): void;
}

/** The socket under a mysql2 connection (net.Socket or tls.TLSSocket). */
export interface Mysql2Stream {
  pause(): unknown;
  resume(): unknown;
  destroy(): unknown;
  setKeepAlive?(enable: boolean, initialDelay?: number): unknown;
  readonly destroyed?: boolean;
}

/** The parts of mysql2's Connection internals we use. */
export interface Mysql2ConnectionInternals {
  stream: Mysql2Stream;
  clientEncoding?: string;
  threadId: number | null;
  addCommand(cmd: Mysql2Command): unknown;
  writePacket(packet: OutgoingPacket): void;
  _resetSequenceId(): void;
}

/** mysql2's duck-typed command contract. `onResult` receives connection-level errors (socket closed, ...). */
export interface Mysql2Command {
  execute(packet: Mysql2Packet | undefined, connection: Mysql2ConnectionInternals): boolean;
  onResult?(err: Error): void;
  stateName(): string;
}

const COM_REGISTER_SLAVE = 0x15;
const COM_BINLOG_DUMP = 0x12;
const COM_BINLOG_DUMP_GTID = 0x1e;
/** MySQL: BINLOG_THROUGH_GTID — the GTID data follows (servers read it regardless; older docs require it). */
const BINLOG_THROUGH_GTID = 0x04;
/** MariaDB (capability >= 2): send ANNOTATE_ROWS events. On MySQL the same bit asks for v2 heartbeats. */
export const BINLOG_SEND_ANNOTATE_ROWS_EVENT = 0x02;

class Payload implements OutgoingPacket {
  readonly buffer: Buffer;
  private off = 4;
  constructor(size: number) {
    this.buffer = Buffer.alloc(4 + size);
  }
  length(): number {
    return this.buffer.length;
  }
  writeHeader(sequenceId: number): void {
    this.buffer.writeUIntLE(this.buffer.length - 4, 0, 3);
    this.buffer[3] = sequenceId;
  }
  u8(v: number): this {
    this.off = this.buffer.writeUInt8(v, this.off);
    return this;
  }
  u16(v: number): this {
    this.off = this.buffer.writeUInt16LE(v, this.off);
    return this;
  }
  u32(v: number): this {
    this.off = this.buffer.writeUInt32LE(v >>> 0, this.off);
    return this;
  }
  u64(v: bigint): this {
    this.off = this.buffer.writeBigUInt64LE(v, this.off);
    return this;
  }
  bytes(b: Buffer): this {
    this.off += b.copy(this.buffer, this.off);
    return this;
  }
  done(): OutgoingPacket {
    if (this.off !== this.buffer.length) throw new Error(`packet size mismatch: ${this.off} != ${this.buffer.length}`);
    return this;
  }
}

/** Short strings in COM_REGISTER_SLAVE carry a 1-byte length. */
function short(s: string): Buffer {
  const b = Buffer.from(s, 'utf8');
  return b.length > 255 ? b.subarray(0, 255) : b;
}

export function registerSlavePacket(serverId: number, reportHost = hostname()): OutgoingPacket {
  const host = short(reportHost.slice(0, 60));
  return new Payload(1 + 4 + 1 + host.length + 1 + 1 + 2 + 4 + 4)
    .u8(COM_REGISTER_SLAVE)
    .u32(serverId)
    .u8(host.length)
    .bytes(host)
    .u8(0) // user: not reported
    .u8(0) // password: never reported
    .u16(0) // port
    .u32(0) // replication rank (unused by servers)
    .u32(0) // master id: filled in by the server
    .done();
}

export function binlogDumpPacket(file: string, pos: number, flags: number, serverId: number): OutgoingPacket {
  const name = Buffer.from(file, 'utf8');
  return new Payload(1 + 4 + 2 + 4 + name.length)
    .u8(COM_BINLOG_DUMP)
    .u32(pos)
    .u16(flags)
    .u32(serverId)
    .bytes(name)
    .done();
}

export function binlogDumpGtidPacket(serverId: number, encodedGtidSet: Buffer): OutgoingPacket {
  // Empty file name + position 4: the server finds the first file not fully contained in the set itself.
  return new Payload(1 + 2 + 4 + 4 + 8 + 4 + encodedGtidSet.length)
    .u8(COM_BINLOG_DUMP_GTID)
    .u16(BINLOG_THROUGH_GTID)
    .u32(serverId)
    .u32(0)
    .u64(4n)
    .u32(encodedGtidSet.length)
    .bytes(encodedGtidSet)
    .done();
}

/** Sends one packet and completes on the server's OK or ERR reply. */
export class RequestCommand implements Mysql2Command {
  private sent = false;
  constructor(
    private readonly packet: OutgoingPacket,
    private readonly done: (err?: Error) => void,
  ) {}

  execute(packet: Mysql2Packet | undefined, connection: Mysql2ConnectionInternals): boolean {
    if (!this.sent) {
      this.sent = true;
      connection._resetSequenceId();
      connection.writePacket(this.packet);
      return false;
    }
    if (packet === undefined) return false;
    this.done(packet.buffer[packet.start + 4] === 0xff ? packet.asError(connection.clientEncoding) : undefined);
    return true;
  }

  onResult(err: Error): void {
    this.done(err);
  }

  stateName(): string {
    return this.sent ? 'awaitReply' : 'start';
  }
}

export interface DumpHandlers {
  /**
   * One event packet; `payload` excludes the OK byte. It is a view of the socket chunk (or of the buffer a
   * packet split across chunks was reassembled into), which mysql2 does not write into again.
   */
  onEvent(payload: Buffer): void;
  /** Server ERR packet or a connection-level error. */
  onError(err: Error): void;
  /** The server ended the stream with EOF (non-blocking dumps; or the server going away). */
  onEnd(): void;
}

/** Sends a dump command, then hands every following packet to `handlers` until ERR or EOF. */
export class DumpCommand implements Mysql2Command {
  private sent = false;
  private finished = false;
  constructor(
    private readonly packet: OutgoingPacket,
    private readonly handlers: DumpHandlers,
  ) {}

  execute(packet: Mysql2Packet | undefined, connection: Mysql2ConnectionInternals): boolean {
    if (!this.sent) {
      this.sent = true;
      connection._resetSequenceId();
      connection.writePacket(this.packet);
      return false;
    }
    if (packet === undefined || this.finished) return this.finished;
    const first = packet.start + 4;
    const marker = packet.buffer[first];
    const length = packet.end - first;
    if (marker === 0xff) {
      this.finished = true;
      this.handlers.onError(packet.asError(connection.clientEncoding));
      return true;
    }
    if (marker === 0xfe && length < 9) {
      this.finished = true;
      this.handlers.onEnd();
      return true;
    }
    this.handlers.onEvent(packet.buffer.subarray(first + 1, packet.end));
    return false;
  }

  onResult(err: Error): void {
    if (this.finished) return;
    this.finished = true;
    this.handlers.onError(err);
  }

  stateName(): string {
    return this.sent ? 'binlogData' : 'start';
  }
}
