/**
 * Runs the Debezium oracle (test/oracle: Debezium's embedded engine + Kafka Connect's JsonConverter) as a child
 * JVM against a harness MariaDB and reads its NDJSON, line-compatible with the file sink's output.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MariaDbServer } from '../../harness/mariadb.js';
import { readSinkLines, type SinkLine } from './capture.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const TARGET = join(ROOT, 'test/oracle/target');

export class OracleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OracleError';
  }
}

/** Builds test/oracle once per machine (scripts/build-oracle.sh: stamped, locked, offline when cached). */
export function buildOracle(): void {
  const r = spawnSync('bash', [join(ROOT, 'scripts/build-oracle.sh')], { encoding: 'utf8' });
  if (r.status !== 0) {
    throw new OracleError(`scripts/build-oracle.sh failed (exit ${r.status}):\n${r.stderr}${r.stdout}`);
  }
}

export function oracleClasspath(): string {
  return `${join(TARGET, 'debezium-oracle-1.0.jar')}:${join(TARGET, 'lib', '*')}`;
}

export interface OracleOptions {
  /** Connector properties on top of the connection to `db` (e.g. `database.include.list`, handling modes). */
  props: Record<string, string>;
  /** JsonConverter schemas.enable for key and value (default false). */
  schemas?: boolean;
  /** Stop after the first record on this topic (a sentinel row written at the end of a scenario). */
  stopTopic?: string;
  /** Stop after this many records. */
  maxRecords?: number;
  /** Give up after this long (default 120 s). */
  timeoutMs?: number;
  /** Convert records but write nothing (benchmarks). */
  discard?: boolean;
  /** JVM options, e.g. ['-Xmx512m']. */
  jvmArgs?: string[];
}

export interface OracleSummary {
  records: number;
  firstMs: number | null;
  lastMs: number | null;
  connectedMs: number | null;
  firstCpuMs: number | null;
  lastCpuMs: number | null;
  cpuMs: number;
  peakRssKb: number;
}

export interface OracleRun {
  /** Resolves once Debezium's streaming phase is connected (after its snapshot). */
  ready(): Promise<void>;
  /** Resolves with every record once a stop condition was met and the JVM exited. */
  done: Promise<{ lines: SinkLine[]; summary: OracleSummary }>;
  /** Asks the harness to stop now (it flushes and exits). */
  stop(): void;
  /** The records written so far (the harness flushes after each batch), for waiting on a condition. */
  linesSoFar(): SinkLine[];
  child: ChildProcess;
}

let serverIds = 0;

export function startOracle(db: MariaDbServer, opts: OracleOptions): OracleRun {
  const dir = mkdtempSync(join(tmpdir(), 'cdc-oracle-'));
  const out = join(dir, 'records.ndjson');
  const readyFile = join(dir, 'ready');
  const stopFile = join(dir, 'stop');
  const props: Record<string, string> = {
    'database.hostname': db.host,
    'database.port': String(db.port),
    'database.user': db.admin.user,
    'database.password': db.admin.password,
    'database.server.id': String(6100 + ((process.pid + serverIds++) % 800)),
    'topic.prefix': 'it',
    'offset.storage.file.filename': join(dir, 'offsets.dat'),
    'schema.history.internal.file.filename': join(dir, 'history.dat'),
    ...opts.props,
  };
  // Credentials go through a file, never the command line (visible in ps).
  const propsFile = join(dir, 'connector.properties');
  writeFileSync(
    propsFile,
    Object.entries(props)
      .map(([k, v]) => `${k}=${v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`)
      .join('\n'),
    { mode: 0o600 },
  );
  const args = [
    ...(opts.jvmArgs ?? []),
    // The JVM ignores TMPDIR: its temp files go where ours do (the test run's own folder, removed after the run).
    `-Djava.io.tmpdir=${tmpdir()}`,
    '-cp',
    oracleClasspath(),
    'cdc.oracle.Oracle',
    '--props',
    propsFile,
    '--out',
    out,
    '--ready-file',
    readyFile,
    '--stop-file',
    stopFile,
    '--schemas',
    String(opts.schemas ?? false),
    '--timeout-ms',
    String(opts.timeoutMs ?? 120_000),
  ];
  if (opts.stopTopic) args.push('--stop-topic', opts.stopTopic);
  if (opts.maxRecords !== undefined) args.push('--max-records', String(opts.maxRecords));
  if (opts.discard) args.push('--discard');
  const child = spawn('java', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const log = createWriteStream(join(dir, 'stderr.log'));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    log.write(d);
    stderr = (stderr + d).slice(-200_000);
  });
  const exited = new Promise<number | null>((res, rej) => {
    child.on('error', (err) => rej(new OracleError(`cannot start java: ${err.message} (install a JDK 17+)`)));
    child.on('exit', (code) => res(code));
  });
  const done = exited.then((code) => {
    const m = /ORACLE-SUMMARY (\{.*\})/.exec(stderr);
    if (code !== 0 || !m) {
      throw new OracleError(
        `Debezium oracle exited with ${code}; stderr (all of it in ${dir}/stderr.log):\n${stderr.slice(-6000)}`,
      );
    }
    const text = existsSync(out) ? readFileSync(out, 'utf8') : '';
    const lines = text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as SinkLine);
    return { lines, summary: JSON.parse(m[1] ?? '{}') as OracleSummary };
  });
  done.catch(() => {});
  return {
    child,
    done,
    stop: () => writeFileSync(stopFile, 'stop\n'),
    linesSoFar: () => readSinkLines(out),
    async ready() {
      let finished = false;
      const watch = done.then(
        () => {
          finished = true;
        },
        () => {
          finished = true;
        },
      );
      while (!existsSync(readyFile)) {
        if (finished) {
          await done;
          throw new OracleError('Debezium oracle stopped before its streaming phase connected');
        }
        await Promise.race([watch, new Promise((r) => setTimeout(r, 50))]);
      }
    },
  };
}
