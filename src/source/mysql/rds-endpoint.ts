/**
 * RDS Proxy endpoints (`<name>.proxy-<id>.<region>.rds.amazonaws.com`) pool SQL sessions and cannot carry a
 * replication connection (COM_REGISTER_SLAVE / COM_BINLOG_DUMP). Found at start-up, not after the snapshot.
 */
import { CdcError } from '../../common/errors.js';

const RDS_PROXY_HOST = /\.proxy-[a-z0-9]+\.[a-z0-9-]+\.rds\.amazonaws\.com(\.cn)?\.?$/i;

export const RDS_PROXY_FIX =
  "Set database.hostname to the cluster's writer endpoint (<cluster>.cluster-<id>.<region>.rds.amazonaws.com) or " +
  'the instance endpoint: binlog replication cannot go through RDS Proxy (the proxy can stay in front of the applications)';

export function isRdsProxyHost(hostname: string): boolean {
  return RDS_PROXY_HOST.test(hostname.trim());
}

/** Throws the start-up error for an RDS Proxy endpoint. */
export function assertNotRdsProxy(hostname: string): void {
  if (!isRdsProxyHost(hostname)) return;
  throw new CdcError(
    'CONFIG_INVALID',
    `database.hostname ${hostname} is an RDS Proxy endpoint, which cannot stream the binlog. ${RDS_PROXY_FIX}.`,
  );
}
