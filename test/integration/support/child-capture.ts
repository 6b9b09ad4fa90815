/**
 * `cdc run` as a child process, for tests where the capture must die abruptly (kill -9) mid-way, plus a reader
 * of the file sink's output that tolerates the torn last line such a kill can leave.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { SinkLine } from './capture.js';

const CLI = resolve(import.meta.dirname, '../../../bin/cdc.js');

export interface ChildCapture {
  child: ChildProcess;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  stderr(): string;
}

/** Writes `props` (with overrides) as a JSON config file in `dir` and starts `cdc run` on it. */
export function spawnCapture(
  dir: string,
  props: Record<string, string>,
  overrides: Record<string, string> = {},
  untilIdleMs = 500,
): ChildCapture {
  const file = join(dir, `child-${Date.now()}.json`);
  writeFileSync(file, JSON.stringify({ ...props, ...overrides }));
  const child = spawn(process.execPath, [CLI, 'run', '--config', file, '--until-idle', String(untilIdleMs)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
  return { child, exited, stderr: () => err };
}

/** Parsed sink lines; `torn` counts lines that are not valid JSON (a write cut short by a kill). */
export function readSinkFile(path: string): { lines: SinkLine[]; torn: number } {
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return { lines: [], torn: 0 };
  }
  const lines: SinkLine[] = [];
  let torn = 0;
  for (const l of text.split('\n')) {
    if (!l) continue;
    try {
      lines.push(JSON.parse(l) as SinkLine);
    } catch {
      torn++;
    }
  }
  return { lines, torn };
}

/** Counts occurrences of `"id":<n>` style keys cheaply without parsing the whole file (for polling). */
export function countMatches(path: string, re: RegExp): number {
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return 0;
  }
  return text.match(re)?.length ?? 0;
}
