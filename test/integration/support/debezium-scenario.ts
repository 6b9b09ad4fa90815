/**
 * Runs scenarios through Debezium (the oracle) and through our capture on the same private MariaDB: each scenario
 * gets its own database; every Debezium JVM runs at once (JVM start dominates on 2 cores), ours in-process.
 */
import type { MariaDbServer } from '../../harness/mariadb.js';
import { type CaptureEnv, captureEnv, type SinkLine } from './capture.js';
import { type OracleRun, startOracle } from './debezium-oracle.js';

export interface Scenario {
  name: string;
  /** Connector properties for both sides (handling modes, masks, heartbeats ...). */
  props?: Record<string, string>;
  /** JsonConverter schemas.enable for key and value on both sides. */
  schemas?: boolean;
  /** SQL run before either side starts (the snapshot's content); `$db` is the scenario's database. */
  setup: string[];
  /** SQL run once both sides stream; `$db` is the scenario's database. */
  stream: string[];
}

export interface ScenarioResult {
  scenario: Scenario;
  database: string;
  debezium: SinkLine[];
  ours: SinkLine[];
  /** Our capture stopped with this error (its records up to then are in `ours`). */
  oursError?: string;
}

const SENTINEL = 'zz_sentinel';

function sql(statements: string[], db: string): string[] {
  return statements.map((s) => s.replaceAll('$db', db));
}

/** Cuts a stream before the sentinel row (written last): what follows it depends on when each side stopped. */
function untilSentinel(lines: SinkLine[], db: string, required = true): SinkLine[] {
  const topic = `it.${db}.${SENTINEL}`;
  let i = lines.findIndex((l) => l.topic === topic);
  if (i < 0 && !required) i = lines.length;
  if (i < 0) throw new Error(`the sentinel row of ${db} never arrived (${lines.length} records)`);
  const heartbeat = lines.find(isHeartbeat);
  const cut = lines.slice(0, i).filter((l) => !isSentinelDdl(l) && !isHeartbeat(l));
  return heartbeat ? [...cut, heartbeat] : cut;
}

/**
 * Heartbeats are timer-driven: how many each side emits, and where, is timing. Only the first one of the whole
 * run is compared (each side runs long enough past heartbeat.interval.ms to emit one).
 */
function isHeartbeat(l: SinkLine): boolean {
  return l.topic.startsWith('__debezium-heartbeat');
}

function isSentinelDdl(l: SinkLine): boolean {
  return l.topic === 'it' && JSON.stringify(l.value).includes(SENTINEL);
}

export async function runScenarios(server: MariaDbServer, scenarios: Scenario[]): Promise<ScenarioResult[]> {
  const prepared: Array<{ scenario: Scenario; database: string; oracle: OracleRun; props: Record<string, string> }> =
    [];
  for (const scenario of scenarios) {
    const database = await server.createDatabase(scenario.name.replace(/\W/g, '').slice(0, 12));
    const conn = await server.connect({ multipleStatements: true });
    try {
      await conn.query(`CREATE TABLE ${database}.${SENTINEL} (id INT PRIMARY KEY)`);
      for (const s of sql(scenario.setup, database)) await conn.query(s);
    } finally {
      await conn.end();
    }
    const props: Record<string, string> = {
      'database.include.list': database,
      ...(scenario.schemas ? { 'key.converter.schemas.enable': 'true', 'value.converter.schemas.enable': 'true' } : {}),
      ...Object.fromEntries(Object.entries(scenario.props ?? {}).map(([k, v]) => [k, v.replaceAll('$db', database)])),
    };
    const oracle = startOracle(server, {
      props,
      schemas: scenario.schemas ?? false,
      stopTopic: `it.${database}.${SENTINEL}`,
    });
    prepared.push({ scenario, database, oracle, props });
  }
  try {
    const envs = [];
    const errors = new Map<number, string>();
    const run = async (i: number, env: CaptureEnv) => {
      if (errors.has(i)) return;
      await env.runUntilIdle().catch((err: unknown) => {
        errors.set(i, err instanceof Error ? err.message : String(err));
      });
    };
    for (const [i, p] of prepared.entries()) {
      const env = captureEnv(server, p.database, p.props);
      await run(i, env);
      envs.push(env);
    }
    await Promise.all(prepared.map((p) => p.oracle.ready()));
    for (const p of prepared) {
      const conn = await server.connect({ multipleStatements: true });
      try {
        for (const s of sql(p.scenario.stream, p.database)) await conn.query(s);
        await conn.query(`INSERT INTO ${p.database}.${SENTINEL} VALUES (1)`);
      } finally {
        await conn.end();
      }
    }
    const results: ScenarioResult[] = [];
    for (const [i, p] of prepared.entries()) {
      await run(i, envs[i]!);
      const { lines } = await p.oracle.done;
      const error = errors.get(i);
      results.push({
        scenario: p.scenario,
        database: p.database,
        debezium: untilSentinel(lines, p.database),
        ours: untilSentinel(envs[i]!.lines(), p.database, !error),
        ...(error ? { oursError: error } : {}),
      });
    }
    return results;
  } finally {
    for (const p of prepared) {
      if (p.oracle.child.exitCode === null) p.oracle.child.kill('SIGKILL');
    }
  }
}
