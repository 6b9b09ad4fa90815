/**
 * How a stored offset is resumed on the server we are connected to (a pure decision, tested alone):
 *  - by GTID set (COM_BINLOG_DUMP_GTID; MariaDB: @slave_connect_state) when the offset carries one the server can
 *    position by: valid on any server of the replication topology, so a failover or switchover is safe;
 *  - by binlog file/position only on the server that wrote the offset (its `server_identity`), and only while
 *    the file exists and the position fits COM_BINLOG_DUMP's 32-bit field;
 *  - otherwise the position is lost, with the reason and the fix.
 */
import type { SourceOffset } from '../../model/source-offset.js';
import { MariaDbGtidSet, MysqlGtidSet, parseGtidSet } from './gtid.js';
import type { ServerIdentity } from './server-identity.js';

export type ResumePlan = { kind: 'gtid'; gtidSet: string } | { kind: 'file' } | { kind: 'lost'; reason: string };

/** COM_BINLOG_DUMP carries the start position in 4 bytes. */
export const MAX_DUMP_POSITION = 0xffffffff;

export interface ResumeFacts {
  offset: SourceOffset;
  server: ServerIdentity;
  /** SHOW BINARY LOGS lists `offset.file` (only looked at for a file/position resume). */
  fileExists: boolean;
  /** MariaDB: the GTID position at the start of the oldest binlog file (BINLOG_GTID_POS(oldest, 4)). */
  oldestGtidPos?: string | null;
}

/** Can this offset's GTID set position a dump on `server` (same flavour of set, GTIDs on)? */
export function gtidResumable(offset: SourceOffset, server: ServerIdentity): boolean {
  if (!offset.gtids || !server.gtidMode) return false;
  return parseGtidSet(offset.gtids).flavor === server.flavor;
}

export function planResume({ offset, server, fileExists, oldestGtidPos }: ResumeFacts): ResumePlan {
  if (gtidResumable(offset, server)) {
    const gtidSet = offset.gtids as string;
    if (server.flavor === 'mysql' && server.gtidPurged) {
      const missing = MysqlGtidSet.parse(server.gtidPurged).minus(MysqlGtidSet.parse(gtidSet));
      if (missing) {
        return {
          kind: 'lost',
          reason: `the server has purged transactions the connector has not read (${missing} of @@gtid_purged is not in the stored GTID set)`,
        };
      }
    }
    if (server.flavor === 'mariadb' && oldestGtidPos) {
      const purged = MariaDbGtidSet.parse(gtidSet).behind(MariaDbGtidSet.parse(oldestGtidPos));
      if (purged) {
        return {
          kind: 'lost',
          reason: `the server's oldest binlog starts at GTID position ${purged}, after the stored ${gtidSet} (purged)`,
        };
      }
    }
    return { kind: 'gtid', gtidSet };
  }
  const stored = offset.server_identity;
  if (stored !== undefined && stored !== server.key) {
    const gtidHint =
      server.flavor === 'mysql'
        ? 'enable GTIDs (gtid_mode=ON, enforce_gtid_consistency=ON) so positions carry across servers'
        : 'the stored offset has no MariaDB GTID position to resume by';
    return {
      kind: 'lost',
      reason:
        `the stored offset ${offset.file}:${offset.pos} was written on another server (${stored}; this is ${server.key}) ` +
        `and a binlog file/position means nothing on another server; ${gtidHint}`,
    };
  }
  if (!fileExists) return { kind: 'lost', reason: `binlog file ${offset.file} is no longer on the server (purged)` };
  if (offset.pos > MAX_DUMP_POSITION) {
    return {
      kind: 'lost',
      reason:
        `position ${offset.pos} in ${offset.file} is past 4 GiB, beyond COM_BINLOG_DUMP's 32-bit start position; ` +
        'only a GTID resume can start there (enable gtid_mode=ON on MySQL), and keep transactions below ' +
        'max_binlog_size so files stay under 4 GiB',
    };
  }
  return { kind: 'file' };
}

/** The fix named by every "position lost" error of a stored offset. */
export const POSITION_LOST_FIX =
  'Set snapshot.mode=when_needed to take a new snapshot automatically, or delete the stored offset (offset.storage) to start over';
