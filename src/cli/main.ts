/** `cdc` command entry point; subcommands live in src/cli/commands/. */
export async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h') {
    process.stdout.write('usage: cdc <command> [options]\n');
    return 0;
  }
  process.stderr.write(`unknown command: ${argv[0]}\n`);
  return 2;
}
