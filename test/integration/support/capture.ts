/** Helpers for end-to-end capture tests: a config for a harness server and reading the file sink's output. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCapture } from '../../../src/cli/commands/run.js';
import { createLogger, silentLogger } from '../../../src/common/logger.js';
import { parseConfig } from '../../../src/config/index.js';
import type { CdcConfig } from '../../../src/config/types.js';
import type { MariaDbServer } from '../../harness/mariadb.js';

export interface SinkLine {
  topic: string;
  key: Record<string, unknown> | null;
  value: Record<string, unknown> | null;
  headers?: Record<string, unknown>;
}

/**
 * The lines of an NDJSON sink file written so far (none while it does not exist). A torn last line (a writer killed
 * or still writing it) is left out; a bad line anywhere else is an error.
 */
export function readSinkLines(path: string): SinkLine[] {
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  const parts = text.split('\n');
  const last = parts.pop() ?? '';
  const lines = parts.filter(Boolean).map((l) => JSON.parse(l) as SinkLine);
  if (last !== '') {
    try {
      lines.push(JSON.parse(last) as SinkLine);
    } catch {
      // torn
    }
  }
  return lines;
}

/** Writes `props` as a `.properties` file for a `cdc run` child process. */
export function writePropertiesFile(path: string, props: Record<string, string>): string {
  writeFileSync(
    path,
    `${Object.entries(props)
      .map(([k, v]) => `${k}=${v}`)
      .join('\n')}\n`,
  );
  return path;
}

export interface CaptureEnv {
  dir: string;
  config: CdcConfig;
  /** The raw properties `config` was parsed from (e.g. to write a config file for a `cdc run` child process). */
  props: Record<string, string>;
  /** Runs the capture until it is caught up and idle, then returns every line written so far. */
  runUntilIdle(idleMs?: number): Promise<SinkLine[]>;
  lines(): SinkLine[];
}

export function captureEnv(
  db: MariaDbServer,
  database: string,
  extra: Record<string, string> = {},
  start: Pick<NonNullable<Parameters<typeof startCapture>[2]>, 'overrides' | 'wrapConnect'> = {},
): CaptureEnv {
  const dir = mkdtempSync(join(tmpdir(), 'cdc-it-'));
  const out = join(dir, 'events.ndjson');
  const props: Record<string, string> = {
    name: `it-${database}`,
    'topic.prefix': 'it',
    'database.hostname': db.host,
    'database.port': String(db.port),
    'database.user': db.admin.user,
    'database.password': db.admin.password,
    'database.server.id': String(7000 + Math.floor(Math.random() * 1000)),
    'database.include.list': database,
    'database.ssl.mode': 'disabled',
    'sink.type': 'file',
    'sink.file.path': out,
    'offset.storage.file.filename': join(dir, 'offsets.json'),
    'schema.history.internal.file.filename': join(dir, 'history.jsonl'),
    'offset.flush.interval.ms': '100',
    ...extra,
  };
  // An empty value in `extra` removes a default above (e.g. the file offset store when offsets go to DynamoDB).
  for (const [k, v] of Object.entries(extra)) if (v === '') delete props[k];
  const config = parseConfig(props);
  const lines = (): SinkLine[] => readSinkLines(out);
  return {
    dir,
    config,
    props,
    lines,
    async runUntilIdle(idleMs = 400) {
      const logger = process.env.CDC_TEST_DEBUG ? createLogger({ level: 'debug' }) : silentLogger;
      const handle = startCapture(config, logger, { untilIdleMs: idleMs, ...start });
      await handle.done;
      return lines();
    },
  };
}

/** Data-change events of one table, in order. */
export function changes(lines: SinkLine[], table: string): Array<Record<string, unknown>> {
  return lines
    .filter((l) => l.value !== null && l.topic.endsWith(`.${table}`) && 'op' in (l.value ?? {}))
    .map((l) => l.value as Record<string, unknown>);
}
