import { parseArgs } from 'node:util';
import { errorMessage } from '../../common/errors.js';
import { silentLogger } from '../../common/logger.js';
import type { CdcConfig } from '../../config/types.js';
import { readBinlogStatus } from '../../source/mysql/binlog-status.js';
import { createConnectionFactory } from '../../source/mysql/connection-factory.js';
import { formatPreflightReport, runPreflight } from '../../source/mysql/preflight.js';
import { replicationProbe } from '../../source/mysql/replication-probe.js';
import { RunwayMonitor } from '../../source/mysql/retention/runway-monitor.js';
import { FileOffsetStore } from '../../stores/file/file-offset-store.js';
import type { OffsetStore } from '../../stores/offset-store.js';
import { CONFIG_OPTIONS, CONFIG_USAGE, loadCliConfig } from '../config-loader.js';
import { type CliIo, type Command, ExitCode, wantsHelp } from '../io.js';
import { outputFormatChecks } from '../output-format-checks.js';
import { stateLocationChecks } from '../state-location.js';

const usage = `usage: cdc check --config <file> [--set key=value]...

Connects to the source database and runs every pre-flight check: binlog on, binlog_format=ROW,
binlog_row_image=FULL, binlog_row_metadata, GTID mode, binlog retention (incl. Aurora/RDS), the user's
privileges and server id clashes. Prints every problem with its fix. For the Vitess connector: VTGate
reachable, credentials accepted, keyspace and shards exist, a serving tablet of vitess.tablet.type per shard,
and a VStream opens.

${CONFIG_USAGE}

Exit codes: 0 all checks pass (warnings allowed), 2 bad configuration, 3 at least one fatal problem,
1 the database could not be reached.
`;

export const checkCommand: Command = {
  name: 'check',
  usage,
  async run(argv, io) {
    if (wantsHelp(argv)) {
      io.stdout.write(usage);
      return ExitCode.OK;
    }
    const { values } = parseArgs({ args: argv, options: CONFIG_OPTIONS, strict: true });
    const config = await loadCliConfig(values, io);
    if (!config) return ExitCode.USAGE;
    if (config.vitess) return checkVitess(config, io);
    let connect: ReturnType<typeof createConnectionFactory>;
    let conn: Awaited<ReturnType<typeof connect>>;
    try {
      // The capture's own connection path: IAM tokens (mysql_clear_password), rotated secrets.
      connect = createConnectionFactory({ config, logger: silentLogger });
      conn = await connect();
    } catch (err) {
      io.stderr.write(`cdc check: ${errorMessage(err)}\n`);
      // Unreachable or refused (wrong password, TLS): 1, as check --help and docs/cli.md say; 3 is for findings.
      return ExitCode.FAILURE;
    }
    try {
      const report = await runPreflight(conn, {
        serverId: config.database.serverId,
        hostname: config.database.hostname,
        replicationProbe: replicationProbe(connect),
        snapshotLockingMode: config.snapshot.lockingMode,
        runway: async () => {
          const stored = await storedOffsetFile(config);
          const file = stored ?? (await readBinlogStatus(conn))?.file;
          if (!file) throw new Error('binary logging is off');
          const measurement = await new RunwayMonitor({ connect }).measure(file);
          return { measurement, of: stored ? 'stored offset' : 'current position' };
        },
      });
      report.checks.push(...outputFormatChecks(config), ...stateLocationChecks(config)); // warnings: never fail
      io.stdout.write(`${formatPreflightReport(report)}\n`);
      return report.ok ? ExitCode.OK : ExitCode.CHECK_FAILED;
    } finally {
      await conn.end().catch(() => {});
    }
  },
};

/** The stored offset's binlog file, when the offset store can be read (it may not exist yet, or be out of reach). */
async function storedOffsetFile(config: CdcConfig): Promise<string | null> {
  const o = config.offsets;
  let store: OffsetStore | undefined;
  try {
    // The DynamoDB SDK is loaded only for a DynamoDB offset store.
    store =
      o.type === 'file'
        ? new FileOffsetStore({ path: o.filename, connectorName: config.name })
        : new (await import('../../stores/dynamodb/dynamodb-offset-store.js')).DynamoDbOffsetStore({
            tableName: o.table,
            connectorName: config.name,
            clientConfig: {
              ...(o.region ? { region: o.region } : {}),
              ...(o.endpoint ? { endpoint: o.endpoint } : {}),
            },
            createTables: false,
          });
    const offset = await store.load();
    return offset && offset.file !== 'vitess' ? offset.file : null;
  } catch {
    return null;
  } finally {
    await store?.close().catch(() => {});
  }
}

/** The Vitess connector's checks, through VTGate's gRPC API (docs/vitess.md). */
async function checkVitess(config: CdcConfig, io: CliIo): Promise<number> {
  // gRPC and the VTGate protos are loaded only for a Vitess connector.
  const [{ formatVitessCheckReport, runVitessCheck }, { vtgateClientOptions }, { VtgateClient }] = await Promise.all([
    import('../../source/vitess/vitess-check.js'),
    import('../../source/vitess/vitess-source.js'),
    import('../../source/vitess/vtgate-client.js'),
  ]);
  const client = new VtgateClient(vtgateClientOptions(config));
  try {
    const report = await runVitessCheck(config, client);
    io.stdout.write(`${formatVitessCheckReport(report, config.vitess as NonNullable<CdcConfig['vitess']>)}\n`);
    return report.ok ? ExitCode.OK : ExitCode.CHECK_FAILED;
  } finally {
    client.close();
  }
}
