/**
 * A small MySQL 8.0 / 8.4 / 9.x server for tests, speaking the real client/server protocol over TCP: handshake
 * (optionally switching to mysql_clear_password, as RDS IAM does), COM_QUERY answered from recorded result sets
 * (column names, types and flags as the MySQL reference manual documents them), COM_REGISTER_SLAVE, and
 * COM_BINLOG_DUMP / COM_BINLOG_DUMP_GTID serving the events of a real MySQL binlog file (../shared/fixtures/binlog).
 * No MySQL 8/9 server package is installable here; this exercises the MySQL-only paths of our code over the wire.
 *
 * What it is not: an SQL engine. Statements without a recording are answered with error 1105 naming the
 * statement, so a test fails loudly when the code sends something new.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { basename } from 'node:path';
import { TLSSocket } from 'node:tls';
import { crc32 } from 'node:zlib';

/** MySQL column type codes (include/field_types.h) used by the recordings. */
export const ColumnType = { LONGLONG: 8, VAR_STRING: 253, JSON: 245 } as const;
const NOT_NULL = 1;
const UNSIGNED = 32;
const BINARY_CHARSET = 63;
const UTF8MB4 = 255;

export interface Column {
  name: string;
  type: number;
  flags?: number;
}
export interface ResultSet {
  columns: Column[];
  rows: Array<Array<string | number | null>>;
}
export interface SqlErrorReply {
  errno: number;
  sqlState: string;
  message: string;
}
export type Reply = ResultSet | SqlErrorReply | 'ok';
export type Recording = (sql: string, peer: MySqlPeer) => Reply | undefined;

export interface MySqlPeerOptions {
  /** VERSION(), e.g. '8.0.36', '8.4.3', '9.1.0'. */
  version?: string;
  serverUuid?: string;
  serverId?: number;
  gtidMode?: 'ON' | 'OFF';
  /** @@gtid_purged. */
  gtidPurged?: string;
  /** @@innodb_read_only (an Aurora reader). */
  readOnly?: boolean;
  /** Answer the handshake response with an auth switch to this plugin (RDS IAM: mysql_clear_password). */
  authSwitchTo?: 'mysql_clear_password';
  /** The binlog file served by COM_BINLOG_DUMP(_GTID); its base name is the file name the server reports. */
  binlogFile?: string;
  /** Error returned to the binlog dump instead of events (e.g. 1236 "binary log is not open"). */
  dumpError?: SqlErrorReply;
  /** Extra recordings, tried before the built-in ones. */
  recordings?: Recording[];
  /** performance_schema.log_status: readable (BACKUP_ADMIN granted, default), denied, or absent (< 8.0.17). */
  logStatus?: 'granted' | 'denied' | 'absent';
  /** Percona Server: SHOW STATUS has Binlog_snapshot_file/position/gtid_executed inside a snapshot transaction. */
  percona?: boolean;
  /** Offer TLS (CLIENT_SSL) with this certificate; RDS always does. */
  tls?: { cert: string; key: string };
}

/** The MySQL 8.0 `@@` variables the code reads, with their column types. */
function variables(
  o: Required<Pick<MySqlPeerOptions, 'version' | 'serverUuid' | 'serverId' | 'gtidMode'>> & MySqlPeerOptions,
) {
  const v = new Map<string, string | number>([
    ['version', o.version],
    ['version_comment', 'MySQL Community Server - GPL'],
    ['server_id', o.serverId],
    ['server_uuid', o.serverUuid],
    ['gtid_mode', o.gtidMode],
    ['enforce_gtid_consistency', o.gtidMode],
    ['gtid_purged', o.gtidPurged ?? ''],
    ['innodb_read_only', o.readOnly ? 1 : 0],
    ['binlog_checksum', 'CRC32'],
    ['binlog_format', 'ROW'],
    ['binlog_row_image', 'FULL'],
    ['binlog_row_metadata', 'FULL'],
    ['log_bin', 1],
    ['character_set_server', 'utf8mb4'],
    ['collation_server', 'utf8mb4_0900_ai_ci'],
    ['lower_case_table_names', 0],
  ]);
  return v;
}

interface BinlogEventRef {
  at: number;
  bytes: Buffer;
  type: number;
}

