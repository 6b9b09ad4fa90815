/**
 * One replication connection: set-up statements, COM_REGISTER_SLAVE, then COM_BINLOG_DUMP(_GTID), exposed as an
 * async iterable of whole raw events with their binlog positions. Bounded: when the consumer falls behind, the
 * socket is paused, so the server (not this process) holds the backlog.
 */
import type { Connection, ConnectionOptions } from 'mysql2';
import mysql from 'mysql2';
import type { Logger } from '../../../../common/logger.js';
import { silentLogger } from '../../../../common/logger.js';
import { isMariaDbGtidList } from '../../gtid.js';
import { EventType as Ev } from '../event-types.js';
import { BinlogFailoverError, BinlogStreamError, classifyError, describePosition } from './errors.js';
import {
  EVENT_HEADER_LENGTH,
  EventType,
  LOG_EVENT_ARTIFICIAL_F,
  readEventHeader,
  readFormatDescriptionChecksumAlg,
  readRotateBody,
} from './event-header.js';
import { encodeMySqlGtidSet } from './gtid.js';
import {
  BINLOG_SEND_ANNOTATE_ROWS_EVENT,
  binlogDumpGtidPacket,
  binlogDumpPacket,
  DumpCommand,
  type Mysql2ConnectionInternals,
  RequestCommand,
  registerSlavePacket,
} from './protocol.js';
import type {
  BinlogStartPosition,
  RawBinlogEvent,
  ReplicationClientState,
  ReplicationSession,
  ServerFlavor,
} from './types.js';

/** A mysql2 (callback API) connection, or how to make one. A mysql2/promise connection's `.connection` works. */
export type ConnectionSource = ConnectionOptions | (() => Connection | Promise<Connection>);

export interface BinlogReplicationClientOptions {
  /** mysql2 connection options, or a factory returning a fresh, dedicated mysql2 connection. */
  connection: ConnectionSource;
  /** Our replica server id: must differ from the server's and from every other replica/connector of it. */
  serverId: number;
  /** Where to start. */
  start: BinlogStartPosition;
  /** Ask the server for a HEARTBEAT event after this much idle time (default 30 000 ms; 0 disables). */
  heartbeatIntervalMs?: number;
  /**
   * Treat the connection as dead when nothing (event or heartbeat) arrives for this long while not paused.
   * Default: 2 × heartbeatIntervalMs + 1 s; 0 disables the watchdog.
   */
  heartbeatTimeoutMs?: number;
  /** Pause the socket once this many received bytes wait for the consumer (default 8 MiB). */
  maxBufferedBytes?: number;
  /** Deadline for connecting and setting up the dump until the first event arrives (default 30 000 ms). */
  setupTimeoutMs?: number;
  /** TCP keep-alive initial delay (default 10 000 ms). */
  keepAliveInitialDelayMs?: number;
  /**
   * Server-side write timeout for this session in seconds (default 600): how long the server waits while we
   * keep the socket paused for a slow consumer before it drops the stream.
   */
  serverWriteTimeoutSeconds?: number;
  /** Also yield HEARTBEAT events (default false; they are counted in `state` either way). */
  yieldHeartbeats?: boolean;
  /** MariaDB: ask for ANNOTATE_ROWS events (the SQL text of row events; default true). */
  requestAnnotateRows?: boolean;
  /** Host name shown in SHOW REPLICAS / SHOW SLAVE HOSTS (default: os.hostname()). */
  reportHost?: string;
  logger?: Logger;
}

