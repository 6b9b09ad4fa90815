import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Logger } from '../../../src/common/logger.js';
import { CaptureCoordinator, type CapturePhase } from '../../../src/engine/capture-coordinator.js';
import type { SnapshotRequest, SnapshotRunner, StreamRun, StreamRunner } from '../../../src/engine/capture-runners.js';
import type { StartFacts } from '../../../src/engine/start-decision.js';
import type { SourceOffset } from '../../../src/model/source-offset.js';

const logger = { info: () => {}, warn: () => {}, debug: () => {}, error: () => {} } as unknown as Logger;
const stored: SourceOffset = { file: 'bin.000003', pos: 120 };
const snapshotEnd: SourceOffset = { file: 'bin.000004', pos: 4, snapshot_completed: true };
const serverNow: SourceOffset = { file: 'bin.000009', pos: 900 };

/** Fake runners that record what the coordinator asked of them, and the phase at each call. */
function harness(
  over: { snapshot?: () => Promise<SourceOffset>; stream?: () => Promise<void>; abortIn?: string } = {},
) {
  const calls: string[] = [];
  const phases: CapturePhase[] = [];
  const abort = new AbortController();
  let coordinator: CaptureCoordinator;
  const requests: SnapshotRequest[] = [];
  const runs: StreamRun[] = [];
  const snapshot: SnapshotRunner = {
    run: async (request) => {
      calls.push(`snapshot(${coordinator.phase})`);
      requests.push(request);
      if (over.abortIn === 'snapshot') abort.abort();
      return over.snapshot ? over.snapshot() : snapshotEnd;
    },
    skipped: () => void calls.push('skipped'),
  };
  const stream: StreamRunner = {
    recover: async (offset, schema) => {
      calls.push(`recover(${offset ? `${offset.file}:${offset.pos}` : 'null'}, ${schema})`);
      return offset ?? serverNow;
    },
    run: async (run) => {
      calls.push(`stream(${coordinator.phase})`);
      runs.push(run);
      if (over.stream) await over.stream();
    },
  };
  coordinator = new CaptureCoordinator({
    snapshot,
    stream,
    signal: abort.signal,
    logger,
    positionLost: () => new Error('position lost'),
    onPhase: (p) => void phases.push(p),
  });
  return { coordinator, calls, phases, requests, runs };
}

const facts = (over: Partial<StartFacts & { offset: SourceOffset | null }>) => ({
  mode: 'initial' as const,
  chunkedConfigured: false,
  offset: stored as SourceOffset | null,
  positionLost: false,
  historyEmpty: false,
  ...over,
});

describe('CaptureCoordinator', () => {
  it('first start: snapshot, then streaming from the snapshot position (not a resume), phases in order', async () => {
    const h = harness();
    assert.equal(await h.coordinator.run(facts({ offset: null, historyEmpty: true })), 'streamed');
    assert.deepEqual(h.calls, ['snapshot(snapshot)', 'stream(streaming)']);
    assert.equal(h.requests[0].includeData, true);
    assert.deepEqual(
      h.runs.map(({ from, resumed }) => ({ from, resumed })),
      [{ from: snapshotEnd, resumed: false }],
    );
    assert.deepEqual(h.phases, ['snapshot', 'streaming', 'stopped']);
    assert.equal(h.coordinator.phase, 'stopped');
  });

  it('initial_only stops after the snapshot without streaming', async () => {
    const h = harness();
    assert.equal(await h.coordinator.run(facts({ mode: 'initial_only', offset: null })), 'snapshot-only');
    assert.deepEqual(h.calls, ['snapshot(snapshot)']);
    assert.deepEqual(h.phases, ['snapshot', 'stopped']);
  });

  it('a stored offset with history: no snapshot (notified as skipped), schema from history, resumes the offset', async () => {
    const h = harness();
    await h.coordinator.run(facts({}));
    assert.deepEqual(h.calls, ['skipped', 'recover(bin.000003:120, history)', 'stream(streaming)']);
    assert.equal(h.runs[0].from, stored);
    assert.equal(h.runs[0].resumed, true);
  });

  it('snapshot.mode=never on a first start reads the schema from the server and streams from its position', async () => {
    const h = harness();
    await h.coordinator.run(facts({ mode: 'never', offset: null, historyEmpty: true }));
    assert.deepEqual(h.calls, ['skipped', 'recover(null, server)', 'stream(streaming)']);
    assert.deepEqual(
      h.runs.map(({ from, resumed }) => ({ from, resumed })),
      [{ from: serverNow, resumed: false }],
    );
  });

  it('a lost position fails before any runner runs, unless when_needed takes a new snapshot', async () => {
    const lost = harness();
    await assert.rejects(lost.coordinator.run(facts({ positionLost: true })), /position lost/);
    assert.deepEqual(lost.calls, []);
    const renewed = harness();
    await renewed.coordinator.run(facts({ mode: 'when_needed', positionLost: true }));
    assert.deepEqual(renewed.calls, ['snapshot(snapshot)', 'stream(streaming)']);
    assert.equal(renewed.requests[0].becausePositionLost, true);
  });

  it('an interrupted initial snapshot (offset snapshot: true) is taken again with the replay asked for', async () => {
    const h = harness();
    await h.coordinator.run(facts({ offset: { ...stored, snapshot: true } }));
    assert.equal(h.requests[0].replayInterrupted, true);
  });

  it('a stream that starts with a copy (VStream) reports it as the snapshot phase, then streaming', async () => {
    const h = harness({
      stream: async () => {
        h.runs[0].enter?.('snapshot');
        h.runs[0].enter?.('streaming');
      },
    });
    await h.coordinator.run(facts({ mode: 'never', offset: null }));
    assert.deepEqual(h.phases, ['streaming', 'snapshot', 'streaming', 'stopped']);
  });

  it('aborted during the snapshot: no streaming', async () => {
    const h = harness({ abortIn: 'snapshot' });
    assert.equal(await h.coordinator.run(facts({ offset: null })), 'aborted');
    assert.deepEqual(h.calls, ['snapshot(snapshot)']);
  });

  it('a failed snapshot rejects without streaming; a failed stream rejects with the phase stopped', async () => {
    const snap = harness({ snapshot: () => Promise.reject(new Error('lock wait timeout')) });
    await assert.rejects(snap.coordinator.run(facts({ offset: null })), /lock wait timeout/);
    assert.deepEqual(snap.calls, ['snapshot(snapshot)']);
    assert.equal(snap.coordinator.phase, 'snapshot');
    const stream = harness({ stream: () => Promise.reject(new Error('binlog gone')) });
    await assert.rejects(stream.coordinator.run(facts({})), /binlog gone/);
    assert.equal(stream.coordinator.phase, 'stopped');
  });
});
