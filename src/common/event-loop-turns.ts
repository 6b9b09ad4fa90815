/**
 * A loop that follows a buffered stream into a queue with room runs on promise continuations alone (microtasks),
 * and microtasks never let timers or I/O run: while the binlog client hands over a backlog of up to its 8 MiB read
 * buffer, offset commits, lease renewals, heartbeats and sink responses would all wait until the backlog is drained
 * or the queue fills. Such a loop asks `due()` after each unit of work and awaits the turn it returns.
 */
export class EventLoopTurns {
  private last: number;

  constructor(
    /** Longest stretch of work without a turn, in milliseconds. */
    private readonly intervalMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.last = now();
  }

  /** A promise that resolves after the event loop's next pass when a turn is due, else null (nothing allocated). */
  due(): Promise<void> | null {
    if (this.now() - this.last < this.intervalMs) return null;
    return new Promise((resolve) => {
      // setImmediate, not a resolved promise: it runs after the loop's poll phase (I/O callbacks); timers run on
      // the loop's next pass, at the latest at the next turn.
      setImmediate(() => {
        this.last = this.now();
        resolve();
      });
    });
  }
}
