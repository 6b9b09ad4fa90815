/**
 * Where a capture keeps its state. File offsets and schema history with relative paths (the defaults are
 * `./data/...`) resolve against the directory `cdc run` starts in, as in Debezium Server; a capture started from
 * another directory starts over with no offsets. Run logs the absolute paths; `cdc check` warns when they are
 * relative.
 */
import { isAbsolute, resolve } from 'node:path';
import type { CdcConfig } from '../config/types.js';
import type { PreflightCheck } from '../source/mysql/preflight.js';

export interface StateFile {
  property: 'offset.storage.file.filename' | 'schema.history.internal.file.filename';
  /** As configured. */
  path: string;
  absolute: string;
}

export function stateFiles(config: CdcConfig, cwd = process.cwd()): StateFile[] {
  const files: StateFile[] = [];
  if (config.offsets.type === 'file') {
    const path = config.offsets.filename;
    files.push({ property: 'offset.storage.file.filename', path, absolute: resolve(cwd, path) });
  }
  if (config.schemaHistory.type === 'file') {
    const path = config.schemaHistory.filename;
    files.push({ property: 'schema.history.internal.file.filename', path, absolute: resolve(cwd, path) });
  }
  return files;
}

/** A warning when state files have relative paths: where they land depends on the directory of `cdc run`. */
export function stateLocationChecks(config: CdcConfig, cwd = process.cwd()): PreflightCheck[] {
  const relative = stateFiles(config, cwd).filter((f) => !isAbsolute(f.path));
  if (relative.length === 0) return [];
  return [
    {
      id: 'state-location',
      status: 'warn',
      message: `state files have relative paths and resolve against the directory cdc run starts in: ${relative
        .map((f) => `${f.property} -> ${f.absolute}`)
        .join(', ')}`,
      fix: `set ${relative.map((f) => f.property).join(' and ')} to absolute paths (or always start cdc run from ${cwd})`,
    },
  ];
}
