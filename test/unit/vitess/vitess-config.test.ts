import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { silentLogger } from '../../../src/common/logger.js';
import { ConfigError, parseConfig } from '../../../src/config/index.js';
import type { SnapshotMode } from '../../../src/config/types.js';
import { VitessSource } from '../../../src/source/vitess/vitess-source.js';

const base = {
  'connector.class': 'io.debezium.connector.vitess.VitessConnector',
  'topic.prefix': 'vt',
  'database.hostname': 'vtgate',
  'vitess.keyspace': 'commerce',
};

function problems(raw: Record<string, string>): string[] {
  try {
    parseConfig(raw);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems.map((p) => `${p.property}: ${p.message}`);
    throw err;
  }
  return [];
}

describe('Vitess connector configuration', () => {
  it('reads Debezium Vitess names with their defaults (VTGate port 15991, MASTER, current, no DDL topic)', () => {
    const c = parseConfig(base);
    assert.ok(c.vitess);
    assert.equal(c.database.port, 15991);
    assert.equal(c.database.user, '');
    assert.equal(c.vitess.keyspace, 'commerce');
    assert.equal(c.vitess.shards, null);
    assert.equal(c.vitess.tabletType, 'MASTER');
    assert.equal(c.vitess.vgtid, 'current');
    assert.equal(c.events.includeSchemaChanges, false);
    assert.equal(c.events.bigintUnsignedHandlingMode, 'string');
    assert.equal(c.snapshot.mode, 'initial');
  });

  it('takes shards, tablet type, the deprecated vitess.gtid, headers and TLS', () => {
    const vgtid = '[{"keyspace":"commerce","shard":"-80","gtid":"MySQL56/a:1-3"}]';
    const c = parseConfig({
      ...base,
      'database.port': '15999',
      'vitess.shard': '-80,80-',
      'vitess.tablet.type': 'replica',
      'vitess.gtid': vgtid,
      'vitess.grpc.headers': 'x-a:1, x-b:two',
      'vitess.grpc.tls.enabled': 'true',
      'vitess.grpc.tls.server.name': 'vtgate.internal',
      'include.schema.changes': 'true',
    });
    assert.equal(c.database.port, 15999);
    assert.deepEqual(c.vitess?.shards, ['-80', '80-']);
    assert.equal(c.vitess?.tabletType, 'REPLICA');
    assert.equal(c.vitess?.vgtid, vgtid);
    assert.deepEqual(c.vitess?.grpcHeaders, { 'x-a': '1', 'x-b': 'two' });
    assert.equal(c.vitess?.tls.serverName, 'vtgate.internal');
    assert.equal(c.events.includeSchemaChanges, true);
  });

  it('rejects what the Vitess connector does not take, naming the property and the fix', () => {
    const found = problems({
      ...base,
      'vitess.keyspace': '',
      'vitess.tablet.type': 'SPARE',
      'vitess.vgtid': 'MySQL56/a:1-3',
      'snapshot.mode': 'when_needed',
      'vitess.grpc.tls.ca': '/ca.pem',
      'vitess.offset.storage.per.task': 'true',
    });
    for (const key of [
      'vitess.keyspace',
      'vitess.tablet.type',
      'vitess.vgtid',
      'snapshot.mode',
      'vitess.grpc.tls.ca',
      'vitess.offset.storage.per.task',
    ])
      assert.ok(
        found.some((p) => p.startsWith(`${key}:`)),
        `${key} in ${found.join('\n')}`,
      );
  });

  it('keeps vitess.* and the string BIGINT mode away from MySQL configs', () => {
    const found = problems({
      'topic.prefix': 'my',
      'database.hostname': 'db',
      'database.user': 'u',
      'vitess.keyspace': 'x',
      'bigint.unsigned.handling.mode': 'string',
    });
    assert.ok(found.some((p) => p.startsWith('vitess.keyspace: only applies to the Vitess connector')));
    assert.ok(found.some((p) => p.startsWith('bigint.unsigned.handling.mode:')));
    assert.equal(
      parseConfig({ 'topic.prefix': 'my', 'database.hostname': 'db', 'database.user': 'u' }).vitess,
      undefined,
    );
  });

  it('the source refuses at start-up a snapshot.mode the Vitess connector does not take, also from a config built in code', () => {
    const parsed = parseConfig(base);
    for (const mode of ['initial_only', 'when_needed', 'no_data', 'recovery'] as SnapshotMode[]) {
      const config = { ...parsed, snapshot: { ...parsed.snapshot, mode } };
      assert.throws(
        () => new VitessSource({ config, logger: silentLogger }),
        (err: unknown) =>
          err instanceof ConfigError &&
          err.problems.length === 1 &&
          err.problems[0]?.property === 'snapshot.mode' &&
          /initial/.test(err.problems[0].fix) &&
          /never/.test(err.problems[0].fix),
        mode,
      );
    }
    for (const mode of ['initial', 'never'] as SnapshotMode[])
      new VitessSource({ config: { ...parsed, snapshot: { ...parsed.snapshot, mode } }, logger: silentLogger });
  });
});
