/**
 * End-to-end helpers for capture -> Kinesis tests: a Kinesis consumer that reads every shard incrementally (and
 * deaggregates KPL records), the state rebuild / per-key order / duplicate analysis, a concurrent writer producing
 * inserts, updates, deletes and primary-key changes, and `cdc run` child processes that can be killed with SIGKILL.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { GetRecordsCommand, GetShardIteratorCommand, type KinesisClient } from '@aws-sdk/client-kinesis';
import type { Connection } from 'mysql2/promise';
import type { SourceOffset } from '../../../src/model/source-offset.js';
import { deaggregate } from '../../../src/sinks/kinesis/kpl-aggregation.js';
import { listAllShards, STAND_IN_CREDENTIALS, STAND_IN_REGION } from '../../harness/aws.js';
import type { MariaDbServer } from '../../harness/mariadb.js';
import { waitFor } from '../../harness/wait.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** SDK credentials for the stand-ins, in this process too (in-process clients built from config use the chain). */
export function setStandInCredentials(): void {
  process.env.AWS_ACCESS_KEY_ID = STAND_IN_CREDENTIALS.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = STAND_IN_CREDENTIALS.secretAccessKey;
  process.env.AWS_REGION = STAND_IN_REGION;
}

// --- consumer -------------------------------------------------------------------------------------------------------

export interface ConsumedEvent {
  shardId: string;
  partitionKey: string;
  /** Parsed value envelope, or null for a tombstone (empty blob). */
  value: Record<string, unknown> | null;
}

/** Reads every shard of a stream from TRIM_HORIZON, incrementally: each `poll()` appends what arrived since. */
export class StreamConsumer {
  readonly events: ConsumedEvent[] = [];
  kinesisRecords = 0;
  kinesisBytes = 0;
  private readonly iterators = new Map<string, string | undefined>();

  constructor(
    private readonly client: KinesisClient,
    readonly stream: string,
  ) {}

  /**
   * Reads what arrived since the last poll: round-robin over the shards, one GetRecords (up to `limit`) per shard per
   * round, until every shard is caught up or `stopWhen` holds (checked after each call, so a waiting test reacts
   * within one call rather than after a whole backlog).
   */
  async poll(stopWhen?: () => boolean, limit = 1000): Promise<number> {
    const before = this.events.length;
    for (const shard of await listAllShards(this.client, this.stream)) {
      const id = shard.ShardId!;
      if (!this.iterators.has(id)) {
        const it = await this.client.send(
          new GetShardIteratorCommand({ StreamName: this.stream, ShardId: id, ShardIteratorType: 'TRIM_HORIZON' }),
        );
        this.iterators.set(id, it.ShardIterator);
      }
    }
    for (let busy = true; busy; ) {
      busy = false;
      for (const [id, iterator] of this.iterators) {
        if (!iterator) continue;
        const r = await this.client.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: limit }));
        this.iterators.set(id, r.NextShardIterator);
        const records = r.Records ?? [];
        if (records.length > 0) busy = true;
        for (const rec of records) {
          this.kinesisRecords++;
          const data = Buffer.from(rec.Data ?? new Uint8Array());
          this.kinesisBytes += data.length + Buffer.byteLength(rec.PartitionKey!, 'utf8');
          for (const user of deaggregate({ partitionKey: rec.PartitionKey!, data })) {
            const text = user.data.toString('utf8');
            this.events.push({
              shardId: id,
              partitionKey: user.partitionKey,
              value: text.length === 0 ? null : (JSON.parse(text) as Record<string, unknown>),
            });
          }
        }
        if (stopWhen?.()) return this.events.length - before;
      }
    }
    return this.events.length - before;
  }

  /** Polls until `count` events have arrived. */
  async waitForCount(count: number, timeoutMs: number, what = `${count} events`): Promise<void> {
    const reached = () => this.events.length >= count;
    await waitFor(
      what,
      async () => {
        await this.poll(reached, 250);
        return reached();
      },
      timeoutMs,
    );
  }

  /** Polls until a data event for row `id` has arrived. */
  async waitForId(id: number, timeoutMs: number): Promise<void> {
    let checked = 0;
    await waitFor(
      `the event for id ${id}`,
      async () => {
        await this.poll();
        for (; checked < this.events.length; checked++) {
          const e = this.events[checked];
          if (e.value && (JSON.parse(e.partitionKey) as { id?: number }).id === id) return true;
        }
        return false;
      },
      timeoutMs,
    );
  }

  /** Polls until nothing new arrives for `quietMs`. */
  async drain(quietMs = 300, timeoutMs = 30_000): Promise<void> {
    let last = -1;
    let since = Date.now();
    await waitFor(
      'the stream to go quiet',
      async () => {
        await this.poll();
        if (this.events.length !== last) {
          last = this.events.length;
          since = Date.now();
        }
        return Date.now() - since >= quietMs;
      },
      timeoutMs,
    );
  }
}

