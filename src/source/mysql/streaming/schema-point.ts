/**
 * Reading the schema from the server without a snapshot (snapshot.mode=never on a first start, or schema history
 * lost) so that it and the stream's start position describe the same point of the binlog. The schema is read
 * between two position reads, without locks (works for a user without RELOAD or LOCK TABLES, as on Aurora/RDS):
 * when the binlog between the two holds no statement that may change a schema, the schema is that of the first
 * position and the stream starts there; otherwise a DDL committed during the read, which the schema may or may not
 * show, so the read is repeated, a bounded number of times.
 */
import type { Connection as CallbackConnection } from 'mysql2';
import { CdcError } from '../../../common/errors.js';
import type { Logger } from '../../../common/logger.js';
import { BinlogPosition, type PositionLike } from '../../../model/binlog-position.js';
import type { SourceOffset } from '../../../model/source-offset.js';
import { BinlogDecoder } from '../binlog/decoder.js';
import { EventType } from '../binlog/event-types.js';
import { BinlogReplicationClient } from '../binlog/replication/index.js';
import type { DdlStatement, QualifiedName } from '../schema/ddl-ast.js';
import { parseDdl } from '../schema/ddl-parser.js';
import type { TableFilter } from '../table-filter.js';
import { DML, TXN_CONTROL } from './binlog-streamer.js';

/** How often the schema is read again when DDL kept landing while it was read. */
export const SCHEMA_POINT_ATTEMPTS = 5;
/** A window read that does not reach its end within this long fails (the binlog between two reads is short). */
const WINDOW_READ_TIMEOUT_MS = 60_000;

/** The schema kept changing while it was read from the server. */
export class SchemaPointError extends CdcError {
  constructor(message: string) {
    // Retriable: a burst of DDL ends; the capture task restarts the source with its retry policy.
    super('SCHEMA_INCONSISTENT', message, { retriable: true });
  }
}

/**
 * True for a QUERY event's statement that may change the schema of a captured table (the schema is read for those
 * only): not transaction control or DML; with a table filter, neither a statement the schema model ignores (users,
 * grants, views, routines...) nor a table statement naming only uncaptured tables (names checked as written and
 * case-folded). Anything the parser cannot read, and database-level statements, count as a change.
 */
export function mayChangeSchema(sql: string, database?: string, filter?: TableFilter): boolean {
  if (TXN_CONTROL.test(sql) || DML.test(sql)) return false;
  if (!filter) return true;
  let statement: DdlStatement;
  try {
    statement = parseDdl(sql);
  } catch {
    return true;
  }
  const names = tableNames(statement);
  if (names === 'none') return false;
  if (names === 'unknown') return true;
  return names.some(({ database: db, name }) => {
    const d = db ?? database ?? '';
    return filter(d, name) || filter(d.toLowerCase(), name.toLowerCase());
  });
}

/** The tables a statement changes: 'none' when it changes no table schema, 'unknown' when it may change any. */
function tableNames(statement: DdlStatement): QualifiedName[] | 'none' | 'unknown' {
  switch (statement.kind) {
    case 'CREATE_TABLE':
    case 'CREATE_TABLE_LIKE':
    case 'ALTER_TABLE':
    case 'CREATE_INDEX':
    case 'DROP_INDEX':
      return [statement.table];
    case 'DROP_TABLE':
      return statement.tables;
    case 'RENAME_TABLE':
      return statement.pairs.flatMap((p) => [p.from, p.to]);
    case 'TRUNCATE_TABLE':
    case 'USE':
    case 'IGNORED':
      return 'none';
    default:
      return 'unknown';
  }
}

export interface SchemaPointSteps<S> {
  /** The server's current binlog position. */
  position(): Promise<SourceOffset>;
  /** Reads the schema. */
  load(): Promise<S>;
  /** True when the binlog from `from` up to `to` may hold a schema change. */
  windowChangesSchema(from: PositionLike, to: PositionLike): Promise<boolean>;
  attempts?: number;
  logger: Logger;
}

/**
 * Reads `position`, the schema, `position` again; returns the schema with the first position when nothing between
 * the two positions may have changed a schema.
 */
export async function loadSchemaAtOnePoint<S>(
  steps: SchemaPointSteps<S>,
): Promise<{ schema: S; position: SourceOffset }> {
  const attempts = steps.attempts ?? SCHEMA_POINT_ATTEMPTS;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const before = await steps.position();
    const schema = await steps.load();
    const after = await steps.position();
    if (BinlogPosition.compare(before, after) === 0) return { schema, position: before };
    if (!(await steps.windowChangesSchema(before, after))) return { schema, position: before };
    steps.logger.warn('a schema change was committed while the schema was read: reading it again', {
      from: `${before.file}:${before.pos}`,
      to: `${after.file}:${after.pos}`,
      attempt,
    });
  }
  throw new SchemaPointError(
    `the schema changed while it was read from the server, ${attempts} times in a row, so no binlog position is known at which it holds. Retry when no DDL runs on the captured databases, or take a snapshot (snapshot.mode=initial or no_data), which reads the schema under a consistent lock`,
  );
}

export interface BinlogWindowOptions {
  /** A fresh connection for the replication client (mysql2's callback connection). */
  connection(): Promise<CallbackConnection>;
  serverId: number;
  logger: Logger;
  /** The capture's table filter: DDL on other tables cannot change the schema read (see mayChangeSchema). */
  tableFilter?: TableFilter;
}

/** A statement in a binlog window that may change a captured table's schema. */
export interface SchemaChangeAt {
  /** `file:pos` of its event. */
  at: string;
  /** The tables it names (`db.table`), or null when it may change any (unparseable, database-level). */
  tables: string[] | null;
}

