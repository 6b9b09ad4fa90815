/**
 * Capture from MariaDB into Kafka (librdkafka's mock cluster, see test/harness/kafka.ts) and read the topics back
 * with librdkafka's own consumer: the table state rebuilds exactly, per-key order holds, deletes leave tombstones,
 * Debezium's headers arrive as Kafka headers, retriable produce errors injected by the mock are ridden out, and a
 * `cdc run` child killed with SIGKILL loses nothing after a restart.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startCapture } from '../../src/cli/commands/run.js';
import { createLogger, silentLogger } from '../../src/common/logger.js';
import { parseConfig } from '../../src/config/index.js';
import { useMariaDb } from '../harness/fixtures.js';
import { type ConsumedMessage, type KafkaMock, startKafkaMock } from '../harness/kafka.js';
import type { MariaDbServer } from '../harness/mariadb.js';
import { spawnCapture, waitFor } from './support/child-capture.js';

const db = useMariaDb();
let kafka: KafkaMock | undefined;
const mock = () => {
  if (!kafka) throw new Error('Kafka mock not started');
  return kafka;
};
before(async () => {
  kafka = await startKafkaMock({ brokers: 2 });
});
after(async () => {
  await kafka?.stop();
});

const PARTITIONS = 3;

function properties(server: MariaDbServer, database: string, dir: string): Record<string, string> {
  return {
    name: `kafka-${database}`,
    'topic.prefix': 'it',
    'database.hostname': server.host,
    'database.port': String(server.port),
    'database.user': server.admin.user,
    'database.password': server.admin.password,
    'database.server.id': String(7000 + Math.floor(Math.random() * 1000)),
    'database.include.list': database,
    'database.ssl.mode': 'disabled',
    'sink.type': 'kafka',
    'sink.kafka.bootstrap.servers': mock().bootstrapServers.join(','),
    'sink.kafka.compression.type': 'lz4',
    'sink.kafka.retry.backoff.max.ms': '200',
    'offset.storage.file.filename': join(dir, 'offsets.json'),
    'schema.history.internal.file.filename': join(dir, 'history.jsonl'),
    'offset.flush.interval.ms': '0',
    'max.batch.size': '500',
  };
}

async function prepare(prefix: string): Promise<{ server: MariaDbServer; name: string; topic: string; dir: string }> {
  const server = db();
  const name = await server.createDatabase(prefix);
  await server.query(`CREATE TABLE ${name}.items (id INT PRIMARY KEY, label VARCHAR(40), n INT)`);
  const topic = `it.${name}.items`;
  await mock().createTopic({ name: topic, partitions: PARTITIONS });
  await mock().createTopic('it');
  return { server, name, topic, dir: mkdtempSync(join(tmpdir(), 'cdc-kafka-it-')) };
}

interface Event {
  key: { id: number };
  value: { op: string; after: Row | null; source: { file: string; pos: number; row: number } } | null;
  headers: Map<string, string>;
}
interface Row {
  id: number;
  label: string | null;
  n: number | null;
}

function decode(messages: ConsumedMessage[]): Event[] {
  return messages.map((m) => ({
    key: JSON.parse(m.key?.toString('utf8') ?? 'null'),
    value: m.value === null ? null : JSON.parse(m.value.toString('utf8')),
    headers: new Map(m.headers.map(([k, v]) => [k, v?.toString('utf8') ?? ''])),
  }));
}

/** Table state from the topic: last value per key wins; a tombstone or delete removes the key. */
function rebuild(events: Event[]): Map<number, Row> {
  const state = new Map<number, Row>();
  for (const e of events) {
    if (e.value === null || e.value.op === 'd') state.delete(e.key.id);
    else if (e.value.after) state.set(e.key.id, e.value.after);
  }
  return state;
}

async function tableState(server: MariaDbServer, name: string): Promise<Map<number, Row>> {
  const rows = await server.query<Row[]>(`SELECT id, label, n FROM ${name}.items ORDER BY id`);
  return new Map(rows.map((r) => [r.id, { id: r.id, label: r.label, n: r.n }]));
}

/** Per key, binlog positions never go backwards (the snapshot shares one position). */
function assertPerKeyOrder(events: Event[]): void {
  const last = new Map<number, string>();
  for (const e of events) {
    if (!e.value) continue;
    const s = e.value.source;
    const at = `${s.file}:${String(s.pos).padStart(12, '0')}:${String(s.row).padStart(6, '0')}`;
    const prev = last.get(e.key.id);
    assert.ok(prev === undefined || prev <= at, `key ${e.key.id}: ${at} after ${prev}`);
    last.set(e.key.id, at);
  }
}

