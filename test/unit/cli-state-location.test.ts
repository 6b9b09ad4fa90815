import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stateFiles, stateLocationChecks } from '../../src/cli/state-location.js';
import { parseConfig } from '../../src/config/index.js';

const base = { 'topic.prefix': 'x', 'database.hostname': 'h', 'database.user': 'u' };

describe('state file locations (issue 13 item 15)', () => {
  it('relative defaults resolve against the start directory and cdc check warns, naming both properties', () => {
    const config = parseConfig(base);
    assert.deepEqual(
      stateFiles(config, '/srv/cdc').map((f) => f.absolute),
      ['/srv/cdc/data/offsets.json', '/srv/cdc/data/schema-history.jsonl'],
    );
    const [check] = stateLocationChecks(config, '/srv/cdc');
    assert.equal(check?.status, 'warn');
    assert.match(check?.message ?? '', /offset\.storage\.file\.filename -> \/srv\/cdc\/data\/offsets\.json/);
    assert.match(check?.fix ?? '', /offset\.storage\.file\.filename and schema\.history\.internal\.file\.filename/);
  });

  it('absolute paths, or state in DynamoDB, need no warning', () => {
    const absolute = parseConfig({
      ...base,
      'offset.storage.file.filename': '/var/lib/cdc/offsets.json',
      'schema.history.internal.file.filename': '/var/lib/cdc/history.jsonl',
    });
    assert.deepEqual(stateLocationChecks(absolute, '/srv/cdc'), []);
    const dynamo = parseConfig({
      ...base,
      'offset.storage': 'dynamodb',
      'offset.storage.dynamodb.table': 'o',
      'schema.history.internal': 'dynamodb',
      'schema.history.internal.dynamodb.table': 'h',
      'lease.dynamodb.table': 'l',
    });
    assert.deepEqual(stateFiles(dynamo, '/srv/cdc'), []);
  });
});
