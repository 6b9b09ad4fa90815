#!/usr/bin/env node
// Test entry point: `npm test` (all tiers) or `npm test -- unit|integration|<file>...`.
// Node 20's test runner takes no globs, so the file list is collected here.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

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
const concurrency = process.env.CDC_TEST_CONCURRENCY ?? '2';
const r = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...files],
  { stdio: 'inherit' },
);
process.exit(r.status ?? 1);
