/** `cdc` command entry point: a table of subcommands, each in src/cli/commands/. */
import { CdcError, errorMessage } from '../common/errors.js';
import { type CliIo, type Command, ExitCode } from './io.js';

/**
 * The subcommands. Each module is imported only when its command runs: `cdc --help` and `cdc check` do not load
 * the capture engine, the AWS SDKs or the Kafka client (the summaries live here for that reason).
 */
interface CommandEntry {
  name: string;
  summary: string;
  load(): Promise<Command>;
}

export const commands: readonly CommandEntry[] = [
  {
    name: 'run',
    summary: 'run the capture task (snapshot, then stream the binlog)',
    load: async () => (await import('./commands/run.js')).runCommand,
  },
  {
    name: 'snapshot',
    summary: 'request an ad-hoc chunked snapshot of tables from the running capture',
    load: async () => (await import('./commands/snapshot.js')).snapshotCommand,
  },
  {
    name: 'check',
    summary: 'pre-flight checks of the source database and user',
    load: async () => (await import('./commands/check.js')).checkCommand,
  },
  {
    name: 'demo',
    summary: 'run the embedded end-to-end demo (MariaDB → capture → Kinesis, state in DynamoDB)',
    load: async () => (await import('./commands/demo.js')).demoCommand,
  },
  {
    name: 'binlog-dump',
    summary: 'decode binlog files to one JSON line per event',
    load: async () => (await import('./commands/binlog-dump-cli.js')).binlogDumpCli,
  },
  {
    name: 'config-docs',
    summary: 'print the configuration reference (Markdown)',
    load: async () => (await import('./commands/config-docs.js')).configDocsCommand,
  },
  {
    name: 'transform',
    summary: 'apply transforms (SMTs) to NDJSON records from stdin',
    load: async () => (await import('./commands/transform.js')).transformCommand,
  },
];

function usage(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    'usage: cdc <command> [options]',
    '',
    'Change data capture from MySQL/MariaDB/Aurora binlogs into Kinesis, Kafka or files (Debezium-compatible events).',
    '',
    'commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    "Run 'cdc <command> --help' for a command's options. Exit codes: 0 ok, 1 failure, 2 usage/config error,",
    '3 check found fatal problems, 130 interrupted.',
    '',
  ].join('\n');
}

export async function main(argv: string[], io: CliIo = defaultIo()): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(usage());
    return name === undefined ? ExitCode.USAGE : ExitCode.OK;
  }
  if (name === '--version') {
    io.stdout.write('serverless-cdc 0.1.0\n');
    return ExitCode.OK;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    io.stderr.write(`cdc: unknown command '${name}'\n\n${usage()}`);
    return ExitCode.USAGE;
  }
  try {
    return await (await command.load()).run(rest, io);
  } catch (err) {
    // Last resort: commands report their own errors; this keeps a stack trace from being the only message.
    const code = err instanceof CdcError ? ` [${err.code}]` : '';
    io.stderr.write(`cdc ${name}: ${errorMessage(err)}${code}\n`);
    return ExitCode.FAILURE;
  }
}

function defaultIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env };
}
