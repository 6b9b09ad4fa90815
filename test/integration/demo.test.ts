import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';

// The README's first command line, end to end: `npm run demo -- --for N` shows snapshot and live events and exits 0.
test('cdc demo --for shows snapshot reads, live changes, a schema change and exits 0', async () => {
  const child = spawn(process.execPath, ['bin/cdc.js', 'demo', '--for', '14'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    err += d;
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  assert.equal(code, 0, `demo failed:\n${out}\n${err}`);
  assert.match(out, /READ {3}inventory\.customers key=\{"id":1001\}/);
  assert.match(out, /CREATE inventory\.customers key=\{"id":1005\}/);
  assert.match(out, /UPDATE inventory\.customers key=\{"id":1004\} first_name: "Anne" → "Anne Marie"/);
  assert.match(out, /SCHEMA inventory: ALTER TABLE customers ADD COLUMN phone/);
  assert.match(out, /"phone":"\+1-555-0100"/);
  assert.match(out, /DELETE inventory\.addresses key=\{"id":16\}/);
  assert.match(out, /summary: snapshot reads 33, creates 2, updates 2, deletes 1/);
  assert.match(out, /committed offset in DynamoDB: /);
});
