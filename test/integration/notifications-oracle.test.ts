/**
 * Initial snapshot notifications against the Debezium oracle (Debezium's embedded engine, sink channel) on the same
 * MariaDB database: the same sequence of types and the same additional_data, ids and timestamps aside.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { startCapture } from '../../src/cli/commands/run.js';
import { silentLogger } from '../../src/common/logger.js';
import type { Notification } from '../../src/notifications/notification.js';
import { useMariaDb } from '../harness/fixtures.js';
import { captureEnv } from './support/capture.js';
import { buildOracle, startOracle } from './support/debezium-oracle.js';

const db = useMariaDb();
const TOPIC = 'cdc.notifications';

before(() => buildOracle());

/** Type and additional_data, with comma lists sorted (Debezium lists a HashSet, in no defined order). */
function comparable(n: Notification) {
  const data = { ...n.additional_data };
  for (const k of ['data_collections']) if (data[k]) data[k] = data[k].split(',').sort().join(',');
  return { aggregate_type: n.aggregate_type, type: n.type, additional_data: data };
}

test('initial snapshot notifications equal the Debezium oracle', { timeout: 180_000 }, async () => {
  const s = db();
  const name = await s.createDatabase('notes_oracle');
  await s.query(`
    CREATE TABLE ${name}.a (id INT PRIMARY KEY, v VARCHAR(8));
    CREATE TABLE ${name}.b (id INT PRIMARY KEY);
    INSERT INTO ${name}.a VALUES (1,'x'),(2,'y'),(3,'z');
    INSERT INTO ${name}.b VALUES (7);`);
  const props = {
    'database.include.list': name,
    'notification.enabled.channels': 'sink',
    'notification.sink.topic.name': TOPIC,
  };
  const oracle = startOracle(s, { props });
  await oracle.ready();
  // Records reach the output after streaming connects: stop once the snapshot's COMPLETED notification is there
  // (stopping at once lost some on a slow machine).
  const deadline = Date.now() + 120_000;
  const completed = () =>
    oracle.linesSoFar().some((l) => l.topic === TOPIC && (l.value as { type?: string } | null)?.type === 'COMPLETED');
  while (!completed()) {
    if (Date.now() > deadline) throw new Error('Debezium sent no COMPLETED notification within 120 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  oracle.stop();
  const theirs = (await oracle.done).lines
    .filter((l) => l.topic === TOPIC)
    .map((l) => l.value as unknown as Notification);

  const env = captureEnv(s, name, { ...props, 'topic.prefix': 'it' });
  await startCapture(env.config, silentLogger, { untilIdleMs: 300 }).done;
  const ours = env
    .lines()
    .filter((l) => l.topic === TOPIC)
    .map((l) => l.value as unknown as Notification);

  assert.ok(
    theirs.length >= 6,
    `Debezium sent ${theirs.length} notifications: ${JSON.stringify(theirs.map((n) => [n.aggregate_type, n.type]))}`,
  );
  // Debezium's initial snapshot also ends with its streaming start; only the snapshot's notifications are compared.
  const snapshotOnly = (ns: Notification[]) => ns.filter((n) => n.aggregate_type === 'Initial Snapshot');
  assert.deepEqual(snapshotOnly(ours).map(comparable), snapshotOnly(theirs).map(comparable));
  for (const n of ours)
    assert.deepEqual(Object.keys(n), ['id', 'type', 'aggregate_type', 'additional_data', 'timestamp']);
  for (const n of theirs)
    assert.deepEqual(Object.keys(n), ['id', 'type', 'aggregate_type', 'additional_data', 'timestamp']);
});
