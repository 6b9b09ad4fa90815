/**
 * IncrementalNotes: what the chunked runner's events become as Debezium's incremental snapshot notifications
 * (shapes taken from the Debezium oracle, test/integration/notifications-adhoc.test.ts): `data_collections` lists
 * the tables still to be read, pause/resume/stop, and a resumed snapshot keeping its id without a second STARTED.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { IncrementalSnapshotNotifications, type Notification } from '../../../src/notifications/notification.js';
import { IncrementalNotes } from '../../../src/source/mysql/snapshot/incremental-notes.js';

function notes(): { sent: () => string[]; n: IncrementalNotes } {
  const sent: Notification[] = [];
  const n = new IncrementalNotes(
    new IncrementalSnapshotNotifications({ notify: (x) => sent.push(x) }, { connectorName: 'it', now: () => 1 }),
  );
  const line = (x: Notification) => {
    const { connector_name: _c, ...d } = x.additional_data;
    return `${x.id} ${x.type} ${Object.entries(d)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')}`.trim();
  };
  return { sent: () => sent.map(line), n };
}

test('data_collections lists the tables still to be read; the signal id correlates every notification', () => {
  const { sent, n } = notes();
  n.requested(['db.a', 'db.b'], 'inc-1');
  n.chunkEmitted('db.a', 2, [{ i: '2' }], 2, false);
  n.chunkEmitted('db.a', 1, [{ i: '3' }], 3, true);
  n.chunkEmitted('db.b', 1, [{ i: '7' }], 1, true);
  assert.deepEqual(sent(), [
    'inc-1 STARTED data_collections=db.a,db.b',
    'inc-1 IN_PROGRESS data_collections=db.a,db.b current_collection_in_progress=db.a maximum_key="<null>" last_processed_key=2',
    'inc-1 IN_PROGRESS data_collections=db.a,db.b current_collection_in_progress=db.a maximum_key="<null>" last_processed_key=3',
    'inc-1 TABLE_SCAN_COMPLETED data_collections=db.a,db.b scanned_collection=db.a total_rows_scanned=3 status=SUCCEEDED',
    'inc-1 IN_PROGRESS data_collections=db.b current_collection_in_progress=db.b maximum_key="<null>" last_processed_key=7',
    'inc-1 TABLE_SCAN_COMPLETED data_collections=db.b scanned_collection=db.b total_rows_scanned=1 status=SUCCEEDED',
    'inc-1 COMPLETED',
  ]);
  assert.equal(n.id, null, 'no snapshot running after COMPLETED');
});

test('pause, resume and stop: PAUSED/RESUMED list the remaining tables, ABORTED the stopped ones', () => {
  const { sent, n } = notes();
  n.requested(['db.a', 'db.b'], 'inc-3');
  n.paused();
  n.unpaused();
  n.stopped(['db.b']);
  n.chunkEmitted('db.b', 1, [{ i: '7' }], 1, true); // a stopped table reports nothing more
  n.chunkEmitted('db.a', 0, null, 0, true);
  assert.deepEqual(sent(), [
    'inc-3 STARTED data_collections=db.a,db.b',
    'inc-3 PAUSED data_collections=db.a,db.b',
    'inc-3 RESUMED data_collections=db.a,db.b',
    'inc-3 ABORTED data_collections=db.b',
    'inc-3 TABLE_SCAN_COMPLETED data_collections=db.a scanned_collection=db.a total_rows_scanned=0 status=EMPTY',
    'inc-3 COMPLETED',
  ]);
  const all = notes();
  all.n.requested(['db.a'], 'inc-4');
  all.n.stopped(null);
  all.n.chunkEmitted('db.a', 1, [{ i: '1' }], 1, true);
  assert.deepEqual(all.sent(), ['inc-4 STARTED data_collections=db.a', 'inc-4 ABORTED']);
});

test('a snapshot resumed after a restart keeps its id and sends no second STARTED; later tables join it', () => {
  const { sent, n } = notes();
  n.resumed(['db.a'], 'inc-7');
  n.requested(['db.b'], 'inc-8');
  n.chunkEmitted('db.a', 1, [{ s: 'k' }], 5, true);
  assert.equal(n.id, 'inc-7');
  assert.deepEqual(sent(), [
    'inc-7 IN_PROGRESS data_collections=db.a,db.b current_collection_in_progress=db.a maximum_key="<null>" last_processed_key=k',
    'inc-7 TABLE_SCAN_COMPLETED data_collections=db.a,db.b scanned_collection=db.a total_rows_scanned=5 status=SUCCEEDED',
  ]);
  // snapshot.chunked's plan: no signal, a random id.
  const fresh = notes();
  fresh.n.requested(['db.a']);
  assert.match(fresh.n.id ?? '', /^[0-9a-f-]{36}$/);
});
