/** Preflight binlog settings checks on given server variables (no server needed). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { binlogChecks, type PreflightServer as ServerInfo } from '../../../src/source/mysql/preflight.js';

const mysql8: ServerInfo = {
  flavour: 'mysql',
  version: '8.0.36',
  major: 8,
  minor: 0,
  patch: 36,
  managed: false,
  currentUser: 'cdc@%',
};

function valueOptionsCheck(vars: Record<string, string>) {
  const base = { log_bin: 'ON', binlog_format: 'ROW', binlog_row_metadata: 'FULL' };
  const checks = binlogChecks(mysql8, new Map(Object.entries({ ...base, ...vars })));
  const c = checks.find((x) => x.id === 'binlog.row_value_options');
  assert.ok(c);
  return c;
}

describe('preflight: binlog_row_value_options', () => {
  it('PARTIAL_JSON passes with binlog_row_image = FULL (diffs are applied to the before image)', () => {
    const c = valueOptionsCheck({ binlog_row_image: 'FULL', binlog_row_value_options: 'PARTIAL_JSON' });
    assert.equal(c.status, 'pass');
    assert.match(c.message, /PARTIAL_JSON.*applied to the before image/);
  });

  it('PARTIAL_JSON warns with MINIMAL or NOBLOB images (the before image lacks the column)', () => {
    for (const image of ['MINIMAL', 'noblob']) {
      const c = valueOptionsCheck({ binlog_row_image: image, binlog_row_value_options: 'PARTIAL_JSON' });
      assert.equal(c.status, 'warn', image);
      assert.match(c.message, /before image may lack the column/);
      assert.match(c.fix ?? '', /binlog_row_image = 'FULL'/);
    }
  });

  it('no partial JSON (empty, or a server without the variable) passes', () => {
    assert.equal(valueOptionsCheck({ binlog_row_image: 'FULL', binlog_row_value_options: '' }).status, 'pass');
    assert.equal(valueOptionsCheck({ binlog_row_image: 'FULL' }).status, 'pass');
  });
});
