/**
 * Capture from MariaDB into a real Apache Kafka broker (KRaft, test/harness/kafka.ts; one broker for the file, all
 * listeners on it) and read the topics back with an independent Fetch-level reader: the table state rebuilds
 * exactly, per-key order holds, deletes leave null tombstones, Debezium's headers arrive as Kafka headers, the
 * records carry the idempotent producer's id and gap-free sequences, a lost produce acknowledgement (the fault
 * relay in kafka-fault-proxy.ts) is deduplicated by the broker (and duplicates without idempotence, the control),
 * SASL_SSL/SCRAM-SHA-512 and TLS are really negotiated (a wrong password and an untrusted CA fail clearly), a broker crash + restart mid-stream loses
 * nothing, and a `cdc run` child killed with SIGKILL loses nothing after a restart.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startCapture } from '../../src/cli/commands/run.js';
import { SinkError } from '../../src/common/errors.js';
import { createLogger, silentLogger } from '../../src/common/logger.js';
import { Secret } from '../../src/common/secret.js';
import { parseConfig } from '../../src/config/index.js';
import { parseKafkaSinkConfig } from '../../src/config/kafka-sink.js';
import type { SinkRecord } from '../../src/model/sink-record.js';
import { ClaimChecker } from '../../src/sinks/claim-check/claim-checker.js';
import { CLAIM_CHECK_HEADER, claimCheckPointerOf } from '../../src/sinks/claim-check/envelope.js';
import { ClaimCheckResolver } from '../../src/sinks/claim-check/resolver.js';
import { S3ClaimCheckStore } from '../../src/sinks/claim-check/s3-store.js';
import { KafkaSink, type KafkaSinkOptions } from '../../src/sinks/kafka/kafka-sink.js';
import { useMariaDb } from '../harness/fixtures.js';
import { type ConsumedRecord, type KafkaBroker, startKafkaBroker } from '../harness/kafka.js';
import { startS3StandIn } from '../harness/large-records.js';
import type { MariaDbServer } from '../harness/mariadb.js';
import { pollUntil } from '../harness/wait.js';
import { spawnCapture } from './support/child-capture.js';

const db = useMariaDb();
let broker: KafkaBroker | undefined;
const kafka = () => {
  if (!broker) throw new Error('Kafka broker not started');
  return broker;
};
before(async () => {
  broker = await startKafkaBroker();
  await broker.createTopic('it'); // schema-change events (topic.prefix)
});
after(async () => {
  await broker?.stop();
});

const PARTITIONS = 3;
const logger = process.env.CDC_TEST_DEBUG ? createLogger({ level: 'debug' }) : silentLogger;

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
    'sink.kafka.bootstrap.servers': kafka().plaintext,
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
  await kafka().createTopic({ name: topic, partitions: PARTITIONS, configs: { 'cleanup.policy': 'compact' } });
  return { server, name, topic, dir: mkdtempSync(join(tmpdir(), 'cdc-kafka-it-')) };
}

interface Event {
  key: { id: number };
  value: { op: string; after: Row | null; source: { file: string; pos: number; row: number } } | null;
  headers: Map<string, string>;
  record: ConsumedRecord;
}
interface Row {
  id: number;
  label: string | null;
  n: number | null;
}

function decode(records: ConsumedRecord[]): Event[] {
  return records.map((r) => ({
    key: JSON.parse(r.key?.toString('utf8') ?? 'null'),
    value: r.value === null ? null : JSON.parse(r.value.toString('utf8')),
    headers: new Map(r.headers.map(([k, v]) => [k, v?.toString('utf8') ?? ''])),
    record: r,
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

const at = (e: Event) =>
  e.value ? `${e.value.source.file}:${String(e.value.source.pos).padStart(12, '0')}:${e.value.source.row}` : '';

/**
 * Per key, binlog positions never go backwards (the snapshot shares one position). With `replays` allowed, a
 * record whose position this key already had is a redelivery (at-least-once after a failed batch) and skipped.
 */
function assertPerKeyOrder(events: Event[], replays = false): void {
  const last = new Map<number, string>();
  const seen = new Set<string>();
  for (const e of events) {
    if (!e.value) continue;
    const pos = at(e);
    const id = `${e.key.id}@${pos}/${e.value.op}`;
    if (replays && seen.has(id)) continue;
    seen.add(id);
    const prev = last.get(e.key.id);
    assert.ok(prev === undefined || prev <= pos, `key ${e.key.id}: ${pos} after ${prev}`);
    last.set(e.key.id, pos);
  }
}

/**
 * Idempotence as the broker recorded it: every record carries a producer id, and per producer and partition the
 * sequence numbers run 0, 1, 2, ... without a gap or a repeat (a resend the broker had already written would
 * repeat one, or appear as a duplicate without idempotence).
 */
