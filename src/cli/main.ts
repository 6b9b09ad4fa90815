/** `cdc` command entry point: a table of subcommands, each in src/cli/commands/. */
import { CdcError, errorMessage } from '../common/errors.js';
import { binlogDumpCli } from './commands/binlog-dump-cli.js';
import { checkCommand } from './commands/check.js';
import { configDocsCommand } from './commands/config-docs.js';
import { demoCommand } from './commands/demo.js';
import { runCommand } from './commands/run.js';
import { snapshotCommand } from './commands/snapshot.js';
import { transformCommand } from './commands/transform.js';
import { type CliIo, type Command, ExitCode } from './io.js';

const commands: Command[] = [
  runCommand,
  snapshotCommand,
  checkCommand,
  demoCommand,
  binlogDumpCli,
  configDocsCommand,
  transformCommand,
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
    return await command.run(rest, io);
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
