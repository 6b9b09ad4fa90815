/**
 * The one exponential backoff: the ceiling doubles per retry from `initialMs` up to `maxMs`. Full jitter (a random
 * delay in [0, ceiling)) spreads retries of many writers (AWS Architecture Blog, "Exponential Backoff And Jitter");
 * equal jitter (half fixed, half random) keeps a floor, for reconnects that must not spin.
 */
export interface BackoffOptions {
  readonly initialMs: number;
  readonly maxMs: number;
  /** @default 'full' */
  readonly jitter?: 'full' | 'equal';
}

/** Delay in ms before retry number `retry` (0-based). */
export function exponentialBackoff(retry: number, options: BackoffOptions, random: () => number = Math.random): number {
  const ceiling = Math.min(options.maxMs, options.initialMs * 2 ** Math.min(Math.max(retry, 0), 30));
  if (options.jitter === 'equal') return Math.round(ceiling / 2 + (random() * ceiling) / 2);
  return Math.floor(random() * ceiling);
}
