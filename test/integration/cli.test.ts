import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { useMariaDb } from '../harness/fixtures.js';
import type { MariaDbServer } from '../harness/mariadb.js';

// The `cdc` binary as a user runs it (bin/cdc.js through tsx), against real servers.
function cdc(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, ['bin/cdc.js', ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 60_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function writeConfig(server: MariaDbServer, user: { user: string; password: string }, extra = ''): string {
  const dir = mkdtempSync(join(tmpdir(), 'cdc-cli-'));
  const file = join(dir, 'connector.properties');
  writeFileSync(
    file,
    [
      'name=cli-test',
      'topic.prefix=cli',
      `database.hostname=${server.host}`,
      `database.port=${server.port}`,
      `database.user=${user.user}`,
      `database.password=${user.password}`,
      'database.server.id=5555',
      'database.ssl.mode=disabled',
      extra,
    ].join('\n'),
  );
  return file;
}

describe('cdc --help and configuration errors', () => {
  it('prints usage for the tool and each command', () => {
    const top = cdc(['--help']);
    assert.equal(top.code, 0);
    for (const c of ['run', 'check', 'demo', 'binlog-dump', 'config-docs']) {
      assert.match(top.out, new RegExp(`\\b${c}\\b`));
      const sub = cdc([c, '--help']);
      assert.equal(sub.code, 0, `${c} --help: ${sub.err}`);
      assert.match(sub.out, /usage: cdc /);
    }
  });

  it('a config with three mistakes fails at start-up listing all three, without the password', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cdc-cli-'));
    const file = join(dir, 'bad.properties');
    writeFileSync(
      file,
      [
        'topic.prefix=x',
        'database.user=cdc',
        'database.password=S3cr3t-never-printed',
        'snapshot.mode=sometimes',
        'tombstones.on.delet=false',
      ].join('\n'),
    );
    const r = cdc(['run', '--config', file]);
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, /database\.hostname/);
    assert.match(r.err, /snapshot\.mode/);
    assert.match(r.err, /sometimes/);
    assert.match(r.err, /tombstones\.on\.delet\b/);
    assert.match(r.err, /did you mean .*tombstones\.on\.delete/i);
    assert.doesNotMatch(r.out + r.err, /S3cr3t-never-printed/);
  });
});

describe('cdc check against a well-configured server', () => {
  const db = useMariaDb();
  it('passes and exits 0', () => {
    const r = cdc(['check', '--config', writeConfig(db(), db().admin)]);
    assert.equal(r.code, 0, r.out + r.err);
    assert.match(r.out, /binlog/i);
    assert.doesNotMatch(r.out + r.err, new RegExp(db().admin.password));
    // The payload-only default and base64 decimals without a schema are warnings a Debezium user cannot miss.
    assert.match(r.out, /\[WARN\] output-format: .*\{schema, payload\}/);
    assert.match(r.out, /fix: set value\.converter\.schemas\.enable=true/);
    assert.match(r.out, /\[WARN\] decimal-without-schema: /);
    assert.match(r.out, /fix: set decimal\.handling\.mode=string/);
  });
});

describe('cdc check against binlog_format=STATEMENT with a user lacking REPLICATION SLAVE', () => {
  const db = useMariaDb({ binlogFormat: 'STATEMENT' });
  it('reports both problems with their fixes and exits 3', async () => {
    const user = await db().createUser('cdc_noslave', [
      'SELECT, RELOAD, SHOW DATABASES, LOCK TABLES, BINLOG MONITOR ON *.*',
    ]);
    const r = cdc(['check', '--config', writeConfig(db(), user)]);
    assert.equal(r.code, 3, r.out + r.err);
    assert.match(r.out, /binlog_format/);
    assert.match(r.out, /ROW/);
    assert.match(r.out, /REPLICATION SLAVE/);
    assert.match(r.out, /GRANT/);
    assert.doesNotMatch(r.out + r.err, new RegExp(user.password));
  });
});
