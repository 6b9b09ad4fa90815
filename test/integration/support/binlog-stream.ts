/**
 * Test glue: stream a private MariaDB's binlog through our replication client + decoder and collect what the
 * decoder made of it.
 */

import type { Row } from '../../../src/model/values.js';
import { BinlogDecoder, type BinlogEvent } from '../../../src/source/mysql/binlog/decoder.js';
import {
  BinlogReplicationClient,
  type BinlogStartPosition,
  EventType,
} from '../../../src/source/mysql/binlog/replication/index.js';
import type { MariaDbServer } from '../../harness/mariadb.js';

let nextServerId = 5000;

export interface DecodedEvent {
  file: string;
  position: number;
  nextPosition: number;
  event: BinlogEvent;
}

export async function binlogPosition(server: MariaDbServer): Promise<{ file: string; pos: number; gtid: string }> {
  const [st] = await server.query<{ File: string; Position: number }[]>('SHOW MASTER STATUS');
  const [g] = await server.query<{ g: string }[]>('SELECT @@gtid_binlog_pos AS g');
  return { file: st.File, pos: Number(st.Position), gtid: g.g };
}

/** Decoded events from `start` until `xids` transactions have committed (XID events), artificial ones left out. */
export async function decodeFrom(
  server: MariaDbServer,
  start: BinlogStartPosition,
  xids: number,
): Promise<DecodedEvent[]> {
  const client = new BinlogReplicationClient({
    connection: { host: server.host, port: server.port, user: server.admin.user, password: server.admin.password },
    serverId: nextServerId++,
    start,
  });
  await client.start();
  const decoder = new BinlogDecoder();
  decoder.setChecksum(client.session?.checksumAlgorithm === 'CRC32' ? 'CRC32' : 'NONE');
  const out: DecodedEvent[] = [];
  let seen = 0;
  if (xids <= 0) return out;
  for await (const raw of client) {
    // Decode everything (FORMAT_DESCRIPTION and TABLE_MAP state matter), keep only events that are in the file.
    const event = decoder.decode(raw.raw, raw.position);
    if (!raw.artificial && raw.nextPosition > raw.position) {
      out.push({ file: raw.file, position: raw.position, nextPosition: raw.nextPosition, event });
    }
    if (raw.typeCode === EventType.XID && ++seen >= xids) break;
  }
  return out;
}

export type RowChange =
  | { op: 'c'; table: string; after: Row }
  | { op: 'u'; table: string; before: Row; after: Row }
  | { op: 'd'; table: string; before: Row };

/** Row changes of the decoded events, in binlog order. */
export function rowChanges(events: DecodedEvent[]): RowChange[] {
  const out: RowChange[] = [];
  for (const { event } of events) {
    if (event.type === 'WRITE_ROWS')
      for (const after of event.rows) out.push({ op: 'c', table: event.table.table, after });
    else if (event.type === 'DELETE_ROWS') {
      for (const before of event.rows) out.push({ op: 'd', table: event.table.table, before });
    } else if (event.type === 'UPDATE_ROWS') {
      for (const r of event.rows) out.push({ op: 'u', table: event.table.table, before: r.before, after: r.after });
    }
  }
  return out;
}
