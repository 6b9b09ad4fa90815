/**
 * A throw-away Kafka cluster for tests and benchmarks: librdkafka's mock cluster (Debian `librdkafka-dev`, see
 * `scripts/install-system-deps.sh`) behind the small C launcher in `kafka-mock/launcher.c`. The launcher is compiled
 * on first use with the system compiler and cached in the temp dir by source hash.
 *
 * What the mock cluster can and cannot do (librdkafka 2.0): Produce/Fetch/Metadata work; topics must be pre-created
 * here (it has no CreateTopics, and client-side auto-creation trips on its controller id); no idempotent producer
 * (InitProducerId); no TLS or SASL; it keeps ~5 MB per partition, so consume as you go. It can inject request
 * errors (`injectErrors`) and response delays (`setRtt`).
 *
 * Clients connect through `kafka-compat-proxy.ts` (`bootstrapServers`), which adapts the two APIs where the 2.0 mock
 * is too old for @platformatic/kafka (ApiVersions v3, Metadata v9). Its consumer-group and Fetch versions are too
 * old for that client as well, so reading back goes through librdkafka's own consumer inside the launcher
 * (`consume`): an independent client checks what our producer wrote.
 *
 * The launcher exits when its stdin closes, so it dies with this process however this process ends.
 * Free of node:test so benchmarks can import it.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCompatProxy } from './kafka-compat-proxy.js';

const SOURCE = join(dirname(fileURLToPath(import.meta.url)), 'kafka-mock', 'launcher.c');
const INSTALL_HINT =
  'the Kafka mock cluster needs a C compiler and librdkafka-dev: run `bash scripts/install-system-deps.sh` as root';

export interface KafkaTopicSpec {
  name: string;
  /** @default 1 */
  partitions?: number;
  /** @default 1 */
  replication?: number;
}

export interface KafkaMockOptions {
  /** @default 1 */
  brokers?: number;
  /** Topics to create before the cluster is announced. */
  topics?: Array<string | KafkaTopicSpec>;
  /** @default 15000 */
  startTimeoutMs?: number;
}

/** One message as librdkafka's consumer read it back. */
export interface ConsumedMessage {
  partition: number;
  offset: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: Array<[string, Buffer | null]>;
}

export interface KafkaMock {
  /** `host:port` of every broker, through the compatibility proxy: give these to clients. */
  bootstrapServers: string[];
  /** The mock brokers' own addresses (librdkafka clients only). */
  mockBootstrapServers: string[];
  /** Every message of `topic` (all `partitions`), in offset order per partition. */
  consume(topic: string, partitions?: number): Promise<ConsumedMessage[]>;
  createTopic(topic: string | KafkaTopicSpec): Promise<void>;
  /**
   * The next `codes.length` requests of `apiKey` (0 = Produce, 3 = Metadata) fail with these Kafka error codes, in
   * order (e.g. 6 NOT_LEADER_OR_FOLLOWER, 7 REQUEST_TIMED_OUT; -195 makes the broker drop the connection).
   */
  injectErrors(apiKey: number, codes: number[]): Promise<void>;
  /** Delay every response of broker `brokerId` (1-based) by `ms`. */
  setRtt(brokerId: number, ms: number): Promise<void>;
  stop(): Promise<void>;
}

