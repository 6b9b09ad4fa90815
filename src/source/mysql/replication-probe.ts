/**
 * `cdc check`'s proof of REPLICATION SLAVE: a real COM_REGISTER_SLAVE + COM_BINLOG_DUMP at the current position,
 * stopped after the server's first event. It registers under a random server id far from usual ones, so a running
 * capture (or replica) with database.server.id is not disconnected by it.
 */
import type { Connection as PromiseConnection } from 'mysql2/promise';
import { BinlogReplicationClient, callbackConnection } from './binlog/replication/index.js';
import { readBinlogStatus } from './binlog-status.js';

export function replicationProbe(connect: () => Promise<PromiseConnection>): () => Promise<void> {
  return async () => {
    const conn = await connect();
    let status: Awaited<ReturnType<typeof readBinlogStatus>>;
    try {
      status = await readBinlogStatus(conn);
    } finally {
      await conn.end().catch(() => {});
    }
    if (!status) throw new Error('binary logging is off: there is no binlog to stream');
    const client = new BinlogReplicationClient({
      connection: callbackConnection(connect),
      serverId: 4_000_000_000 + Math.floor(Math.random() * 200_000_000),
      start: { file: status.file, pos: status.pos },
      heartbeatIntervalMs: 0,
      setupTimeoutMs: 15_000,
    });
    try {
      await client.start();
    } finally {
      await client.stop();
    }
  };
}
