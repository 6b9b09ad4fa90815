import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Logger } from '../../../src/common/logger.js';
import { ConfigError, parseConfig } from '../../../src/config/index.js';
import {
  createNotificationService,
  IncrementalSnapshotNotifications,
  InitialSnapshotNotifications,
  LogNotificationChannel,
  type Notification,
  type NotificationChannel,
  NotificationService,
  notificationRecord,
} from '../../../src/notifications/index.js';

const MIN = { 'topic.prefix': 'shop', 'database.hostname': 'db.local', 'database.user': 'cdc' };

function problems(raw: Record<string, string>) {
  try {
    parseConfig({ ...MIN, ...raw });
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    return err.problems;
  }
  assert.fail('expected a ConfigError');
}

function collect(): { sent: Notification[]; notify(n: Notification): void } {
  const sent: Notification[] = [];
  return { sent, notify: (n) => sent.push(n) };
}

const ctx = { connectorName: 'shop', now: () => 1695817046353 };

describe('notification config (one pass, Debezium names)', () => {
  it('off by default; channels, topic and stream resolved', () => {
    assert.deepEqual(parseConfig(MIN).notifications.channels, []);
    const c = parseConfig({
      ...MIN,
      'notification.enabled.channels': 'log, sink,kinesis',
      'notification.sink.topic.name': 'cdc.notifications',
      'notification.kinesis.stream.name': 'notes',
      'aws.region': 'eu-west-1',
    });
    assert.deepEqual(c.notifications, {
      channels: ['log', 'sink', 'kinesis'],
      sinkTopic: 'cdc.notifications',
      kinesis: { streamName: 'notes', region: 'eu-west-1', endpoint: null },
    });
  });
  it('every problem at once, naming the property and the fix', () => {
    const p = problems({ 'notification.enabled.channels': 'sink,kinesis,jmx' });
    const by = (k: string) => p.find((x) => x.property === k);
    assert.match(by('notification.enabled.channels')?.message ?? '', /'jmx'/);
    assert.match(by('notification.sink.topic.name')?.fix ?? '', /notification\.sink\.topic\.name=/);
    assert.match(by('notification.kinesis.stream.name')?.fix ?? '', /notification\.kinesis\.stream\.name=/);
    const unused = problems({ 'notification.sink.topic.name': 't' });
    assert.match(unused[0]?.message ?? '', /does not include sink/);
  });
});

describe("notifications as Debezium's services build them", () => {
  it('initial snapshot: documented STARTED / IN_PROGRESS / TABLE_SCAN_COMPLETED / COMPLETED shapes', () => {
    const c = collect();
    const n = new InitialSnapshotNotifications(c, ctx);
    n.started();
    n.tableInProgress('inv.table1', ['inv.table1', 'inv.table2']);
    n.tableCompleted('inv.table1', 42, ['inv.table1', 'inv.table2'], 'SUCCEEDED');
    n.tableCompleted('inv.table2', 0, [], 'SQL_EXCEPTION');
    n.completed();
    n.aborted();
    const [started, progress, scanned, failed, completed, aborted] = c.sent;
    // Debezium's documented example: {"aggregate_type":"Initial Snapshot","type":"STARTED","additional_data":{"connector_name":...},"timestamp":...}
    assert.deepEqual(
      { ...started, id: 'x' },
      {
        id: 'x',
        aggregate_type: 'Initial Snapshot',
        type: 'STARTED',
        additional_data: { connector_name: 'shop' },
        timestamp: 1695817046353,
      },
    );
    assert.match(started!.id, /^[0-9a-f-]{36}$/);
    assert.deepEqual(progress!.additional_data, {
      connector_name: 'shop',
      current_collection_in_progress: 'inv.table1',
      data_collections: 'inv.table1,inv.table2',
    });
    assert.deepEqual(scanned!.additional_data, {
      connector_name: 'shop',
      scanned_collection: 'inv.table1',
      data_collections: 'inv.table1,inv.table2',
      total_rows_scanned: '42',
      status: 'SUCCEEDED',
    });
    assert.deepEqual(failed!.additional_data, {
      connector_name: 'shop',
      scanned_collection: 'inv.table2',
      status: 'SQL_EXCEPTION',
    });
    assert.equal(completed!.type, 'COMPLETED');
    assert.equal(aborted!.type, 'ABORTED');
  });
  it('incremental snapshot: the signal id on every notification; keys joined with commas, <null> parts', () => {
    const c = collect();
    const n = new IncrementalSnapshotNotifications(c, ctx);
    n.started('sig-1', ['inv.a', 'inv.b']);
    n.inProgress('sig-1', ['inv.a', 'inv.b'], 'inv.a', ['9', 'z'], ['4', null]);
    n.inProgress('sig-1', ['inv.a'], 'inv.a', null, ['4']);
    n.tableScanCompleted('sig-1', ['inv.a', 'inv.b'], 'inv.a', 9, 'SUCCEEDED');
    n.completed('sig-1');
    assert.ok(c.sent.every((x) => x.id === 'sig-1' && x.aggregate_type === 'Incremental Snapshot'));
    assert.deepEqual(c.sent[0]!.additional_data, { connector_name: 'shop', data_collections: 'inv.a,inv.b' });
    assert.equal(c.sent[1]!.additional_data.maximum_key, '9,z');
    assert.equal(c.sent[1]!.additional_data.last_processed_key, '4,<null>');
    assert.equal(c.sent[2]!.additional_data.maximum_key, '"<null>"');
    assert.equal(c.sent[3]!.additional_data.status, 'SUCCEEDED');
  });
});