/** Compiles the launcher once per source version; returns the binary's path. */
export async function buildLauncher(): Promise<string> {
  const source = readFileSync(SOURCE);
  const hash = createHash('sha256').update(source).digest('hex').slice(0, 16);
  const dir = join(tmpdir(), 'cdc-kafka-mock');
  const bin = join(dir, `launcher-${hash}`);
  if (existsSync(bin)) return bin;
  await mkdir(dir, { recursive: true });
  const tmp = `${bin}.${process.pid}.tmp`;
  const r = spawnSync('cc', ['-O2', '-o', tmp, SOURCE, '-lrdkafka'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) {
    throw new Error(`cannot build the Kafka mock launcher (${INSTALL_HINT}):\n${r.error?.message ?? r.stderr}`);
  }
  renameSync(tmp, bin); // atomic: concurrent test files never run a half-written binary
  return bin;
}

function topicArg(t: string | KafkaTopicSpec): string {
  if (typeof t === 'string') return t;
  return `${t.name}:${t.partitions ?? 1}:${t.replication ?? 1}`;
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

export async function startKafkaMock(opts: KafkaMockOptions = {}): Promise<KafkaMock> {
  const bin = await buildLauncher();
  const args = [...(opts.brokers ? ['--brokers', String(opts.brokers)] : []), ...(opts.topics ?? []).map(topicArg)];
  const child = spawn(bin, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  live.add(child);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const c of live) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    });
  }
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (d: string) => {
    stderr = (stderr + d).slice(-4096);
  });
  const exited = new Promise<void>((res) => {
    child.once('exit', () => {
      live.delete(child);
      res();
    });
    child.once('error', (e) => {
      stderr += `\n${e.message}`;
      live.delete(child);
      res();
    });
  });

  // stdout: the bootstrap line first, then one reply per command, in order.
  const lines: string[] = [];
  const waiters: Array<(line: string | null) => void> = [];
  let buf = '';
  let closed = false;
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (d: string) => {
    buf += d;
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      const w = waiters.shift();
      if (w) w(line);
      else lines.push(line);
    }
  });
  child.stdout?.once('close', () => {
    closed = true;
    for (const w of waiters.splice(0)) w(null);
  });
  const nextLine = (timeoutMs: number): Promise<string> =>
    new Promise((resolve, reject) => {
      const early = lines.shift();
      if (early !== undefined) return resolve(early);
      const fail = () => reject(new Error(`Kafka mock launcher stopped answering:\n${stderr}`));
      if (closed) return fail();
      const timer = setTimeout(() => {
        waiters.splice(waiters.indexOf(waiter), 1);
        reject(new Error(`Kafka mock launcher did not answer within ${timeoutMs} ms:\n${stderr}`));
      }, timeoutMs);
      const waiter = (line: string | null) => {
        clearTimeout(timer);
        if (line === null) fail();
        else resolve(line);
      };
      waiters.push(waiter);
    });

  let bootstrap: string;
  try {
    bootstrap = await nextLine(opts.startTimeoutMs ?? 15_000);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }

  let queue: Promise<unknown> = Promise.resolve();
  /** Sends one command; resolves with the lines printed before its "ok". */
  const command = (line: string, timeoutMs = 5000): Promise<string[]> => {
    const run = queue.then(async () => {
      child.stdin?.write(`${line}\n`);
      const out: string[] = [];
      for (;;) {
        const reply = await nextLine(timeoutMs);
        if (reply === 'ok') return out;
        if (reply.startsWith('error')) throw new Error(`Kafka mock launcher refused "${line}": ${reply}`);
        out.push(reply);
      }
    });
    queue = run.catch(() => {});
    return run;
  };
  const mockServers = bootstrap.split(',');
  const proxy = await startCompatProxy(mockServers);

  let stopping: Promise<void> | undefined;
  return {
    bootstrapServers: proxy.addresses,
    mockBootstrapServers: mockServers,
    async consume(topic, partitions = 1) {
      const lines = await command(`consume ${topic} ${partitions}`, 60_000);
      return lines.map(parseConsumed);
    },
    async createTopic(t) {
      const spec = typeof t === 'string' ? { name: t } : t;
      await command(`topic ${spec.name} ${spec.partitions ?? 1} ${spec.replication ?? 1}`);
    },
    async injectErrors(apiKey, codes) {
      await command(`errors ${apiKey} ${codes.join(' ')}`);
    },
    async setRtt(brokerId, ms) {
      await command(`rtt ${brokerId} ${ms}`);
    },
    stop() {
      stopping ??= (async () => {
        await proxy.close();
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.stdin?.end(); // the launcher's clean exit
        const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
        await exited;
        clearTimeout(timer);
      })();
      return stopping;
    },
  };
}

function hex(field: string): Buffer | null {
  if (field === '-') return null;
  return field === '=' ? Buffer.alloc(0) : Buffer.from(field, 'hex');
}

function parseConsumed(line: string): ConsumedMessage {
  const f = line.split(' ');
  if (f[0] !== 'msg') throw new Error(`unexpected Kafka mock launcher output: ${line}`);
  const headers: Array<[string, Buffer | null]> = [];
  const n = Number(f[5]);
  for (let i = 0; i < n; i++) headers.push([hex(f[6 + 2 * i])?.toString('utf8') ?? '', hex(f[7 + 2 * i])]);
  return { partition: Number(f[1]), offset: Number(f[2]), key: hex(f[3]), value: hex(f[4]), headers };
}