/** The offset committed in the DynamoDB offset store (`offset.storage.dynamodb.table=cdc_offsets`), or null. */
export async function committedOffset(client: DynamoDBClient, connector: string): Promise<SourceOffset | null> {
  const out = await client.send(
    new GetItemCommand({ TableName: 'cdc_offsets', Key: { connector: { S: connector } }, ConsistentRead: true }),
  );
  const text = out.Item?.offset?.S;
  return text ? (JSON.parse(text) as SourceOffset) : null;
}

// --- analysis -------------------------------------------------------------------------------------------------------

export interface Row {
  id: number;
  v: number;
  label: string;
}

export interface Analysis {
  /** State rebuilt by applying every event in arrival order (c/r/u upsert `after`, d and tombstones delete). */
  state: Map<number, Row>;
  dataEvents: number;
  tombstones: number;
  /** Data events whose identity (key, op, source file/pos/row, images) arrived before. */
  duplicates: number;
  /** Per arrival index: whether that event is a duplicate. */
  duplicateAt: boolean[];
  /** First occurrences whose source (file, pos, row) is before the previous first occurrence of the same key. */
  orderViolations: string[];
  /** Distinct keys seen. */
  keys: number;
}

type Source = { file: string; pos: number; row: number; snapshot?: string; table?: string };

function comparePosition(a: Source, b: Source): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  if (a.pos !== b.pos) return a.pos - b.pos;
  return a.row - b.row;
}

/**
 * Rebuilds `table` from the consumed events and checks per-key order. Keys are the partition keys (the key JSON);
 * duplicates are recognised by identity, and the order check runs over first occurrences only, because a restart
 * legitimately replays a key's recent events after newer ones (at-least-once).
 */
export function analyse(events: ConsumedEvent[], table: string): Analysis {
  const state = new Map<number, Row>();
  const seen = new Set<string>();
  const lastSource = new Map<string, Source>();
  const duplicateAt: boolean[] = [];
  const orderViolations: string[] = [];
  const keys = new Set<string>();
  let dataEvents = 0;
  let tombstones = 0;
  let duplicates = 0;
  for (const e of events) {
    duplicateAt.push(false);
    const key = JSON.parse(e.partitionKey) as Record<string, unknown>;
    if (typeof key.id !== 'number') continue; // schema changes and other non-row records
    if (e.value === null) {
      tombstones++;
      state.delete(key.id);
      continue;
    }
    const v = e.value as { op: string; before: Row | null; after: Row | null; source: Source };
    if (v.source.table !== table) continue;
    dataEvents++;
    keys.add(e.partitionKey);
    const s = v.source;
    const identity = `${e.partitionKey}|${v.op}|${s.file}|${s.pos}|${s.row}|${JSON.stringify(v.before)}|${JSON.stringify(v.after)}`;
    if (seen.has(identity)) {
      duplicates++;
      duplicateAt[duplicateAt.length - 1] = true;
    } else {
      seen.add(identity);
      const prev = lastSource.get(e.partitionKey);
      if (prev && comparePosition(s, prev) < 0) {
        orderViolations.push(
          `${e.partitionKey}: ${v.op} at ${s.file}:${s.pos}/${s.row} after ${prev.file}:${prev.pos}/${prev.row}`,
        );
      }
      lastSource.set(e.partitionKey, s);
    }
    if (v.op === 'd') state.delete(key.id);
    else state.set(key.id, v.after as Row);
  }
  return { state, dataEvents, tombstones, duplicates, duplicateAt, orderViolations, keys: keys.size };
}

