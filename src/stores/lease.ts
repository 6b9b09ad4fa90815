/**
 * A lease that guards publishing: only the holder of the current fencing token may publish or commit offsets.
 * Implementations renew in the background and call `onLost` as soon as renewal fails or is pre-empted, early
 * enough (before expiry) that the holder stops before anyone else can acquire.
 */
export interface Lease {
  /** Wait until the lease is acquired (or `signal` aborts); resolves with the fencing token. */
  acquire(signal?: AbortSignal): Promise<number>;
  /** Throws LeaseLostError when the lease is no longer held. Call before each publish. */
  assertHeld(): void;
  readonly token: number | null;
  onLost(listener: (err: Error) => void): void;
  release(): Promise<void>;
}
