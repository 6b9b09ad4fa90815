/**
 * `cdc binlog-dump <file|dir> [--start-position N] [--format ndjson]`: decodes binlog files offline and prints
 * one JSON line per event. Exit 0 on success, 1 on a decode/IO error (after printing what decoded), 2 on usage.
 */
import { stat } from 'node:fs/promises';
import { CdcError, errorMessage } from '../../common/errors.js';
import { redactSqlSecrets } from '../../common/redact-sql.js';
import {
  type CellValue,
  MysqlDate,
  MysqlDateTime,
  MysqlJson,
  MysqlJsonPartial,
  MysqlTime,
  MysqlTimestamp,
  type Row,
} from '../../model/values.js';
import type { BinlogEvent, ColumnInfo, TableMapEvent } from '../../source/mysql/binlog/events.js';
import { type BinlogFileEntry, readBinlogDirectory, readBinlogFile } from '../../source/mysql/binlog/file-reader.js';
import { ColumnType } from '../../source/mysql/column-type.js';

export const BINLOG_DUMP_HELP = `usage: cdc binlog-dump <file|dir> [--start-position N] [--format ndjson]

Decode MySQL/MariaDB binlog files offline and print one JSON line per event:
  {"type","position","nextPosition","timestamp","serverId", ...}
Row events add "table" ("db.tbl") and "rows" (updates: {"before":{...},"after":{...}}); columns are named from
TABLE_MAP metadata (binlog_row_metadata=FULL) or @1, @2, ... Values: bigints and decimals as strings, bytes as
base64, temporals as text, ENUM/SET as names when the TABLE_MAP lists them.

  <file|dir>            a binlog file, or a directory (read in .index order, else sorted names)
  --start-position N    first event to print (byte offset in the first file; default 4)
  --format ndjson       output format (only ndjson)
  -h, --help            this text

Exit codes: 0 ok, 1 corrupt/truncated/unreadable binlog (position and reason on stderr), 2 bad arguments.
`;

interface Io {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

export async function binlogDumpCommand(argv: string[], io: Io): Promise<number> {
  let path: string | undefined;
  let startPosition: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '-h' || a === '--help') {
      io.stdout.write(BINLOG_DUMP_HELP);
      return 0;
    }
    const [flag, inline] =
      a.startsWith('--') && a.includes('=')
        ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]
        : [a, undefined];
    if (flag === '--start-position') {
      const v = inline ?? argv[++i];
      if (v === undefined || !/^\d+$/.test(v) || Number(v) < 4) {
        io.stderr.write(`binlog-dump: --start-position needs an integer >= 4, got ${v ?? 'nothing'}\n`);
        return 2;
      }
      startPosition = Number(v);
    } else if (flag === '--format') {
      const v = inline ?? argv[++i];
      if (v !== 'ndjson') {
        io.stderr.write(`binlog-dump: unsupported --format ${v ?? '(missing)'}; only ndjson is available\n`);
        return 2;
      }
    } else if (a.startsWith('-')) {
      io.stderr.write(`binlog-dump: unknown option ${a}\n${BINLOG_DUMP_HELP}`);
      return 2;
    } else if (path === undefined) path = a;
    else {
      io.stderr.write(`binlog-dump: only one <file|dir> may be given (got ${path} and ${a})\n`);
      return 2;
    }
  }
  if (path === undefined) {
    io.stderr.write(`binlog-dump: missing <file|dir>\n${BINLOG_DUMP_HELP}`);
    return 2;
  }
  try {
    const isDir = (await stat(path)).isDirectory();
    const entries = isDir ? readBinlogDirectory(path, { startPosition }) : readBinlogFile(path, { startPosition });
    for await (const entry of entries) {
      const line = `${JSON.stringify(eventToJson(entry))}\n`;
      if (!io.stdout.write(line)) await new Promise<void>((resolve) => io.stdout.once('drain', () => resolve()));
    }
    return 0;
  } catch (err) {
    const prefix = err instanceof CdcError ? `${err.code}: ` : '';
    io.stderr.write(`binlog-dump: ${prefix}${errorMessage(err)}\n`);
    return 1;
  }
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** The JSON line for one decoded event. */
export function eventToJson(entry: BinlogFileEntry): Record<string, Json> {
  const out: Record<string, Json> = entry.file === undefined ? {} : { file: entry.file };
  Object.assign(out, eventFields(entry.event, entry.position));
  return out;
}

