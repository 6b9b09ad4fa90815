/**
 * Retention runway against a private MariaDB with a short binlog_expire_logs_seconds: FLUSH BINARY LOGS makes
 * files of known age; the measured runway is compared with the moment the server really purges the file.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startCapture } from '../../src/cli/commands/run.js';
import type { Logger } from '../../src/common/logger.js';
import { openConnection } from '../../src/source/mysql/connection.js';
import { RunwayMonitor } from '../../src/source/mysql/retention/runway-monitor.js';
import { useMariaDb } from '../harness/fixtures.js';
import type { MariaDbServer } from '../harness/mariadb.js';
import { waitForValue } from '../harness/wait.js';
import { captureEnv } from './support/capture.js';

/** A logger that keeps warnings (the capture's own logger interface). */
function recordingLogger(warnings: Array<{ msg: string; fields: Record<string, unknown> }>): Logger {
  const logger: Logger = {
    debug() {},
    info() {},
    warn: (msg, fields = {}) => warnings.push({ msg, fields }),
    error() {},
    child: () => logger,
  };
  return logger;
}

const EXPIRE_SECONDS = 6;

function connectAs(s: MariaDbServer) {
  return () =>
    openConnection({
      host: s.host,
      port: s.port,
      user: s.admin.user,
      password: s.admin.password,
      ssl: { mode: 'disabled' },
    });
}

async function binaryLogs(s: MariaDbServer): Promise<string[]> {
  const rows = await s.query<Array<{ Log_name: string }>>('SHOW BINARY LOGS');
  return rows.map((r) => r.Log_name);
}

describe('retention runway on MariaDB with binlog_expire_logs_seconds', () => {
  const db = useMariaDb({ serverId: 61, options: { 'binlog-expire-logs-seconds': EXPIRE_SECONDS } });

  it('measures the runway of a closed file and the server purges it when the runway runs out', async () => {
    const s = db();
    await s.query('FLUSH BINARY LOGS');
    const logs = await binaryLogs(s);
    const needed = logs[logs.length - 2] as string;
    const monitor = new RunwayMonitor({ connect: connectAs(s) });

    const active = await monitor.measure(logs[logs.length - 1] as string);
    assert.equal(active.setting.source, 'binlog_expire_logs_seconds');
    assert.equal(active.retentionSeconds, EXPIRE_SECONDS);
    assert.equal(active.seconds, EXPIRE_SECONDS, 'the file being written keeps the whole retention');

    const first = await monitor.measure(needed);
    assert.ok(first.purgeDueAtMs !== null && first.seconds !== null);
    assert.ok(first.seconds <= EXPIRE_SECONDS && first.seconds >= EXPIRE_SECONDS - 3, `runway ${first.seconds}`);
    assert.ok(first.oldestFileAgeSeconds !== null && first.oldestFileAgeSeconds >= 0);

    // Rotate every 250 ms until the server purges `needed` (it purges on rotation): the rotation that does is the
    // real expiry. Timed by when each rotation was asked for, not when its result was seen, so a slow (loaded)
    // machine delays both sides alike: the last rotation that kept the file must start before the due time (plus
    // the granularity), the one that purged it after it (minus the granularity).
    let lastKeptAt = 0;
    const purgedAt = await waitForValue(
      `${needed} to be purged`,
      async () => {
        const askedAt = Date.now();
        await s.query('FLUSH BINARY LOGS');
        if (!(await binaryLogs(s)).includes(needed)) return askedAt;
        lastKeptAt = askedAt;
        return null;
      },
      EXPIRE_SECONDS * 1000 + 15_000,
      250,
    );
    const dueAt = first.purgeDueAtMs as number;
    const errorMs = purgedAt - dueAt;
    // Second granularity on both sides (event timestamps, file mtimes).
    assert.ok(errorMs > -1500, `purged ${errorMs} ms after the measured due time: the measured runway is too long`);
    assert.ok(
      lastKeptAt - dueAt < 2500,
      `still kept ${lastKeptAt - dueAt} ms after the measured due time: the measured runway is too short`,
    );
    process.stderr.write(
      `retention runway: measured ${first.seconds} s (expiry ${EXPIRE_SECONDS} s); the server purged ${needed} ${errorMs} ms after the measured due time\n`,
    );

    const lost = await monitor.measure(needed);
    assert.equal(lost.neededFileExists, false);
    assert.equal(lost.seconds, 0);
  });

  it('cdc run warns before a snapshot expected to outlast the runway; cdc check reports the stored offset runway', async () => {
    const s = db();
    const name = await s.createDatabase('runway');
    // ~40k rows at the assumed 5000 rows/s: ~8 s expected, longer than the 6 s retention.
    await s.query(`CREATE TABLE ${name}.big (id INT PRIMARY KEY, v VARCHAR(8))`);
    await s.query(`INSERT INTO ${name}.big SELECT seq, 'x' FROM ${name}.seq_1_to_40000`);
    await s.query(`ANALYZE TABLE ${name}.big`);
    const env = captureEnv(s, name);
    const warnings: Array<{ msg: string; fields: Record<string, unknown> }> = [];
    const handle = startCapture(env.config, recordingLogger(warnings), { untilIdleMs: 300 });
    await handle.done;
    const w = warnings.find((x) => /longer than the binlog retention runway/.test(x.msg));
    assert.ok(w, `warnings: ${warnings.map((x) => x.msg).join(' | ')}`);
    assert.equal(w.fields.runwaySeconds, EXPIRE_SECONDS);
    assert.equal(w.fields.rate, 'assumed');
    assert.ok((w.fields.estimatedRows as number) > 30_000);
    assert.equal(handle.source.metrics.RetentionRunwaySeconds, EXPIRE_SECONDS);

    // The stored offset is in the file being written; after a rotation it is a closed file that starts ageing.
    await s.query('FLUSH BINARY LOGS');
    const config = join(env.dir, 'connector.properties');
    writeFileSync(
      config,
      Object.entries(env.props)
        .map(([k, v]) => `${k}=${v}`)
        .join('\n'),
    );
    const r = spawnSync(process.execPath, ['bin/cdc.js', 'check', '--config', config], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    const line = r.stdout.split('\n').find((l) => l.includes('binlog.runway'));
    assert.ok(line, r.stdout + r.stderr);
    assert.match(
      line,
      /\[WARN\] binlog\.runway: The stored offset \(mariadb-bin\.\d{6}\) has \d+ s before the retention may purge it \(binlog_expire_logs_seconds = 6\)/,
    );
  });
});
