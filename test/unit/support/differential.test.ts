import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SinkLine } from '../../integration/support/capture.js';
import { KNOWN_DIFFERENCES } from '../../integration/support/debezium-differences.js';
import { classify, compareStreams } from '../../integration/support/differential.js';

const row = (id: number, v: string, extra: Record<string, unknown> = {}): SinkLine => ({
  topic: 'it.db.t',
  key: { id },
  value: {
    before: null,
    after: { id, v },
    source: { version: 'x', connector: 'mysql', snapshot: 'false', pos: 100, ts_ms: 1000 },
    op: 'c',
    ts_ms: 5,
    ...extra,
  },
  headers: {},
});

describe('differential comparison of Debezium and our streams', () => {
  it('ignores the named fields and reports any other difference with its generalised path', () => {
    const dbz = [row(1, 'a', { ts_ms: 9 }), row(2, 'b')];
    (dbz[0]!.value!.source as Record<string, unknown>).version = '3.5.0.Final';
    (dbz[0]!.value!.source as Record<string, unknown>).connector = 'mariadb';
    const ours = [row(1, 'a'), row(2, 'B')];
    const diffs = compareStreams(dbz, ours);
    assert.deepEqual(
      diffs.map((d) => [d.kind, d.path, d.debezium, d.ours]),
      [['field', 'value.after.v', 'b', 'B']],
    );
  });

  it('aligns records by identity, so a missing or extra record does not shift the rest', () => {
    const diffs = compareStreams([row(1, 'a'), row(2, 'b'), row(3, 'c')], [row(1, 'a'), row(3, 'c'), row(4, 'd')]);
    assert.deepEqual(
      diffs.map((d) => [d.kind, d.identity]),
      [
        ['missing', 'c {"id":2}'],
        ['extra', 'c {"id":4}'],
      ],
    );
  });

  it('classifies by the documented matchers; a streamed source.time difference stays unexplained', () => {
    const dbz = [row(1, 'a', {})];
    (dbz[0]!.value!.source as Record<string, unknown>).pos = 180;
    (dbz[0]!.value!.source as Record<string, unknown>).ts_ms = 2000;
    const c = classify(compareStreams(dbz, [row(1, 'a')]), KNOWN_DIFFERENCES, {
      databases: ['db'],
      debezium: dbz,
      ours: [],
    });
    assert.deepEqual([...c.observed], [['source-pos-rows-event', 1]]);
    assert.deepEqual(
      c.unexplained.map((d) => d.path),
      ['value.source.ts_ms'],
    );
  });
});