const DEFAULT_HEARTBEAT_MS = 30_000;
const DEFAULT_MAX_BUFFERED = 8 * 1024 * 1024;
const DEFAULT_SETUP_TIMEOUT_MS = 30_000;
const MARIADB_SLAVE_CAPABILITY_GTID = 4;
const MAX_DUMP_POSITION = 0xffffffff;
/** Event types whose bytes are used only while the event passes through (rows events, as stored or compressed). */
const TRANSIENT_EVENTS: ReadonlySet<number> = new Set([
  Ev.PRE_GA_WRITE_ROWS,
  Ev.PRE_GA_UPDATE_ROWS,
  Ev.PRE_GA_DELETE_ROWS,
  Ev.WRITE_ROWS_V1,
  Ev.UPDATE_ROWS_V1,
  Ev.DELETE_ROWS_V1,
  Ev.WRITE_ROWS_V2,
  Ev.UPDATE_ROWS_V2,
  Ev.DELETE_ROWS_V2,
  Ev.PARTIAL_UPDATE_ROWS,
  Ev.MARIADB_WRITE_ROWS_COMPRESSED_V1,
  Ev.MARIADB_UPDATE_ROWS_COMPRESSED_V1,
  Ev.MARIADB_DELETE_ROWS_COMPRESSED_V1,
  Ev.MARIADB_WRITE_ROWS_COMPRESSED,
  Ev.MARIADB_UPDATE_ROWS_COMPRESSED,
  Ev.MARIADB_DELETE_ROWS_COMPRESSED,
]);
const FOUR_GIB = 2 ** 32;

type Waiter = () => void;

/**
 * A single binlog replication connection. Use it as an async iterable (starting it if `start()` was not
 * called); iteration ends after `stop()` and throws the classified error when the stream fails, after the events
 * received before the failure. Reconnection is {@link ResilientBinlogStream}'s job.
 */
export class BinlogReplicationClient implements AsyncIterable<RawBinlogEvent> {
  private readonly opts: BinlogReplicationClientOptions;
  private readonly log: Logger;
  private readonly maxBuffered: number;
  private readonly heartbeatMs: number;
  private readonly watchdogMs: number;

  private conn: Connection | undefined;
  private internals: Mysql2ConnectionInternals | undefined;
  private sessionInfo: ReplicationSession | undefined;
  private starting: Promise<void> | undefined;
  private resolveReady: (() => void) | undefined;
  private rejectReady: ((err: Error) => void) | undefined;

  private readonly queue: (RawBinlogEvent | undefined)[] = [];
  private head = 0;
  private waiter: Waiter | undefined;
  private failure: Error | undefined;
  private stopped = false;
  private sessionStarted = false;
  private closed: Promise<void> | undefined;

  private file: string | undefined;
  private pos: number | undefined;
  private checksumLength = 0;
  private watchdog: NodeJS.Timeout | undefined;
  private setupTimer: NodeJS.Timeout | undefined;

  private readonly st: ReplicationClientState = {
    connected: false,
    bytesReceived: 0,
    eventsReceived: 0,
    heartbeatsReceived: 0,
    bufferedBytes: 0,
    peakBufferedBytes: 0,
    paused: false,
    pauseCount: 0,
    lastPacketAt: undefined,
    file: undefined,
    position: undefined,
  };

  constructor(options: BinlogReplicationClientOptions) {
    if (!Number.isInteger(options.serverId) || options.serverId < 1 || options.serverId > 0xffffffff) {
      throw new RangeError(`serverId must be an integer in 1..4294967295, got ${options.serverId}`);
    }
    const start = options.start;
    if ('file' in start && (!start.file || !Number.isInteger(start.pos) || start.pos < 4)) {
      throw new RangeError(`invalid start position: ${describePosition(start)} (position must be 4..4294967295)`);
    }
    if ('file' in start && start.pos > MAX_DUMP_POSITION) {
      throw new BinlogStreamError(
        `cannot start at ${describePosition(start)}: COM_BINLOG_DUMP carries a 32-bit position (at most 4294967295). ` +
          'Resume by GTID set instead (gtid_mode=ON on MySQL), and keep transactions below max_binlog_size so ' +
          'binlog files stay under 4 GiB.',
        { retriable: false },
      );
    }
    this.opts = options;
    this.log = (options.logger ?? silentLogger).child({ component: 'binlog-replication' });
    this.maxBuffered = Math.max(1, options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED);
    this.heartbeatMs = options.heartbeatIntervalMs ?? DEFAULT_HEARTBEAT_MS;
    this.watchdogMs = options.heartbeatTimeoutMs ?? (this.heartbeatMs > 0 ? 2 * this.heartbeatMs + 1000 : 0);
    if ('file' in start) {
      this.file = start.file;
      this.pos = start.pos;
    }
  }

  /** Counters and gauges for metrics (a snapshot). */
  get state(): ReplicationClientState {
    return { ...this.st, file: this.file, position: this.pos };
  }

  /** `state.connected` without copying the state (read once per event). */
  get connected(): boolean {
    return this.st.connected;
  }

