/**
 * Debezium notifications through `cdc run` (a child process) on a private MariaDB: the initial snapshot's, then an
 * incremental snapshot requested by an execute-snapshot signal. Every notification arrives on the three channels
 * (log lines, the sink channel's records on the file sink, and a Kinesis stream on kinesalite) and the fields are
 * compared with Debezium's documented examples and its InitialSnapshotNotificationService /
 * IncrementalSnapshotNotificationService (ids, aggregate types, types, additional_data keys and values).
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Notification } from '../../src/notifications/notification.js';
import { createStream, kinesisClient, readAllRecords, STAND_IN_CREDENTIALS, STAND_IN_REGION } from '../harness/aws.js';
import { useKinesalite, useMariaDb } from '../harness/fixtures.js';
import { pollUntil } from '../harness/wait.js';
import { readSinkFile, spawnCapture } from './support/child-capture.js';

const STREAM = 'cdc-notifications';
const TOPIC = 'notifications';
const PREFIX = 'notes';

describe('notifications through cdc run', () => {
  const db = useMariaDb({ serverId: 71 });
  const kinesis = useKinesalite();

  it('initial and incremental snapshot notifications on the log, sink and kinesis channels', {
    timeout: 120_000,
  }, async () => {
    const s = db();
    const name = await s.createDatabase('notes');
    await s.query(`
      CREATE TABLE ${name}.a (id INT PRIMARY KEY, v VARCHAR(8));
      CREATE TABLE ${name}.b (id INT PRIMARY KEY);
      CREATE TABLE ${name}.cdc_signal (id VARCHAR(42) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048) NULL);
      INSERT INTO ${name}.a VALUES (1,'x'),(2,'y'),(3,'z');`);
    const client = kinesisClient(kinesis().endpoint);
    await createStream(client, STREAM);
    for (const [k, v] of Object.entries({
      AWS_ACCESS_KEY_ID: STAND_IN_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: STAND_IN_CREDENTIALS.secretAccessKey,
    }))
      process.env[k] = v;

    const dir = mkdtempSync(join(tmpdir(), 'cdc-notes-'));
    const out = join(dir, 'events.ndjson');
    const cdc = spawnCapture(
      dir,
      {
        name: `notes-${name}`,
        'topic.prefix': PREFIX,
        'database.hostname': s.host,
        'database.port': String(s.port),
        'database.user': s.admin.user,
        'database.password': s.admin.password,
        'database.server.id': '7123',
        'database.include.list': name,
        'database.ssl.mode': 'disabled',
        'signal.data.collection': `${name}.cdc_signal`,
        'snapshot.chunk.size': '2',
        'notification.enabled.channels': 'log,sink,kinesis',
        'notification.sink.topic.name': TOPIC,
        'notification.kinesis.stream.name': STREAM,
        'notification.kinesis.endpoint': kinesis().endpoint,
        'aws.region': STAND_IN_REGION,
        'sink.type': 'file',
        'sink.file.path': out,
        'offset.storage.file.filename': join(dir, 'offsets.json'),
        'schema.history.internal.file.filename': join(dir, 'history.jsonl'),
        'offset.flush.interval.ms': '100',
        'log.format': 'json',
      },
      {},
      3000,
    );
    const logged = (): Notification[] =>
      cdc
        .stderr()
        .split('\n')
        .filter((l) => l.includes('[Notification Service]'))
        .map((l) => {
          const j = JSON.parse(l) as Notification & Record<string, unknown>;
          return {
            id: j.id,
            aggregate_type: j.aggregate_type,
            type: j.type,
            additional_data: j.additional_data,
            timestamp: j.timestamp,
          };
        });
    const done = (agg: string) => logged().some((n) => n.aggregate_type === agg && n.type === 'COMPLETED');

    assert.ok(await pollUntil(() => done('Initial Snapshot') || cdc.child.exitCode !== null, 60_000), cdc.stderr());
    await s.query(`INSERT INTO ${name}.cdc_signal VALUES ('adhoc-1', 'execute-snapshot', ?)`, [
      JSON.stringify({ 'data-collections': [`${name}.a`], type: 'incremental' }),
    ]);
    assert.ok(await pollUntil(() => done('Incremental Snapshot') || cdc.child.exitCode !== null, 60_000), cdc.stderr());
    assert.equal(await cdc.exited, 0, cdc.stderr().slice(-3000));

    const log = logged();
    const a = `${name}.a`;
    const b = `${name}.b`;
    const signal = `${name}.cdc_signal`;
    const shape = (n: Notification) => ({
      aggregate_type: n.aggregate_type,
      type: n.type,
      additional_data: n.additional_data,
    });
    const connector = { connector_name: PREFIX };
    const initial = log.filter((n) => n.aggregate_type === 'Initial Snapshot');
    // Debezium's order and additional_data: IN_PROGRESS lists the tables whose rows are read, TABLE_SCAN_COMPLETED
    // all captured tables.
    const tables = [a, b, signal].sort();
    const listed = (n: Notification, key: string) => (n.additional_data[key] ?? '').split(',').sort();
    assert.deepEqual(
      initial.map(
        (n) =>
          `${n.type}:${n.additional_data.current_collection_in_progress ?? n.additional_data.scanned_collection ?? ''}`,
      ),
      [
        'STARTED:',
        `IN_PROGRESS:${a}`,
        `TABLE_SCAN_COMPLETED:${a}`,
        `IN_PROGRESS:${b}`,
        `TABLE_SCAN_COMPLETED:${b}`,
        `IN_PROGRESS:${signal}`,
        `TABLE_SCAN_COMPLETED:${signal}`,
        'COMPLETED:',
      ],
    );
    assert.deepEqual(shape(initial[0]!), {
      aggregate_type: 'Initial Snapshot',
      type: 'STARTED',
      additional_data: connector,
    });
    assert.deepEqual(listed(initial[1]!, 'data_collections'), tables);
    assert.deepEqual(Object.keys(initial[1]!.additional_data).sort(), [
      'connector_name',
      'current_collection_in_progress',
      'data_collections',
    ]);
    const scanA = initial[2]!;
    assert.equal(scanA.additional_data.total_rows_scanned, '3');
    assert.equal(scanA.additional_data.status, 'SUCCEEDED');
    assert.deepEqual(listed(scanA, 'data_collections'), tables);
    assert.equal(initial[4]!.additional_data.total_rows_scanned, '0');
    assert.deepEqual(shape(initial.at(-1)!), {
      aggregate_type: 'Initial Snapshot',
      type: 'COMPLETED',
      additional_data: connector,
    });
    assert.equal(
      new Set(initial.map((n) => n.id)).size,
      initial.length,
      'initial snapshot notifications have their own ids',
    );

    const incremental = log.filter((n) => n.aggregate_type === 'Incremental Snapshot');
    assert.deepEqual(
      incremental.map((n) => n.type),
      ['STARTED', 'IN_PROGRESS', 'IN_PROGRESS', 'TABLE_SCAN_COMPLETED', 'COMPLETED'],
    );
    for (const n of incremental) assert.equal(n.id, 'adhoc-1', 'the signal id is the correlation id');
    assert.deepEqual(incremental[0]!.additional_data, { connector_name: PREFIX, data_collections: a });
    assert.deepEqual(
      incremental[1]!.additional_data,
      {
        connector_name: PREFIX,
        data_collections: a,
        current_collection_in_progress: a,
        maximum_key: '***',
        last_processed_key: '***',
      },
      'row key values are not logged',
    );
    assert.deepEqual(incremental[3]!.additional_data, {
      connector_name: PREFIX,
      data_collections: a,
      scanned_collection: a,
      total_rows_scanned: '3',
      status: 'SUCCEEDED',
    });
    assert.deepEqual(incremental[4]!.additional_data, connector);

    // The sink channel: Debezium's key {id} and value {id, type, aggregate_type, additional_data, timestamp}.
    const sink = readSinkFile(out).lines.filter((l) => l.topic === TOPIC);
    assert.equal(sink.length, log.length);
    for (const [i, l] of sink.entries()) {
      const v = l.value as unknown as Notification;
      assert.deepEqual(Object.keys(v), ['id', 'type', 'aggregate_type', 'additional_data', 'timestamp']);
      assert.deepEqual(l.key, { id: v.id });
      assert.equal(v.id, log[i]!.id);
      assert.equal(v.type, log[i]!.type);
      assert.equal(typeof v.timestamp, 'number');
    }
    const inProgress = sink
      .map((l) => l.value as unknown as Notification)
      .filter((n) => n.aggregate_type === 'Incremental Snapshot' && n.type === 'IN_PROGRESS');
    // Chunks of 2 rows: keys 1-2, then 3; the maximum key is read when the table's scan starts.
    assert.deepEqual(
      inProgress.map((n) => [n.additional_data.maximum_key, n.additional_data.last_processed_key]),
      [
        ['3', '2'],
        ['3', '3'],
      ],
    );

    // The kinesis channel: the same notifications, partition key = id.
    const records = await readAllRecords(client, STREAM);
    const fromKinesis = records.map((r) => JSON.parse(r.data.toString('utf8')) as Notification);
    assert.deepEqual(
      fromKinesis,
      sink.map((l) => l.value),
    );
    for (const r of records) assert.equal(r.partitionKey, (JSON.parse(r.data.toString('utf8')) as Notification).id);
    client.destroy();
  });
});
