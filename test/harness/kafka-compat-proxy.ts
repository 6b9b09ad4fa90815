/**
 * A protocol-version adapter between modern Kafka clients and librdkafka 2.0's mock cluster (Debian 12's
 * librdkafka-dev). The mock speaks the real protocol but old versions of two APIs that @platformatic/kafka cannot
 * go below (it needs Kafka 2.4+): it answers ApiVersions v3 with a malformed body (array count not +1, no tagged
 * fields) and serves Metadata v0-v2 only, while the client needs v9+. One proxy listener per mock broker:
 *
 * - ApiVersions v3 requests go upstream as v2; the v2 answer comes back re-encoded as v3, advertising Metadata v9.
 * - Metadata v9 requests go upstream as v2; the answer comes back as v9 with every broker address replaced by its
 *   proxy listener, so all later connections also pass through here.
 * - Everything else (Produce v7, InitProducerId, ...) is forwarded byte for byte, so the mock's error injection
 *   and acknowledgement semantics reach the client unchanged.
 *
 * Test-only code; it never touches the payloads of produce requests.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

const API_VERSIONS = 18;
const METADATA = 3;
const METADATA_VERSION = 9;

export interface CompatProxy {
  /** `host:port` of every proxy listener, in upstream order. */
  addresses: string[];
  close(): Promise<void>;
}

export async function startCompatProxy(upstreams: string[]): Promise<CompatProxy> {
  const servers: Server[] = [];
  const sockets = new Set<Socket>();
  const portMap = new Map<number, number>();
  for (const _ of upstreams) {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    servers.push(server);
  }
  upstreams.forEach((up, i) => {
    const [host, port] = splitHostPort(up);
    const address = servers[i].address();
    if (typeof address !== 'object' || address === null) throw new Error('proxy listener has no address');
    portMap.set(port, address.port);
    servers[i].on('connection', (client) => {
      const upstream = connect(port, host);
      sockets.add(client);
      sockets.add(upstream);
      const pending = new Map<number, { apiKey: number; version: number }>();
      const close = () => {
        client.destroy();
        upstream.destroy();
        sockets.delete(client);
        sockets.delete(upstream);
      };
      client.on('error', close).on('close', close);
      upstream.on('error', close).on('close', close);
      framer(client, (frame) => upstream.write(withLength(translateRequest(frame, pending))));
      framer(upstream, (frame) => client.write(withLength(translateResponse(frame, pending, portMap))));
    });
  });
  return {
    addresses: servers.map((s) => {
      const a = s.address();
      return typeof a === 'object' && a ? `127.0.0.1:${a.port}` : '';
    }),
    async close() {
      for (const s of sockets) s.destroy();
      await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
    },
  };
}

function splitHostPort(hp: string): [string, number] {
  const i = hp.lastIndexOf(':');
  return [hp.slice(0, i), Number(hp.slice(i + 1))];
}

/** Calls `onFrame` with each size-delimited Kafka frame (without its 4-byte length). */
function framer(socket: Socket, onFrame: (frame: Buffer) => void): void {
  let buf: Buffer = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
    while (buf.length >= 4) {
      const size = buf.readInt32BE(0);
      if (buf.length < 4 + size) break;
      onFrame(buf.subarray(4, 4 + size));
      buf = buf.subarray(4 + size);
    }
  });
}

function withLength(frame: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeInt32BE(frame.length);
  return Buffer.concat([len, frame]);
}

