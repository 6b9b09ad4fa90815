/**
 * The known differences between Debezium's MariaDB connector and our capture, by the stable names of
 * docs/debezium-compatibility.md (the differential test checks that both lists are the same). A matcher is as
 * narrow as the reason in the document, so a new difference of the same kind still fails the test.
 */
import type { SinkLine } from './capture.js';
import { type Diff, type KnownDifference, payload } from './differential.js';

function source(d: Diff): Record<string, unknown> {
  return (payload(d.record)?.source as Record<string, unknown> | undefined) ?? {};
}

function ddl(d: Diff): string {
  return String(payload(d.record)?.ddl ?? '');
}

const inSnapshot = (d: Diff) => {
  const s = source(d).snapshot;
  return s !== undefined && s !== 'false' && s !== null;
};

const field = (d: Diff, path: RegExp | string) =>
  d.kind === 'field' && (typeof path === 'string' ? d.path === path : path.test(d.path));

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const keyDb = (l: SinkLine) => String((payload({ ...l, value: l.key })?.databaseName as string | undefined) ?? '');

/** Debezium's END record of a transaction id, if any. */
function endOf(id: string, lines: SinkLine[]): Record<string, unknown> | undefined {
  for (const l of lines) {
    const p = payload(l);
    if (l.topic.endsWith('.transaction') && p?.status === 'END' && p.id === id) return p;
  }
  return undefined;
}

export const KNOWN_DIFFERENCES: KnownDifference[] = [
  {
    name: 'context-headers',
    matches: (d) => field(d, /^headers\.__debezium\.context\./) && d.ours === undefined,
  },
  {
    // Our stable event id (src/events/event-id.ts): always `<origin>/<part>`, never on Debezium's records.
    name: 'event-id-header',
    matches: (d) =>
      field(d, 'headers.__cdc.id') && d.debezium === undefined && typeof d.ours === 'string' && /\/\d+$/.test(d.ours),
  },
  {
    name: 'snapshot-charset-semicolon',
    matches: (d) =>
      d.topic === 'it' &&
      inSnapshot(d) &&
      ((d.kind === 'missing' && /^SET character_set_server=[^;]*$/.test(ddl(d))) ||
        (d.kind === 'extra' && /^SET character_set_server=[^;]*;$/.test(ddl(d)))),
  },
  {
    name: 'source-pos-rows-event',
    matches: (d) =>
      field(d, 'value.source.pos') &&
      !inSnapshot(d) &&
      typeof d.ours === 'number' &&
      typeof d.debezium === 'number' &&
      d.ours < d.debezium,
  },
  {
    name: 'tinyint-int16',
    matches: (d) =>
      (field(d, /\.type$/) && d.debezium === 'int16' && d.ours === 'int8') ||
      (field(d, 'value.tableChanges[].table.columns[].jdbcType') && d.debezium === 5 && d.ours === -6),
  },
  {
    name: 'geometry-struct-version',
    matches: (d) =>
      (field(d, /\.version$/) && d.debezium === 1 && d.ours === 2) ||
      (field(d, /\.extensions$/) && d.debezium === undefined && d.ours === null) ||
      (field(d, /^value\.schema\.fields\[\]\.fields\[\]\.fields\[\]$/) &&
        d.debezium === undefined &&
        (d.ours as { field?: string } | undefined)?.field === 'extensions'),
  },
  {
    name: 'enum-comma-escaped',
    matches: (d) =>
      d.kind === 'field' &&
      typeof d.debezium === 'string' &&
      typeof d.ours === 'string' &&
      d.debezium.includes('\\,') &&
      d.debezium.replaceAll('\\,', ',') === d.ours,
  },
  {
    name: 'snapshot-float-text',
    matches: (d) =>
      d.kind === 'field' &&
      inSnapshot(d) &&
      typeof d.debezium === 'number' &&
      typeof d.ours === 'number' &&
      Number(d.debezium.toPrecision(6)) === Number(d.ours.toPrecision(6)),
  },
  {
    name: 'uuid-streaming-shifted',
    matches: (d) =>
      d.kind === 'field' &&
      !inSnapshot(d) &&
      typeof d.debezium === 'string' &&
      typeof d.ours === 'string' &&
      UUID.test(d.debezium) &&
      UUID.test(d.ours) &&
      d.debezium.replaceAll('-', '') === `00${d.ours.replaceAll('-', '').slice(0, 30)}`,
  },
  {
    name: 'zero-timestamp-streaming',
    matches: (d) =>
      field(d, /^value\.(before|after)\./) &&
      !inSnapshot(d) &&
      d.debezium === '1970-01-01T00:00:00Z' &&
      typeof d.ours === 'string' &&
      d.ours !== d.debezium,
  },
  {
    name: 'snapshot-schema-events-other-databases',
    matches: (d, ctx) =>
      d.kind === 'missing' &&
      d.topic === 'it' &&
      inSnapshot(d) &&
      keyDb(d.record) !== '' &&
      !ctx.databases.includes(keyDb(d.record)),
  },
  {
    name: 'ddl-source-thread',
    matches: (d) =>
      field(d, 'value.source.thread') &&
      d.topic === 'it' &&
      !inSnapshot(d) &&
      d.debezium === null &&
      typeof d.ours === 'number',
  },
  {
    name: 'transaction-empty',
    matches: (d, ctx) => {
      if (d.kind !== 'missing' || !d.topic.endsWith('.transaction')) return false;
      const id = payload(d.record)?.id;
      if (typeof id !== 'string' || ctx.ours.some((l) => l.topic === d.topic && payload(l)?.id === id)) return false;
      const end = endOf(id, ctx.debezium);
      return end === undefined || end.event_count === 0;
    },
  },
  {
    name: 'ddl-other-databases',
    matches: (d, ctx) =>
      d.kind === 'missing' && d.topic === 'it' && !inSnapshot(d) && !ctx.databases.includes(keyDb(d.record)),
  },
];