const EVENT_GTID = 33;
const EVENT_ANONYMOUS_GTID = 34;
const EVENT_ROTATE = 4;
const EVENT_STOP = 3;
const EVENT_FORMAT_DESCRIPTION = 15;
const LOG_EVENT_ARTIFICIAL_F = 0x20;
const CLIENT_SSL = 0x800;

function readEvents(path: string): BinlogEventRef[] {
  const buf = readFileSync(path);
  const out: BinlogEventRef[] = [];
  let at = 4;
  while (at + 19 <= buf.length) {
    const size = buf.readUInt32LE(at + 9);
    out.push({ at, bytes: buf.subarray(at, at + size), type: buf[at + 4] });
    at += size;
  }
  return out;
}

/** `uuid:n` of a GTID_LOG_EVENT (flags 1, sid 16, gno 8). */
function gtidOf(ev: Buffer): { uuid: string; gno: bigint } {
  const hex = ev.subarray(20, 36).toString('hex');
  const uuid = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  return { uuid, gno: ev.readBigUInt64LE(36) };
}

/** Decodes COM_BINLOG_DUMP_GTID's SID block (untagged format) into uuid → [start, end) intervals. */
function decodeSidBlock(data: Buffer): Map<string, Array<[bigint, bigint]>> {
  const out = new Map<string, Array<[bigint, bigint]>>();
  if (data.length < 8) return out;
  const n = Number(data.readBigUInt64LE(0) & 0xffffffffn);
  let off = 8;
  for (let i = 0; i < n; i++) {
    const hex = data.subarray(off, off + 16).toString('hex');
    off += 16;
    const uuid = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    const k = Number(data.readBigUInt64LE(off));
    off += 8;
    const ivs: Array<[bigint, bigint]> = [];
    for (let j = 0; j < k; j++) {
      ivs.push([data.readBigUInt64LE(off), data.readBigUInt64LE(off + 8)]);
      off += 16;
    }
    out.set(uuid, ivs);
  }
  return out;
}

class Writer {
  private readonly parts: Buffer[] = [];
  u8(v: number) {
    this.parts.push(Buffer.from([v & 0xff]));
    return this;
  }
  u16(v: number) {
    const b = Buffer.alloc(2);
    b.writeUInt16LE(v);
    this.parts.push(b);
    return this;
  }
  u32(v: number) {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v >>> 0);
    this.parts.push(b);
    return this;
  }
  bytes(b: Buffer | string) {
    this.parts.push(typeof b === 'string' ? Buffer.from(b, 'utf8') : b);
    return this;
  }
  lenenc(n: number) {
    if (n < 251) return this.u8(n);
    if (n < 0x10000) return this.u8(0xfc).u16(n);
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(n));
    return this.u8(0xfe).bytes(b);
  }
  str(s: string) {
    const b = Buffer.from(s, 'utf8');
    return this.lenenc(b.length).bytes(b);
  }
  done(): Buffer {
    return Buffer.concat(this.parts);
  }
}

export class MySqlPeer {
  readonly host = '127.0.0.1';
  port = 0;
  /** Every statement received, in order (all connections). */
  readonly statements: string[] = [];
  /** Passwords received through mysql_clear_password. */
  readonly clearPasswords: string[] = [];
  /** GTID sets / positions asked for by binlog dumps. */
  readonly dumps: Array<{ file: string; pos: number } | { gtids: string }> = [];
  readonly vars: Map<string, string | number>;
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly events: BinlogEventRef[];
  private connections = 0;
  /** Connections that upgraded to TLS. */
  tlsConnections = 0;
  private readonly checksum: boolean;

  constructor(readonly options: MySqlPeerOptions = {}) {
    const o = {
      version: '8.4.3',
      serverUuid: '3e11fa47-71ca-11e1-9e33-c80aa9429562',
      serverId: 1,
      gtidMode: 'ON' as const,
      ...options,
    };
    this.vars = variables(o);
    this.events = o.binlogFile ? readEvents(o.binlogFile) : [];
    // The FORMAT_DESCRIPTION's last byte before its own CRC says whether events carry one (1 = CRC32).
    const fd = this.events.find((e) => e.type === EVENT_FORMAT_DESCRIPTION);
    this.checksum = fd ? fd.bytes[fd.bytes.length - 5] === 1 : true;
    this.vars.set('binlog_checksum', this.checksum ? 'CRC32' : 'NONE');
    this.vars.set('gtid_executed', o.gtidMode === 'ON' ? this.executedGtids : '');
    this.server = createServer((s) => this.accept(s));
  }

