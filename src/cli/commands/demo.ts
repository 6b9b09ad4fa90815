import { type Command, ExitCode } from '../io.js';

export const demoCommand: Command = {
  name: 'demo',
  summary: 'run the embedded end-to-end demo',
  usage: 'usage: cdc demo [--for <seconds>]\n',
  async run(_argv, io) {
    io.stderr.write('demo: not wired yet\n');
    return ExitCode.FAILURE;
  },
};
