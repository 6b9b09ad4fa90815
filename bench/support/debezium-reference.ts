/**
 * Debezium's embedded engine (test/oracle, built by scripts/build-oracle.sh) as a benchmark reference: the same
 * server, workload and run as our figures, records converted by Kafka Connect's JsonConverter and then dropped
 * (the no-op consumer). Rates are taken from the first to the last record, so the JVM start and the connector's
 * schema phase are not counted against it; CPU is the JVM's process CPU over the same span.
 */
import type { MariaDbServer } from '../../test/harness/mariadb.js';
import { buildOracle, startOracle } from '../../test/integration/support/debezium-oracle.js';

export interface DebeziumFigures {
  rows: number;
  rowsPerS: number;
  rowsPerCpuS: number;
  peakRssMb: number;
}

export const DEBEZIUM_REF = 'Debezium 3.5.0.Final embedded (MariaDB connector, JsonConverter, no-op consumer)';

async function measure(server: MariaDbServer, props: Record<string, string>, rows: number): Promise<DebeziumFigures> {
  buildOracle();
  const run = startOracle(server, {
    props: { 'include.schema.changes': 'false', 'tombstones.on.delete': 'false', ...props },
    maxRecords: rows,
    discard: true,
    timeoutMs: 1_800_000,
  });
  const { summary } = await run.done;
  if (summary.records < rows) throw new Error(`Debezium delivered ${summary.records} of ${rows} records`);
  const spanS = Math.max(1e-3, ((summary.lastMs ?? 0) - (summary.firstMs ?? 0)) / 1000);
  const cpuS = Math.max(1e-3, ((summary.lastCpuMs ?? 0) - (summary.firstCpuMs ?? 0)) / 1000);
  return {
    rows: summary.records,
    rowsPerS: Math.round(summary.records / spanS),
    rowsPerCpuS: Math.round(summary.records / cpuS),
    peakRssMb: Math.round(summary.peakRssKb / 1024),
  };
}

/** Debezium's initial snapshot of `tables` (`db.table`), data only, stopped after the last row. */
export function debeziumSnapshot(server: MariaDbServer, tables: string[], rows: number): Promise<DebeziumFigures> {
  const dbs = [...new Set(tables.map((t) => t.split('.')[0] ?? ''))];
  return measure(
    server,
    {
      'snapshot.mode': 'initial_only',
      'database.include.list': dbs.join(','),
      'table.include.list': tables.join(','),
    },
    rows,
  );
}

/**
 * Debezium streaming `rows` row changes of one table: snapshot.mode=never reads the binlog from its first file,
 * so the server must hold nothing else for that table (a fresh bench server).
 */
export function debeziumStreaming(server: MariaDbServer, table: string, rows: number): Promise<DebeziumFigures> {
  return measure(
    server,
    {
      'snapshot.mode': 'never',
      'database.include.list': table.split('.')[0] ?? '',
      'table.include.list': table,
    },
    rows,
  );
}
