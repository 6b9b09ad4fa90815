/**
 * `cdc check` for the Vitess source: what can be probed through VTGate's own API with the connector's credentials.
 * - vtgate.reachable: an Execute call (`SHOW KEYSPACES`) answers within connect.timeout.ms.
 * - vtgate.credentials: VTGate accepts database.user/database.password (static gRPC auth).
 * - keyspace.exists / shards.exist: vitess.keyspace is listed, and every vitess.shard is one of its shards.
 * - tablets.serving: each streamed shard has a SERVING tablet of vitess.tablet.type (`SHOW VITESS_TABLETS`).
 * - vstream.allowed: a VStream from the current position opens and sends its first event (this is the permission
 *   that matters: VTGate's table ACLs and the tablet's vreplication user are only visible this way).
 */
import { errorMessage } from '../../common/errors.js';
import type { CdcConfig, VitessConfig } from '../../config/types.js';
import { queryResultRows, type VtgateClient } from './vtgate-client.js';

export type VitessCheckStatus = 'pass' | 'warn' | 'fail';

export interface VitessCheck {
  id: string;
  status: VitessCheckStatus;
  message: string;
  fix?: string;
}

export interface VitessCheckReport {
  ok: boolean;
  target: string;
  checks: VitessCheck[];
}

const UNAUTHENTICATED = 16;
const PERMISSION_DENIED = 7;

function grpcCode(err: unknown): number | undefined {
  return (err as { code?: number }).code;
}

/** VTGate names PRIMARY as MASTER in older releases; both mean tablet type 1. */
function sameTabletType(a: string, b: string): boolean {
  const norm = (t: string) => (t.toUpperCase() === 'MASTER' ? 'PRIMARY' : t.toUpperCase());
  return norm(a) === norm(b);
}

export async function runVitessCheck(config: CdcConfig, client: VtgateClient): Promise<VitessCheckReport> {
  const v = config.vitess as VitessConfig;
  const timeoutMs = config.database.connectTimeoutMs;
  const checks: VitessCheck[] = [];
  const report = (): VitessCheckReport => ({
    ok: !checks.some((c) => c.status === 'fail'),
    target: client.target,
    checks,
  });
  const add = (c: VitessCheck) => checks.push(c);

  const show = async (sql: string) => {
    const res = await client.execute(sql, timeoutMs);
    if (res.error?.message) throw new Error(`VTGate refused ${sql}: ${res.error.message}`);
    return queryResultRows(res.result);
  };

  let keyspaces: (string | null)[][];
  try {
    keyspaces = await show('SHOW KEYSPACES');
  } catch (err) {
    const code = grpcCode(err);
    if (code === UNAUTHENTICATED || code === PERMISSION_DENIED) {
      add({ id: 'vtgate.reachable', status: 'pass', message: `VTGate at ${client.target} answers gRPC` });
      add({
        id: 'vtgate.credentials',
        status: 'fail',
        message: `VTGate refused the credentials of ${config.database.user || '(no user)'}: ${errorMessage(err)}`,
        fix: "set database.user/database.password to a user of VTGate's static gRPC auth (-grpc_auth_static_password_file)",
      });
      return report();
    }
    add({
      id: 'vtgate.reachable',
      status: 'fail',
      message: `VTGate at ${client.target} did not answer: ${errorMessage(err)}`,
      fix: "set database.hostname/database.port to VTGate's gRPC address (-grpc_port, 15991 by default), and vitess.grpc.tls.* if it requires TLS",
    });
    return report();
  }
  add({ id: 'vtgate.reachable', status: 'pass', message: `VTGate at ${client.target} answers gRPC` });
  add({ id: 'vtgate.credentials', status: 'pass', message: 'VTGate accepts the configured credentials' });

  const names = keyspaces.map((r) => r[0] ?? '');
  if (!names.includes(v.keyspace)) {
    add({
      id: 'keyspace.exists',
      status: 'fail',
      message: `keyspace '${v.keyspace}' is not served by this VTGate (it serves: ${names.join(', ') || 'none'})`,
      fix: 'set vitess.keyspace to one of the keyspaces above',
    });
    return report();
  }
  add({ id: 'keyspace.exists', status: 'pass', message: `keyspace '${v.keyspace}' exists` });

  let shards: string[] = [];
  try {
    shards = (await show('SHOW VITESS_SHARDS'))
      .map((r) => r[0] ?? '')
      .filter((s) => s.startsWith(`${v.keyspace}/`))
      .map((s) => s.slice(v.keyspace.length + 1));
  } catch (err) {
    add({ id: 'shards.exist', status: 'warn', message: `cannot list shards: ${errorMessage(err)}` });
  }
  const wanted = v.shards ?? shards;
  if (shards.length > 0) {
    const unknown = wanted.filter((s) => !shards.includes(s));
    add(
      unknown.length > 0
        ? {
            id: 'shards.exist',
            status: 'fail',
            message: `vitess.shard names shard(s) ${unknown.join(', ')} that keyspace '${v.keyspace}' does not have (it has ${shards.join(', ')})`,
            fix: 'set vitess.shard to a subset of the shards above, or remove it to stream every shard',
          }
        : { id: 'shards.exist', status: 'pass', message: `streaming shard(s) ${wanted.join(', ')}` },
    );
  }

  try {
    const rows = await show('SHOW VITESS_TABLETS');
    // Columns: Cell, Keyspace, Shard, TabletType, State, Alias, Hostname, PrimaryTermStartTime.
    const serving = new Set(
      rows
        .filter((r) => r[1] === v.keyspace && sameTabletType(r[3] ?? '', v.tabletType) && r[4] === 'SERVING')
        .map((r) => r[2] ?? ''),
    );
    const missing = wanted.filter((s) => !serving.has(s));
    add(
      missing.length > 0
        ? {
            id: 'tablets.serving',
            status: 'fail',
            message: `no SERVING ${v.tabletType} tablet for shard(s) ${missing.join(', ')} of '${v.keyspace}'`,
            fix: `start a ${v.tabletType} tablet for those shards, or set vitess.tablet.type to a type that is serving (MASTER, REPLICA, RDONLY)`,
          }
        : {
            id: 'tablets.serving',
            status: 'pass',
            message: `a SERVING ${v.tabletType} tablet for every streamed shard`,
          },
    );
  } catch (err) {
    add({ id: 'tablets.serving', status: 'warn', message: `cannot list tablets: ${errorMessage(err)}` });
  }

  add(await probeVStream(client, v, timeoutMs));
  return report();
}

