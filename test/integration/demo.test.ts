import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

// The README's first command line, end to end: the demo shows snapshot and live events and exits 0. The test stops it
// once every expected event is on screen (not after a fixed time: under load the start-up alone can take longer);
// `--for 180` only bounds a demo that never shows them. The --for timer itself is tested below with `--for 1`.
test('cdc demo shows snapshot reads, live changes, a schema change, then stops with its summary and exits 0', async () => {
  const expected = [
    /READ {3}inventory\.customers key=\{"id":1001\}/,
    /CREATE inventory\.customers key=\{"id":1005\}/,
    /UPDATE inventory\.customers key=\{"id":1004\} first_name: "Anne" → "Anne Marie"/,
    /SCHEMA inventory: ALTER TABLE customers ADD COLUMN phone/,
    /"phone":"\+1-555-0100"/,
    /DELETE inventory\.addresses key=\{"id":16\}/,
    /UPDATE inventory\.products_on_hand key=\{"product_id":107\}/,
  ];
  const child = spawn(process.execPath, ['bin/cdc.js', 'demo', '--for', '180'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let signalled = false;
  child.stdout.on('data', (d) => {
    out += d;
    if (!signalled && out.includes('waiting for more changes') && expected.every((re) => re.test(out))) {
      signalled = true;
      child.kill('SIGINT');
    }
  });
  child.stderr.on('data', (d) => {
    err += d;
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  assert.equal(code, 0, `demo failed:\n${out}\n${err}`);
  for (const re of expected) assert.match(out, re);
  assert.ok(signalled, `the demo stopped before showing every expected event:\n${out}\n${err}`);
  assert.match(out, /summary: snapshot reads 33, creates 2, updates 2, deletes 1/);
  assert.match(out, /committed offset in DynamoDB: /);
});

// Ctrl-C: the demo stops cleanly, prints its summary and removes its temp folder (it died silently before: the
// MariaDB harness re-raised the signal once the demo's `once` listener was gone).
test('cdc demo stopped with SIGINT prints its summary, exits 0 and leaves no temp folder', async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'cdc-demo-sigint-'));
  try {
    const child = spawn(process.execPath, ['bin/cdc.js', 'demo'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, TMPDIR: tmp },
    });
    let out = '';
    let err = '';
    let signalled = false;
    child.stdout.on('data', (d) => {
      out += d;
      if (!signalled && out.includes('waiting for more changes')) {
        signalled = true;
        child.kill('SIGINT');
      }
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    assert.ok(signalled, `the demo never reached its idle wait:\n${out}\n${err}`);
    assert.equal(code, 0, `demo failed:\n${out}\n${err}`);
    assert.match(out, /stopping \(Ctrl-C\)/);
    assert.match(out, /summary: snapshot reads 33/);
    assert.deepEqual(
      readdirSync(tmp).filter((n) => n.startsWith('cdc-demo-')),
      [],
      'the demo removed its temp folder',
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

// A --for shorter than the start-up: the time is up before the demo waits for it (it waited on an 'abort' listener
// added after the abort, forever, while the capture retried the stopped server).
test('cdc demo --for 1 stops and exits 0 although the time is up before streaming starts', async () => {
  const child = spawn(process.execPath, ['bin/cdc.js', 'demo', '--for', '1'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.resume();
  const hung = setTimeout(() => child.kill('SIGKILL'), 90_000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearTimeout(hung);
  assert.equal(code, 0, `demo did not stop by itself:\n${out}`);
  assert.match(out, /summary: /);
});
