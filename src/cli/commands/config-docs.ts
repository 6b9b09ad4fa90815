import { renderConfigDocs } from '../../config/index.js';
import { type Command, ExitCode } from '../io.js';

export const configDocsCommand: Command = {
  name: 'config-docs',
  usage: 'usage: cdc config-docs\n\nPrints docs/configuration.md: every property, its type, default and meaning.\n',
  async run(argv, io) {
    if (argv.includes('--help') || argv.includes('-h')) {
      io.stdout.write(this.usage);
      return ExitCode.OK;
    }
    io.stdout.write(renderConfigDocs());
    return ExitCode.OK;
  },
};
