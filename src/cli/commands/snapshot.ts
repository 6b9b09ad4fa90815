import { randomUUID } from 'node:crypto';
import { appendFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { KinesisClient, PutRecordCommand } from '@aws-sdk/client-kinesis';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { errorMessage } from '../../common/errors.js';
import type { CdcConfig } from '../../config/types.js';
import { snapshotSignalJson } from '../../signals/signal.js';
import { openConnection } from '../../source/mysql/connection.js';
import { quoteTable } from '../../source/mysql/snapshot/sql.js';
import { CONFIG_OPTIONS, CONFIG_USAGE, connectionOptions, loadCliConfig } from '../config-loader.js';
import { type Command, ExitCode, wantsHelp } from '../io.js';

const usage = `usage: cdc snapshot --config <file> --tables <db.table>[,<db.table>...] [--type incremental|blocking]
                    [--channel source|file|kinesis] [--id <signal id>]

Asks the running capture task for an ad-hoc snapshot of the given tables with Debezium's 'execute-snapshot'
signal. incremental (default): the tables are read in primary-key chunks of snapshot.chunk.size while streaming
goes on, op 'r' events consistent with the stream, progress kept in the offsets (tables need a primary key).
blocking: streaming pauses, the tables are read in one consistent read view, then streaming resumes.

The signal goes through one of the capture's signal.enabled.channels (default: the first of source, file,
kinesis that is enabled): source writes a row into the signalling table (signal.data.collection: columns id,
type, data; needs a user that may insert there); file appends a JSON line to signal.file; kinesis puts a record
on signal.kinesis.stream.name. With read.only=true the capture writes nothing to the database; send through file
or kinesis, or insert the row with another user on the primary.

${CONFIG_USAGE}
  --tables <list>       comma-separated db.table names
  --type <type>         incremental (default) or blocking
  --channel <name>      source, file or kinesis (must be in signal.enabled.channels)
  --id <id>             signal id (default: a random UUID)

Exit codes: 0 signal sent, 1 the channel rejected it, 2 bad arguments/configuration.
`;

export const snapshotCommand: Command = {
  name: 'snapshot',
  usage,
  async run(argv, io) {
    if (wantsHelp(argv)) {
      io.stdout.write(usage);
      return ExitCode.OK;
    }
    const { values } = parseArgs({
      args: argv,
      options: {
        ...CONFIG_OPTIONS,
        tables: { type: 'string' },
        id: { type: 'string' },
        type: { type: 'string' },
        channel: { type: 'string' },
      },
      strict: true,
    });
    const tables = (values.tables ?? '')
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
    const bad = tables.filter((t) => !/^[^.]+\.[^.]+$/.test(t));
    if (tables.length === 0 || bad.length > 0) {
      io.stderr.write(
        `cdc snapshot: --tables needs db.table names${bad.length ? `, got '${bad.join("', '")}'` : ''}\n`,
      );
      return ExitCode.USAGE;
    }
    const kind = (values.type ?? 'incremental').toLowerCase();
    if (kind !== 'incremental' && kind !== 'blocking') {
      io.stderr.write(`cdc snapshot: --type is incremental or blocking, got '${values.type}'\n`);
      return ExitCode.USAGE;
    }
    const config = await loadCliConfig(values, io);
    if (!config) return ExitCode.USAGE;
    const enabled = config.signals.channels;
    const channel = values.channel ?? (['source', 'file', 'kinesis'] as const).find((c) => enabled.has(c)) ?? 'source';
    if (channel !== 'source' && channel !== 'file' && channel !== 'kinesis') {
      io.stderr.write(`cdc snapshot: --channel is source, file or kinesis, got '${channel}'\n`);
      return ExitCode.USAGE;
    }
    if (!enabled.has(channel)) {
      io.stderr.write(
        `cdc snapshot: the capture does not read the ${channel} channel: add it to signal.enabled.channels (now ${[...enabled].join(',')}) and restart the capture.\n`,
      );
      return ExitCode.USAGE;
    }
    const id = values.id ?? randomUUID();
    let where: string;
    try {
      where = await sendSignal(config, channel, id, tables, kind);
    } catch (err) {
      if (err instanceof UsageError) {
        io.stderr.write(`cdc snapshot: ${err.message}\n`);
        return ExitCode.USAGE;
      }
      io.stderr.write(`cdc snapshot: sending the signal through the ${channel} channel failed: ${errorMessage(err)}\n`);
      return ExitCode.FAILURE;
    }
    io.stdout.write(`snapshot requested: id=${id} type=${kind} tables=${tables.join(',')} (signal in ${where})\n`);
    return ExitCode.OK;
  },
};

class UsageError extends Error {}

/** Sends the execute-snapshot signal; returns where it went (for the confirmation line). */
async function sendSignal(
  config: CdcConfig,
  channel: 'source' | 'file' | 'kinesis',
  id: string,
  tables: string[],
  kind: 'incremental' | 'blocking',
): Promise<string> {
  if (channel === 'file') {
    const path = config.signals.file!;
    await appendFile(path, `${snapshotSignalJson(id, tables, kind)}\n`);
    return path;
  }
  if (channel === 'kinesis') {
    const k = config.signals.kinesis!;
    const client = new KinesisClient({
      ...(k.region ? { region: k.region } : {}),
      ...(k.endpoint ? { endpoint: k.endpoint } : {}),
      requestHandler: new NodeHttpHandler(),
    });
    try {
      await client.send(
        new PutRecordCommand({
          StreamName: k.streamName,
          PartitionKey: id,
          Data: Buffer.from(snapshotSignalJson(id, tables, kind)),
        }),
      );
    } finally {
      client.destroy();
    }
    return `kinesis stream ${k.streamName}`;
  }
  const signalTable = config.filters.signalDataCollection;
  if (!signalTable) {
    throw new UsageError(
      'signal.data.collection is not set. Create a signalling table ' +
        '(id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL), ' +
        'set signal.data.collection=<db>.<table> and restart the capture; or send through --channel file or kinesis.',
    );
  }
  const data = JSON.stringify({ 'data-collections': tables, type: kind });
  const dot = signalTable.indexOf('.');
  const conn = await openConnection(connectionOptions(config));
  try {
    await conn.query(
      `INSERT INTO ${quoteTable(signalTable.slice(0, dot), signalTable.slice(dot + 1))} (id, type, data) VALUES (?, 'execute-snapshot', ?)`,
      [id, data],
    );
  } finally {
    await conn.end().catch(() => {});
  }
  return signalTable;
}
