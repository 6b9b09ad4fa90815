#!/usr/bin/env node
// Test entry point: `npm test` (all tiers) or `npm test -- unit|integration|<file>...`.
// Node 20's test runner takes no globs, so the file list is collected here.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, sep } from 'node:path';
import { testNode } from './test-node.js';

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...collect(p));
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out.sort();
}

const args = process.argv.slice(2);
const tiers = { unit: ['test/unit'], integration: ['test/integration'] };
let files = [];
if (args.length === 0) files = [...collect('test/unit'), ...collect('test/integration')];
else for (const a of args) files.push(...(tiers[a] ? tiers[a].flatMap(collect) : [a]));
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
// System packages (MariaDB, openssl, Java...) are installed here, once, before any test process starts: several
// test processes installing at the same time collide on the dpkg lock. Not root: the script only reports what is
// missing, and the tests that need it fail with the same hint.
if (files.some((f) => !f.includes(`test${sep}unit${sep}`) && !f.startsWith('test/unit/'))) {
  const deps = spawnSync('bash', ['scripts/install-system-deps.sh'], { stdio: 'inherit' });
  if (deps.status !== 0) console.error(`scripts/install-system-deps.sh exited with ${deps.status ?? deps.signal}`);
}
// Test processes run on Node 22 (scripts/test-node.js), first on PATH too, so what they spawn runs on it as well.
const node = testNode();
const concurrency = process.env.CDC_TEST_CONCURRENCY ?? '2';
// Every temp file of the run (datadirs, sink files, brokers' logs, oracle output) goes into one folder that is
// removed afterwards: a run left ~190 MB behind in the system temp dir before.
const runTmp = mkdtempSync(join(tmpdir(), 'cdc-test-run-'));
let status = 1;
try {
  const r = spawnSync(
    node,
    ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...files],
    {
      stdio: 'inherit',
      env: { ...process.env, TMPDIR: runTmp, PATH: `${dirname(node)}${delimiter}${process.env.PATH ?? ''}` },
    },
  );
  status = r.status ?? 1;
} finally {
  rmSync(runTmp, { recursive: true, force: true });
}
process.exit(status);