function assertIdempotent(records: ConsumedRecord[]): Set<bigint> {
  const next = new Map<string, number>();
  const producers = new Set<bigint>();
  for (const r of records) {
    assert.ok(r.producerId >= 0n, `record ${r.partition}/${r.offset} has no producer id: not idempotent`);
    producers.add(r.producerId);
    const k = `${r.producerId}/${r.producerEpoch}/${r.partition}`;
    assert.equal(r.sequence, next.get(k) ?? 0, `sequence of ${k} at offset ${r.offset}`);
    next.set(k, r.sequence + 1);
  }
  return producers;
}

test('PLAINTEXT: snapshot + streaming, exact state rebuilt by an independent reader, per-key order, tombstones, headers, idempotent producer', async (t) => {
  t.diagnostic(`Kafka broker start: ${kafka().startMs} ms (format ${kafka().formatMs} ms)`);
  const { server, name, topic, dir } = await prepare('kafka');
  const values = Array.from({ length: 300 }, (_, i) => `(${i},'row ${i}',${i})`).join(',');
  await server.query(`INSERT INTO ${name}.items VALUES ${values}`);
  const config = parseConfig(properties(server, name, dir));
  await startCapture(config, logger, { untilIdleMs: 400 }).done;

  await server.query(`UPDATE ${name}.items SET n = n + 1000 WHERE id % 3 = 0`);
  await server.query(`DELETE FROM ${name}.items WHERE id % 7 = 0`);
  await server.query(`UPDATE ${name}.items SET id = 5000 WHERE id = 5`); // key change: delete + tombstone + create
  await server.query(`INSERT INTO ${name}.items VALUES (7, 'again', 7)`);
  await startCapture(config, logger, { untilIdleMs: 400 }).done;

  const records = await kafka().consume(topic);
  const events = decode(records);
  assert.deepEqual(rebuild(events), await tableState(server, name));
  assertPerKeyOrder(events);
  const deleted = Array.from({ length: 300 }, (_, i) => i).filter((i) => i % 7 === 0 && i !== 7);
  const tombstones = events.filter((e) => e.value === null);
  assert.deepEqual(new Set(tombstones.map((e) => e.key.id)), new Set([...deleted, 0, 7, 5]));
  for (const e of tombstones) assert.equal(e.record.value, null, 'a tombstone is a null value, not empty bytes');
  const moved = events.find((e) => e.key.id === 5000 && e.value?.op === 'c');
  assert.equal(moved?.headers.get('__debezium.oldkey'), '{"id":5}');
  const old = events.find((e) => e.key.id === 5 && e.value?.op === 'd');
  assert.equal(old?.headers.get('__debezium.newkey'), '{"id":5000}');
  assert.equal(events.filter((e) => e.value?.op === 'r').length, 300, 'snapshot read exactly once');
  assert.equal(events.filter((e) => e.value?.op === 'u').length, 100, 'each update exactly once');
  // One idempotent producer per `cdc run`.
  assert.equal(assertIdempotent(records).size, 2);
});

function sinkFor(props: Record<string, string | Secret>, extra: Partial<KafkaSinkOptions> = {}): KafkaSink {
  const settings = parseKafkaSinkConfig({
    type: 'kafka',
    bootstrapServers: String(props['bootstrap.servers']).split(','),
    properties: props,
  });
  return new KafkaSink({ settings, ...extra });
}

function records(topic: string, from: number, count: number): SinkRecord[] {
  return Array.from({ length: count }, (_, i) => {
    const key = JSON.stringify({ id: from + i });
    const value = JSON.stringify({ n: from + i });
    return { topic, key, value, sizeBytes: key.length + value.length };
  });
}

test('a lost produce acknowledgement: the broker deduplicates the idempotent resend; without idempotence it duplicates', async () => {
  const ids = (got: ConsumedRecord[]) => got.map((r) => JSON.parse(r.key?.toString() ?? '{}').id as number);
  const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);
  for (const idempotence of ['true', 'false']) {
    const topic = `lost-ack-${idempotence}`;
    await kafka().createTopic(topic);
    const sink = sinkFor({
      'bootstrap.servers': kafka().faulty,
      'enable.idempotence': idempotence,
      'retry.backoff.ms': '20',
      'retry.backoff.max.ms': '100',
    });
    await sink.start();
    try {
      assert.equal(sink.isIdempotent, idempotence === 'true');
      const dropped = kafka().faults.dropProduceResponses(1);
      await sink.send(records(topic, 0, 100)); // written, acknowledgement lost, resent by the client
      await dropped;
      await sink.send(records(topic, 100, 100));
    } finally {
      await sink.close();
    }
    const got = await kafka().consume(topic);
    if (idempotence === 'true') {
      assert.deepEqual(ids(got), range(0, 200));
      assert.equal(assertIdempotent(got).size, 1);
    } else {
      // The control: the same fault duplicates the batch when the broker cannot recognise the resend.
      assert.deepEqual(ids(got), [...range(0, 100), ...range(0, 100), ...range(100, 100)]);
    }
  }
});

