import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EventLoopTurns } from '../../../src/common/event-loop-turns.js';

describe('EventLoopTurns', () => {
  it('asks for a turn only once the interval has passed, and the turn lets queued macrotasks run', async () => {
    let clock = 1000;
    const turns = new EventLoopTurns(50, () => clock);
    assert.equal(turns.due(), null, 'no turn right after start');
    clock += 49;
    assert.equal(turns.due(), null, 'none before the interval');
    clock += 1;
    let ranBefore = false;
    setImmediate(() => {
      ranBefore = true;
    });
    const turn = turns.due();
    assert.ok(turn instanceof Promise, 'a turn is due at the interval');
    await turn;
    assert.ok(ranBefore, 'a macrotask queued before the turn ran before the loop went on');
    assert.equal(turns.due(), null, 'the interval restarts after the turn');
    clock += 50;
    assert.ok(turns.due() instanceof Promise);
  });

  it('a loop of microtask-only work lets a timer fire while it runs', async () => {
    // The shape of the stream runner: every await resolves at once, so without turns the timer waits to the end.
    const turns = new EventLoopTurns(5);
    let fired = 0;
    const timer = setInterval(() => fired++, 1);
    let firedMidway = -1;
    const until = performance.now() + 60;
    for (let i = 0; performance.now() < until; i++) {
      await Promise.resolve(i);
      const turn = turns.due();
      if (turn) await turn;
      if (firedMidway < 0 && fired > 0) firedMidway = i;
    }
    clearInterval(timer);
    assert.ok(firedMidway >= 0, 'the timer fired during the loop');
  });
});