  /** Server facts learnt during set-up; undefined before `start()` got that far. */
  get session(): ReplicationSession | undefined {
    return this.sessionInfo;
  }

  /**
   * Connects, sets the session up and starts the dump. Resolves once the server sent the first event (so a
   * purged position or bad credentials reject here); idempotent.
   */
  start(): Promise<void> {
    if (!this.starting) {
      this.starting = new Promise<void>((resolve, reject) => {
        this.resolveReady = resolve;
        this.rejectReady = reject;
      });
      this.starting.catch(() => {}); // surfaced through start() callers and iteration
      this.run().catch((err: unknown) => this.fail(err));
    }
    return this.starting;
  }

  /** Closes the connection; iteration ends (buffered events are dropped). Idempotent. */
  stop(): Promise<void> {
    if (!this.stopped) {
      this.stopped = true;
      this.rejectReady?.(new BinlogStreamError('binlog client stopped before the stream started', { retriable: true }));
      this.queue.length = 0;
      this.head = 0;
      this.st.bufferedBytes = 0;
      this.closeConnection();
      this.wake();
    }
    return this.closed ?? Promise.resolve();
  }

  [Symbol.asyncIterator](): AsyncIterator<RawBinlogEvent> {
    void this.start();
    return {
      next: () => this.next(),
      return: async () => {
        await this.stop();
        return { done: true, value: undefined };
      },
    };
  }

  private async next(): Promise<IteratorResult<RawBinlogEvent>> {
    for (;;) {
      if (this.head < this.queue.length) return { done: false, value: this.take() };
      if (this.stopped) return { done: true, value: undefined };
      if (this.failure) {
        const err = this.failure;
        this.stopped = true; // throw once; later calls report done
        throw err;
      }
      await new Promise<void>((resolve) => {
        this.waiter = resolve;
      });
    }
  }

