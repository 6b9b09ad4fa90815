/**
 * The known differences between Debezium's MariaDB connector and our capture, by the stable names of
 * docs/debezium-compatibility.md (the differential test checks that both lists are the same). A matcher is as
 * narrow as the reason in the document, so a new difference of the same kind still fails the test.
 */
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

export const KNOWN_DIFFERENCES: KnownDifference[] = [
  {
    name: 'context-headers',
    matches: (d) => d.kind === 'field' && d.path.startsWith('headers.__debezium.context.') && d.ours === undefined,
  },
  {
    name: 'snapshot-schema-events',
    matches: (d) => d.kind === 'missing' && d.topic === 'it' && inSnapshot(d) && !/^CREATE TABLE/i.test(ddl(d)),
  },
  {
    name: 'source-pos-rows-event',
    matches: (d) =>
      d.kind === 'field' &&
      d.path === 'value.source.pos' &&
      !inSnapshot(d) &&
      typeof d.ours === 'number' &&
      typeof d.debezium === 'number' &&
      d.ours < d.debezium,
  },
];
