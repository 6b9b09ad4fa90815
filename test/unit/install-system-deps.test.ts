import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

// Fake apt-get/apt-cache/id on PATH: `apt-get install` takes a "dpkg lock" (mkdir) and fails like dpkg when it is
// already held, holds it while it "installs" (creates the probed file), and counts its runs.
test('install-system-deps.sh run concurrently as root installs once and never collides on the dpkg lock', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cdc-deps-'));
  try {
    const bin = join(dir, 'bin');
    const marker = join(dir, 'installed');
    const fake = (name: string, body: string) => {
      writeFileSync(join(bin, name), `#!/usr/bin/env bash\n${body}\n`);
      chmodSync(join(bin, name), 0o755);
    };
    mkdirSync(bin);
    fake('id', 'echo 0');
    fake('apt-cache', 'echo "  Candidate: 1.0"');
    fake(
      'apt-get',
      [
        '[[ $1 == install ]] || exit 0',
        `mkdir "${dir}/dpkg.lock" 2>/dev/null || { echo "E: Could not get lock /var/lib/dpkg/lock-frontend" >&2; exit 100; }`,
        `echo run >> "${dir}/runs"`,
        // Hold the lock until the other script had every chance to start its own install.
        'for _ in $(seq 1 50); do sleep 0.01; done',
        `touch "${marker}"`,
        `rmdir "${dir}/dpkg.lock"`,
      ].join('\n'),
    );
    const run = () =>
      new Promise<{ code: number | null; err: string }>((resolve) => {
        const child = spawn('bash', ['scripts/install-system-deps.sh'], {
          env: {
            ...process.env,
            PATH: `${bin}:${process.env.PATH}`,
            CDC_SYSTEM_DEPS: `${marker} fake-pkg`,
            TMPDIR: dir,
          },
        });
        let err = '';
        child.stderr.on('data', (d: Buffer) => {
          err += d.toString();
        });
        child.on('close', (code) => resolve({ code, err }));
      });
    const results = await Promise.all([run(), run(), run()]);
    for (const r of results) assert.equal(r.code, 0, r.err);
    assert.ok(existsSync(marker));
    assert.equal(readFileSync(join(dir, 'runs'), 'utf8'), 'run\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