/** Opens a VStream from "current" and waits for its first response. */
async function probeVStream(client: VtgateClient, v: VitessConfig, timeoutMs: number): Promise<VitessCheck> {
  const call = client.vstream({
    tablet_type: v.tabletType,
    vgtid: {
      shard_gtids: (v.shards ?? ['']).map((shard) => ({ keyspace: v.keyspace, shard, gtid: 'current' })),
    },
    filter: { rules: [{ match: '/.*', filter: '' }] },
    flags: {},
  });
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no VStream event within ${timeoutMs} ms`)), timeoutMs);
      call.once('data', () => {
        clearTimeout(timer);
        resolve();
      });
      call.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      call.once('end', () => {
        clearTimeout(timer);
        reject(new Error('VTGate ended the VStream without an event'));
      });
    });
    return {
      id: 'vstream.allowed',
      status: 'pass',
      message: `VStream of '${v.keyspace}' opens from the current position`,
    };
  } catch (err) {
    const code = grpcCode(err);
    return {
      id: 'vstream.allowed',
      status: 'fail',
      message: `VStream of '${v.keyspace}' failed: ${errorMessage(err)}`,
      fix:
        code === PERMISSION_DENIED || code === UNAUTHENTICATED
          ? "grant the user VStream access in VTGate's table ACL / static auth configuration"
          : 'check the VTGate and vttablet logs; VStream needs binlogs (log_bin, binlog_format=ROW, binlog_row_image=FULL) on the tablets',
    };
  } finally {
    call.removeAllListeners('data');
    call.on('error', () => {});
    call.cancel();
  }
}

const MARK: Record<VitessCheckStatus, string> = { pass: 'PASS', warn: 'WARN', fail: 'FAIL' };

export function formatVitessCheckReport(r: VitessCheckReport, v: VitessConfig): string {
  const lines = [`VTGate: ${r.target} (keyspace ${v.keyspace}, tablet type ${v.tabletType})`];
  for (const c of r.checks) {
    lines.push(`[${MARK[c.status]}] ${c.id}: ${c.message}`);
    if (c.fix && c.status !== 'pass') lines.push(`       fix: ${c.fix}`);
  }
  const n = (st: VitessCheckStatus) => r.checks.filter((c) => c.status === st).length;
  lines.push(`${r.ok ? 'OK' : 'NOT READY'}: ${n('pass')} passed, ${n('warn')} warnings, ${n('fail')} failures`);
  return lines.join('\n');
}
