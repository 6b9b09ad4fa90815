#!/usr/bin/env node
// `npm run bench [-- <name>...]`: runs every (or the named) bench/<name>.bench.ts and prints one line per figure:
//   BENCH <name> ours=<n> reference=<n> ratio=<n> unit=<unit> ref="<what the reference is>"
// Each benchmark module exports `run(): Promise<Figure[]>` and measures its reference in the same run.
// `--tiny` runs each at a tiny size (CI: proves every benchmark still works; its figures mean nothing).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testNode } from '../scripts/test-node.js';

const here = dirname(fileURLToPath(import.meta.url));
const all = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .map((f) => f.slice(0, -'.bench.ts'.length))
  .sort();
const args0 = process.argv.slice(2);
const tiny = args0.includes('--tiny');
const wanted = args0.filter((a) => a !== '--tiny');
/** Sizes for --tiny; a size already set in the environment wins. */
const TINY = {
  DECODE_BENCH_ROWS: '2000',
  DECODE_BENCH_RUNS: '1',
  STREAMING_BENCH_ROWS: '2000',
  STREAMING_BENCH_RUNS: '1',
  SNAPSHOT_BENCH_ROWS: '2000',
  SNAPSHOT_FLAT_ROWS: '2000',
  SNAPSHOT_BENCH_RUNS: '1',
  KAFKA_BENCH_ROWS: '300',
  CAPTURE_KINESIS_BENCH_ROWS: '1000',
  CAPTURE_KINESIS_BENCH_RUNS: '1',
};
// One temp folder for the whole run (servers' datadirs, binlogs, JVM files), removed at the end.
const runTmp = mkdtempSync(join(tmpdir(), 'cdc-bench-run-'));
// The image's Node (22, scripts/test-node.js fetches it on an older machine), first on PATH too: the benchmarks'
// own child processes (capture, zongji reference) spawn process.execPath, so they run on it as well.
const node = testNode();
const env = {
  ...(tiny ? { ...TINY, ...process.env } : process.env),
  TMPDIR: runTmp,
  PATH: `${dirname(node)}${delimiter}${process.env.PATH ?? ''}`,
};
const unknown = wanted.filter((w) => !all.includes(w));
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')}; available: ${all.join(', ')}`);
  process.exit(2);
}
const dockerfile = readFileSync(join(here, '..', 'Dockerfile'), 'utf8');
// NODE_OPTIONS, and the V8 flags NODE_OPTIONS does not accept, on ENTRYPOINT's node command line (bench/harness.ts).
const imageOptions = [
  ...(/NODE_OPTIONS="([^"]*)"/.exec(dockerfile)?.[1] ?? '').split(/\s+/).filter(Boolean),
  ...JSON.parse(/^ENTRYPOINT\s+(\[.*\])\s*$/m.exec(dockerfile)?.[1] ?? '[]')
    .slice(1)
    .filter((a) => a.startsWith('--')),
];
let failed = false;
for (const name of wanted.length ? wanted : all) {
  // Each benchmark runs in its own process so peak-RSS figures are not polluted by the others, with the capture
  // image's heap settings (Dockerfile NODE_OPTIONS and ENTRYPOINT flags): the benchmarks that measure our RSS in-process measure the image's.
  const args = ['--expose-gc', ...imageOptions, '--import', 'tsx', join(here, 'run-one.ts'), name];
  const r = spawnSync(node, args, { stdio: 'inherit', env });
  if (r.status !== 0) {
    console.error(`benchmark ${name} failed (exit ${r.status})`);
    failed = true;
  }
}
rmSync(runTmp, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