  get binlogName(): string {
    return this.options.binlogFile ? basename(this.options.binlogFile) : 'binlog.000001';
  }

  /** End position of the served file: what SHOW BINARY LOG STATUS reports. */
  get binlogEnd(): number {
    const last = this.events.filter((e) => e.type !== EVENT_STOP).pop();
    return last ? last.at + last.bytes.length : 4;
  }

  /** GTID set of the transactions in the served file (what @@gtid_executed would say). */
  get executedGtids(): string {
    const byUuid = new Map<string, bigint[]>();
    for (const e of this.events) {
      if (e.type !== EVENT_GTID) continue;
      const g = gtidOf(e.bytes);
      byUuid.set(g.uuid, [...(byUuid.get(g.uuid) ?? []), g.gno]);
    }
    return [...byUuid]
      .map(([u, gnos]) => `${u}:${gnos[0]}${gnos.length > 1 ? `-${gnos[gnos.length - 1]}` : ''}`)
      .join(',');
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, this.host, resolve));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  // ---------------------------------------------------------------------------------------------------------
  // Recordings

  private answer(sql: string): Reply {
    for (const r of this.options.recordings ?? []) {
      const reply = r(sql, this);
      if (reply !== undefined) return reply;
    }
    return this.builtIn(sql);
  }

  private modern(): boolean {
    const [maj, min] = String(this.vars.get('version')).split('.').map(Number);
    return maj > 8 || (maj === 8 && min >= 2);
  }

  private builtIn(sql: string): Reply {
    const q = sql.trim().replace(/\s+/g, ' ');
    if (/^SET /i.test(q)) return 'ok';
    const status = /^SHOW (BINARY LOG|MASTER) STATUS$/i.exec(q);
    if (status) {
      const legacy = status[1].toUpperCase() === 'MASTER';
      // 8.4 removed SHOW MASTER STATUS; 8.2 added SHOW BINARY LOG STATUS (reference manual, 15.7.7.1).
      const [maj, min] = String(this.vars.get('version')).split('.').map(Number);
      const removed = maj > 8 || (maj === 8 && min >= 4);
      if ((legacy && removed) || (!legacy && !this.modern()))
        return parseError(legacy ? 'MASTER STATUS' : 'BINARY LOG STATUS');
      return {
        columns: [
          { name: 'File', type: ColumnType.VAR_STRING, flags: NOT_NULL },
          { name: 'Position', type: ColumnType.LONGLONG, flags: NOT_NULL | UNSIGNED },
          { name: 'Binlog_Do_DB', type: ColumnType.VAR_STRING, flags: NOT_NULL },
          { name: 'Binlog_Ignore_DB', type: ColumnType.VAR_STRING, flags: NOT_NULL },
          { name: 'Executed_Gtid_Set', type: ColumnType.VAR_STRING, flags: NOT_NULL },
        ],
        rows: [[this.binlogName, this.binlogEnd, '', '', this.gtidModeOn() ? this.executedGtids : '']],
      };
    }
    if (/^SHOW BINARY LOGS$/i.test(q)) {
      return {
        columns: [
          { name: 'Log_name', type: ColumnType.VAR_STRING, flags: NOT_NULL },
          { name: 'File_size', type: ColumnType.LONGLONG, flags: NOT_NULL | UNSIGNED },
          { name: 'Encrypted', type: ColumnType.VAR_STRING, flags: NOT_NULL },
        ],
        rows: [[this.binlogName, this.binlogEnd, 'No']],
      };
    }
    if (/^(START TRANSACTION WITH CONSISTENT SNAPSHOT(, READ ONLY)?|ROLLBACK|COMMIT)$/i.test(q)) return 'ok';
    if (/^SHOW STATUS LIKE 'binlog_snapshot_%'$/i.test(q)) {
      const rows: Array<[string, string | number]> = this.options.percona
        ? [
            ['Binlog_snapshot_file', this.binlogName],
            ['Binlog_snapshot_position', this.binlogEnd],
            ['Binlog_snapshot_gtid_executed', this.gtidModeOn() ? this.executedGtids : ''],
          ]
        : [];
      return {
        columns: [
          { name: 'Variable_name', type: ColumnType.VAR_STRING, flags: NOT_NULL },
          { name: 'Value', type: ColumnType.VAR_STRING },
        ],
        rows,
      };
    }
    if (/^SELECT (\*|LOCAL) FROM performance_schema\.log_status$/i.test(q)) {
      if (this.options.logStatus === 'absent') {
        return { errno: 1146, sqlState: '42S02', message: "Table 'performance_schema.log_status' doesn't exist" };
      }
      if (this.options.logStatus === 'denied') {
        return {
          errno: 1227,
          sqlState: '42000',
          message: 'Access denied; you need (at least one of) the BACKUP_ADMIN privilege(s) for this operation',
        };
      }
      const local = {
        gtid_executed: this.gtidModeOn() ? this.executedGtids : '',
        binary_log_file: this.binlogName,
        binary_log_position: this.binlogEnd,
      };
      const all: ResultSet = {
        columns: [
          { name: 'SERVER_UUID', type: ColumnType.VAR_STRING, flags: NOT_NULL },
          { name: 'LOCAL', type: ColumnType.JSON, flags: NOT_NULL },
          { name: 'REPLICATION', type: ColumnType.JSON, flags: NOT_NULL },
          { name: 'STORAGE_ENGINES', type: ColumnType.JSON, flags: NOT_NULL },
        ],
        rows: [[String(this.vars.get('server_uuid')), JSON.stringify(local), '{"channels": []}', '{}']],
      };
      if (/^SELECT LOCAL/i.test(q)) return { columns: [all.columns[1]], rows: [[all.rows[0][1]]] };
      return all;
    }
    if (/^SHOW GLOBAL VARIABLES WHERE Variable_name IN \(/i.test(q)) {
      const names = [...q.matchAll(/'([^']+)'/g)].map((m) => m[1].toLowerCase());
      return {
        columns: [
          { name: 'Variable_name', type: ColumnType.VAR_STRING, flags: NOT_NULL },
          { name: 'Value', type: ColumnType.VAR_STRING },
        ],
        rows: names.filter((n) => this.vars.has(n)).map((n) => [n, String(this.vars.get(n))]),
      };
    }
    const select = /^SELECT (.+)$/i.exec(q);
    if (select && !/\bFROM\b/i.test(q)) return this.selectExpressions(select[1]);
    return { errno: 1105, sqlState: 'HY000', message: `mysql-peer has no recording for: ${q}` };
  }

  private gtidModeOn(): boolean {
    return String(this.vars.get('gtid_mode')).toUpperCase() === 'ON';
  }

  /** `SELECT VERSION() AS v, @@global.x AS y, CONNECTION_ID() AS id, ...` over the variables. */
  private selectExpressions(list: string): Reply {
    const columns: Column[] = [];
    const row: Array<string | number | null> = [];
    for (const item of list.split(',')) {
      const m = /^\s*(.+?)(?:\s+AS\s+`?(\w+)`?)?\s*$/i.exec(item);
      if (!m) return parseError(item);
      const expr = m[1].trim();
      const name = m[2] ?? expr;
      let value: string | number | null;
      if (/^VERSION\(\)$/i.test(expr)) value = String(this.vars.get('version'));
      else if (/^CONNECTION_ID\(\)$/i.test(expr)) value = this.connections;
      else {
        const v = /^@@(?:global\.|session\.)?(\w+)$/i.exec(expr);
        if (!v) return { errno: 1105, sqlState: 'HY000', message: `mysql-peer cannot evaluate ${expr}` };
        const key = v[1].toLowerCase();
        if (!this.vars.has(key)) {
          return { errno: 1193, sqlState: 'HY000', message: `Unknown system variable '${key}'` };
        }
        value = this.vars.get(key) ?? null;
      }
      columns.push({ name, type: typeof value === 'number' ? ColumnType.LONGLONG : ColumnType.VAR_STRING });
      row.push(value);
    }
    return { columns, rows: [row] };
  }

  // ---------------------------------------------------------------------------------------------------------
  // Protocol

  private accept(raw: Socket): void {
    this.sockets.add(raw);
    raw.on('close', () => this.sockets.delete(raw));
    raw.on('error', () => {});
    const id = ++this.connections;
    let socket: Socket = raw;
    let buffered = Buffer.alloc(0);
    let phase: 'handshake' | 'auth-switch' | 'command' = 'handshake';
    const send = (seq: number, payload: Buffer) => {
      const head = Buffer.alloc(4);
      head.writeUIntLE(payload.length, 0, 3);
      head[3] = seq & 0xff;
      socket.write(Buffer.concat([head, payload]));
    };
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 4) {
        const len = buffered.readUIntLE(0, 3);
        if (buffered.length < 4 + len) break;
        const seq = buffered[3];
        const payload = buffered.subarray(4, 4 + len);
        buffered = buffered.subarray(4 + len);
        if (phase === 'handshake' && len === 32 && this.options.tls && (payload.readUInt32LE(0) & CLIENT_SSL) !== 0) {
          // SSLRequest: the rest of the conversation runs over TLS on the same socket.
          raw.removeListener('data', onData);
          raw.pause();
          if (buffered.length > 0) raw.unshift(buffered); // the TLS ClientHello may have come in the same chunk
          buffered = Buffer.alloc(0);
          const secure = new TLSSocket(raw, { isServer: true, ...this.options.tls });
          secure.on('error', () => {});
          secure.on('data', onData);
          socket = secure;
          this.tlsConnections++;
          return;
        }
        if (phase === 'handshake') {
          if (this.options.authSwitchTo) {
            phase = 'auth-switch';
            send(seq + 1, new Writer().u8(0xfe).bytes(`${this.options.authSwitchTo}\0`).bytes(Buffer.alloc(21)).done());
          } else {
            phase = 'command';
            send(seq + 1, ok());
          }
        } else if (phase === 'auth-switch') {
          this.clearPasswords.push(payload.toString('utf8').replace(/\0$/, ''));
          phase = 'command';
          send(seq + 1, ok());
        } else this.command(payload, (s, p) => send(s, p), socket);
      }
    };
    raw.on('data', onData);
    send(0, this.greeting(id));
  }

  private greeting(id: number): Buffer {
    // CLIENT_LONG_PASSWORD | LONG_FLAG | CONNECT_WITH_DB | PROTOCOL_41 | TRANSACTIONS | SECURE_CONNECTION |
    // MULTI_STATEMENTS | MULTI_RESULTS | PLUGIN_AUTH | PLUGIN_AUTH_LENENC_CLIENT_DATA (no SSL, no DEPRECATE_EOF).
    const caps =
      0x1 |
      0x4 |
      0x8 |
      0x200 |
      0x2000 |
      0x8000 |
      0x10000 |
      0x20000 |
      0x80000 |
      0x200000 |
      (this.options.tls ? CLIENT_SSL : 0);
    const scramble = Buffer.from('0123456789abcdefghij', 'latin1');
    return new Writer()
      .u8(10)
      .bytes(`${String(this.vars.get('version'))}\0`)
      .u32(id)
      .bytes(scramble.subarray(0, 8))
      .u8(0)
      .u16(caps & 0xffff)
      .u8(UTF8MB4)
      .u16(0x0002)
      .u16(caps >>> 16)
      .u8(21)
      .bytes(Buffer.alloc(10))
      .bytes(scramble.subarray(8))
      .u8(0)
      .bytes('mysql_native_password\0')
      .done();
  }

  private command(payload: Buffer, send: (seq: number, p: Buffer) => void, socket: Socket): void {
    const code = payload[0];
    if (code === 0x01) {
      socket.end();
      return;
    }
    if (code === 0x0e || code === 0x15) {
      send(1, ok()); // COM_PING, COM_REGISTER_SLAVE
      return;
    }
    if (code === 0x03) {
      const sql = payload.subarray(1).toString('utf8');
      this.statements.push(sql);
      writeReply(this.answer(sql), send);
      return;
    }
    if (code === 0x12 || code === 0x1e) {
      this.dump(code, payload, send);
      return;
    }
    send(1, err({ errno: 1047, sqlState: '08S01', message: `Unknown command ${code}` }));
  }

  private dump(code: number, payload: Buffer, send: (seq: number, p: Buffer) => void): void {
    let seq = 1;
    const emit = (event: Buffer) => send(seq++, Buffer.concat([Buffer.from([0]), event]));
    let skip: (gtid: { uuid: string; gno: bigint }) => boolean = () => false;
    let startAt = 4;
    if (code === 0x12) {
      startAt = payload.readUInt32LE(1);
      const file = payload.subarray(11).toString('utf8');
      this.dumps.push({ file, pos: startAt });
    } else {
      const nameLen = payload.readUInt32LE(7);
      const dataLen = payload.readUInt32LE(11 + nameLen + 8);
      const sids = decodeSidBlock(payload.subarray(15 + nameLen + 8, 15 + nameLen + 8 + dataLen));
      this.dumps.push({
        gtids: [...sids].map(([u, ivs]) => `${u}:${ivs.map(([a, b]) => `${a}-${b - 1n}`).join(':')}`).join(','),
      });
      skip = (g) => (sids.get(g.uuid) ?? []).some(([a, b]) => g.gno >= a && g.gno < b);
    }
    if (this.options.dumpError) {
      send(seq, err(this.options.dumpError));
      return;
    }
    emit(this.fakeRotate(code === 0x12 ? startAt : 4));
    let skipping = false;
    for (const e of this.events) {
      if (e.type === EVENT_STOP) continue;
      if (e.type === EVENT_FORMAT_DESCRIPTION) {
        // Resent with log_pos 0 when the dump starts mid-file (the replica must not take it as a position).
        emit(startAt > 4 ? withLogPos(e.bytes, 0, this.checksum) : e.bytes);
        continue;
      }
      if (e.at < startAt) continue;
      if (e.type === EVENT_GTID) skipping = skip(gtidOf(e.bytes));
      else if (e.type === EVENT_ANONYMOUS_GTID) skipping = false;
      if (!skipping) emit(e.bytes);
    }
  }

  private fakeRotate(pos: number): Buffer {
    const name = Buffer.from(this.binlogName, 'latin1');
    const size = 19 + 8 + name.length + (this.checksum ? 4 : 0);
    const ev = Buffer.alloc(size);
    ev.writeUInt32LE(0, 0);
    ev[4] = EVENT_ROTATE;
    ev.writeUInt32LE(Number(this.vars.get('server_id')), 5);
    ev.writeUInt32LE(size, 9);
    ev.writeUInt32LE(0, 13);
    ev.writeUInt16LE(LOG_EVENT_ARTIFICIAL_F, 17);
    ev.writeBigUInt64LE(BigInt(pos), 19);
    name.copy(ev, 27);
    if (this.checksum) ev.writeUInt32LE(crc32(ev.subarray(0, size - 4)), size - 4);
    return ev;
  }
}

