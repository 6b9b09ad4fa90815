import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import type { Logger } from '../../../src/common/logger.js';
import { HeartbeatDispatcher, type HeartbeatFeed } from '../../../src/engine/heartbeat-dispatcher.js';
import { ACCEPTED, type QueueItem } from '../../../src/model/queue-item.js';
import type { SinkRecord } from '../../../src/model/sink-record.js';

const warnings: string[] = [];
const logger = {
  warn: (m: string) => void warnings.push(m),
  info: () => {},
  debug: () => {},
  error: () => {},
} as unknown as Logger;
const heartbeat = (tsMs: number) => ({ topic: 'hb', key: null, value: { ts_ms: tsMs } }) as unknown as SinkRecord;

function setup(over: { intervalMs?: number; actionQuery?: string | null; action?: () => Promise<void> } = {}) {
  const emitted: QueueItem[] = [];
  const actions: string[] = [];
  const dispatcher = new HeartbeatDispatcher({
    intervalMs: over.intervalMs ?? 100,
    actionQuery: over.actionQuery ?? null,
    runActionQuery: async (sql) => {
      actions.push(sql);
      await over.action?.();
    },
    heartbeat,
    emit: async (item) => void emitted.push(item),
    logger,
  });
  const state = { inTx: false, offset: { file: 'bin.000001', pos: 42 } };
  const feed: HeartbeatFeed = { offset: () => state.offset, inTransaction: () => state.inTx };
  return { dispatcher, emitted, actions, state, feed };
}

describe('HeartbeatDispatcher', () => {
  beforeEach(() => {
    warnings.length = 0;
    mock.timers.enable({ apis: ['setInterval'] });
  });
  afterEach(() => mock.timers.reset());

  it('emits a heartbeat with the last commit-boundary offset every interval, and none after stop', () => {
    const { dispatcher, emitted, feed } = setup();
    const abort = new AbortController();
    dispatcher.start(feed, abort.signal);
    mock.timers.tick(250);
    assert.equal(emitted.length, 2);
    assert.deepEqual(emitted[0].offset, { file: 'bin.000001', pos: 42 });
    assert.equal((emitted[0].record as unknown as { topic: string }).topic, 'hb');
    dispatcher.stop();
    mock.timers.tick(500);
    assert.equal(emitted.length, 2);
  });

  it('sends no heartbeat inside a transaction, while an emit is pending, or after abort', async () => {
    const { dispatcher, emitted, state, feed } = setup();
    const abort = new AbortController();
    dispatcher.start(feed, abort.signal);
    state.inTx = true;
    mock.timers.tick(100);
    assert.equal(emitted.length, 0, 'in a transaction');
    state.inTx = false;
    let release = () => {};
    const blocked = new Promise<void>((r) => {
      release = r;
    });
    const emit = dispatcher.track(() => blocked);
    const pending = emit({ record: null, offset: null });
    mock.timers.tick(100);
    assert.equal(emitted.length, 0, 'an emit waits for queue capacity');
    release();
    await pending;
    mock.timers.tick(100);
    assert.equal(emitted.length, 1, 'after the pending emit went through');
    abort.abort();
    mock.timers.tick(100);
    assert.equal(emitted.length, 1, 'aborted');
    dispatcher.stop();
  });

  it('an emit taken at once is returned as is (no pending count, no extra promise)', () => {
    const { dispatcher } = setup();
    const emit = dispatcher.track(() => ACCEPTED);
    assert.equal(emit({ record: null, offset: null }), ACCEPTED);
    assert.equal(
      dispatcher.mayBeat({ offset: () => null, inTransaction: () => false }, new AbortController().signal),
      true,
    );
  });

  it('runs heartbeat.action.query each interval, one at a time, and logs a failure without stopping', async () => {
    let finish = () => {};
    let fail = false;
    const { dispatcher, actions, feed } = setup({
      actionQuery: 'UPDATE hb SET ts = NOW()',
      action: () =>
        new Promise<void>((resolve, reject) => {
          finish = () => (fail ? reject(new Error('gone')) : resolve());
        }),
    });
    dispatcher.start(feed, new AbortController().signal);
    mock.timers.tick(100);
    mock.timers.tick(100);
    assert.deepEqual(actions, ['UPDATE hb SET ts = NOW()'], 'the first query is still running');
    fail = true;
    finish();
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(warnings, ['heartbeat.action.query failed']);
    mock.timers.tick(100);
    assert.equal(actions.length, 2, 'runs again after a failure');
    dispatcher.stop();
  });

  it('is off with heartbeat.interval.ms=0 (no heartbeats, no action query)', () => {
    const { dispatcher, emitted, actions, feed } = setup({ intervalMs: 0, actionQuery: 'SELECT 1' });
    dispatcher.start(feed, new AbortController().signal);
    mock.timers.tick(10_000);
    assert.equal(emitted.length, 0);
    assert.equal(actions.length, 0);
  });
});

describe('HeartbeatDispatcher driven by server heartbeats', () => {
  it('emits at most one heartbeat per interval, with the server time and the offset at that point', async () => {
    const { dispatcher, emitted } = setup({ intervalMs: 1000 });
    let n = 0;
    const offset = () => ({ file: 'vitess', pos: ++n });
    await dispatcher.serverBeat(5_000, offset);
    await dispatcher.serverBeat(6_000, offset);
    assert.equal(emitted.length, 1, 'the second beat is within the interval');
    assert.deepEqual(emitted[0].offset, { file: 'vitess', pos: 1 });
    assert.equal((emitted[0].record as unknown as { value: { ts_ms: number } }).value.ts_ms, 5_000);
    assert.equal(n, 1, 'no offset is taken for a skipped beat');
    const off = setup({ intervalMs: 0 });
    await off.dispatcher.serverBeat(5_000, offset);
    assert.equal(off.emitted.length, 0);
  });
});
