/** Retry policy for PutRecords: exponential backoff with full jitter (AWS Architecture Blog, "Exponential Backoff And Jitter"). */
import { exponentialBackoff } from '../../common/backoff.js';

export interface RetryOptions {
  /**
   * First backoff ceiling in ms; attempt n waits a random time in [0, min(maxDelayMs, baseDelayMs * 2^n)).
   * @default 100
   */
  baseDelayMs?: number;
  /** @default 5000 */
  maxDelayMs?: number;
  /**
   * Attempts per record (first try included) before `send()` gives up with a retriable SinkError.
   * @default 30
   */
  maxAttempts?: number;
}

export function backoffDelay(attempt: number, options: RetryOptions = {}, random: () => number = Math.random): number {
  return exponentialBackoff(
    attempt,
    { initialMs: options.baseDelayMs ?? 100, maxMs: options.maxDelayMs ?? 5000 },
    random,
  );
}

/** Per-entry PutRecords error codes worth retrying (the API documents exactly these two). */
const RETRIABLE_ENTRY_CODES = new Set([
  'ProvisionedThroughputExceededException',
  'InternalFailure',
  'InternalFailureException',
]);

export function isRetriableEntryError(code: string): boolean {
  return RETRIABLE_ENTRY_CODES.has(code);
}

const RETRIABLE_REQUEST_ERRORS = new Set([
  'ProvisionedThroughputExceededException',
  'KMSThrottlingException',
  'LimitExceededException',
  'InternalFailure',
  'InternalFailureException',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'ThrottlingException',
  'RequestTimeout',
  'RequestTimeoutException',
  'TimeoutError',
]);

const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ERR_HTTP2_ERROR',
  'ECONNABORTED',
]);

/** Whether a whole-request failure (thrown by the SDK) may succeed when retried. */
export function isRetriableRequestError(err: unknown): boolean {
  const e = err as { name?: string; code?: string; $metadata?: { httpStatusCode?: number }; $retryable?: unknown };
  if (!e || typeof e !== 'object') return false;
  if (e.name && RETRIABLE_REQUEST_ERRORS.has(e.name)) return true;
  if (e.code && NETWORK_CODES.has(e.code)) return true;
  if (e.$retryable) return true;
  const status = e.$metadata?.httpStatusCode;
  if (status !== undefined) return status >= 500 || status === 429;
  // No HTTP response at all: a network-level failure.
  return e.name === 'Error' || e.name === 'AbortError' || e.name === 'TimeoutError' || e.code !== undefined;
}