function withLogPos(event: Buffer, logPos: number, checksum: boolean): Buffer {
  const copy = Buffer.from(event);
  copy.writeUInt32LE(logPos, 13);
  if (checksum) copy.writeUInt32LE(crc32(copy.subarray(0, copy.length - 4)), copy.length - 4);
  return copy;
}

function ok(): Buffer {
  return new Writer().u8(0).lenenc(0).lenenc(0).u16(0x0002).u16(0).done();
}

function eof(): Buffer {
  return new Writer().u8(0xfe).u16(0).u16(0x0002).done();
}

function err(e: SqlErrorReply): Buffer {
  return new Writer().u8(0xff).u16(e.errno).bytes(`#${e.sqlState}`).bytes(e.message).done();
}

function parseError(near: string): SqlErrorReply {
  return {
    errno: 1064,
    sqlState: '42000',
    message: `You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near '${near}' at line 1`,
  };
}

function writeReply(reply: Reply, send: (seq: number, p: Buffer) => void): void {
  if (reply === 'ok') {
    send(1, ok());
    return;
  }
  if ('errno' in reply) {
    send(1, err(reply));
    return;
  }
  let seq = 1;
  send(seq++, new Writer().lenenc(reply.columns.length).done());
  for (const c of reply.columns) {
    const numeric = c.type === ColumnType.LONGLONG;
    send(
      seq++,
      new Writer()
        .str('def')
        .str('')
        .str('')
        .str('')
        .str(c.name)
        .str(c.name)
        .lenenc(0x0c)
        .u16(numeric ? BINARY_CHARSET : UTF8MB4)
        .u32(numeric ? 21 : 1024)
        .u8(c.type)
        .u16((c.flags ?? 0) | (numeric ? 128 : 0))
        .u8(0)
        .u16(0)
        .done(),
    );
  }
  send(seq++, eof());
  for (const row of reply.rows) {
    const w = new Writer();
    for (const v of row) {
      if (v === null) w.u8(0xfb);
      else w.str(String(v));
    }
    send(seq++, w.done());
  }
  send(seq, eof());
}

/** Starts a peer; the caller stops it. */
export async function startMySqlPeer(options: MySqlPeerOptions = {}): Promise<MySqlPeer> {
  return new MySqlPeer(options).start();
}