test('SASL_SSL (SCRAM-SHA-512) and SSL are negotiated for real; a wrong password and an untrusted CA fail clearly', async () => {
  const k = kafka();
  const { server, name, topic, dir } = await prepare('kafkasasl');
  await server.query(`INSERT INTO ${name}.items VALUES (1,'a',1),(2,'b',2),(3,'c',3)`);
  const sasl = {
    'sink.kafka.bootstrap.servers': k.saslSsl,
    'sink.kafka.security.protocol': 'SASL_SSL',
    'sink.kafka.sasl.mechanism': 'SCRAM-SHA-512',
    'sink.kafka.sasl.username': k.scram.username,
    'sink.kafka.sasl.password': k.scram.password,
    'sink.kafka.ssl.ca.location': k.caFile,
  };
  const props = { ...properties(server, name, dir), ...sasl };
  await startCapture(parseConfig(props), logger, { untilIdleMs: 400 }).done;
  await server.query(`UPDATE ${name}.items SET n = 20 WHERE id = 2`);
  await server.query(`DELETE FROM ${name}.items WHERE id = 3`);
  await startCapture(parseConfig(props), logger, { untilIdleMs: 400 }).done;
  const events = decode(await k.consume(topic));
  assert.deepEqual(rebuild(events), await tableState(server, name));
  assert.equal(events.length, 3 + 1 + 2);

  // The SSL listener, with the run's CA: the host name (127.0.0.1) is checked against the certificate.
  // The topic does not exist yet: the sink creates it (CreateTopics over TLS).
  const ssl = sinkFor({
    'bootstrap.servers': k.ssl,
    'security.protocol': 'SSL',
    'ssl.ca.location': k.caFile,
    'topic.creation.enable': 'true',
    'topic.creation.default.partitions': '2',
  });
  await ssl.start();
  await ssl.send(records('tls', 0, 5));
  await ssl.close();
  assert.equal(ssl.stats.topicsCreated, 1);
  const tls = await k.consume('tls');
  assert.equal(tls.length, 5);
  assert.deepEqual(new Set(tls.map((r) => r.partition)), new Set([0, 1]), 'created with 2 partitions');

  const wrongPassword = sinkFor({
    'bootstrap.servers': k.saslSsl,
    'security.protocol': 'SASL_SSL',
    'sasl.mechanism': 'SCRAM-SHA-512',
    'sasl.username': k.scram.username,
    'sasl.password': new Secret(`${k.scram.password}-wrong`),
    'ssl.ca.location': k.caFile,
    retries: '0',
  });
  const authErr = await wrongPassword.start().then(
    () => null,
    (err: unknown) => err,
  );
  await wrongPassword.close();
  assert.ok(authErr instanceof SinkError, String(authErr));
  assert.match(authErr.message, /authentication with .* failed; check sink\.kafka\.sasl\.\* credentials/);
  assert.equal(authErr.retriable, false);
  assert.ok(!authErr.message.includes(k.scram.password), 'the password is never in the message');

  for (const listener of [k.ssl, k.saslSsl]) {
    const untrusted = sinkFor({
      'bootstrap.servers': listener,
      'security.protocol': listener === k.ssl ? 'SSL' : 'SASL_SSL',
      ...(listener === k.ssl
        ? {}
        : { 'sasl.mechanism': 'SCRAM-SHA-512', 'sasl.username': k.scram.username, 'sasl.password': k.scram.password }),
      'ssl.ca.location': k.otherCaFile,
      retries: '0',
    });
    const tlsErr = await untrusted.start().then(
      () => null,
      (err: unknown) => err,
    );
    await untrusted.close();
    assert.ok(tlsErr instanceof SinkError, String(tlsErr));
    assert.match(tlsErr.message, /certificate/);
    assert.match(tlsErr.message, /sink\.kafka\.ssl\.ca\.location/);
    assert.equal(tlsErr.retriable, false);
  }
});

