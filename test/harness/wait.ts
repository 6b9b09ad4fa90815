/**
 * Waiting for a condition in tests (never a fixed sleep): poll until it holds, or fail naming what was awaited.
 * One implementation for every test file.
 */

/** Polls `cond` until it holds; then throws `timed out after <timeoutMs> ms waiting for <what>`. */
export async function waitFor(
  what: string | (() => string),
  cond: () => boolean | Promise<boolean>,
  timeoutMs = 60_000,
  everyMs = 25,
): Promise<void> {
  if (await pollUntil(cond, timeoutMs, everyMs)) return;
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}`);
}

/** Polls `probe` until it returns a value (not null/undefined) and resolves with it; throws like waitFor. */
export async function waitForValue<T>(
  what: string | (() => string),
  probe: () => T | null | undefined | Promise<T | null | undefined>,
  timeoutMs = 60_000,
  everyMs = 25,
): Promise<T> {
  let value: T | null | undefined;
  await waitFor(
    what,
    async () => {
      value = await probe();
      return value !== null && value !== undefined;
    },
    timeoutMs,
    everyMs,
  );
  return value as T;
}

/** Polls `cond` until it holds (true) or `timeoutMs` passed (false, after one last check): the caller decides. */
export async function pollUntil(
  cond: () => boolean | Promise<boolean>,
  timeoutMs: number,
  everyMs = 10,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await cond()) return true;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return cond();
}
