/**
 * A throw-away Apache Kafka broker (KRaft, one node acting as broker and controller) for tests and benchmarks.
 *
 * The broker's jars come from Maven (test/kafka-broker/pom.xml, copied into test/kafka-broker/lib by
 * scripts/install-kafka-broker.sh, which this module runs when they are missing). Each start formats a fresh log
 * dir with `kafka.tools.StorageTool format` (the `kafka-storage format` of the distribution, with a SCRAM user
 * added at format time) and runs `kafka.Kafka` on a generated server.properties with free ports and these
 * listeners on 127.0.0.1: PLAINTEXT, SASL_SSL (SCRAM-SHA-512), SSL, FAULTY (PLAINTEXT behind a relay that can
 * lose Produce responses, kafka-fault-proxy.ts) and the controller's. The TLS listeners use a
 * certificate from a CA made for this run (openssl, PKCS12 keystore). Readiness is a metadata request that
 * succeeds, never a fixed wait.
 *
 * `consume()` reads a topic back with @platformatic/kafka's low-level Fetch (no consumer group): an independent
 * reader of what the sink wrote, which also exposes each record batch's producer id, epoch and sequence (proof
 * of the idempotent producer on the broker's side).
 *
 * The JVM runs under a small bash guard that kills it when this process's pipe closes, so the broker dies with
 * this process however it ends. Free of node:test so benchmarks can import it.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Admin, Consumer } from '@platformatic/kafka';
import { type KafkaFaultProxy, startKafkaFaultProxy } from './kafka-fault-proxy.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const LIB = join(ROOT, 'test', 'kafka-broker', 'lib');
const INSTALL = join(ROOT, 'scripts', 'install-kafka-broker.sh');
const HOST = '127.0.0.1';

export interface KafkaBrokerOptions {
  /** Deadline for format + start until a metadata request succeeds. @default 120000 */
  startTimeoutMs?: number;
  /**
   * JIT mode: 'quick' (C1 only) starts faster and suits the tests; 'full' (C1 + C2) runs faster once warm, for
   * benchmarks. @default 'quick'
   */
  jit?: 'quick' | 'full';
  /** Maximum heap. @default '256m' */
  heap?: string;
}

export interface KafkaTopicSpec {
  name: string;
  /** @default 1 */
  partitions?: number;
  /** Topic configs, e.g. `{ 'cleanup.policy': 'compact' }`. */
  configs?: Record<string, string>;
}

/** One record as the broker stores it. */
export interface ConsumedRecord {
  partition: number;
  offset: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: Array<[string, Buffer | null]>;
  /** -1 unless the record was written by an idempotent (or transactional) producer. */
  producerId: bigint;
  producerEpoch: number;
  /** The record's sequence number within its producer and partition; -1 without idempotence. */
  sequence: number;
}

export interface KafkaBroker {
  /** `host:port` of the PLAINTEXT listener. */
  plaintext: string;
  /** `host:port` of the SASL_SSL listener (SCRAM-SHA-512, `scram` credentials). */
  saslSsl: string;
  /** `host:port` of the SSL listener (no client certificate). */
  ssl: string;
  /** `host:port` of a PLAINTEXT listener behind a relay that can lose Produce responses (`faults`). */
  faulty: string;
  faults: KafkaFaultProxy;
  /** PEM file of this run's CA, which signed the broker certificate (SAN localhost and 127.0.0.1). */
  caFile: string;
  /** PEM file of another CA that signed nothing this broker presents (for untrusted-CA tests). */
  otherCaFile: string;
  scram: { mechanism: 'SCRAM-SHA-512'; username: string; password: string };
  /** Milliseconds from spawning the format step to the first successful metadata request (last start). */
  startMs: number;
  /** Milliseconds of the `StorageTool format` step alone (first start). */
  formatMs: number;
  createTopic(topic: string | KafkaTopicSpec): Promise<void>;
  /** Sets topic configs (IncrementalAlterConfigs), e.g. `min.insync.replicas`. */
  alterTopic(topic: string, configs: Record<string, string>): Promise<void>;
  /** The sum of `topic`'s high watermarks (records written, on a topic nothing deletes from). */
  recordCount(topic: string): Promise<number>;
  /** Every record of `topic` up to the current high watermarks, in offset order per partition. */
  consume(topic: string): Promise<ConsumedRecord[]>;
  /** Kills the JVM (SIGKILL: a crash, no clean shutdown) and starts it again on the same data and ports. */
  restart(): Promise<void>;
  /** The tail of the broker's log (stdout + stderr). */
  log(): string;
  /** The broker's whole log (deleted by stop()). */
  logFile: string;
  stop(): Promise<void>;
}