describe('channels', () => {
  const note: Notification = {
    id: 'n-1',
    aggregate_type: 'Incremental Snapshot',
    type: 'IN_PROGRESS',
    additional_data: { connector_name: 'shop', maximum_key: '99', last_processed_key: '7' },
    timestamp: 1,
  };
  it("sink record: Debezium's key and value, with the Notification schemas when schemas are enabled", () => {
    const plain = notificationRecord(note, 'notes', { key: false, value: false });
    assert.equal(plain.key, '{"id":"n-1"}');
    assert.deepEqual(Object.keys(JSON.parse(plain.value!)), [
      'id',
      'type',
      'aggregate_type',
      'additional_data',
      'timestamp',
    ]);
    const withSchemas = notificationRecord(note, 'notes', { key: true, value: true });
    const v = JSON.parse(withSchemas.value!);
    assert.equal(v.schema.name, 'io.debezium.connector.common.Notification');
    assert.deepEqual(
      v.schema.fields.map((f: { field: string; type: string }) => `${f.field}:${f.type}`),
      ['id:string', 'type:string', 'aggregate_type:string', 'additional_data:map', 'timestamp:int64'],
    );
    assert.equal(JSON.parse(withSchemas.key!).schema.name, 'io.debezium.connector.common.NotificationKey');
  });
  it('the log channel never logs key values; a failing channel is logged once and does not stop the others', async () => {
    const lines: Array<{ msg: string; fields?: Record<string, unknown> }> = [];
    const logger = {
      debug() {},
      info: (msg: string, fields?: Record<string, unknown>) => lines.push({ msg, ...(fields ? { fields } : {}) }),
      warn: (msg: string, fields?: Record<string, unknown>) =>
        lines.push({ msg: `WARN ${msg}`, ...(fields ? { fields } : {}) }),
      error() {},
      child: () => logger,
    } as Logger;
    const broken: NotificationChannel = {
      name: 'kinesis',
      send: async () => Promise.reject(new Error('stream not found')),
    };
    const service = new NotificationService([new LogNotificationChannel(logger), broken], logger);
    service.notify(note);
    service.notify(note);
    await service.flush();
    const logged = lines.filter((l) => l.msg === '[Notification Service]');
    assert.equal(logged.length, 2);
    assert.deepEqual(logged[0]?.fields?.additional_data, {
      connector_name: 'shop',
      maximum_key: '***',
      last_processed_key: '***',
    });
    assert.equal(lines.filter((l) => l.msg.startsWith('WARN')).length, 1);
  });
  it('createNotificationService builds only the configured channels', () => {
    const logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => logger } as Logger;
    assert.equal(createNotificationService(parseConfig(MIN), logger), null);
    const s = createNotificationService(
      parseConfig({ ...MIN, 'notification.enabled.channels': 'log,sink', 'notification.sink.topic.name': 't' }),
      logger,
    );
    assert.deepEqual(
      s?.channels.map((c) => c.name),
      ['log', 'sink'],
    );
  });
});
