/**
 * Measures the retention runway on the live server: the retention setting, SHOW BINARY LOGS, and the start time of
 * the files that matter. The server lists no file times, so a file's start is read from its first event (the
 * FORMAT_DESCRIPTION at position 4) through a short binlog dump under a random far-away server id (a running
 * capture or replica with database.server.id is not disconnected by it). Start times never change: cached.
 */
import type { Connection as PromiseConnection } from 'mysql2/promise';
import { errorMessage } from '../../../common/errors.js';
import type { Logger } from '../../../common/logger.js';
import { BinlogReplicationClient, callbackConnection } from '../binlog/replication/index.js';
import { type RetentionSetting, readRetentionSetting } from './retention-setting.js';
import { computeRunway, filesToTime, type Runway } from './runway.js';

export interface RunwayMonitorOptions {
  /** A new promise-API connection to the source (closed after each measurement). */
  connect(): Promise<PromiseConnection>;
  logger?: Logger;
  /** Reads a file's start time (ms); default: a binlog dump from position 4. */
  fileStartTime?: (file: string) => Promise<number | null>;
  /** How long the retention setting is reused. @default 300000 */
  settingTtlMs?: number;
  now?: () => number;
}

export interface RunwayMeasurement extends Runway {
  setting: RetentionSetting;
  measuredAtMs: number;
}

export class RunwayMonitor {
  private readonly starts = new Map<string, number | null>();
  private setting: { at: number; value: RetentionSetting } | null = null;
  private readonly now: () => number;
  private readonly fileStartTime: (file: string) => Promise<number | null>;
  /** The newest measurement (null before the first). */
  last: RunwayMeasurement | null = null;

  constructor(private readonly options: RunwayMonitorOptions) {
    this.now = options.now ?? Date.now;
    this.fileStartTime = options.fileStartTime ?? ((file) => dumpFileStartTime(options.connect, file));
  }

  /** Measures the runway of `neededFile` (the file of the position the capture resumes from). */
  async measure(neededFile: string): Promise<RunwayMeasurement> {
    const conn = await this.options.connect();
    let logs: string[];
    const sizes = new Map<string, number>();
    let setting: RetentionSetting;
    try {
      const ttl = this.options.settingTtlMs ?? 300_000;
      if (!this.setting || this.now() - this.setting.at > ttl)
        this.setting = { at: this.now(), value: await readRetentionSetting(conn) };
      setting = this.setting.value;
      const [rows] = await conn.query('SHOW BINARY LOGS');
      logs = (rows as Array<{ Log_name: string; File_size?: unknown }>).map((r) => {
        sizes.set(String(r.Log_name), Number(r.File_size ?? 0) || 0);
        return String(r.Log_name);
      });
    } finally {
      await conn.end().catch(() => {});
    }
    for (const f of [...this.starts.keys()]) if (!logs.includes(f)) this.starts.delete(f);
    for (const file of filesToTime(logs, neededFile)) {
      if (this.starts.get(file) != null) continue;
      try {
        this.starts.set(file, await this.fileStartTime(file));
      } catch (err) {
        this.options.logger?.debug('cannot read a binlog file start time', { file, error: errorMessage(err) });
        this.starts.set(file, null);
      }
    }
    const nowMs = this.now();
    const runway = computeRunway({
      retentionSeconds: setting.seconds,
      logs,
      neededFile,
      startedAtMs: (f) => this.starts.get(f) ?? null,
      nowMs,
      ...(setting.maxTotalBytes !== undefined ? { maxTotalBytes: setting.maxTotalBytes, fileSizes: sizes } : {}),
    });
    this.last = { ...runway, setting, measuredAtMs: nowMs };
    return this.last;
  }
}

/** The timestamp (ms) of the first real event of `file`, read by a binlog dump from position 4. */
export async function dumpFileStartTime(
  connect: () => Promise<PromiseConnection>,
  file: string,
): Promise<number | null> {
  const client = new BinlogReplicationClient({
    connection: callbackConnection(connect),
    serverId: 4_000_000_000 + Math.floor(Math.random() * 200_000_000),
    start: { file, pos: 4 },
    heartbeatIntervalMs: 0,
    setupTimeoutMs: 15_000,
  });
  try {
    for await (const ev of client) {
      if (!ev.artificial && ev.timestamp > 0) return ev.timestamp * 1000;
      if (!ev.artificial && ev.file !== file) return null;
    }
    return null;
  } finally {
    await client.stop().catch(() => {});
  }
}
