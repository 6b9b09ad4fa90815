import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Logger } from '../../../src/common/logger.js';
import { HealthMonitor, MetricsCollector, RetentionMetric, toEmf, toPrometheus } from '../../../src/metrics/index.js';
import { CaptureMetrics } from '../../../src/model/capture-metrics.js';
import { runwayCheck } from '../../../src/source/mysql/preflight.js';
import { CaptureRunway } from '../../../src/source/mysql/retention/capture-runway.js';
import {
  rdsRetention,
  readRetentionSetting,
  variableRetention,
} from '../../../src/source/mysql/retention/retention-setting.js';
import { computeRunway, snapshotRunwayWarning } from '../../../src/source/mysql/retention/runway.js';
import { RunwayMonitor } from '../../../src/source/mysql/retention/runway-monitor.js';

const H = 3600;
const LOGS = ['bin.000007', 'bin.000008', 'bin.000009'];
const NOW = Date.UTC(2026, 11, 1, 12, 0, 0);
const STARTS: Record<string, number> = {
  'bin.000007': NOW - 30 * H * 1000,
  'bin.000008': NOW - 20 * H * 1000,
  'bin.000009': NOW - 2 * H * 1000,
};

function runway(neededFile: string, retentionSeconds: number | null) {
  return computeRunway({ retentionSeconds, logs: LOGS, neededFile, startedAtMs: (f) => STARTS[f] ?? null, nowMs: NOW });
}

describe('computeRunway', () => {
  test('a closed file: start of the next file + retention - now', () => {
    const r = runway('bin.000007', 24 * H);
    assert.equal(r.seconds, 4 * H); // closed 20 h ago, kept 24 h
    assert.equal(r.oldestFile, 'bin.000007');
    assert.equal(r.oldestFileAgeSeconds, 30 * H);
    assert.equal(runway('bin.000008', 24 * H).seconds, 22 * H);
  });
  test('overdue: negative (purged at the next rotation)', () => {
    assert.equal(runway('bin.000007', 12 * H).seconds, -8 * H);
  });
  test('the file being written keeps the whole retention; no expiry is unlimited; a missing file is lost', () => {
    assert.equal(runway('bin.000009', 24 * H).seconds, 24 * H);
    assert.equal(runway('bin.000007', null).seconds, null);
    const lost = runway('bin.000003', 24 * H);
    assert.equal(lost.neededFileExists, false);
    assert.equal(lost.seconds, 0);
  });
  test('unknown start of the next file: unknown runway', () => {
    const r = computeRunway({
      retentionSeconds: 3600,
      logs: LOGS,
      neededFile: 'bin.000007',
      startedAtMs: () => null,
      nowMs: NOW,
    });
    assert.equal(r.seconds, null);
  });
});

describe('retention setting', () => {
  test("RDS 'binlog retention hours' (stubbed mysql.rds_show_configuration rows)", () => {
    const rows = [
      { name: 'binlog retention hours', value: '24', description: 'binlog retention hours specifies ...' },
      { name: 'source delay', value: '0', description: '' },
    ];
    assert.deepEqual(rdsRetention(rows), { seconds: 86400, source: 'rds', setting: "'binlog retention hours' = 24" });
    assert.equal(rdsRetention([{ name: 'binlog retention hours', value: null }])?.seconds, 0);
    assert.equal(rdsRetention([{ name: 'source delay', value: '0' }]), null);
  });
  test('binlog_expire_logs_seconds wins over expire_logs_days; 0/0 or auto purge OFF is unlimited', () => {
    const v = (o: Record<string, string>) => variableRetention(new Map(Object.entries(o)));
    assert.equal(
      v({ binlog_expire_logs_seconds: '2592000', expire_logs_days: '30' }).source,
      'binlog_expire_logs_seconds',
    );
    assert.deepEqual(v({ binlog_expire_logs_seconds: '0', expire_logs_days: '0.5' }), {
      seconds: 43200,
      source: 'expire_logs_days',
      setting: 'expire_logs_days = 0.5',
    });
    assert.equal(v({ binlog_expire_logs_seconds: '0', expire_logs_days: '0' }).seconds, null);
    assert.equal(v({ binlog_expire_logs_seconds: '600', binlog_expire_logs_auto_purge: 'OFF' }).seconds, null);
  });
  test('readRetentionSetting: the RDS procedure result (CALL returns [rows, header]) wins over the variables', async () => {
    const queries: string[] = [];
    const conn = {
      async query(sql: string): Promise<[unknown, unknown]> {
        queries.push(sql);
        if (sql.startsWith('CALL')) return [[[{ name: 'binlog retention hours', value: 48 }], {}], []];
        return [[{ Variable_name: 'binlog_expire_logs_seconds', Value: '600' }], []];
      },
    };
    assert.equal((await readRetentionSetting(conn)).seconds, 48 * H);
    assert.equal(queries.length, 1);
    const plain = {
      async query(sql: string): Promise<[unknown, unknown]> {
        if (sql.startsWith('CALL'))
          throw Object.assign(new Error('PROCEDURE mysql.rds_show_configuration does not exist'), { errno: 1305 });
        return [[{ Variable_name: 'binlog_expire_logs_seconds', Value: '600' }], []];
      },
    };
    assert.equal((await readRetentionSetting(plain)).seconds, 600);
  });
});

