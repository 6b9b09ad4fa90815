/**
 * Change event keys: the primary key columns (or the message.key.columns override) as a struct, converted
 * like value fields but without column mappers (Debezium never masks keys). Keyless tables have a null key.
 */
import { CdcError } from '../common/errors.js';
import type { ColumnDef, TableDef } from '../model/table-def.js';
import type { Row } from '../model/values.js';
import { anchored } from './column-filters.js';
import type { ConnectSchema } from './connect-schema.js';
import { createFieldConverter } from './converters.js';
import type { ResolvedOptions } from './options.js';
import { compileRowWriter } from './row-writer.js';

/**
 * Parse message.key.columns: `<table regex>:<col>,<col>;<table regex>:<col>` where the table part matches
 * `db.table` (e.g. `inventory.customers:email;(.*).orders:id,region`).
 */
export function parseMessageKeyColumns(text: string): Array<{ table: RegExp; columns: string[] }> {
  const out: Array<{ table: RegExp; columns: string[] }> = [];
  for (const entry of text.split(';')) {
    const e = entry.trim();
    if (e.length === 0) continue;
    const colon = e.lastIndexOf(':');
    if (colon <= 0) throw new CdcError('CONFIG_INVALID', `message.key.columns entry without ':' : ${e}`);
    const columns = e
      .slice(colon + 1)
      .split(',')
      .map((c) => c.trim())
      .filter((c) => c.length > 0);
    if (columns.length === 0) throw new CdcError('CONFIG_INVALID', `message.key.columns entry without columns: ${e}`);
    out.push({ table: new RegExp(e.slice(0, colon).trim(), 'i'), columns });
  }
  return out;
}

/** Key columns for a table: the first message.key.columns rule matching `db.table`, else the primary key. */
export function keyColumns(table: TableDef, opts: ResolvedOptions): ColumnDef[] {
  const id = `${table.database}.${table.name}`;
  let names = table.primaryKey;
  for (const rule of opts.messageKeyColumns ?? []) {
    if (anchored(rule.table).test(id)) {
      names = rule.columns;
      break;
    }
  }
  return names.map((n) => {
    const c = table.columns.find((col) => col.name.toLowerCase() === n.toLowerCase());
    if (!c) throw new CdcError('CONFIG_INVALID', `Key column ${n} not found in table ${id}`);
    return c;
  });
}

/** A compiled key encoder: payload JSON text for a row, and the key's Connect schema. */
export interface KeyEncoder {
  schema: ConnectSchema;
  /** JSON text of the key struct (payload only). */
  encode(row: Row): string;
  /** Row positions of the key columns: equal cells there give equal keys. */
  positions: readonly number[];
}

export function createKeyEncoder(table: TableDef, schemaName: string, opts: ResolvedOptions): KeyEncoder | null {
  const cols = keyColumns(table, opts);
  if (cols.length === 0) return null;
  const converters = cols.map((c) => createFieldConverter(c, opts));
  const prefixes = cols.map((c, i) => `${i === 0 ? '{' : ','}${JSON.stringify(c.name)}:`);
  const positions = cols.map((c) => c.position);
  const writer = compileRowWriter(prefixes, converters, positions);
  return {
    schema: {
      type: 'struct',
      fields: cols.map((c, i) => ({ field: c.name, schema: converters[i].schema })),
      optional: false,
      name: schemaName,
    },
    positions,
    encode: (row) => writer.row(row),
  };
}
