import { type Command, ExitCode, wantsHelp } from '../io.js';
import { binlogDumpCommand } from './binlog-dump.js';

export const binlogDumpCli: Command = {
  name: 'binlog-dump',
  usage: 'usage: cdc binlog-dump <file|dir> [--start-position N] [--format ndjson]\n',
  async run(argv, io) {
    if (wantsHelp(argv) && argv.length === 1) {
      // binlogDumpCommand prints its own detailed help.
      return binlogDumpCommand(argv, io);
    }
    if (argv.length === 0) {
      io.stderr.write(this.usage);
      return ExitCode.USAGE;
    }
    return binlogDumpCommand(argv, io);
  },
};
