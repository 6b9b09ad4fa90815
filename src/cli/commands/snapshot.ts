import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { errorMessage } from '../../common/errors.js';
import { openConnection } from '../../source/mysql/connection.js';
import { quoteTable } from '../../source/mysql/snapshot/sql.js';
import { CONFIG_OPTIONS, CONFIG_USAGE, connectionOptions, loadCliConfig } from '../config-loader.js';
import { type Command, ExitCode, wantsHelp } from '../io.js';

const usage = `usage: cdc snapshot --config <file> --tables <db.table>[,<db.table>...] [--id <signal id>]

Asks the running capture task to take an ad-hoc (incremental, chunked, lock-free) snapshot of the given tables
while it keeps streaming. Writes Debezium's 'execute-snapshot' signal row into the signalling table
(signal.data.collection: columns id, type, data); the capture sees it in the binlog and reads the tables in
primary-key chunks of snapshot.chunk.size, emitting op 'r' events consistent with the stream. Progress is kept
in the offsets, so a restarted capture continues where it was. The tables must be captured and have a primary key.

${CONFIG_USAGE}
  --tables <list>       comma-separated db.table names
  --id <id>             signal id (default: a random UUID)

Exit codes: 0 signal written, 1 the database rejected it, 2 bad arguments/configuration.
`;

export const snapshotCommand: Command = {
  name: 'snapshot',
  summary: 'request an ad-hoc chunked snapshot of tables from the running capture',
  usage,
  async run(argv, io) {
    if (wantsHelp(argv)) {
      io.stdout.write(usage);
      return ExitCode.OK;
    }
    const { values } = parseArgs({
      args: argv,
      options: { ...CONFIG_OPTIONS, tables: { type: 'string' }, id: { type: 'string' } },
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
    const config = await loadCliConfig(values, io);
    if (!config) return ExitCode.USAGE;
    const signalTable = config.filters.signalDataCollection;
    if (!signalTable) {
      io.stderr.write(
        'cdc snapshot: signal.data.collection is not set. Create a signalling table ' +
          '(id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL), ' +
          'set signal.data.collection=<db>.<table> and restart the capture.\n',
      );
      return ExitCode.USAGE;
    }
    const id = values.id ?? randomUUID();
    const data = JSON.stringify({ 'data-collections': tables, type: 'incremental' });
    const dot = signalTable.indexOf('.');
    let conn: Awaited<ReturnType<typeof openConnection>> | undefined;
    try {
      conn = await openConnection(connectionOptions(config));
      await conn.query(
        `INSERT INTO ${quoteTable(signalTable.slice(0, dot), signalTable.slice(dot + 1))} (id, type, data) VALUES (?, 'execute-snapshot', ?)`,
        [id, data],
      );
    } catch (err) {
      io.stderr.write(`cdc snapshot: writing the signal to ${signalTable} failed: ${errorMessage(err)}\n`);
      return ExitCode.FAILURE;
    } finally {
      await conn?.end().catch(() => {});
    }
    io.stdout.write(`snapshot requested: id=${id} tables=${tables.join(',')} (signal in ${signalTable})\n`);
    return ExitCode.OK;
  },
};
