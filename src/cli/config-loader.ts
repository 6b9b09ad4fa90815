/** Shared `--config <file>` / `--set k=v` handling for commands that run against a database. */
import { type CdcConfig, ConfigError, loadConfigWithSecrets } from '../config/index.js';
import type { CliIo } from './io.js';

export interface ConfigArgs {
  config?: string;
  set?: string[];
}

export const CONFIG_OPTIONS = {
  config: { type: 'string', short: 'c' },
  set: { type: 'string', multiple: true },
} as const;

export const CONFIG_USAGE = `  -c, --config <file>   configuration (.properties or .json); CDC_* environment variables add to it
  --set key=value       override one property (repeatable)`;

/**
 * Loads and validates; on a ConfigError prints every problem and returns null (exit code 2). Start-up warnings
 * (ignored Debezium/Kafka Connect keys, deprecated names) go to stderr.
 */
export async function loadCliConfig(args: ConfigArgs, io: CliIo): Promise<CdcConfig | null> {
  try {
    const config = await loadConfigWithSecrets({
      ...(args.config ? { file: args.config } : {}),
      env: io.env,
      ...(args.set ? { overrides: args.set } : {}),
    });
    for (const w of config.warnings) io.stderr.write(`warning: ${w}\n`);
    return config;
  } catch (err) {
    if (err instanceof ConfigError) {
      io.stderr.write(`${err.message}\n`);
      return null;
    }
    throw err;
  }
}

export { connectionOptionsFor as connectionOptions } from '../source/mysql/connection-factory.js';
