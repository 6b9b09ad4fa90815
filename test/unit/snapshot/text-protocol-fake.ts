/**
 * A mysql2/promise-shaped connection whose internals run a command against a scripted text-protocol reply: the
 * column count, ColumnDefinition41 packets, EOF, the rows (length-encoded cells, 0xFB for NULL) and EOF, or an ERR
 * packet after `errorAfterRows` rows. Records pause()/resume() calls, and delivers the reply in a later tick.
 */
import type { Connection } from 'mysql2/promise';
import type { Mysql2Command, Mysql2Packet } from '../../../src/source/mysql/binlog/replication/protocol.js';

export interface FakeField {
  name: string;
  columnType: number;
  /** Collation id of the values (default 224, utf8mb4; 63 is binary). */
  characterSet?: number;
}

export function lenencInt(n: number): Buffer {
  if (n < 0xfb) return Buffer.from([n]);
  if (n < 0x10000) return Buffer.from([0xfc, n & 0xff, n >> 8]);
  if (n < 0x1000000) return Buffer.from([0xfd, n & 0xff, (n >> 8) & 0xff, n >> 16]);
  const b = Buffer.alloc(9);
  b[0] = 0xfe;
  b.writeUInt32LE(n % 2 ** 32, 1);
  b.writeUInt32LE(Math.floor(n / 2 ** 32), 5);
  return b;
}

function lenencString(v: string | Buffer): Buffer {
  const b = typeof v === 'string' ? Buffer.from(v, 'utf8') : v;
  return Buffer.concat([lenencInt(b.length), b]);
}

function columnDefinition(f: FakeField): Buffer {
  const fixed = Buffer.alloc(13);
  fixed[0] = 0x0c;
  fixed.writeUInt16LE(f.characterSet ?? 224, 1);
  fixed.writeUInt32LE(255, 3);
  fixed[7] = f.columnType;
  return Buffer.concat([...['def', 'd', 't', 't', f.name, f.name].map(lenencString), fixed]);
}

const EOF = Buffer.from([0xfe, 0, 0, 0x02, 0]);

export interface FakeReply {
  fields: FakeField[];
  rows: Array<Array<string | Buffer | null>>;
  /** Send an ERR packet (errno 1412) instead of the rows after this many. */
  errorAfterRows?: number;
}

export interface FakeConnection {
  conn: Connection;
  pauses: number;
  resumes: number;
  /** SQL of each COM_QUERY sent. */
  queries: string[];
}

export function fakeTextProtocolConnection(reply: FakeReply): FakeConnection {
  const payloads: Buffer[] = [lenencInt(reply.fields.length), ...reply.fields.map(columnDefinition), EOF];
  const sent = reply.errorAfterRows === undefined ? reply.rows : reply.rows.slice(0, reply.errorAfterRows);
  for (const r of sent)
    payloads.push(Buffer.concat(r.map((c) => (c === null ? Buffer.from([0xfb]) : lenencString(c)))));
  if (reply.errorAfterRows === undefined) payloads.push(EOF);
  else
    payloads.push(Buffer.concat([Buffer.from([0xff, 0x84, 0x05]), Buffer.from('#HY000Table definition has changed')]));
  const fake: FakeConnection = { conn: undefined as unknown as Connection, pauses: 0, resumes: 0, queries: [] };
  let paused = false;
  let next = 0;
  let command: Mysql2Command | null = null;
  const packet = (payload: Buffer): Mysql2Packet => {
    const buffer = Buffer.concat([Buffer.alloc(4), payload, Buffer.from('trailing bytes of the next packet')]);
    return {
      buffer,
      start: 0,
      end: 4 + payload.length,
      numPackets: 1,
      asError: () => Object.assign(new Error('Table definition has changed'), { errno: 1412 }),
    };
  };
  const pump = () => {
    while (command && !paused && next < payloads.length) {
      if (command.execute(packet(payloads[next++]), internals)) command = null;
    }
  };
  const internals = {
    stream: { pause() {}, resume() {}, destroy() {} },
    clientEncoding: 'utf8',
    threadId: 1,
    config: { clientFlags: 0 },
    serverCapabilityFlags: 0,
    addCommand(cmd: Mysql2Command) {
      command = cmd;
      cmd.execute(undefined, internals);
      setImmediate(pump);
    },
    writePacket(p: { buffer: Buffer }) {
      fake.queries.push(p.buffer.toString('utf8', 5));
    },
    _resetSequenceId() {},
    pause() {
      fake.pauses++;
      paused = true;
    },
    resume() {
      fake.resumes++;
      paused = false;
      setImmediate(pump);
    },
  };
  fake.conn = { connection: internals } as unknown as Connection;
  return fake;
}
