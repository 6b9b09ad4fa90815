import { BinlogPosition } from '../../model/binlog-position.js';
import type { SourceOffset } from '../../model/source-offset.js';

/**
 * Total order on offsets for the "never moves backwards" rule: server generation, binlog file/pos, then the events and rows already
 * emitted inside the transaction at `pos`. Equal offsets compare 0 (re-committing the same offset is allowed, e.g.
 * snapshot chunk progress that does not move the binlog position).
 */
export function compareOffsets(a: SourceOffset, b: SourceOffset): number {
  const byPos = BinlogPosition.compare(a, b);
  if (byPos !== 0) return byPos;
  const byEvent = (a.event ?? 0) - (b.event ?? 0);
  if (byEvent !== 0) return byEvent;
  return (a.row ?? 0) - (b.row ?? 0);
}

export function describeOffset(o: SourceOffset): string {
  const gen = o.server_generation ? `server generation ${o.server_generation} ` : '';
  return `${gen}${o.file}:${o.pos}${o.event ? ` event ${o.event}` : ''}${o.row ? ` row ${o.row}` : ''}`;
}
