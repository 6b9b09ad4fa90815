/**
 * Error model shared by every seam. Each error carries a stable `code` (documented in docs/errors.md) and
 * whether retrying can help; `isRetriable` walks the cause chain so a wrapped fatal cause stays fatal.
 */
export type ErrorCode =
  | 'CONFIG_INVALID'
  | 'CONNECTION_FAILED'
  | 'PREFLIGHT_FAILED'
  | 'BINLOG_DECODE'
  | 'BINLOG_CHECKSUM'
  | 'BINLOG_UNSUPPORTED_EVENT'
  | 'BINLOG_ENCRYPTED'
  | 'BINLOG_POSITION_LOST'
  | 'BINLOG_STREAM'
  | 'SCHEMA_UNPARSEABLE_DDL'
  | 'SCHEMA_INCONSISTENT'
  | 'SCHEMA_HISTORY'
  | 'OFFSET_STORE'
  | 'LEASE_LOST'
  | 'SINK_FAILED'
  | 'SNAPSHOT_FAILED'
  | 'TRANSFORM_INVALID'
  | 'INTERNAL';

export interface CdcErrorOptions extends ErrorOptions {
  retriable?: boolean;
}

export class CdcError extends Error {
  readonly code: ErrorCode;
  readonly retriable: boolean;
  constructor(code: ErrorCode, message: string, options: CdcErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.retriable = options.retriable ?? false;
  }
}

/** True when retrying may help: every CdcError in the cause chain must allow it; unknown errors are network-ish. */
export function isRetriable(err: unknown): boolean {
  let cur: unknown = err;
  let sawCdc = false;
  for (let depth = 0; cur !== undefined && cur !== null && depth < 16; depth++) {
    if (cur instanceof CdcError) {
      if (!cur.retriable) return false;
      sawCdc = true;
    }
    cur = (cur as { cause?: unknown }).cause;
  }
  return sawCdc || !(err instanceof CdcError);
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export interface SinkErrorOptions extends CdcErrorOptions {
  /**
   * The sink already applied the retry policy to this failure (it retries per record to keep per-key order), so
   * no outer layer may retry it again. The failure may still be transient (`retriable`), e.g. for a Lambda that
   * reports the record back to its event source mapping.
   */
  retriesExhausted?: boolean;
}

/** A sink could not deliver a batch. `retriable` says whether resending the same batch can help. */
export class SinkError extends CdcError {
  readonly retriesExhausted: boolean;
  constructor(message: string, options: SinkErrorOptions = {}) {
    super('SINK_FAILED', message, options);
    this.retriesExhausted = options.retriesExhausted ?? false;
  }
}

/** The offset store refused or failed a load/commit (e.g. the offset would move backwards, or a stale writer). */
export class OffsetStoreError extends CdcError {
  constructor(message: string, options: CdcErrorOptions = {}) {
    super('OFFSET_STORE', message, options);
  }
}

/** Schema history could not be read, written or decoded. */
export class SchemaHistoryError extends CdcError {
  constructor(message: string, options: CdcErrorOptions = {}) {
    super('SCHEMA_HISTORY', message, options);
  }
}

/** The publishing lease is not (or no longer) held by this process: stop publishing and committing. */
export class LeaseLostError extends CdcError {
  constructor(message: string, options: CdcErrorOptions = {}) {
    super('LEASE_LOST', message, options);
  }
}
