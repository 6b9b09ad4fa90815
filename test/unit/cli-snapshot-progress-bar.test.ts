import assert from 'node:assert/strict';
import { test } from 'node:test';
import { progressBarFor, progressLine, SnapshotProgressBar } from '../../src/cli/snapshot-progress-bar.js';
import { SnapshotMetrics } from '../../src/model/snapshot-metrics.js';

test('the bar is drawn from the snapshot metrics while it runs, and ended with a newline', () => {
  let now = 1000;
  const snap = new SnapshotMetrics(() => now);
  const out: string[] = [];
  const tty = { write: (s: string) => out.push(s) } as unknown as NodeJS.WritableStream;
  const bar = new SnapshotProgressBar({ snapshot: snap, tty, intervalMs: 3_600_000, width: 10 });
  bar.tick();
  assert.deepEqual(out, [], 'nothing before the snapshot');
  snap.started();
  snap.planned(['d.a', 'd.b'], 2);
  snap.tableEstimated('d.a', 300);
  snap.tableEstimated('d.b', 100);
  now = 3000;
  snap.rowsScanned('d.a', 200);
  bar.tick();
  assert.equal(out.at(-1), '\r\x1b[Ksnapshot [#####.....]  50% 200/~400 rows, 0/2 tables, 100 rows/s');
  snap.rowsScanned('d.a', 100);
  snap.tableScanned('d.a');
  snap.rowsScanned('d.b', 100);
  snap.tableScanned('d.b');
  snap.completed();
  bar.tick();
  assert.equal(out.at(-1), '\r\x1b[Ksnapshot [##########] 100% 400/~400 rows, 2/2 tables, 200 rows/s\n');
  const lines = out.length;
  bar.tick();
  bar.stop();
  assert.equal(out.length, lines, 'ended once');
});

test('estimates below the rows already scanned count as the rows scanned', () => {
  const snap = new SnapshotMetrics(() => 0);
  snap.tableEstimated('d.a', 10);
  snap.rowsScanned('d.a', 30);
  assert.match(progressLine(snap, 4), /^snapshot \[####\] 100% 30\/~30 rows, 0\/1 tables, 0 rows\/s$/);
});

test('only a terminal gets a bar', () => {
  const snap = new SnapshotMetrics();
  const pipe = { write: () => true } as unknown as NodeJS.WritableStream;
  assert.equal(progressBarFor(snap, pipe), null);
  const tty = { write: () => true, isTTY: true } as unknown as NodeJS.WritableStream;
  const bar = progressBarFor(snap, tty);
  assert.ok(bar instanceof SnapshotProgressBar);
  bar.stop();
});
