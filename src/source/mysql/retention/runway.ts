/**
 * Binlog retention runway: how long the binlog file the capture still needs stays on the server.
 *
 * MySQL and MariaDB purge a closed file once its modification time is older than the retention (checked when a
 * file rotates or the server starts); RDS/Aurora's purge job does the same with `binlog retention hours`. A closed
 * file was last written when the next one was started, so its purge is due at `start of the next file +
 * retention`. The file being written cannot be purged: it keeps at least the whole retention from now.
 * A file a connected replica is reading is not purged either (the server skips files in use), so the runway
 * matters most while the capture is stopped or snapshotting — which is when it is measured against.
 */

export interface RunwayInput {
  /** Retention in seconds; null = never purged automatically. */
  retentionSeconds: number | null;
  /** SHOW BINARY LOGS names, oldest first (the last one is being written). */
  logs: readonly string[];
  /** The file holding the position the capture resumes from. */
  neededFile: string;
  /** Start time (ms) of `file` (its first event), null when unknown. */
  startedAtMs(file: string): number | null;
  nowMs: number;
  /** MariaDB's `max_binlog_total_size` (absent: no size bound). */
  maxTotalBytes?: number;
  /** SHOW BINARY LOGS `File_size` by file (needed with `maxTotalBytes`). */
  fileSizes?: ReadonlyMap<string, number>;
}

export interface Runway {
  /** Seconds until `neededFile` may be purged (negative: overdue, the next rotation purges it); null = unlimited. */
  seconds: number | null;
  neededFile: string;
  /** When `neededFile` becomes purgeable (ms), null when never. */
  purgeDueAtMs: number | null;
  oldestFile: string | null;
  /** Age of the oldest binlog file still on the server (seconds since its first event), null when unknown. */
  oldestFileAgeSeconds: number | null;
  retentionSeconds: number | null;
  /** False when `neededFile` is no longer listed: the position is already lost. */
  neededFileExists: boolean;
  /**
   * Size-bound retention (MariaDB `max_binlog_total_size`): bytes the server may still write before `neededFile`
   * is purged (the bound minus the binlog from `neededFile` on); absent without a size bound. Time-based `seconds`
   * does not include it: how soon those bytes are written depends on the write rate.
   */
  bytesLeft?: number;
}

/** The runway of `neededFile` (pure). */
export function computeRunway(input: RunwayInput): Runway {
  const r = timeRunway(input);
  if (input.maxTotalBytes === undefined || !r.neededFileExists) return r;
  const i = input.logs.indexOf(input.neededFile);
  const kept = input.logs.slice(i).reduce((n, f) => n + (input.fileSizes?.get(f) ?? 0), 0);
  return { ...r, bytesLeft: input.maxTotalBytes - kept };
}

function timeRunway(input: RunwayInput): Runway {
  const { logs, neededFile, retentionSeconds: retention, nowMs } = input;
  const oldestFile = logs[0] ?? null;
  const oldestStart = oldestFile ? input.startedAtMs(oldestFile) : null;
  const base = {
    neededFile,
    oldestFile,
    oldestFileAgeSeconds: oldestStart === null ? null : Math.max(0, Math.round((nowMs - oldestStart) / 1000)),
    retentionSeconds: retention,
  };
  const index = logs.indexOf(neededFile);
  if (index < 0) return { ...base, seconds: 0, purgeDueAtMs: nowMs, neededFileExists: false };
  if (retention === null) return { ...base, seconds: null, purgeDueAtMs: null, neededFileExists: true };
  if (index === logs.length - 1) {
    // Still being written: it can only close (and start ageing) from now on.
    return { ...base, seconds: retention, purgeDueAtMs: nowMs + retention * 1000, neededFileExists: true };
  }
  const closedAt = input.startedAtMs(logs[index + 1] as string);
  if (closedAt === null) {
    return { ...base, seconds: null, purgeDueAtMs: null, neededFileExists: true };
  }
  const due = closedAt + retention * 1000;
  return { ...base, seconds: Math.round((due - nowMs) / 1000), purgeDueAtMs: due, neededFileExists: true };
}

/** Files between `neededFile` and the end whose start time `computeRunway` reads. */
export function filesToTime(logs: readonly string[], neededFile: string): string[] {
  const out = new Set<string>();
  if (logs[0]) out.add(logs[0]);
  const i = logs.indexOf(neededFile);
  if (i >= 0 && i + 1 < logs.length) out.add(logs[i + 1] as string);
  return [...out];
}

/** Expected snapshot duration against the runway: the warning text, or null when it fits. */
export function snapshotRunwayWarning(
  estimatedRows: number,
  rowsPerSecond: number,
  runwaySeconds: number | null,
): { expectedSeconds: number; message: string } | null {
  if (runwaySeconds === null || rowsPerSecond <= 0) return null;
  const expectedSeconds = Math.ceil(estimatedRows / rowsPerSecond);
  if (expectedSeconds <= runwaySeconds) return null;
  return {
    expectedSeconds,
    message:
      `the snapshot is expected to take ${formatDuration(expectedSeconds)} (${estimatedRows} rows at ${Math.round(rowsPerSecond)} rows/s), ` +
      `longer than the binlog retention runway of ${formatDuration(runwaySeconds)}: the binlog position it starts from may be purged ` +
      'before streaming reaches it (then the snapshot has to start over). Raise the retention for the snapshot ' +
      "(CALL mysql.rds_set_configuration('binlog retention hours', N) on RDS/Aurora, binlog_expire_logs_seconds elsewhere), " +
      'or use snapshot.chunked=true (streaming runs beside the chunks, so the position keeps moving)',
  };
}

export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}
