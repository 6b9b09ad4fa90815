import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { createLogger } from '../../../src/common/logger.js';

test('fields that look like secrets are redacted; a lease fencing token is not a secret', () => {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  createLogger({ level: 'info', format: 'json', stream }).info('lease acquired', {
    fencingToken: 7,
    sessionToken: 'abc',
    password: 'p',
    clientSecret: 's',
  });
  const line = JSON.parse(lines[0]) as Record<string, unknown>;
  assert.equal(line.fencingToken, 7);
  assert.equal(line.sessionToken, '***');
  assert.equal(line.password, '***');
  assert.equal(line.clientSecret, '***');
});