  private take(): RawBinlogEvent {
    const ev = this.queue[this.head] as RawBinlogEvent;
    this.queue[this.head++] = undefined; // release for GC
    if (this.head === this.queue.length) {
      this.queue.length = 0;
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
    this.st.bufferedBytes -= ev.raw.length;
    // Resume at half the bound so we do not toggle the socket on every event.
    if (this.st.paused && this.st.bufferedBytes <= this.maxBuffered / 2) this.resumeSocket();
    return ev;
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = undefined;
    w?.();
  }

  // ------------------------------------------------------------------------------------------------------------
  // Set-up

  private async run(): Promise<void> {
    const { opts } = this;
    const setupMs = opts.setupTimeoutMs ?? DEFAULT_SETUP_TIMEOUT_MS;
    this.setupTimer = setTimeout(() => {
      this.fail(
        new BinlogStreamError(`binlog replication set-up did not finish within ${setupMs} ms`, { retriable: true }),
      );
    }, setupMs);
    this.setupTimer.unref();

    const conn = await this.openConnection();
    if (this.stopped) {
      conn.destroy();
      return;
    }
    this.conn = conn;
    const internals = conn as unknown as Mysql2ConnectionInternals;
    this.internals = internals;
    this.closed = new Promise<void>((resolve) => {
      conn.once('end', () => resolve());
      conn.once('error', () => resolve());
      const stream = (internals.stream ?? {}) as { once?: (ev: string, fn: () => void) => void };
      stream.once?.('close', () => resolve());
    });
    conn.on('error', (err: Error) => this.fail(err));

    const [info] = await this.query<{
      version: string;
      comment: string | null;
      checksum: string | null;
      id: number;
      server_id: number | string;
      ro: number | string | null;
    }>(
      'SELECT VERSION() AS version, @@version_comment AS comment, @@global.binlog_checksum AS checksum, ' +
        'CONNECTION_ID() AS id, @@server_id AS server_id, @@innodb_read_only AS ro',
    );
    const flavor: ServerFlavor = /mariadb/i.test(`${info.version} ${info.comment ?? ''}`) ? 'mariadb' : 'mysql';
    const checksumAlgorithm = (info.checksum ?? 'NONE').toUpperCase();
    let serverKey = `mariadb:${Number(info.server_id)}`;
    if (flavor === 'mysql') {
      const [u] = await this.query<{ uuid: string }>('SELECT @@server_uuid AS uuid');
      serverKey = `mysql:${String(u?.uuid ?? '').toLowerCase()}`;
    }
    this.sessionInfo = {
      flavor,
      serverVersion: info.version,
      checksumAlgorithm,
      connectionId: Number(info.id),
      serverKey,
    };
    if (Number(info.ro) === 1) {
      // An Aurora reader, or the old writer for the seconds after a failover while DNS still points at it.
      throw new BinlogFailoverError(
        'The server is read-only (@@innodb_read_only=ON): it is a reader instance, or the old writer right after ' +
          'a failover. Point database.hostname at the cluster (writer) endpoint; retrying while a failover settles.',
      );
    }
    // Until a FORMAT_DESCRIPTION says otherwise (the fake ROTATE comes first), the negotiated algorithm applies.
    this.checksumLength = checksumAlgorithm === 'CRC32' ? 4 : 0;
    internals.stream.setKeepAlive?.(true, opts.keepAliveInitialDelayMs ?? 10_000);
    this.log.info('binlog replication connected', {
      flavor,
      serverVersion: info.version,
      checksum: checksumAlgorithm,
      connectionId: this.sessionInfo.connectionId,
      start: describePosition(opts.start),
    });

    // Announcing the checksum algorithm is mandatory: servers refuse to stream checksummed events otherwise.
    const sets = ['@master_binlog_checksum = @@global.binlog_checksum'];
    const heartbeatNs = BigInt(Math.round(this.heartbeatMs)) * 1_000_000n;
    if (this.heartbeatMs > 0) sets.push(`@master_heartbeat_period = ${heartbeatNs}`);
    const writeTimeout = opts.serverWriteTimeoutSeconds ?? 600;
    if (writeTimeout > 0) sets.push(`@@session.net_write_timeout = ${Math.ceil(writeTimeout)}`);
    const params: string[] = [];
    const start = opts.start;
    if (flavor === 'mysql') {
      // MySQL 8.0.26+ reads the `source_` names first; older servers ignore unknown user variables.
      sets.push('@source_binlog_checksum = @@global.binlog_checksum');
      if (this.heartbeatMs > 0) sets.push(`@source_heartbeat_period = ${heartbeatNs}`);
    }
    if (flavor === 'mariadb') {
      // Capability 4 (GTID): the server sends GTID/ANNOTATE events as they are instead of rewriting them for
      // old replicas.
      sets.push(`@mariadb_slave_capability = ${MARIADB_SLAVE_CAPABILITY_GTID}`);
      if ('gtidSet' in start) {
        if (!isMariaDbGtidList(start.gtidSet)) {
          throw new BinlogStreamError(
            `'${start.gtidSet}' is not a MariaDB GTID position (domain-server-sequence[,...], as in @@gtid_binlog_pos)`,
            { retriable: false },
          );
        }
        sets.push('@slave_connect_state = ?', '@slave_gtid_strict_mode = 0', '@slave_gtid_ignore_duplicates = 0');
        params.push(start.gtidSet.replace(/\s+/g, ''));
      }
    }
    await this.query(`SET ${sets.join(', ')}`, params);

    await new Promise<void>((resolve, reject) => {
      internals.addCommand(
        new RequestCommand(registerSlavePacket(opts.serverId, opts.reportHost), (err) =>
          err ? reject(err) : resolve(),
        ),
      );
    });
    if (this.stopped) return;

    let packet: ReturnType<typeof binlogDumpPacket>;
    if ('gtidSet' in start) {
      if (flavor === 'mariadb') {
        // The start comes from @slave_connect_state; the file name must be empty and the position is ignored.
        packet = binlogDumpPacket('', 4, this.dumpFlags(flavor), opts.serverId);
      } else {
        let encoded: Buffer;
        try {
          encoded = encodeMySqlGtidSet(start.gtidSet);
        } catch (err) {
          throw new BinlogStreamError(`cannot resume from GTID set: ${(err as Error).message}`, {
            retriable: false,
            cause: err,
          });
        }
        packet = binlogDumpGtidPacket(opts.serverId, encoded);
      }
    } else {
      packet = binlogDumpPacket(start.file, start.pos, this.dumpFlags(flavor), opts.serverId);
    }
    internals.addCommand(
      new DumpCommand(packet, {
        onEvent: (payload) => this.onEvent(payload),
        onError: (err) => this.fail(err),
        onEnd: () => this.fail(new BinlogStreamError('the server ended the binlog stream (EOF)', { retriable: true })),
      }),
    );
    this.st.connected = true;
    this.st.lastPacketAt = Date.now();
    this.armWatchdog();
  }

  private dumpFlags(flavor: ServerFlavor): number {
    return flavor === 'mariadb' && (this.opts.requestAnnotateRows ?? true) ? BINLOG_SEND_ANNOTATE_ROWS_EVENT : 0;
  }

  private async openConnection(): Promise<Connection> {
    const src = this.opts.connection;
    if (typeof src === 'function') return await src();
    return mysql.createConnection({
      ...src,
      enableKeepAlive: true,
      keepAliveInitialDelay: this.opts.keepAliveInitialDelayMs ?? 10_000,
    });
  }

  private query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    const conn = this.conn;
    if (!conn) return Promise.reject(new Error('not connected'));
    return new Promise<T[]>((resolve, reject) => {
      conn.query(sql, params, (err, rows) => (err ? reject(err) : resolve(rows as T[])));
    });
  }

