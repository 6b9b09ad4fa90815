/**
 * A throw-away certificate authority and server certificate made with the openssl CLI, for TLS tests against the
 * private MariaDB (`--ssl-ca/--ssl-cert/--ssl-key`). Generated per run; nothing is cached or trusted globally.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TlsMaterial {
  readonly dir: string;
  /** PEM of the CA that signed `serverCert`. */
  readonly caPath: string;
  readonly serverCertPath: string;
  readonly serverKeyPath: string;
  /** A second, unrelated CA (did not sign the server certificate). */
  readonly otherCaPath: string;
  remove(): void;
}

function openssl(args: string[], cwd: string): void {
  const r = spawnSync('openssl', args, { cwd, encoding: 'utf8' });
  if (r.error || r.status !== 0)
    throw new Error(
      `openssl ${args[0]} failed (${r.error?.message ?? `exit ${r.status}`}): ${r.stderr}. ` +
        'Install it with scripts/install-system-deps.sh (Debian package openssl).',
    );
}

/** CA + server certificate whose subjectAltName lists exactly `ips` (e.g. ['127.0.0.1']). */
export function makeTlsMaterial(ips: readonly string[]): TlsMaterial {
  const dir = mkdtempSync(join(tmpdir(), 'cdc-tls-'));
  const days = ['-days', '2'];
  for (const ca of ['ca', 'other-ca'])
    openssl(
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        `${ca}.key`,
        '-out',
        `${ca}.pem`,
        ...days,
        '-subj',
        `/CN=cdc-test-${ca}`,
      ],
      dir,
    );
  openssl(
    [
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'server.key',
      '-out',
      'server.csr',
      '-subj',
      '/CN=cdc-test-server',
    ],
    dir,
  );
  writeFileSync(join(dir, 'san.ext'), `subjectAltName=${ips.map((ip) => `IP:${ip}`).join(',')}\n`);
  openssl(
    [
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'server.pem',
      ...days,
      '-extfile',
      'san.ext',
    ],
    dir,
  );
  return {
    dir,
    caPath: join(dir, 'ca.pem'),
    serverCertPath: join(dir, 'server.pem'),
    serverKeyPath: join(dir, 'server.key'),
    otherCaPath: join(dir, 'other-ca.pem'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
