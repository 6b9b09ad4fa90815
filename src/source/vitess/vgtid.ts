/**
 * The VGTID: a Vitess stream position, one GTID per shard of the keyspace (plus, during VStream's copy phase, the
 * last primary key copied per table). Stored as Debezium's Vitess connector stores it in its offsets: a JSON list
 * of `{keyspace, shard, gtid, table_p_ks}` in that key order, with `table_p_ks` entries of
 * `{table_name, lastpk: {fields: [{name, type, charset, flags}], rows: [{lengths: ["n"], values: "<utf8>"}]}}`.
 */
import { CdcError } from '../../common/errors.js';

/** VStream's symbolic start position: "the current GTID of the shard". */
export const CURRENT_GTID = 'current';

export interface LastPkField {
  name: string;
  type: string;
  charset: number;
  flags: number;
}

export interface TableLastPk {
  table_name: string;
  lastpk: { fields: LastPkField[]; rows: { lengths: string[]; values: string }[] } | null;
}

export interface ShardGtid {
  keyspace: string;
  shard: string;
  gtid: string;
  table_p_ks: TableLastPk[];
}

export type Vgtid = ShardGtid[];

export class VgtidError extends CdcError {
  constructor(message: string) {
    super('CONFIG_INVALID', message);
  }
}

/** Debezium's JSON text of a VGTID (key order keyspace, shard, gtid, table_p_ks). */
export function vgtidJson(v: Vgtid): string {
  return JSON.stringify(
    v.map((s) => ({
      keyspace: s.keyspace,
      shard: s.shard,
      gtid: s.gtid,
      table_p_ks: s.table_p_ks.map((t) => ({ table_name: t.table_name, lastpk: t.lastpk })),
    })),
  );
}

/** Parse a stored or configured VGTID (`where` names its origin for the error). */
export function parseVgtid(text: string, where: string): Vgtid {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new VgtidError(`${where} is not JSON: expected a list of {"keyspace","shard","gtid"} objects`);
  }
  if (!Array.isArray(doc) || doc.length === 0)
    throw new VgtidError(`${where} must be a non-empty JSON list of {"keyspace","shard","gtid"} objects`);
  return doc.map((e, i) => {
    const o = e as Record<string, unknown>;
    if (typeof o !== 'object' || o === null || typeof o.keyspace !== 'string' || typeof o.shard !== 'string')
      throw new VgtidError(`${where}: entry ${i} needs string "keyspace" and "shard"`);
    if (typeof o.gtid !== 'string') throw new VgtidError(`${where}: entry ${i} needs a string "gtid"`);
    const pks = o.table_p_ks === undefined || o.table_p_ks === null ? [] : o.table_p_ks;
    if (!Array.isArray(pks)) throw new VgtidError(`${where}: entry ${i} "table_p_ks" must be a list`);
    return { keyspace: o.keyspace, shard: o.shard, gtid: o.gtid, table_p_ks: pks as TableLastPk[] };
  });
}

/** The proto shape (binlogdata.VGtid) as @grpc/proto-loader reads and writes it (keepCase, bytes as Buffer). */
export interface ProtoShardGtid {
  keyspace: string;
  shard: string;
  gtid: string;
  table_p_ks?: ProtoTableLastPk[];
}
export interface ProtoTableLastPk {
  table_name: string;
  lastpk?: ProtoQueryResult | null;
}
export interface ProtoField {
  name: string;
  type: string;
  charset?: number;
  flags?: number;
  column_type?: string;
  column_length?: number;
  decimals?: number;
  table?: string;
  org_name?: string;
  database?: string;
}
export interface ProtoRow {
  lengths: Array<string | number>;
  values: Buffer | Uint8Array;
}
export interface ProtoQueryResult {
  fields?: ProtoField[];
  rows?: ProtoRow[];
}

export function vgtidFromProto(shards: readonly ProtoShardGtid[]): Vgtid {
  return shards.map((s) => ({
    keyspace: s.keyspace,
    shard: s.shard,
    gtid: s.gtid,
    table_p_ks: (s.table_p_ks ?? []).map((t) => ({
      table_name: t.table_name,
      lastpk: t.lastpk
        ? {
            fields: (t.lastpk.fields ?? []).map((f) => ({
              name: f.name,
              type: f.type,
              charset: f.charset ?? 0,
              flags: f.flags ?? 0,
            })),
            rows: (t.lastpk.rows ?? []).map((r) => ({
              lengths: r.lengths.map(String),
              values: Buffer.from(r.values).toString('utf8'),
            })),
          }
        : null,
    })),
  }));
}

export function vgtidToProto(v: Vgtid): ProtoShardGtid[] {
  return v.map((s) => ({
    keyspace: s.keyspace,
    shard: s.shard,
    gtid: s.gtid,
    table_p_ks: s.table_p_ks.map((t) => ({
      table_name: t.table_name,
      lastpk: t.lastpk
        ? {
            fields: t.lastpk.fields.map((f) => ({ ...f })),
            rows: t.lastpk.rows.map((r) => ({ lengths: r.lengths, values: Buffer.from(r.values, 'utf8') })),
          }
        : null,
    })),
  }));
}

/** True while some shard still has a copy phase to run or finish (empty GTID or table last-PKs). */
export function inCopyPhase(v: Vgtid): boolean {
  return v.some((s) => s.gtid === '' || s.table_p_ks.length > 0);
}