/** Reads the binlog from `from` up to `to` and says whether a QUERY event there may change a schema. */
export async function binlogWindowChangesSchema(
  options: BinlogWindowOptions,
  from: PositionLike,
  to: PositionLike,
): Promise<boolean> {
  return (await binlogWindowSchemaChanges(options, from, to, { first: true })).length > 0;
}

/**
 * The statements between `from` and `to` that may change a captured table's schema (mayChangeSchema): all of
 * them, or with `first` only the first found. A window not read to its end within `timeoutMs` fails.
 */
export async function binlogWindowSchemaChanges(
  options: BinlogWindowOptions,
  from: PositionLike,
  to: PositionLike,
  { first = false, timeoutMs = WINDOW_READ_TIMEOUT_MS }: { first?: boolean; timeoutMs?: number } = {},
): Promise<SchemaChangeAt[]> {
  const end = BinlogPosition.of(to.file, to.pos);
  const reached = (file: string, pos: number) => BinlogPosition.of(file, pos).compareTo(end) >= 0;
  const client = new BinlogReplicationClient({
    connection: options.connection,
    serverId: options.serverId,
    start: { file: from.file, pos: from.pos },
    requestAnnotateRows: false,
    logger: options.logger,
  });
  const decoder = new BinlogDecoder();
  const timer = setTimeout(() => void client.stop(), timeoutMs);
  const found: SchemaChangeAt[] = [];
  let done = false;
  try {
    await client.start();
    decoder.setChecksum(client.session?.checksumAlgorithm === 'CRC32' ? 'CRC32' : 'NONE');
    for await (const ev of client) {
      if (!ev.artificial && reached(ev.file, ev.position)) {
        done = true;
        break;
      }
      const type = ev.typeCode;
      if (type === EventType.FORMAT_DESCRIPTION) decoder.decode(ev.raw, ev.position);
      else if (!ev.artificial && (type === EventType.QUERY || type === EventType.MARIADB_QUERY_COMPRESSED)) {
        const event = decoder.decode(ev.raw, ev.position);
        if (event.type === 'QUERY' && mayChangeSchema(event.query, event.database, options.tableFilter)) {
          found.push({ at: `${ev.file}:${ev.position}`, tables: namedTables(event.query, event.database) });
          if (first) return found;
        }
      }
      if (!ev.artificial && ev.nextPosition > 0 && reached(ev.file, ev.nextPosition)) {
        done = true;
        break;
      }
    }
  } finally {
    clearTimeout(timer);
    await client.stop().catch(() => {});
  }
  if (!done) {
    throw new SchemaPointError(
      `could not read the binlog from ${from.file}:${from.pos} to ${to.file}:${to.pos} within ${timeoutMs / 1000} s to check it for schema changes`,
    );
  }
  return found;
}

/** The tables a schema statement names, qualified with the event's database; null when it cannot tell. */
function namedTables(sql: string, database: string | undefined): string[] | null {
  let names: ReturnType<typeof tableNames>;
  try {
    names = tableNames(parseDdl(sql));
  } catch {
    return null;
  }
  if (names === 'none' || names === 'unknown') return null;
  return [...new Set(names.map((n) => `${n.database ?? database ?? ''}.${n.name}`))];
}

/** Reading the binlog from a stored offset to now can be long (the time the connector was stopped). */
const RECOVERY_WINDOW_TIMEOUT_MS = 30 * 60_000;

/** snapshot.mode=recovery cannot record today's schema at the stored offset: captured tables changed since. */
export class SchemaRecoveryError extends CdcError {
  constructor(message: string) {
    super('SCHEMA_INCONSISTENT', message);
  }
}

/**
 * snapshot.mode=recovery records the schema read now at the stored offset `from` (Debezium's recovery keeps the
 * offset), which is right only if no captured table's schema changed between `from` and `to` (now). Debezium only
 * warns against it in its docs and decodes the older rows with today's columns; this reads the window and fails
 * with the tables changed and the way out.
 */
export async function checkRecoveryWindow(
  options: BinlogWindowOptions,
  from: PositionLike & { server_identity?: string },
  to: PositionLike,
  serverKey: string,
): Promise<'checked' | 'other-server'> {
  // An offset another server wrote (a failover, resumed by GTID): its file/position mean nothing here.
  if (from.server_identity !== undefined && from.server_identity !== serverKey) return 'other-server';
  if (BinlogPosition.compare(from, to) >= 0) return 'checked';
  const changes = await binlogWindowSchemaChanges(options, from, to, { timeoutMs: RECOVERY_WINDOW_TIMEOUT_MS });
  if (changes.length === 0) return 'checked';
  const named = [...new Set(changes.flatMap((c) => c.tables ?? []))];
  const unnamed = changes.filter((c) => c.tables === null).map((c) => c.at);
  const what = [
    ...(named.length > 0 ? [`DDL on ${named.join(', ')}`] : []),
    ...(unnamed.length > 0 ? [`statements that may change any table (at ${unnamed.slice(0, 5).join(', ')})`] : []),
  ].join(' and ');
  throw new SchemaRecoveryError(
    `snapshot.mode=recovery records today's schema at the stored offset ${from.file}:${from.pos}, but the binlog since then holds ${what} (first at ${changes[0]?.at}), so rows written before those changes would be decoded with today's columns. Restore the schema history (schema.history.internal.*) from a backup and start with snapshot.mode=initial; or take a new snapshot: remove the stored offset (offset.storage.*) and start with snapshot.mode=initial (rows and schema) or no_data (schema only; changes made since the stored offset are not captured)`,
  );
}