  // ------------------------------------------------------------------------------------------------------------
  // Streaming

  private onEvent(payload: Buffer): void {
    if (this.stopped || this.failure) return;
    const now = Date.now();
    this.st.lastPacketAt = now;
    if (payload.length < EVENT_HEADER_LENGTH) {
      this.fail(new BinlogStreamError(`received a ${payload.length}-byte binlog event packet`, { retriable: true }));
      return;
    }
    const h = readEventHeader(payload);
    if (h.eventSize !== payload.length) {
      this.fail(
        new BinlogStreamError(
          `binlog event size ${h.eventSize} does not match its packet (${payload.length} bytes) at ` +
            `${this.file}:${this.pos}`,
          { retriable: true },
        ),
      );
      return;
    }
    this.st.bytesReceived += payload.length;

    if (h.typeCode === EventType.HEARTBEAT || h.typeCode === EventType.HEARTBEAT_V2) {
      this.st.heartbeatsReceived++;
      if (!this.opts.yieldHeartbeats) return;
      this.push({
        raw: Buffer.from(payload),
        file: this.file ?? '',
        position: this.pos ?? 0,
        nextPosition: this.pos ?? 0,
        typeCode: h.typeCode,
        timestamp: h.timestamp,
        flags: h.flags,
        artificial: true,
      });
      return;
    }
    this.st.eventsReceived++;
    // mysql2 hands over views of the socket's read chunks (a fresh buffer per read, or per reassembled packet) and
    // never writes into them again, so a view stays valid; but an event kept long (a TABLE_MAP in the decoder's
    // cache, a FORMAT_DESCRIPTION) must not pin a whole 64 KiB chunk: those are copied. Rows events, nearly all
    // of the bytes, are decoded and dropped in stream order, so they pin only the chunks being worked through.
    const raw = TRANSIENT_EVENTS.has(h.typeCode) ? payload : Buffer.from(payload);

    let ev: RawBinlogEvent;
    if (h.typeCode === EventType.ROTATE) {
      let body: { position: number; file: string };
      try {
        body = readRotateBody(raw, this.checksumLength);
      } catch (err) {
        this.fail(new BinlogStreamError(`unreadable ROTATE event: ${(err as Error).message}`, { retriable: true }));
        return;
      }
      const artificial = (h.flags & LOG_EVENT_ARTIFICIAL_F) !== 0 || h.timestamp === 0 || h.nextPosition === 0;
      ev = artificial
        ? { ...this.base(raw, h), file: body.file, position: body.position, nextPosition: body.position, artificial }
        : {
            ...this.base(raw, h),
            file: this.file ?? body.file,
            position: h.nextPosition - h.eventSize,
            nextPosition: h.nextPosition,
            artificial,
          };
      this.file = body.file;
      this.pos = body.position;
    } else {
      if (h.typeCode === EventType.FORMAT_DESCRIPTION) {
        const alg = readFormatDescriptionChecksumAlg(raw);
        if (alg === 0 || alg === 1) this.checksumLength = alg === 1 ? 4 : 0;
      }
      // log_pos 0: the event has no place in the file (e.g. the FORMAT_DESCRIPTION resent when resuming
      // mid-file); it does not move the position.
      const artificial = (h.flags & LOG_EVENT_ARTIFICIAL_F) !== 0;
      const next = h.nextPosition === 0 ? 0 : this.widen(h.nextPosition);
      const positioned = next !== 0 && next >= h.eventSize;
      if (positioned) {
        ev = {
          ...this.base(raw, h),
          // An artificial event (MariaDB's fake GTID_LIST when resuming by GTID) only says where to continue.
          position: artificial ? next : next - h.eventSize,
          nextPosition: next,
          artificial,
        };
        this.pos = next;
      } else {
        ev = { ...this.base(raw, h), position: this.pos ?? 0, nextPosition: this.pos ?? 0, artificial };
      }
    }
    if (!this.sessionStarted) {
      this.sessionStarted = true;
      this.clearSetupTimer();
      this.resolveReady?.();
    }
    this.push(ev);
  }