function eventFields(ev: BinlogEvent, position: number): Record<string, Json> {
  const h = ev.header;
  const out: Record<string, Json> = {
    type: ev.type,
    position,
    nextPosition: h.nextPosition,
    timestamp: h.timestamp,
    serverId: h.serverId,
  };
  switch (ev.type) {
    case 'WRITE_ROWS':
    case 'DELETE_ROWS':
      out.table = `${ev.table.database}.${ev.table.table}`;
      out.rows = ev.rows.map((r) => rowToJson(ev.table, r));
      return out;
    case 'UPDATE_ROWS':
    case 'PARTIAL_UPDATE_ROWS':
      out.table = `${ev.table.database}.${ev.table.table}`;
      out.rows = ev.rows.map((r) => ({ before: rowToJson(ev.table, r.before), after: rowToJson(ev.table, r.after) }));
      return out;
    case 'TABLE_MAP':
      out.table = `${ev.database}.${ev.table}`;
      out.tableId = ev.tableId;
      out.columns = ev.columns.map((c) => columnToJson(c));
      if (ev.primaryKey) out.primaryKey = ev.primaryKey.map((k) => columnName(ev.columns[k.column]));
      return out;
    case 'TRANSACTION_PAYLOAD':
      out.compression = ev.compression;
      out.uncompressedSize = ev.uncompressedSize;
      out.events = ev.events.map((inner) => eventFields(inner, position));
      return out;
    case 'FORMAT_DESCRIPTION':
      out.serverVersion = ev.serverVersion;
      out.binlogVersion = ev.binlogVersion;
      out.checksum = ev.checksum;
      return out;
    case 'ROTATE':
      out.nextFile = ev.nextFile;
      out.nextFilePosition = ev.position;
      return out;
    default: {
      const { type: _t, header: _h, ...rest } = ev;
      for (const [k, v] of Object.entries(rest)) out[k] = plain(v);
      // QUERY, ROWS_QUERY and MariaDB ANNOTATE_ROWS carry statement text: no passwords in what we print.
      if (typeof out.query === 'string') out.query = redactSqlSecrets(out.query);
      return out;
    }
  }
}

function columnName(c: ColumnInfo | undefined): string {
  return c === undefined ? '?' : (c.name ?? `@${c.index + 1}`);
}

function columnToJson(c: ColumnInfo): Record<string, Json> {
  const o: Record<string, Json> = { name: columnName(c), type: c.realType };
  if (c.unsigned) o.unsigned = true;
  if (c.charset) o.charset = c.charset;
  if (c.visible === false) o.visible = false;
  return o;
}

function rowToJson(table: TableMapEvent, row: Row): Record<string, Json> {
  const o: Record<string, Json> = {};
  for (let i = 0; i < row.length; i++) {
    const v = row[i];
    if (v === undefined) continue; // absent from a partial image
    const col = table.columns[i];
    o[columnName(col)] = valueToJson(v, col);
  }
  return o;
}

/** JSON-safe rendering of one column value; ENUM/SET become names when the TABLE_MAP lists them. */
export function valueToJson(v: CellValue, col?: ColumnInfo): Json {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') {
    if (col?.realType === ColumnType.ENUM && col.enumValues) return v === 0 ? '' : (col.enumValues[v - 1] ?? v);
    return Number.isFinite(v) ? v : String(v);
  }
  if (typeof v === 'bigint') {
    if (col?.realType === ColumnType.SET && col.setValues) {
      const names: string[] = [];
      col.setValues.forEach((name, i) => {
        if ((v >> BigInt(i)) & 1n) names.push(name);
      });
      return names.join(',');
    }
    return v.toString();
  }
  if (typeof v === 'string') return v;
  if (Buffer.isBuffer(v)) return v.toString('base64');
  if (v instanceof Float32Array) return Array.from(v);
  if (v instanceof MysqlJson) return v.text;
  if (v instanceof MysqlJsonPartial) {
    return v.diffs.map((d): Json => {
      const diff: Record<string, Json> = { op: d.op, path: d.path };
      if (d.value !== undefined) diff.value = d.value.text;
      return diff;
    });
  }
  if (v instanceof MysqlDate || v instanceof MysqlDateTime || v instanceof MysqlTime || v instanceof MysqlTimestamp) {
    return v.toString();
  }
  return String(v);
}

/** Generic JSON-safe conversion for event fields. */
function plain(v: unknown): Json {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') return v;
  if (Buffer.isBuffer(v)) return v.toString('base64');
  if (Array.isArray(v)) return v.map(plain);
  if (typeof v === 'object') {
    const o: Record<string, Json> = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) o[k] = plain(x);
    return o;
  }
  return String(v);
}
