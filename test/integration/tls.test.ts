/**
 * TLS to the source: `database.ssl.ca` is a PEM file whose contents are trusted (not the path string), verify_ca
 * checks the chain, verify_identity also the host; and the README's quick-start configuration, extracted from
 * README.md, passes `cdc check` as written (only host, port and the password's variable supplied).
 * The server is the private MariaDB with a CA and certificate generated per run by openssl.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { DatabaseConnectionError, openConnection, type SslMode } from '../../src/source/mysql/connection.js';
import { connectionOptionsFor } from '../../src/source/mysql/connection-factory.js';
import { useMariaDb } from '../harness/fixtures.js';
import { makeTlsMaterial } from '../harness/tls.js';

// The certificate names 127.0.0.1 only; the server also listens on 127.0.0.2, a host the certificate does not name.
const tls = makeTlsMaterial(['127.0.0.1']);
after(() => tls.remove());
const db = useMariaDb({
  options: {
    'ssl-ca': tls.caPath,
    'ssl-cert': tls.serverCertPath,
    'ssl-key': tls.serverKeyPath,
    'bind-address': '127.0.0.1,127.0.0.2',
  },
});

function load(mode: SslMode, ca: string | null, host = '127.0.0.1') {
  return loadConfig({
    env: {},
    overrides: {
      'topic.prefix': 'tls',
      'database.hostname': host,
      'database.port': String(db().port),
      'database.user': db().admin.user,
      'database.password': db().admin.password,
      'database.ssl.mode': mode,
      ...(ca ? { 'database.ssl.ca': ca } : {}),
    },
  });
}

async function tryConnect(mode: SslMode, ca: string | null, host?: string): Promise<string> {
  try {
    const conn = await openConnection(connectionOptionsFor(load(mode, ca, host)));
    const [rows] = await conn.query("SHOW SESSION STATUS LIKE 'Ssl_version'");
    await conn.end();
    return `ok ${(rows as { Value: string }[])[0]?.Value ?? ''}`;
  } catch (err) {
    assert.ok(err instanceof DatabaseConnectionError, String(err));
    return `${err.reason}: ${err.message}`;
  }
}

describe('database.ssl.ca with verify_ca and verify_identity', () => {
  it('trusts the CA file: verify_ca and verify_identity connect over TLS', async () => {
    assert.match(await tryConnect('verify_ca', tls.caPath), /^ok TLSv1\.[23]/);
    assert.match(await tryConnect('verify_identity', tls.caPath), /^ok TLSv1\.[23]/);
  });

  it('rejects a chain from another CA, and a host the certificate does not name under verify_identity', async () => {
    assert.match(await tryConnect('verify_ca', tls.otherCaPath), /^tls: /);
    // The chain is good, so verify_ca accepts 127.0.0.2; verify_identity must not.
    assert.match(await tryConnect('verify_ca', tls.caPath, '127.0.0.2'), /^ok /);
    const wrongHost = await tryConnect('verify_identity', tls.caPath, '127.0.0.2');
    assert.match(wrongHost, /^tls: /);
    assert.match(wrongHost, /127\.0\.0\.2/);
  });

  it('a CA path that does not exist is a configuration error naming database.ssl.ca', () => {
    const missing = join(tls.dir, 'no-such-ca.pem');
    assert.throws(
      () => load('verify_ca', missing),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.problems.some((p) => p.property === 'database.ssl.ca' && p.message.includes(missing)),
    );
  });
});

/** The first ```<lang> block after the heading that starts with `heading`. */
function readmeBlock(readme: string, heading: string, lang: string, nth = 0): string {
  const section = readme.slice(readme.indexOf(heading));
  const blocks = [...section.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\\n\\s*\`\`\``, 'g'))];
  assert.ok(blocks[nth], `README.md: no ${lang} block #${nth} under "${heading}"`);
  return blocks[nth][1]
    .split('\n')
    .map((l) => l.trim())
    .join('\n');
}

describe("the README's quick start", () => {
  it('its configuration passes cdc check as written (host and port substituted)', async () => {
    const readme = readFileSync('README.md', 'utf8');
    const heading = '## Quick start';
    const userSql = readmeBlock(readme, heading, 'sql');
    const props = readmeBlock(readme, heading, 'properties');
    assert.match(props, /database\.password=\$\{env:CDC_DB_PASSWORD\}/);
    // The user exactly as the README creates it, with a password of ours in place of '...'.
    const password = 'readme-Quick-5tart';
    for (const stmt of userSql.split(/;\s*/).filter(Boolean))
      await db().query(stmt.replace("IDENTIFIED BY '...'", `IDENTIFIED BY '${password}'`));
    const config = props
      .replace(/^database\.hostname=.*$/m, `database.hostname=${db().host}`)
      .replace(/^database\.port=.*$/m, `database.port=${db().port}`);
    const file = join(tls.dir, 'connector.properties');
    writeFileSync(file, config);
    const r = spawnSync(process.execPath, ['bin/cdc.js', 'check', '--config', file], {
      encoding: 'utf8',
      // The README relies on the system trust store for verify_identity; ours is the per-run CA.
      env: { ...process.env, CDC_DB_PASSWORD: password, NODE_EXTRA_CA_CERTS: tls.caPath },
      timeout: 60_000,
    });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.doesNotMatch(r.stdout + r.stderr, new RegExp(password));
  });
});