/** Makes sure the broker's jars are in test/kafka-broker/lib (idempotent, lock-protected). */
export function ensureKafkaBroker(): void {
  if (existsSync(join(LIB, '.stamp'))) return;
  const r = spawnSync('bash', [INSTALL], { encoding: 'utf8', stdio: ['ignore', 'inherit', 'pipe'] });
  if (r.error || r.status !== 0) {
    throw new Error(
      `cannot install the Kafka broker (run \`bash scripts/install-kafka-broker.sh\`; it needs Java 17+ and Maven):\n${r.error?.message ?? r.stderr}`,
    );
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, HOST, () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

function run(cmd: string, args: string[], cwd: string): void {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8' });
  if (r.error || r.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} failed: ${r.error?.message ?? r.stderr}`);
  }
}

/** A CA, a broker certificate it signs (localhost, 127.0.0.1) in a PKCS12 keystore, and an unrelated CA. */
function makeCertificates(dir: string, storePassword: string): void {
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  run(
    'openssl',
    ['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=cdc test CA'],
    dir,
  );
  run(
    'openssl',
    [
      'req',
      '-x509',
      ...ec,
      '-keyout',
      'other-ca.key',
      '-out',
      'other-ca.pem',
      '-days',
      '2',
      '-subj',
      '/CN=cdc other CA',
    ],
    dir,
  );
  run('openssl', ['req', '-new', ...ec, '-keyout', 'broker.key', '-out', 'broker.csr', '-subj', '/CN=localhost'], dir);
  run(
    'openssl',
    [
      'x509',
      '-req',
      '-in',
      'broker.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '2',
      '-extfile',
      'san.ext',
      '-out',
      'broker.pem',
    ],
    dir,
  );
  run(
    'openssl',
    [
      'pkcs12',
      '-export',
      '-in',
      'broker.pem',
      '-inkey',
      'broker.key',
      '-certfile',
      'ca.pem',
      '-name',
      'broker',
      '-out',
      'broker.p12',
      '-passout',
      `pass:${storePassword}`,
    ],
    dir,
  );
}

// Bash guard: runs the JVM, kills it (SIGKILL) when stdin closes, exits with the JVM's status. (Background jobs
// of a non-interactive bash read /dev/null, hence stdin through fd 3.)
const GUARD = 'exec 3<&0; java "$@" </dev/null & j=$!; { read -r _ <&3; kill -KILL "$j"; } 2>/dev/null & wait "$j"';

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

export async function startKafkaBroker(opts: KafkaBrokerOptions = {}): Promise<KafkaBroker> {
  ensureKafkaBroker();
  const timeoutMs = opts.startTimeoutMs ?? 120_000;
  const dir = await mkdtemp(join(tmpdir(), 'cdc-kafka-'));
  const [plainPort, saslPort, sslPort, controllerPort, faultyPort, relayPort] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  const storePassword = randomBytes(12).toString('hex');
  const scram = { mechanism: 'SCRAM-SHA-512' as const, username: 'cdc', password: randomBytes(12).toString('hex') };
  await writeFile(join(dir, 'san.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  makeCertificates(dir, storePassword);

  const props: Record<string, string | number> = {
    'process.roles': 'broker,controller',
    'node.id': 1,
    'controller.quorum.voters': `1@${HOST}:${controllerPort}`,
    // FAULTY is PLAINTEXT advertised at the fault relay's port (kafka-fault-proxy.ts).
    listeners: `PLAINTEXT://${HOST}:${plainPort},SASL_SSL://${HOST}:${saslPort},SSL://${HOST}:${sslPort},FAULTY://${HOST}:${faultyPort},CONTROLLER://${HOST}:${controllerPort}`,
    'advertised.listeners': `PLAINTEXT://${HOST}:${plainPort},SASL_SSL://${HOST}:${saslPort},SSL://${HOST}:${sslPort},FAULTY://${HOST}:${relayPort}`,
    'listener.security.protocol.map':
      'PLAINTEXT:PLAINTEXT,SASL_SSL:SASL_SSL,SSL:SSL,FAULTY:PLAINTEXT,CONTROLLER:PLAINTEXT',
    'controller.listener.names': 'CONTROLLER',
    'inter.broker.listener.name': 'PLAINTEXT',
    'sasl.enabled.mechanisms': 'SCRAM-SHA-512',
    'listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config':
      'org.apache.kafka.common.security.scram.ScramLoginModule required;',
    'ssl.keystore.type': 'PKCS12',
    'ssl.keystore.location': join(dir, 'broker.p12'),
    'ssl.keystore.password': storePassword,
    'ssl.key.password': storePassword,
    'ssl.client.auth': 'none',
    'log.dirs': join(dir, 'data'),
    'auto.create.topics.enable': 'false',
    'num.partitions': 1,
    'offsets.topic.replication.factor': 1,
    'offsets.topic.num.partitions': 1,
    'transaction.state.log.replication.factor': 1,
    'transaction.state.log.min.isr': 1,
    'transaction.state.log.num.partitions': 1,
    'share.coordinator.state.topic.replication.factor': 1,
    'share.coordinator.state.topic.min.isr': 1,
    'group.initial.rebalance.delay.ms': 0,
    // After a crash the controller refuses the broker's new incarnation until the old session expires (9 s by
    // default): a short session makes restart() quick.
    'broker.heartbeat.interval.ms': 500,
    'broker.session.timeout.ms': 2500,
    // Small machine: few threads, no log cleaner backlog worth a thread pool.
    'num.network.threads': 2,
    'num.io.threads': 2,
    'background.threads': 2,
    'num.recovery.threads.per.data.dir': 1,
    'log.cleaner.threads': 1,
    'log.cleaner.dedupe.buffer.size': 2 * 1024 * 1024,
  };
  const propsFile = join(dir, 'server.properties');
  await writeFile(
    propsFile,
    Object.entries(props)
      .map(([k, v]) => `${k}=${v}`)
      .join('\n'),
  );
  const jvm = [
    `-Xmx${opts.heap ?? '256m'}`,
    '-Xms64m',
    '-Xss512k',
    '-XX:+UseSerialGC',
    '-XX:-UsePerfData',
    ...((opts.jit ?? 'quick') === 'quick' ? ['-XX:TieredStopAtLevel=1'] : []),
    '-Djava.awt.headless=true',
    // The JVM ignores TMPDIR (native libraries such as lz4 unpack there): keep them in the run's temp folder.
    `-Djava.io.tmpdir=${tmpdir()}`,
    // CDC_KAFKA_LOG_LEVEL=info shows the broker's start-up in its log (see log()).
    `-Dorg.slf4j.simpleLogger.defaultLogLevel=${process.env.CDC_KAFKA_LOG_LEVEL ?? 'warn'}`,
    '-Dorg.slf4j.simpleLogger.showDateTime=true',
    '-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS',
    '-cp',
    join(LIB, '*'),
  ];
  const logFile = join(dir, 'broker.log');
  const tail = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8').slice(-6000) : '');

  const t0 = performance.now();
  const clusterId = newClusterId();
  const scramArg = `SCRAM-SHA-512=[name=${scram.username},password=${scram.password}]`;
  const format = spawnSync(
    'java',
    [
      ...jvm,
      'kafka.tools.StorageTool',
      'format',
      '-t',
      clusterId,
      '-c',
      propsFile,
      '--add-scram',
      scramArg,
      '--feature',
      'eligible.leader.replicas.version=0',
    ],
    { encoding: 'utf8' },
  );
  if (format.error || format.status !== 0) {
    await rm(dir, { recursive: true, force: true });
    throw new Error(`kafka-storage format failed: ${format.error?.message ?? `${format.stdout}${format.stderr}`}`);
  }
  const formatMs = Math.round(performance.now() - t0);

  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  const launch = () => {
    const fd = openSync(logFile, 'a');
    const c = spawn('bash', ['-c', GUARD, 'kafka-broker', ...jvm, 'kafka.Kafka', propsFile], {
      stdio: ['pipe', fd, fd],
    });
    closeSync(fd);
    live.add(c);
    exited = new Promise<void>((res) => {
      c.once('exit', () => {
        live.delete(c);
        res();
      });
      c.once('error', () => {
        live.delete(c);
        res();
      });
    });
    child = c;
  };
  const kill = async () => {
    const c = child;
    child = null;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    c.stdin?.end(); // the guard SIGKILLs the JVM
    await exited;
  };
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const c of live) c.stdin?.destroy();
    });
  }

  const plaintext = `${HOST}:${plainPort}`;
  const waitReady = async (since: number): Promise<number> => {
    const deadline = since + timeoutMs;
    let last: unknown;
    while (performance.now() < deadline) {
      const c = child as ChildProcess | null;
      if (!c || c.exitCode !== null || c.signalCode !== null) {
        throw new Error(`the Kafka broker exited during start-up:\n${tail()}`);
      }
      const admin = new Admin({ clientId: 'harness-ready', bootstrapBrokers: [plaintext], retries: 0, timeout: 2000 });
      try {
        const md = await admin.metadata({ topics: [] });
        if (md.brokers.size > 0) return Math.round(performance.now() - since);
      } catch (err) {
        last = err;
      } finally {
        await admin.close().catch(() => {});
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    await kill();
    throw new Error(
      `the Kafka broker did not answer a metadata request within ${timeoutMs} ms (${String(last)}):\n${tail()}`,
    );
  };

  launch();
  let startMs: number;
  try {
    startMs = formatMs + (await waitReady(performance.now()));
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }

  const faults = await startKafkaFaultProxy(HOST, relayPort, faultyPort);
  const admin = () => new Admin({ clientId: 'harness-admin', bootstrapBrokers: [plaintext], timeout: 30_000 });
  let stopping: Promise<void> | undefined;
  const broker: KafkaBroker = {
    plaintext,
    saslSsl: `${HOST}:${saslPort}`,
    faulty: `${HOST}:${relayPort}`,
    faults,
    ssl: `${HOST}:${sslPort}`,
    caFile: join(dir, 'ca.pem'),
    otherCaFile: join(dir, 'other-ca.pem'),
    scram,
    startMs,
    formatMs,
    async createTopic(t) {
      const spec = typeof t === 'string' ? { name: t } : t;
      const a = admin();
      try {
        await a.createTopics({
          topics: [spec.name],
          partitions: spec.partitions ?? 1,
          replicas: 1,
          configs: Object.entries(spec.configs ?? {}).map(([name, value]) => ({ name, value })),
        });
      } finally {
        await a.close();
      }
    },
    async alterTopic(topic, configs) {
      const a = admin();
      try {
        await a.incrementalAlterConfigs({
          resources: [
            {
              resourceType: 2, // TOPIC
              resourceName: topic,
              configs: Object.entries(configs).map(([name, value]) => ({ name, configOperation: 0, value })),
            },
          ],
        });
      } finally {
        await a.close();
      }
    },
    async recordCount(topic) {
      const a = admin();
      try {
        const md = await a.metadata({ topics: [topic], forceUpdate: true });
        const count = md.topics.get(topic)?.partitionsCount ?? 0;
        const partitions = Array.from({ length: count }, (_, partitionIndex) => ({ partitionIndex, timestamp: -1n }));
        const [t] = await a.listOffsets({ topics: [{ name: topic, partitions }] });
        return t.partitions.reduce((n, p) => n + Number(p.offset), 0);
      } finally {
        await a.close();
      }
    },
    consume: (topic) => consumeTopic(plaintext, topic),
    async restart() {
      await kill();
      const t = performance.now();
      launch();
      broker.startMs = await waitReady(t);
    },
    log: tail,
    logFile,
    stop() {
      stopping ??= (async () => {
        await faults.close();
        await kill();
        await rm(dir, { recursive: true, force: true });
      })();
      return stopping;
    },
  };
  return broker;
}

/** Reads every partition of `topic` from offset 0 to its high watermark with raw Fetch requests. */
async function consumeTopic(bootstrap: string, topic: string): Promise<ConsumedRecord[]> {
  const consumer = new Consumer({
    clientId: 'harness-reader',
    groupId: `harness-reader-${randomBytes(4).toString('hex')}`,
    bootstrapBrokers: [bootstrap],
    timeout: 30_000,
  });
  try {
    const md = await consumer.metadata({ topics: [topic], forceUpdate: true });
    const t = md.topics.get(topic);
    if (!t) throw new Error(`topic ${topic} not in metadata`);
    const out: ConsumedRecord[] = [];
    for (let partition = 0; partition < t.partitionsCount; partition++) {
      const node = t.partitions[partition].leader;
      let offset = 0n;
      for (;;) {
        const res = await consumer.fetch({
          node,
          maxWaitTime: 10,
          topics: [
            {
              topicId: t.id,
              partitions: [
                {
                  partition,
                  fetchOffset: offset,
                  currentLeaderEpoch: -1,
                  lastFetchedEpoch: -1,
                  partitionMaxBytes: 8 << 20,
                },
              ],
            },
          ],
        });
        const p = res.responses[0]?.partitions[0];
        if (!p) throw new Error(`no fetch response for ${topic}/${partition}`);
        if (p.errorCode !== 0) throw new Error(`fetch ${topic}/${partition} failed with error code ${p.errorCode}`);
        for (const batch of p.records ?? []) {
          for (const r of batch.records) {
            const at = batch.firstOffset + BigInt(r.offsetDelta);
            if (at < offset) continue; // a batch can start before the requested offset
            out.push({
              partition,
              offset: Number(at),
              key: r.key,
              value: r.value,
              headers: r.headers.map(([k, v]) => [k?.toString('utf8') ?? '', v]),
              producerId: batch.producerId,
              producerEpoch: batch.producerEpoch,
              sequence: batch.firstSequence < 0 ? -1 : batch.firstSequence + r.offsetDelta,
            });
          }
          offset = batch.firstOffset + BigInt(batch.lastOffsetDelta) + 1n;
        }
        if (offset >= p.highWatermark) break;
        if (!p.records?.length)
          throw new Error(
            `fetch ${topic}/${partition} at ${offset} returned nothing below the high watermark ${p.highWatermark}`,
          );
      }
    }
    return out;
  } finally {
    await consumer.close(true);
  }
}

/**
 * A KRaft cluster id: 16 random bytes in URL-safe base64, as Kafka's Uuid.randomUuid, which likewise draws again
 * when the text starts with '-' (1 in 64): kafka-storage's argument parser takes `-t -Abc...` for an option and
 * fails with "argument --cluster-id/-t: expected one argument".
 */
function newClusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}
