/**
 * The parsed record form transforms work on, and conversions from/to the engine's SinkRecord (JSON text) and the
 * file sink's NDJSON line. A chain parses once at its entry and serialises once at its exit.
 *
 * Values wrapped by `value.converter.schemas.enable` (`{"schema":..,"payload":..}`) are split: transforms see the
 * payload in `value` and the Connect schema in `valueSchema`; the wrapper is restored on the way out (transforms that
 * reshape the value adjust or drop the schema, see each transform).
 */
import { recordLine } from '../model/record-line.js';
import { recordSize, type SinkRecord } from '../model/sink-record.js';
import { type Json, parseJson, stringifyJson } from './json.js';

export interface TransformRecord {
  topic: string;
  /** Key payload, or null for keyless tables and some non-table records. */
  key: Json | null;
  /** Value payload; null is a tombstone. */
  value: Json | null;
  /** Header values, parsed. */
  headers: Record<string, Json>;
  /** Record timestamp (epoch ms) when the source knows one, e.g. Kinesis' approximate arrival time. */
  timestamp?: number;
  /** `db.table` of the source table (kept for stream routing), when known. */
  table?: string;
  /** Connect schema of the key when keys are schema-wrapped; undefined when they are not. */
  keySchema?: Json;
  /** Connect schema of the value when values are schema-wrapped; undefined when they are not. */
  valueSchema?: Json;
}

/** 0 records: dropped; 1: kept or changed; several: split. Must not mutate its input. */
export type Transform = (record: TransformRecord) => TransformRecord[];

export type JsonObject = { [k: string]: Json };

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Split a `{schema, payload}` wrapper; anything else is a bare payload. */
export function unwrapSchema(v: Json | null): { payload: Json | null; schema?: Json } {
  if (isObject(v) && 'payload' in v && 'schema' in v && Object.keys(v).length === 2) {
    return { payload: v.payload ?? null, schema: v.schema ?? null };
  }
  return { payload: v };
}

function wrapSchema(payload: Json | null, schema: Json | undefined): Json | null {
  return schema === undefined ? payload : { schema, payload };
}

/** Parse a SinkRecord's JSON text (throws JsonParseError on malformed text). */
export function fromSinkRecord(r: SinkRecord): TransformRecord {
  const key = unwrapSchema(r.key === null ? null : parseJson(r.key));
  const value = unwrapSchema(r.value === null ? null : parseJson(r.value));
  const headers: Record<string, Json> = {};
  if (r.headers) for (const [k, v] of Object.entries(r.headers)) headers[k] = parseJson(v);
  const out: TransformRecord = { topic: r.topic, key: key.payload, value: value.payload, headers };
  if (r.table !== undefined) out.table = r.table;
  if (key.schema !== undefined) out.keySchema = key.schema;
  // A tombstone has no schema to keep.
  if (value.schema !== undefined) out.valueSchema = value.schema;
  return out;
}

/** Serialise back to a SinkRecord (headers are omitted when empty). */
export function toSinkRecord(r: TransformRecord): SinkRecord {
  const key = r.key === null && r.keySchema === undefined ? null : stringifyJson(wrapSchema(r.key, r.keySchema));
  const value = r.value === null ? null : stringifyJson(wrapSchema(r.value, r.valueSchema));
  let headers: Record<string, string> | undefined;
  for (const [k, v] of Object.entries(r.headers)) {
    headers ??= {};
    headers[k] = stringifyJson(v);
  }
  const out: SinkRecord = { topic: r.topic, key, value, sizeBytes: recordSize(key, value, headers) };
  if (headers) out.headers = headers;
  if (r.table !== undefined) out.table = r.table;
  return out;
}

export class RecordLineError extends Error {
  override name = 'RecordLineError';
}

/** Parse one NDJSON line of the file sink (`{"topic","key","value","headers"}`). */
export function fromRecordLine(line: string): TransformRecord {
  const v = parseJson(line);
  if (!isObject(v) || typeof v.topic !== 'string')
    throw new RecordLineError('not a record line: expected an object with a string "topic"');
  const headers: Record<string, Json> = {};
  if (v.headers !== undefined && v.headers !== null) {
    if (!isObject(v.headers)) throw new RecordLineError('"headers" must be an object');
    Object.assign(headers, v.headers);
  }
  const key = unwrapSchema(v.key ?? null);
  const value = unwrapSchema(v.value ?? null);
  const out: TransformRecord = { topic: v.topic, key: key.payload, value: value.payload, headers };
  if (key.schema !== undefined) out.keySchema = key.schema;
  if (value.schema !== undefined) out.valueSchema = value.schema;
  return out;
}

/** The NDJSON line for a record, with its trailing newline (same form the file sink writes). */
export function toRecordLine(r: TransformRecord): string {
  return recordLine(toSinkRecord(r));
}

/** A shallow copy with new fields; headers are copied so callers can add to them. */
export function withChanges(r: TransformRecord, changes: Partial<TransformRecord>): TransformRecord {
  return { ...r, headers: { ...r.headers }, ...changes };
}

/** Debezium data-change envelope fields, when `value` is one (has `op` and `source`). */
export interface Envelope extends JsonObject {
  op: string;
  source: JsonObject;
}

export function asEnvelope(value: Json | null): Envelope | null {
  if (!isObject(value) || typeof value.op !== 'string' || !isObject(value.source)) return null;
  if (!('before' in value) && !('after' in value)) return null;
  return value as Envelope;
}
