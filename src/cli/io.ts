/** What a command may touch of the process: its streams and environment. Tests pass their own. */
export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

export interface Command {
  name: string;
  usage: string;
  run(argv: string[], io: CliIo): Promise<number>;
}

/** Exit codes, documented in docs/cli.md. */
export const ExitCode = {
  OK: 0,
  /** The task failed at run time (e.g. lost binlog position, sink failure). */
  FAILURE: 1,
  /** Bad command line or configuration; nothing was started. */
  USAGE: 2,
  /** `cdc check` found at least one fatal problem. */
  CHECK_FAILED: 3,
  /** Interrupted by SIGINT/SIGTERM (after a clean stop). */
  INTERRUPTED: 130,
} as const;

export function wantsHelp(argv: string[]): boolean {
  return argv.includes('--help') || argv.includes('-h');
}
