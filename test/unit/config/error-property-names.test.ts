import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { findProperty } from '../../../src/config/properties.js';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

// An error's fix must name a real setting: "set x.y.z", "raise x.y" ... must name a catalog property (pattern
// properties such as transforms.<name>.* and sink.kafka.* included). A camelCase name after such a verb is a code
// option, not something a user can set (the oversize error once said `set oversizeHandling ... raise maxRecordBytes`).
test('every "set/raise/unset/lower/increase <setting>" in src and lambdas names a catalog property', () => {
  const verb = /\b(set|raise|unset|lower|increase)\s+`?([a-z][a-z0-9_]*(?:\.[a-z0-9_<>-]+)+|[a-z]+[A-Z][A-Za-z]+)\b/g;
  const bad: string[] = [];
  let checked = 0;
  for (const file of [...sources('src'), ...sources('lambdas')]) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(verb)) {
      checked++;
      if (findProperty(m[2])) continue;
      bad.push(`${file}:${text.slice(0, m.index).split('\n').length}: ${m[1]} ${m[2]}`);
    }
  }
  assert.ok(checked > 50, `only ${checked} mentions found: the scan is broken`);
  assert.deepEqual(bad, []);
});
