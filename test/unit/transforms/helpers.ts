/** Debezium-shaped records for transform tests (MySQL connector, inventory.customers as in Debezium's docs). */
import {
  buildChain,
  parseTransformsConfig,
  type TransformChain,
  type TransformRecord,
} from '../../../src/transforms/index.js';
import type { Json } from '../../../src/transforms/json.js';

export const SOURCE = {
  version: '3.0.0.Final',
  connector: 'mysql',
  name: 'dbserver1',
  ts_ms: 1559033904000,
  snapshot: 'false',
  db: 'inventory',
  sequence: null,
  ts_us: 1559033904000000,
  ts_ns: 1559033904000000000n,
  table: 'customers',
  server_id: 223344,
  gtid: null,
  file: 'mysql-bin.000003',
  pos: 484,
  row: 0,
  thread: 36,
  query: null,
};

export const ANNE = { id: 1004, first_name: 'Anne', last_name: 'Kretchmar', email: 'annek@noanswer.org' };

export function change(
  op: 'c' | 'u' | 'd' | 'r' | 't',
  before: Record<string, Json> | null,
  after: Record<string, Json> | null,
  extra: Partial<TransformRecord> = {},
): TransformRecord {
  const row = after ?? before;
  return {
    topic: 'dbserver1.inventory.customers',
    key: op === 't' ? null : { id: (row?.id as number) ?? 0 },
    value: {
      before,
      after,
      source: { ...SOURCE },
      transaction: null,
      op,
      ts_ms: 1559033904863,
      ts_us: 1559033904863123,
      ts_ns: 1559033904863123000n,
    },
    headers: {},
    table: 'inventory.customers',
    ...extra,
  };
}

export function tombstone(id = 1004): TransformRecord {
  return {
    topic: 'dbserver1.inventory.customers',
    key: { id },
    value: null,
    headers: {},
    table: 'inventory.customers',
  };
}

/** A schema change event (DDL), as the MySQL connector writes it to `<prefix>`. */
export function schemaChange(): TransformRecord {
  return {
    topic: 'dbserver1',
    key: { databaseName: 'inventory' },
    value: {
      source: { ...SOURCE, table: null },
      ts_ms: 1559033904863,
      databaseName: 'inventory',
      schemaName: null,
      ddl: 'ALTER TABLE customers ADD COLUMN middle_name VARCHAR(2000)',
      tableChanges: [],
    },
    headers: {},
  };
}

export function heartbeat(): TransformRecord {
  return {
    topic: '__debezium-heartbeat.dbserver1',
    key: { serverName: 'dbserver1' },
    value: { ts_ms: 1559033904863 },
    headers: {},
  };
}

/** A chain from `transforms.*` properties. */
export function chain(props: Record<string, string>): TransformChain {
  return buildChain(parseTransformsConfig(props));
}

/** Apply a one-transform chain of `type` with options. */
export function run(type: string, options: Record<string, string>, record: TransformRecord): TransformRecord[] {
  const props: Record<string, string> = { transforms: 't', 'transforms.t.type': type };
  for (const [k, v] of Object.entries(options)) props[`transforms.t.${k}`] = v;
  return chain(props).apply(record);
}

/** Test literals (e.g. Connect schemas with optional members) as parsed JSON. */
export function asJson(v: unknown): Json {
  return v as Json;
}
