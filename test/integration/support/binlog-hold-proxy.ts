/**
 * A TCP relay in front of a MariaDB server that lets a reader see only the first `dumpBytes` bytes of binlog
 * stream: queries pass unchanged, but what the server sends after a binlog dump request (COM_BINLOG_DUMP, or
 * MySQL's COM_BINLOG_DUMP_GTID) of one replica server id counts against one budget shared by all its dump
 * connections (a reconnect included), and the rest is held back. A committed transaction then stays open as far as the reader can tell, however fast it is: a test that
 * kills the reader "in the middle of the transaction" needs no race between the reader's progress and the kill.
 */
import { connect, createServer, type Socket } from 'node:net';

const COM_BINLOG_DUMP = 0x12;
const COM_BINLOG_DUMP_GTID = 0x1e;

export interface BinlogHoldProxy {
  host: string;
  port: number;
  /** Bytes of binlog stream forwarded so far (all dump connections). */
  forwarded(): number;
  close(): Promise<void>;
}

/** Holds the dumps of replica `serverId` (the capture's database.server.id) after `dumpBytes` bytes in all. */
export async function startBinlogHoldProxy(
  host: string,
  port: number,
  serverId: number,
  dumpBytes: number,
): Promise<BinlogHoldProxy> {
  let budget = dumpBytes;
  let forwarded = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(port, host);
    sockets.add(client);
    sockets.add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    for (const s of [client, upstream]) {
      s.on('close', end);
      s.on('error', end);
    }
    /** A dump by `serverId`: what the server sends counts against the budget. */
    let dumping = false;
    let decided = false;
    // Client packets: 3-byte length, sequence id, payload (a command's first byte is its code, at sequence 0).
    let pending: Buffer = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      if (decided) return;
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      while (pending.length >= 5) {
        const size = pending.readUIntLE(0, 3);
        if (pending[3] === 0 && (pending[4] === COM_BINLOG_DUMP || pending[4] === COM_BINLOG_DUMP_GTID)) {
          // The replica's server id: after position and flags (COM_BINLOG_DUMP), after flags (…_GTID). Other dumps
          // (the connector's probes and monitors use ids of their own) pass unchanged.
          const at = pending[4] === COM_BINLOG_DUMP ? 11 : 7;
          decided = true;
          dumping = pending.length >= at + 4 && pending.readUInt32LE(at) === serverId;
          return;
        }
        if (pending.length < 4 + size) break;
        pending = pending.subarray(4 + size);
      }
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!dumping) {
        client.write(chunk);
        return;
      }
      const n = Math.min(budget, chunk.length);
      if (n > 0) client.write(chunk.subarray(0, n));
      budget -= n;
      forwarded += n;
      // Held: nothing more is read from the server on this connection.
      if (budget === 0) upstream.pause();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('binlog hold proxy: no TCP address');
  return {
    host: '127.0.0.1',
    port: address.port,
    forwarded: () => forwarded,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