test('broker crash and restart mid-stream: nothing lost', async (t) => {
  const { server, name, topic, dir } = await prepare('kafkarestart');
  const config = parseConfig({ ...properties(server, name, dir), 'sink.kafka.retry.backoff.max.ms': '500' });
  await startCapture(config, logger, { untilIdleMs: 300 }).done; // empty snapshot: the streaming position is set
  let delivered = 0;
  const capture = startCapture(config, logger, {
    untilIdleMs: 1500,
    onDelivered: (r) => {
      delivered += r.length;
    },
  });
  // Rows change before, during and after the broker's outage (each round: 50 inserts, 25 updates).
  let next = 0;
  const write = async (rounds: number) => {
    for (let r = 0; r < rounds; r++) {
      const rows = Array.from({ length: 50 }, (_, i) => `(${next + i},'w',${next + i})`).join(',');
      next += 50;
      await server.query(`INSERT INTO ${name}.items VALUES ${rows}`);
      await server.query(`UPDATE ${name}.items SET n = -n WHERE id >= ${next - 50} AND id % 2 = 0`);
    }
  };
  await write(10);
  assert.ok(await pollUntil(() => delivered >= 250, 60_000), 'capture never delivered');
  const before = await kafka().recordCount(topic);
  const restarting = kafka().restart();
  await write(10); // while the JVM is down and starting again
  await restarting;
  t.diagnostic(`Kafka broker restart after a crash: ${kafka().startMs} ms`);
  await write(10);
  await capture.done;

  const events = decode(await kafka().consume(topic));
  assert.ok(before > 0 && before < events.length, `restart was mid-stream (${before} of ${events.length})`);
  assert.deepEqual(rebuild(events), await tableState(server, name));
  assertPerKeyOrder(events, true);
  assert.equal(new Set(events.filter((e) => e.value?.op === 'c').map((e) => e.key.id)).size, next);
});

test('kill -9 of a capture child mid-stream, then restart: nothing lost', async () => {
  const { server, name, topic, dir } = await prepare('kafkakill');
  const props = properties(server, name, dir);
  await server.query(`INSERT INTO ${name}.items VALUES (0, 'seed', 0)`);
  // A long idle limit: this child never exits by itself, it is always killed.
  const first = spawnCapture(dir, props, {}, 600_000);
  const offsets = join(dir, 'offsets.json');
  assert.ok(await pollUntil(() => existsSync(offsets), 30_000), first.stderr());
  const committed = readFileSync(offsets, 'utf8');
  for (let b = 0; b < 20; b++) {
    const rows = Array.from({ length: 250 }, (_, i) => `(${1 + b * 250 + i},'bulk',${b})`).join(',');
    await server.query(`INSERT INTO ${name}.items VALUES ${rows}`);
  }
  await server.query(`UPDATE ${name}.items SET n = -1 WHERE id % 2 = 0`);
  // Kill right after the child commits a streaming batch (usually the first of the 7,500 changes).
  assert.ok(await pollUntil(() => readFileSync(offsets, 'utf8') !== committed, 30_000), first.stderr());
  first.child.kill('SIGKILL');
  assert.equal(await first.exited, null, 'killed by the signal');

  const second = spawnCapture(dir, props, {}, 500);
  assert.equal(await second.exited, 0, second.stderr());
  const events = decode(await kafka().consume(topic));
  assert.deepEqual(rebuild(events), await tableState(server, name));
  assertPerKeyOrder(events, true);
  assert.equal(new Set(events.filter((e) => e.value?.op === 'c').map((e) => e.key.id)).size, 5000);
});

test('records over max.request.size go to S3 first (claim-check) and reach the broker as pointers; resolved byte-equal', async () => {
  const topic = 'large-claims';
  await kafka().createTopic(topic);
  const s3 = await startS3StandIn();
  try {
    await s3.createBucket('kafka-claims');
    const store = new S3ClaimCheckStore({ client: s3.client() });
    const big = JSON.stringify({ before: null, after: { id: 1, doc: 'q'.repeat(3_000_000) }, op: 'c', source: {} });
    const input: SinkRecord[] = [
      { topic, key: '{"id":0}', value: '{"op":"c","after":{"id":0}}', sizeBytes: 40 },
      { topic, key: '{"id":1}', value: big, sizeBytes: big.length },
    ];
    // Control: without a claim-check the broker limit refuses it up front.
    const plain = sinkFor({ 'bootstrap.servers': kafka().plaintext });
    await plain.start();
    await assert.rejects(plain.send(input), /over sink\.kafka\.max\.request\.size/);
    await plain.close();
    const sink = sinkFor(
      { 'bootstrap.servers': kafka().plaintext },
      { claimCheck: new ClaimChecker({ store, bucket: 'kafka-claims' }) },
    );
    await sink.start();
    await sink.send(input);
    await sink.close();
    const got = await kafka().consume(topic);
    assert.equal(got.length, 2);
    const value = JSON.parse(got[1].value?.toString() ?? 'null') as Record<string, unknown>;
    assert.equal(value.after, null);
    const pointer = claimCheckPointerOf(value);
    assert.ok(pointer);
    const header = got[1].headers.find(([k]) => k === CLAIM_CHECK_HEADER)?.[1];
    assert.deepEqual(JSON.parse(header?.toString() ?? 'null'), pointer);
    assert.equal(await new ClaimCheckResolver(store).valueText(pointer), big);
    assert.equal(got[0].value?.toString(), input[0].value);
  } finally {
    await s3.stop();
  }
});