export function countTrue(flags: boolean[], from: number, to = flags.length): number {
  let n = 0;
  for (let i = from; i < to; i++) if (flags[i]) n++;
  return n;
}

export async function tableState(server: MariaDbServer, db: string, table: string): Promise<Map<number, Row>> {
  const rows = await server.query<Row[]>(`SELECT id, v, label FROM ${db}.${table} ORDER BY id`);
  return new Map(rows.map((r) => [r.id, { id: r.id, v: r.v, label: r.label }]));
}

/** A short description of how two states differ (empty when equal). */
export function stateDiff(expected: Map<number, Row>, actual: Map<number, Row>): string[] {
  const out: string[] = [];
  for (const [id, row] of expected) {
    const got = actual.get(id);
    if (!got) out.push(`missing id ${id}`);
    else if (got.v !== row.v || got.label !== row.label)
      out.push(`id ${id}: ${JSON.stringify(got)} != ${JSON.stringify(row)}`);
  }
  for (const id of actual.keys()) if (!expected.has(id)) out.push(`extra id ${id}`);
  return out;
}

// --- database and writer --------------------------------------------------------------------------------------------

export const TABLE = 'items';

function label(id: number, v: number): string {
  return `item-${id}-v${v}-${'x'.repeat(24)}`;
}

/** Creates `items` with `rows` rows (ids 1..rows). */
export async function seedTable(server: MariaDbServer, db: string, rows: number): Promise<void> {
  await server.query(
    `CREATE TABLE ${db}.${TABLE} (id INT PRIMARY KEY, v INT NOT NULL, label VARCHAR(80) NOT NULL) ENGINE=InnoDB`,
  );
  for (let start = 1; start <= rows; start += 2000) {
    const values: string[] = [];
    for (let id = start; id < Math.min(start + 2000, rows + 1); id++) values.push(`(${id},0,'${label(id, 0)}')`);
    await server.query(`INSERT INTO ${db}.${TABLE} VALUES ${values.join(',')}`);
  }
}

/** Deterministic PRNG (mulberry32) so a failing run can be repeated with the logged seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The only writer of `items` while it runs: random inserts, updates, deletes, primary-key changes and small
 * multi-statement transactions (each touching a key at most once, so the per-key (file, pos, row) order of the
 * resulting events is well defined), plus big single-statement transactions on request.
 */
export class ChangeWriter {
  ops = 0;
  private readonly live: number[] = [];
  private nextId: number;
  private running: Promise<void> | null = null;
  private stopping = false;
  private readonly random: () => number;

  private constructor(
    private readonly conn: Connection,
    private readonly db: string,
    initialRows: number,
    seed: number,
  ) {
    for (let id = 1; id <= initialRows; id++) this.live.push(id);
    this.nextId = initialRows + 1;
    this.random = prng(seed);
  }

  static async open(server: MariaDbServer, db: string, initialRows: number, seed: number): Promise<ChangeWriter> {
    return new ChangeWriter(await server.connect(), db, initialRows, seed);
  }

  private pick(exclude: Set<number> = new Set()): number | null {
    for (let i = 0; i < 8 && this.live.length > 0; i++) {
      const id = this.live[Math.floor(this.random() * this.live.length)];
      if (!exclude.has(id)) return id;
    }
    return null;
  }

