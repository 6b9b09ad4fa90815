/** The test processes run on Node 22+ (scripts/test-node.js), whatever Node started `npm test`. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';

test('this test process runs on Node 22 or later', () => {
  assert.ok(Number(process.versions.node.split('.')[0]) >= 22, `running on Node ${process.versions.node}`);
});

test('CDC_TEST_NODE must name a Node 22+ binary: anything else is a clear failure', () => {
  const r = spawnSync(process.execPath, ['scripts/test-node.js'], {
    encoding: 'utf8',
    env: { ...process.env, CDC_TEST_NODE: '/bin/false' },
  });
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /TestNodeError: CDC_TEST_NODE=\/bin\/false is not a Node 22\+ binary/);
  const ok = spawnSync(process.execPath, ['scripts/test-node.js'], {
    encoding: 'utf8',
    env: { ...process.env, CDC_TEST_NODE: process.execPath },
  });
  assert.equal(ok.status, 0, ok.stderr);
  assert.equal(ok.stdout.trim(), process.execPath);
});