test('snapshot + streaming into Kafka: exact table state, per-key order, tombstones, headers, injected produce errors', async () => {
  const { server, name, topic, dir } = await prepare('kafka');
  const values = Array.from({ length: 300 }, (_, i) => `(${i},'row ${i}',${i})`).join(',');
  await server.query(`INSERT INTO ${name}.items VALUES ${values}`);
  const config = parseConfig(properties(server, name, dir));
  const logger = process.env.CDC_TEST_DEBUG ? createLogger({ level: 'debug' }) : silentLogger;
  await startCapture(config, logger, { untilIdleMs: 400 }).done;

  await server.query(`UPDATE ${name}.items SET n = n + 1000 WHERE id % 3 = 0`);
  await server.query(`DELETE FROM ${name}.items WHERE id % 7 = 0`);
  await server.query(`UPDATE ${name}.items SET id = 5000 WHERE id = 5`); // key change: delete + tombstone + create
  await server.query(`INSERT INTO ${name}.items VALUES (7, 'again', 7)`);
  // NOT_LEADER_OR_FOLLOWER, REQUEST_TIMED_OUT, NOT_ENOUGH_REPLICAS: retriable; the client resends.
  await mock().injectErrors(0, [6, 7, 19]);
  await startCapture(config, logger, { untilIdleMs: 400 }).done;

  const events = decode(await mock().consume(topic, PARTITIONS));
  assert.deepEqual(rebuild(events), await tableState(server, name));
  assertPerKeyOrder(events);
  const deleted = Array.from({ length: 300 }, (_, i) => i).filter((i) => i % 7 === 0 && i !== 7);
  const tombstones = events.filter((e) => e.value === null).map((e) => e.key.id);
  assert.deepEqual(new Set(tombstones), new Set([...deleted, 0, 7, 5]));
  const moved = events.find((e) => e.key.id === 5000 && e.value?.op === 'c');
  assert.equal(moved?.headers.get('__debezium.oldkey'), '{"id":5}');
  const old = events.find((e) => e.key.id === 5 && e.value?.op === 'd');
  assert.equal(old?.headers.get('__debezium.newkey'), '{"id":5000}');
  assert.equal(events.filter((e) => e.value?.op === 'r').length, 300, 'snapshot read exactly once');
  assert.equal(events.filter((e) => e.value?.op === 'u').length, 100, 'no duplicates from the injected errors');
});

test('kill -9 of a capture child mid-stream, then restart: nothing lost', async () => {
  const { server, name, topic, dir } = await prepare('kafkakill');
  const props = properties(server, name, dir);
  await server.query(`INSERT INTO ${name}.items VALUES (0, 'seed', 0)`);
  // A long idle limit: this child never exits by itself, it is always killed.
  const first = spawnCapture(dir, props, {}, 600_000);
  const offsets = join(dir, 'offsets.json');
  assert.ok(await waitFor(() => existsSync(offsets), 30_000), first.stderr());
  const committed = readFileSync(offsets, 'utf8');
  for (let b = 0; b < 20; b++) {
    const rows = Array.from({ length: 250 }, (_, i) => `(${1 + b * 250 + i},'bulk',${b})`).join(',');
    await server.query(`INSERT INTO ${name}.items VALUES ${rows}`);
  }
  await server.query(`UPDATE ${name}.items SET n = -1 WHERE id % 2 = 0`);
  // Kill right after the child commits a streaming batch (usually the first of the 7,500 changes).
  assert.ok(await waitFor(() => readFileSync(offsets, 'utf8') !== committed, 30_000), first.stderr());
  first.child.kill('SIGKILL');
  assert.equal(await first.exited, null, 'killed by the signal');

  const second = spawnCapture(dir, props, {}, 500);
  assert.equal(await second.exited, 0, second.stderr());
  const events = decode(await mock().consume(topic, PARTITIONS));
  assert.deepEqual(rebuild(events), await tableState(server, name));
  assertPerKeyOrder(events);
  assert.equal(new Set(events.filter((e) => e.value?.op === 'c').map((e) => e.key.id)).size, 5000);
});