  private forget(id: number): void {
    const i = this.live.indexOf(id);
    if (i >= 0) {
      this.live[i] = this.live[this.live.length - 1];
      this.live.pop();
    }
  }

  private sql(statement: string): Promise<unknown> {
    return this.conn.query(statement);
  }

  /** One random change (autocommit) or one small transaction. */
  async step(): Promise<void> {
    const t = `${this.db}.${TABLE}`;
    const r = this.random();
    if (r < 0.3) {
      const id = this.nextId++;
      await this.sql(`INSERT INTO ${t} VALUES (${id},0,'${label(id, 0)}')`);
      this.live.push(id);
    } else if (r < 0.6) {
      const id = this.pick();
      if (id !== null) await this.sql(`UPDATE ${t} SET v=v+1, label=CONCAT('u-',v+1,'-',id) WHERE id=${id}`);
    } else if (r < 0.72) {
      const id = this.pick();
      if (id !== null) {
        await this.sql(`DELETE FROM ${t} WHERE id=${id}`);
        this.forget(id);
      }
    } else if (r < 0.85) {
      const id = this.pick();
      if (id !== null) {
        const to = this.nextId++;
        await this.sql(`UPDATE ${t} SET id=${to}, v=v+1 WHERE id=${id}`);
        this.forget(id);
        this.live.push(to);
      }
    } else {
      const a = this.pick();
      const b = a === null ? null : this.pick(new Set([a]));
      const c = this.nextId++;
      await this.sql('BEGIN');
      if (a !== null) await this.sql(`UPDATE ${t} SET v=v+10 WHERE id=${a}`);
      if (b !== null) await this.sql(`DELETE FROM ${t} WHERE id=${b}`);
      await this.sql(`INSERT INTO ${t} VALUES (${c},7,'${label(c, 7)}')`);
      await this.sql('COMMIT');
      if (b !== null) this.forget(b);
      this.live.push(c);
    }
    this.ops++;
  }

  /** Inserts one new row and returns its id (a marker to wait for at the consumer). */
  async marker(): Promise<number> {
    const id = this.nextId++;
    await this.sql(`INSERT INTO ${this.db}.${TABLE} VALUES (${id},42,'${label(id, 42)}')`);
    this.live.push(id);
    this.ops++;
    return id;
  }

  /** A single INSERT of `n` new rows: one transaction spanning several rows events. */
  async bigInsert(n: number): Promise<void> {
    const values: string[] = [];
    for (let i = 0; i < n; i++) {
      const id = this.nextId++;
      values.push(`(${id},1,'${label(id, 1)}')`);
      this.live.push(id);
    }
    await this.sql(`INSERT INTO ${this.db}.${TABLE} VALUES ${values.join(',')}`);
    this.ops++;
  }

  /** A single UPDATE of every row: one transaction touching each key once. */
  async bigUpdate(): Promise<void> {
    await this.sql(`UPDATE ${this.db}.${TABLE} SET v=v+100`);
    this.ops++;
  }

