/**
 * The coordinator's first decision, as a pure function of what is known at start: take a snapshot (and which
 * kind), stream from the stored position, or fail because the position is lost. Debezium's snapshot.mode rules in
 * one place, so each case is a unit test instead of a path through the source.
 */
import type { SnapshotMode } from '../config/types.js';

export interface StartFacts {
  /** snapshot.mode */
  mode: SnapshotMode;
  /** snapshot.chunked */
  chunkedConfigured: boolean;
  /** The stored offset (null on first start); `snapshot: true` while an initial snapshot is in progress. */
  offset: { readonly snapshot?: boolean } | null;
  /** The stored position can no longer be resumed on this server (purged, another server's binlog). */
  positionLost: boolean;
  /** No schema history has been recorded. */
  historyEmpty: boolean;
}

export type StartDecision =
  | {
      kind: 'snapshot';
      /** Rows too (initial, initial_only, when_needed), or the schema only (no_data, recovery). */
      includeData: boolean;
      /** The chunked runner (needs streaming to reconcile chunks, so not for initial_only). */
      chunked: boolean;
      /** snapshot.chunked was set but initial_only uses the consistent snapshot instead. */
      chunkedIgnored: boolean;
      /** Replay the binlog from an interrupted snapshot's start before the new one (stream runner `until`). */
      replayInterrupted: boolean;
      /** initial_only: stop after the snapshot instead of streaming. */
      stopAfter: boolean;
      /** The snapshot is taken because the stored position is lost (when_needed): worth a warning. */
      becausePositionLost: boolean;
      /**
       * recovery with a resumable stored offset: the schema is recorded at that offset and streaming resumes there
       * (Debezium's recovery snapshot keeps the previous offset), so changes made while stopped are not skipped.
       */
      keepOffset: boolean;
    }
  | {
      kind: 'stream';
      /** Where the schema at the resume position comes from. */
      schema: 'history' | 'server';
    }
  | { kind: 'fail'; reason: 'position-lost' };

export function decideStart(f: StartFacts): StartDecision {
  const { mode, offset } = f;
  const needSnapshot =
    offset === null ||
    offset.snapshot === true ||
    (mode === 'when_needed' && f.positionLost) ||
    ((mode === 'no_data' || mode === 'recovery') && f.historyEmpty);
  if (offset && f.positionLost && mode !== 'when_needed' && !needSnapshot)
    return { kind: 'fail', reason: 'position-lost' };
  if (needSnapshot && mode !== 'never') {
    const includeData = mode === 'initial' || mode === 'initial_only' || mode === 'when_needed';
    const chunked = f.chunkedConfigured && includeData && mode !== 'initial_only';
    return {
      kind: 'snapshot',
      includeData,
      chunked,
      chunkedIgnored: f.chunkedConfigured && mode === 'initial_only',
      replayInterrupted: !chunked && includeData && offset?.snapshot === true,
      stopAfter: mode === 'initial_only',
      becausePositionLost: offset !== null && f.positionLost && mode === 'when_needed',
      keepOffset: mode === 'recovery' && offset !== null && offset.snapshot !== true && !f.positionLost,
    };
  }
  return { kind: 'stream', schema: f.historyEmpty || offset === null ? 'server' : 'history' };
}