describe('snapshot warning', () => {
  test('warns when rows / rate outlast the runway, naming the settings to raise', () => {
    assert.equal(snapshotRunwayWarning(1000, 5000, 3600), null);
    const w = snapshotRunwayWarning(100_000_000, 5000, 3600);
    assert.ok(w);
    assert.equal(w.expectedSeconds, 20_000);
    assert.match(w.message, /binlog retention hours/);
    assert.match(w.message, /binlog_expire_logs_seconds/);
    assert.equal(snapshotRunwayWarning(100_000_000, 5000, null), null);
  });
  test('CaptureRunway logs the warning before a snapshot, with the measured runway (stubbed server)', async () => {
    const warnings: Array<{ msg: string; fields?: Record<string, unknown> }> = [];
    const logger = {
      debug() {},
      info() {},
      warn: (msg: string, fields?: Record<string, unknown>) => warnings.push({ msg, ...(fields ? { fields } : {}) }),
      error() {},
      child: () => logger,
    } as Logger;
    const conn = {
      async query(sql: string) {
        if (sql.startsWith('CALL')) return [[[{ name: 'binlog retention hours', value: 1 }], {}], []];
        if (sql === 'SHOW BINARY LOGS') return [LOGS.map((Log_name) => ({ Log_name, File_size: 1 })), []];
        throw new Error(`unexpected ${sql}`);
      },
      async end() {},
    };
    const connect = async () => conn as never;
    const monitor = new RunwayMonitor({ connect, fileStartTime: async (f) => STARTS[f] ?? null, now: () => NOW });
    const runway = new CaptureRunway({ connect, logger, monitor });
    await runway.beforeSnapshot('bin.000009', 50_000_000);
    assert.equal(warnings.length, 1);
    assert.equal(warnings[0]?.fields?.runwaySeconds, H);
    assert.equal(warnings[0]?.fields?.rate, 'assumed');
    assert.equal(runway.seconds, H);
    await runway.beforeSnapshot('bin.000009', 1000);
    assert.equal(warnings.length, 1, 'a snapshot that fits is not warned about');
  });
});

describe('RetentionRunwaySeconds metric', () => {
  /** A streaming source whose runway gauge reads `seconds`. */
  const source = (seconds: number | null) => {
    const metrics = new CaptureMetrics();
    metrics.enter('streaming');
    metrics.streaming.position('bin.000009', 4);
    metrics.streaming.connection(true);
    metrics.retentionRunwayFrom(() => seconds);
    return { metrics };
  };
  const task = { queue: { remainingCapacity: 1, sizeInBytes: 0, length: 0, peakLength: 0, peakSizeInBytes: 0 } };
  test('EMF, Prometheus and /health carry it once measured; absent while unlimited', async () => {
    const measured = source(5400);
    const sample = new MetricsCollector(measured, task, () => NOW).sample();
    assert.equal(sample.values[RetentionMetric.RetentionRunwaySeconds], 5400);
    const emf = toEmf(sample, 'c1');
    assert.equal(emf.RetentionRunwaySeconds, 5400);
    assert.ok(
      emf._aws.CloudWatchMetrics[0]?.Metrics.some((m) => m.Name === 'RetentionRunwaySeconds' && m.Unit === 'Seconds'),
    );
    assert.match(toPrometheus(sample, 'c1'), /^cdc_retention_runway_seconds\{connector="c1"\} 5400$/m);
    const health = await new HealthMonitor(measured, {}, () => NOW).check();
    assert.equal(health.retentionRunwaySeconds, 5400);

    const unlimited = source(null);
    const none = new MetricsCollector(unlimited, task, () => NOW).sample();
    assert.equal(RetentionMetric.RetentionRunwaySeconds in none.values, false);
  });
});

describe("MariaDB's size-bound retention (max_binlog_total_size)", () => {
  const MiB = 1048576;
  test('detected beside the time-based setting; bytes left = the bound minus the binlog from the needed file on', async () => {
    const vars = new Map(
      Object.entries({ binlog_expire_logs_seconds: '86400', max_binlog_total_size: String(100 * MiB) }),
    );
    const setting = variableRetention(vars);
    assert.equal(setting.seconds, 86400);
    assert.equal(setting.maxTotalBytes, 100 * MiB);
    assert.match(setting.setting, /binlog_expire_logs_seconds = 86400, max_binlog_total_size = 104857600/);
    assert.equal(variableRetention(new Map([['max_binlog_total_size', '0']])).maxTotalBytes, undefined);
    const conn = {
      async query(sql: string): Promise<[unknown, unknown]> {
        if (sql.startsWith('CALL')) throw Object.assign(new Error('no such procedure'), { errno: 1305 });
        if (sql === 'SHOW BINARY LOGS')
          return [LOGS.map((Log_name, i) => ({ Log_name, File_size: [50, 30, 10][i]! * MiB })), []];
        assert.match(sql, /max_binlog_total_size/);
        return [[...vars].map(([Variable_name, Value]) => ({ Variable_name, Value })), []];
      },
      async end() {},
    };
    const monitor = new RunwayMonitor({
      connect: async () => conn as never,
      fileStartTime: async (f) => STARTS[f] ?? null,
      now: () => NOW,
    });
    const m = await monitor.measure('bin.000007');
    assert.equal(m.bytesLeft, 10 * MiB, '100 MiB bound, 90 MiB from bin.000007 on');
    assert.equal(m.seconds, 4 * H, 'the time-based runway is unchanged');
    // cdc check: a size bound nearly reached is a warning naming the setting; further away, a note.
    const low = await runwayCheck(async () => ({ measurement: m, of: 'stored offset' }), 24);
    assert.equal(low.status, 'warn');
    assert.match(low.message, /size-bound retention: max_binlog_total_size = 104857600 purges it once 10\.0 MiB more/);
    assert.match(low.fix ?? '', /Raise max_binlog_total_size/);
    const far = await runwayCheck(
      async () => ({ measurement: await monitor.measure('bin.000009'), of: 'current position' }),
      1,
    );
    assert.equal(far.status, 'pass');
    assert.match(far.message, /size-bound retention: .* 90\.0 MiB more binlog is written/);
  });
});