  /**
   * Runs `step()` until `stop()`, paced at `opsPerSecond`: a workload shape, not a wait for anything. Unpaced, the
   * writer would starve kinesalite and the consumer, which share this process's event loop.
   */
  start(opsPerSecond = 400): void {
    this.stopping = false;
    this.running = (async () => {
      const t0 = performance.now();
      for (let n = 1; !this.stopping; n++) {
        await this.step();
        const ahead = t0 + (n * 1000) / opsPerSecond - performance.now();
        if (ahead > 0) await new Promise((r) => setTimeout(r, ahead));
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.running;
    this.running = null;
  }

  async close(): Promise<void> {
    await this.stop();
    await this.conn.end();
  }
}

// --- cdc run child processes ----------------------------------------------------------------------------------------

export interface E2eEndpoints {
  kinesis: string;
  dynamodb: string;
}

/** Properties for a `cdc run` against the harness server, Kinesis and the DynamoDB stores. */
export function captureProperties(
  server: MariaDbServer,
  db: string,
  aws: E2eEndpoints,
  stream: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    name: `e2e-${db}`,
    'topic.prefix': 'it',
    'database.hostname': server.host,
    'database.port': String(server.port),
    'database.user': server.admin.user,
    'database.password': server.admin.password,
    'database.server.id': String(8000 + Math.floor(Math.random() * 1000)),
    'database.include.list': db,
    'database.ssl.mode': 'disabled',
    'sink.type': 'kinesis',
    'sink.kinesis.stream.name': stream,
    'sink.kinesis.endpoint': aws.kinesis,
    'aws.region': STAND_IN_REGION,
    'offset.storage': 'dynamodb',
    'offset.storage.dynamodb.table': 'cdc_offsets',
    'offset.storage.dynamodb.endpoint': aws.dynamodb,
    'offset.storage.dynamodb.table.create': 'true',
    'schema.history.internal': 'dynamodb',
    'schema.history.internal.dynamodb.table': 'cdc_history',
    'schema.history.internal.dynamodb.endpoint': aws.dynamodb,
    'schema.history.internal.dynamodb.table.create': 'true',
    'lease.enabled': 'true',
    'lease.dynamodb.table': 'cdc_lease',
    'lease.dynamodb.endpoint': aws.dynamodb,
    'log.format': 'json',
    ...extra,
  };
}

export function writeProperties(props: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'cdc-e2e-'));
  const file = join(dir, 'capture.properties');
  writeFileSync(
    file,
    `${Object.entries(props)
      .map(([k, v]) => `${k}=${v}`)
      .join('\n')}\n`,
  );
  return file;
}

export interface LogLine {
  time: string;
  level: string;
  msg: string;
  [k: string]: unknown;
}

/** `node bin/cdc.js run --config <file>` with JSON logs collected from stderr. */
export class CaptureChild {
  readonly logs: LogLine[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  exitedAt: number | null = null;
  private readonly child: ChildProcess;
  private stderrTail = '';

  constructor(
    configFile: string,
    readonly name: string,
    args: string[] = [],
  ) {
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('CDC_')) env[k] = v;
    Object.assign(env, {
      AWS_ACCESS_KEY_ID: STAND_IN_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: STAND_IN_CREDENTIALS.secretAccessKey,
      AWS_REGION: STAND_IN_REGION,
    });
    this.child = spawn(process.execPath, [join(ROOT, 'bin/cdc.js'), 'run', '--config', configFile, ...args], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let buf = '';
    this.child.stderr!.setEncoding('utf8');
    this.child.stderr!.on('data', (chunk: string) => {
      buf += chunk;
      this.stderrTail = (this.stderrTail + chunk).slice(-4000);
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        try {
          this.logs.push(JSON.parse(line) as LogLine);
        } catch {
          // not a log line (e.g. a crash trace): kept in stderrTail only
        }
      }
      if (process.env.CDC_TEST_DEBUG) process.stderr.write(`[${name}] ${chunk}`);
    });
    this.exited = new Promise((resolveExit) => {
      this.child.once('exit', (code, signal) => {
        this.exitedAt = Date.now();
        resolveExit({ code, signal });
      });
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  get alive(): boolean {
    return this.exitedAt === null;
  }

  get tail(): string {
    return this.stderrTail;
  }

  log(msg: string): LogLine | undefined {
    return this.logs.find((l) => l.msg === msg);
  }

  async waitForLog(msg: string, timeoutMs: number): Promise<LogLine> {
    await waitFor(
      `[${this.name}] log "${msg}"`,
      () => {
        if (this.log(msg)) return true;
        if (!this.alive) throw new Error(`[${this.name}] exited before logging "${msg}":\n${this.tail}`);
        return false;
      },
      timeoutMs,
    );
    return this.log(msg)!;
  }

  /** SIGKILL, then wait for the exit. */
  async kill9(): Promise<void> {
    if (this.alive) this.child.kill('SIGKILL');
    await this.exited;
  }
}
