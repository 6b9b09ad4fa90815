/**
 * Debezium's schema history metrics (MBean `context=schema-history`), kept by the source that owns the history.
 * Readers see {@link SchemaHistoryMetricsView}.
 */

/** STOPPED before start and after the stream ends, RECOVERING while the schema is rebuilt, RUNNING while streaming. */
export type SchemaHistoryStatus = 'STOPPED' | 'RECOVERING' | 'RUNNING';

export interface SchemaHistoryMetricsView {
  readonly Status: SchemaHistoryStatus;
  /** Wall-clock ms when recovery started (0: no recovery in this process). */
  readonly RecoveryStartTime: number;
  /** History entries the schema was rebuilt from. */
  readonly ChangesRecovered: number;
  /** Schema changes applied: those recovered at start plus the DDLs recorded while streaming. */
  readonly ChangesApplied: number;
  /** Milliseconds since the last recovered / applied change (0: none yet). */
  readonly MilliSecondsSinceLastRecoveredChange: number;
  readonly MilliSecondsSinceLastAppliedChange: number;
  /** DDL of the last history entry recovered / recorded (null: none yet). */
  readonly LastRecoveredChange: string | null;
  readonly LastAppliedChange: string | null;
}

export class SchemaHistoryMetrics implements SchemaHistoryMetricsView {
  private status: SchemaHistoryStatus = 'STOPPED';
  private recoveryStartMs = 0;
  private recovered = 0;
  private applied = 0;
  private lastRecoveredAtMs = 0;
  private lastAppliedAtMs = 0;
  private lastRecovered: string | null = null;
  private lastApplied: string | null = null;

  constructor(private readonly now: () => number = Date.now) {}

  recoveryStarted(): void {
    this.status = 'RECOVERING';
    this.recoveryStartMs = this.now();
  }

  /** The schema was rebuilt from `entries` history entries (they count as applied, too); `last` the newest DDL. */
  recoveredFrom(entries: number, last: string | null = null): void {
    this.recovered = entries;
    this.lastRecovered = last;
    this.changesApplied(entries);
    if (entries > 0) this.lastRecoveredAtMs = this.now();
  }

  /** A schema change was written to the history (`ddl`: its statement). */
  recorded(ddl: string): void {
    this.lastApplied = ddl;
  }

  /** `total` changes applied so far (a count that only grows). */
  changesApplied(total: number): void {
    if (total !== this.applied) this.lastAppliedAtMs = this.now();
    this.applied = total;
  }

  running(): void {
    this.status = 'RUNNING';
  }

  stopped(): void {
    this.status = 'STOPPED';
  }

  get Status(): SchemaHistoryStatus {
    return this.status;
  }

  get RecoveryStartTime(): number {
    return this.recoveryStartMs;
  }

  get ChangesRecovered(): number {
    return this.recovered;
  }

  get ChangesApplied(): number {
    return this.applied;
  }

  get MilliSecondsSinceLastRecoveredChange(): number {
    return this.lastRecoveredAtMs ? Math.max(0, this.now() - this.lastRecoveredAtMs) : 0;
  }

  get LastRecoveredChange(): string | null {
    return this.lastRecovered;
  }

  get LastAppliedChange(): string | null {
    return this.lastApplied;
  }

  get MilliSecondsSinceLastAppliedChange(): number {
    return this.lastAppliedAtMs ? Math.max(0, this.now() - this.lastAppliedAtMs) : 0;
  }
}
