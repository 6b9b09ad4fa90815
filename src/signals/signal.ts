/**
 * Debezium's signals: `{id, type, data}` records from any channel (the signalling table, a file, a Kinesis
 * stream). `execute-snapshot` starts an ad-hoc snapshot; `pause-snapshot`, `resume-snapshot` and `stop-snapshot`
 * act on the running incremental one; other types are logged and ignored.
 */

/** One signal as a channel delivers it; `data` is the JSON text of the signal's data (or null). */
export interface SignalRecord {
  readonly id: string;
  readonly type: string;
  readonly data: string | null;
  /** The channel it came from (`source`, `file`, `kinesis`), for logs. */
  readonly channel: string;
}

/** Debezium's ad-hoc snapshot kinds: chunked beside the stream (incremental) or with the stream paused (blocking). */
export type AdHocSnapshotKind = 'incremental' | 'blocking';

export interface SnapshotRequest {
  readonly kind: AdHocSnapshotKind;
  /** `db.table` ids. */
  readonly tables: readonly string[];
}

/** What pause-/resume-/stop-snapshot ask of the running incremental snapshot (`tables` null: all of it). */
export type SnapshotControl =
  | { readonly kind: 'pause' }
  | { readonly kind: 'resume' }
  | { readonly kind: 'stop'; readonly tables: readonly string[] | null };

export type ParsedSignal =
  | { readonly action: 'snapshot'; readonly request: SnapshotRequest }
  | { readonly action: 'control'; readonly control: SnapshotControl }
  | { readonly action: 'ignore'; readonly reason: string };

const CONTROLS: Readonly<Record<string, SnapshotControl['kind']>> = {
  'pause-snapshot': 'pause',
  'resume-snapshot': 'resume',
  'stop-snapshot': 'stop',
};

/** Interprets a signal; never throws (a bad signal must not stop the capture). */
export function parseSignal(s: SignalRecord): ParsedSignal {
  const control = CONTROLS[s.type];
  if (s.type !== 'execute-snapshot' && !control)
    return { action: 'ignore', reason: `signal type '${s.type}' is not supported` };
  let data: { 'data-collections'?: unknown; type?: unknown };
  try {
    data = JSON.parse(s.data || '{}') as typeof data;
  } catch (err) {
    return { action: 'ignore', reason: `${s.type} data is not JSON (${(err as Error).message})` };
  }
  if (typeof data !== 'object' || data === null) return { action: 'ignore', reason: `${s.type} data is not an object` };
  const kind = typeof data.type === 'string' ? data.type.toLowerCase() : 'incremental';
  if (control) {
    // As in Debezium: only an incremental snapshot can be paused, resumed or stopped.
    if (kind !== 'incremental')
      return { action: 'ignore', reason: `${s.type} of type '${kind}' is not supported (incremental only)` };
    if (control !== 'stop') return { action: 'control', control: { kind: control } };
    const listed = Array.isArray(data['data-collections']) ? data['data-collections'].map(String) : [];
    return { action: 'control', control: { kind: 'stop', tables: listed.length > 0 ? listed : null } };
  }
  if (kind !== 'incremental' && kind !== 'blocking')
    return {
      action: 'ignore',
      reason: `execute-snapshot of type '${kind}' is not supported (incremental or blocking)`,
    };
  const tables = Array.isArray(data['data-collections']) ? data['data-collections'].map(String) : [];
  if (tables.length === 0) return { action: 'ignore', reason: 'execute-snapshot names no data-collections' };
  return { action: 'snapshot', request: { kind, tables } };
}

/** The line/record a sender writes: Debezium's file-channel JSON (`data` as an object). */
export function snapshotSignalJson(id: string, tables: readonly string[], kind: AdHocSnapshotKind): string {
  return JSON.stringify({ id, type: 'execute-snapshot', data: { 'data-collections': tables, type: kind } });
}

/** Reads one JSON signal (file line or stream record): `{id, type, data}` with `data` an object or a string. */
export function signalFromJson(text: string, channel: string): SignalRecord | null {
  let v: { id?: unknown; type?: unknown; data?: unknown };
  try {
    v = JSON.parse(text) as typeof v;
  } catch {
    return null;
  }
  if (typeof v !== 'object' || v === null || typeof v.type !== 'string') return null;
  const data =
    v.data === undefined || v.data === null ? null : typeof v.data === 'string' ? v.data : JSON.stringify(v.data);
  return { id: typeof v.id === 'string' ? v.id : String(v.id ?? ''), type: v.type, data, channel };
}