class Reader {
  constructor(
    private readonly b: Buffer,
    public pos = 0,
  ) {}
  i8() {
    return this.b.readInt8(this.pos++);
  }
  i16() {
    const v = this.b.readInt16BE(this.pos);
    this.pos += 2;
    return v;
  }
  i32() {
    const v = this.b.readInt32BE(this.pos);
    this.pos += 4;
    return v;
  }
  uvarint() {
    let v = 0;
    let shift = 0;
    for (;;) {
      const byte = this.b[this.pos++];
      v |= (byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return v >>> 0;
      shift += 7;
    }
  }
  bytes(n: number) {
    const v = this.b.subarray(this.pos, this.pos + n);
    this.pos += n;
    return v;
  }
  /** INT16-length string, null for -1. */
  str16(): string | null {
    const n = this.i16();
    return n < 0 ? null : this.bytes(n).toString('utf8');
  }
  /** COMPACT_NULLABLE_STRING. */
  compactStr(): string | null {
    const n = this.uvarint();
    return n === 0 ? null : this.bytes(n - 1).toString('utf8');
  }
  skipTags() {
    const n = this.uvarint();
    for (let i = 0; i < n; i++) {
      this.uvarint();
      this.bytes(this.uvarint());
    }
  }
}

class Writer {
  private readonly parts: Buffer[] = [];
  i8(v: number) {
    const b = Buffer.alloc(1);
    b.writeInt8(v);
    return this.push(b);
  }
  i16(v: number) {
    const b = Buffer.alloc(2);
    b.writeInt16BE(v);
    return this.push(b);
  }
  i32(v: number) {
    const b = Buffer.alloc(4);
    b.writeInt32BE(v);
    return this.push(b);
  }
  uvarint(v: number) {
    const out: number[] = [];
    let x = v >>> 0;
    while (x > 0x7f) {
      out.push((x & 0x7f) | 0x80);
      x >>>= 7;
    }
    out.push(x);
    return this.push(Buffer.from(out));
  }
  str16(s: string | null) {
    if (s === null) return this.i16(-1);
    const b = Buffer.from(s, 'utf8');
    return this.i16(b.length).push(b);
  }
  compactStr(s: string | null) {
    if (s === null) return this.uvarint(0);
    const b = Buffer.from(s, 'utf8');
    return this.uvarint(b.length + 1).push(b);
  }
  push(b: Buffer) {
    this.parts.push(b);
    return this;
  }
  build() {
    return Buffer.concat(this.parts);
  }
}

function translateRequest(frame: Buffer, pending: Map<number, { apiKey: number; version: number }>): Buffer {
  const r = new Reader(frame);
  const apiKey = r.i16();
  const version = r.i16();
  const correlationId = r.i32();
  pending.set(correlationId, { apiKey, version });
  if (apiKey === API_VERSIONS && version >= 3) {
    const clientId = r.str16();
    return new Writer().i16(API_VERSIONS).i16(2).i32(correlationId).str16(clientId).build();
  }
  if (apiKey === METADATA && version === METADATA_VERSION) {
    const clientId = r.str16();
    r.skipTags();
    const n = r.uvarint();
    const topics: string[] | null = n === 0 ? null : [];
    for (let i = 0; i < n - 1; i++) {
      topics?.push(r.compactStr() ?? '');
      r.skipTags();
    }
    const w = new Writer().i16(METADATA).i16(2).i32(correlationId).str16(clientId);
    if (topics === null) w.i32(-1);
    else {
      w.i32(topics.length);
      for (const t of topics) w.str16(t);
    }
    return w.build();
  }
  return frame;
}

function translateResponse(
  frame: Buffer,
  pending: Map<number, { apiKey: number; version: number }>,
  portMap: Map<number, number>,
): Buffer {
  const r = new Reader(frame);
  const correlationId = r.i32();
  const req = pending.get(correlationId);
  pending.delete(correlationId);
  if (!req) return frame;
  if (req.apiKey === API_VERSIONS && req.version >= 3) {
    const errorCode = r.i16();
    const n = r.i32();
    const w = new Writer()
      .i32(correlationId)
      .i16(errorCode)
      .uvarint(Math.max(n, 0) + 1);
    for (let i = 0; i < n; i++) {
      const key = r.i16();
      let min = r.i16();
      let max = r.i16();
      if (key === METADATA) {
        min = 0;
        max = METADATA_VERSION;
      }
      if (key === API_VERSIONS) max = Math.max(max, 3);
      w.i16(key).i16(min).i16(max).uvarint(0);
    }
    const throttle = r.pos + 4 <= frame.length ? r.i32() : 0;
    return w.i32(throttle).uvarint(0).build();
  }
  if (req.apiKey === METADATA && req.version === METADATA_VERSION) {
    // v2 response in, v9 response out (header v1: correlation id + tagged fields).
    const w = new Writer().i32(correlationId).uvarint(0).i32(0);
    const brokers = r.i32();
    w.uvarint(brokers + 1);
    for (let i = 0; i < brokers; i++) {
      const nodeId = r.i32();
      const host = r.str16();
      const port = r.i32();
      const rack = r.str16();
      w.i32(nodeId)
        .compactStr(host)
        .i32(portMap.get(port) ?? port)
        .compactStr(rack)
        .uvarint(0);
    }
    w.compactStr(r.str16()); // cluster id
    w.i32(r.i32()); // controller id
    const topics = r.i32();
    w.uvarint(Math.max(topics, 0) + 1);
    for (let t = 0; t < topics; t++) {
      w.i16(r.i16()); // error code
      w.compactStr(r.str16()); // name
      w.i8(r.i8()); // is_internal
      const partitions = r.i32();
      w.uvarint(Math.max(partitions, 0) + 1);
      for (let p = 0; p < partitions; p++) {
        w.i16(r.i16()).i32(r.i32()).i32(r.i32()).i32(-1); // error, index, leader, leader epoch unknown
        for (let list = 0; list < 2; list++) {
          const m = r.i32();
          w.uvarint(Math.max(m, 0) + 1);
          for (let k = 0; k < m; k++) w.i32(r.i32());
        }
        w.uvarint(1).uvarint(0); // no offline replicas; tags
      }
      w.i32(-2147483648).uvarint(0); // topic authorized operations unknown; tags
    }
    return w.i32(-2147483648).uvarint(0).build();
  }
  return frame;
}
