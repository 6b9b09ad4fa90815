import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SnapshotMode } from '../../../src/config/types.js';
import { decideStart, type StartFacts } from '../../../src/engine/start-decision.js';

const facts = (over: Partial<StartFacts>): StartFacts => ({
  mode: 'initial',
  chunkedConfigured: false,
  offset: { snapshot: false },
  positionLost: false,
  historyEmpty: false,
  ...over,
});

describe('decideStart (snapshot.mode rules)', () => {
  it('first start: every mode but never snapshots; data only for initial, initial_only and when_needed', () => {
    const withData: Record<SnapshotMode, boolean | null> = {
      initial: true,
      initial_only: true,
      when_needed: true,
      no_data: false,
      recovery: false,
      never: null,
    };
    for (const [mode, data] of Object.entries(withData) as Array<[SnapshotMode, boolean | null]>) {
      const d = decideStart(facts({ mode, offset: null, historyEmpty: true }));
      if (data === null) assert.deepEqual(d, { kind: 'stream', schema: 'server' }, mode);
      else {
        assert.equal(d.kind, 'snapshot', mode);
        assert.equal(d.kind === 'snapshot' && d.includeData, data, mode);
        assert.equal(d.kind === 'snapshot' && d.stopAfter, mode === 'initial_only', mode);
      }
    }
  });

  it('a stored offset with history streams, with the schema from history', () => {
    assert.deepEqual(decideStart(facts({})), { kind: 'stream', schema: 'history' });
    assert.deepEqual(decideStart(facts({ historyEmpty: true })), { kind: 'stream', schema: 'server' });
  });

  it('a lost position fails unless snapshot.mode=when_needed, which snapshots again and says why', () => {
    assert.deepEqual(decideStart(facts({ positionLost: true })), { kind: 'fail', reason: 'position-lost' });
    const d = decideStart(facts({ mode: 'when_needed', positionLost: true }));
    assert.equal(d.kind, 'snapshot');
    assert.ok(d.kind === 'snapshot' && d.becausePositionLost && d.includeData);
    assert.deepEqual(decideStart(facts({ mode: 'never', positionLost: true })), {
      kind: 'fail',
      reason: 'position-lost',
    });
  });

  it('no_data and recovery rebuild a lost schema history with a schema-only snapshot', () => {
    for (const mode of ['no_data', 'recovery'] as const) {
      const d = decideStart(facts({ mode, historyEmpty: true }));
      assert.ok(d.kind === 'snapshot' && !d.includeData && !d.becausePositionLost, mode);
      assert.deepEqual(decideStart(facts({ mode })), { kind: 'stream', schema: 'history' });
    }
  });

  it('recovery keeps a resumable stored offset (Debezium: streaming resumes there); no_data and first starts do not', () => {
    const kept = decideStart(facts({ mode: 'recovery', historyEmpty: true }));
    assert.ok(kept.kind === 'snapshot' && kept.keepOffset);
    for (const other of [
      facts({ mode: 'no_data', historyEmpty: true }),
      facts({ mode: 'recovery', historyEmpty: true, offset: null }),
      facts({ mode: 'recovery', historyEmpty: true, offset: { snapshot: true } }),
      facts({ mode: 'recovery', historyEmpty: true, positionLost: true }),
    ]) {
      const d = decideStart(other);
      assert.ok(d.kind === 'snapshot' && !d.keepOffset, JSON.stringify(other));
    }
  });

  it('an interrupted snapshot is taken again, replaying the binlog from its start unless chunked', () => {
    const replay = decideStart(facts({ offset: { snapshot: true } }));
    assert.ok(replay.kind === 'snapshot' && replay.replayInterrupted && !replay.chunked);
    const chunked = decideStart(facts({ offset: { snapshot: true }, chunkedConfigured: true }));
    assert.ok(chunked.kind === 'snapshot' && chunked.chunked && !chunked.replayInterrupted);
    const schemaOnly = decideStart(facts({ mode: 'no_data', offset: { snapshot: true } }));
    assert.ok(schemaOnly.kind === 'snapshot' && !schemaOnly.replayInterrupted);
  });

  it('initial_only ignores snapshot.chunked (chunks need streaming to reconcile)', () => {
    const d = decideStart(facts({ mode: 'initial_only', offset: null, chunkedConfigured: true }));
    assert.ok(d.kind === 'snapshot' && !d.chunked && d.chunkedIgnored && d.stopAfter);
    const initial = decideStart(facts({ offset: null, chunkedConfigured: true }));
    assert.ok(initial.kind === 'snapshot' && initial.chunked && !initial.chunkedIgnored);
  });
});