  /**
   * The header's next-event position is 32-bit: past 4 GiB in one file (a huge transaction) it wraps. Positions
   * only grow within a file, so a value far below the current one means the next 4 GiB.
   */
  private widen(next32: number): number {
    const cur = this.pos ?? 0;
    let high = cur - (cur % FOUR_GIB);
    if (high + next32 < cur - FOUR_GIB / 2) high += FOUR_GIB;
    return high + next32;
  }

  private base(raw: Buffer, h: ReturnType<typeof readEventHeader>): RawBinlogEvent {
    return {
      raw,
      file: this.file ?? '',
      position: 0,
      nextPosition: 0,
      typeCode: h.typeCode,
      timestamp: h.timestamp,
      flags: h.flags,
      artificial: false,
    };
  }

  private push(ev: RawBinlogEvent): void {
    this.queue.push(ev);
    this.st.bufferedBytes += ev.raw.length;
    const buffered = this.st.bufferedBytes;
    if (buffered > this.st.peakBufferedBytes) this.st.peakBufferedBytes = buffered;
    if (buffered > this.maxBuffered && !this.st.paused) this.pauseSocket();
    this.wake();
  }

  private pauseSocket(): void {
    const stream = this.internals?.stream;
    if (!stream) return;
    stream.pause();
    this.st.paused = true;
    this.st.pauseCount++;
  }

  private resumeSocket(): void {
    this.st.paused = false;
    // Time spent paused is ours, not the server's silence.
    this.st.lastPacketAt = Date.now();
    this.internals?.stream.resume();
  }

  private armWatchdog(): void {
    if (this.watchdogMs <= 0) return;
    const every = Math.max(50, Math.min(1000, Math.floor(this.watchdogMs / 4)));
    this.watchdog = setInterval(() => {
      if (this.st.paused || this.st.lastPacketAt === undefined) return;
      const silent = Date.now() - this.st.lastPacketAt;
      if (silent > this.watchdogMs) {
        this.fail(
          new BinlogStreamError(
            `no binlog event or heartbeat for ${silent} ms (timeout ${this.watchdogMs} ms): connection presumed dead`,
            { retriable: true },
          ),
        );
      }
    }, every);
    this.watchdog.unref();
  }

  private clearSetupTimer(): void {
    if (this.setupTimer) clearTimeout(this.setupTimer);
    this.setupTimer = undefined;
  }

  private fail(err: unknown): void {
    if (this.stopped || this.failure) return;
    const classified = classifyError(err, this.opts.start, this.opts.serverId, this.sessionInfo !== undefined);
    this.failure = classified;
    this.log.warn('binlog stream failed', {
      code: classified.code,
      retriable: classified.retriable,
      error: classified.message,
      file: this.file,
      position: this.pos,
    });
    this.rejectReady?.(classified);
    this.closeConnection();
    this.wake();
  }

  private closeConnection(): void {
    this.clearSetupTimer();
    if (this.watchdog) clearInterval(this.watchdog);
    this.watchdog = undefined;
    this.st.connected = false;
    this.st.paused = false;
    const conn = this.conn;
    if (!conn) return;
    // destroy(), not end(): COM_QUIT would queue behind the never-ending dump command.
    conn.destroy();
    this.internals?.stream.destroy();
  }
}
