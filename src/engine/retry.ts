/**
 * The one retry policy for delivery, from the documented properties `errors.max.retries` (-1 = unlimited),
 * `errors.retry.delay.initial.ms` and `errors.retry.delay.max.ms`. One layer applies it to each failure: the
 * Kinesis sink to failed PutRecords entries (it must retry per record to keep per-key order and not resend
 * acknowledged ones) and reports exhaustion as final; the Publisher to every other failure a sink marks
 * retriable, per batch. So attempts never multiply (sink attempts x publisher attempts).
 */
import { exponentialBackoff } from '../common/backoff.js';

export interface RetryPolicy {
  /** Retries after the first attempt; -1 = unlimited, 0 = none. */
  readonly maxRetries: number;
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
}

/** The catalog defaults (errors.max.retries=-1, 300 ms doubling up to 10 s). */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: -1, initialDelayMs: 300, maxDelayMs: 10_000 };

export function retryPolicyFrom(errors: {
  readonly maxRetries: number;
  readonly retryDelayInitialMs: number;
  readonly retryDelayMaxMs: number;
}): RetryPolicy {
  return {
    maxRetries: errors.maxRetries,
    initialDelayMs: errors.retryDelayInitialMs,
    maxDelayMs: errors.retryDelayMaxMs,
  };
}

/** Whether another retry is allowed after `retriesDone` retries. */
export function mayRetry(policy: RetryPolicy, retriesDone: number): boolean {
  return policy.maxRetries < 0 || retriesDone < policy.maxRetries;
}

/** Attempts in total (first try included); Infinity when unlimited. */
export function maxAttempts(policy: RetryPolicy): number {
  return policy.maxRetries < 0 ? Number.POSITIVE_INFINITY : policy.maxRetries + 1;
}

/** Delay before retry number `retry` (0-based): full jitter under a ceiling that doubles up to maxDelayMs. */
export function retryDelayMs(policy: RetryPolicy, retry: number, random: () => number = Math.random): number {
  return exponentialBackoff(retry, { initialMs: policy.initialDelayMs, maxMs: policy.maxDelayMs }, random);
}
