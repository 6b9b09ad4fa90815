import { EVENT_ID_HEADER, SERVER_GENERATION_HEADER } from '../../src/events/event-id.js';
import type { Json } from '../../src/transforms/json.js';
import type { TransformRecord } from '../../src/transforms/record.js';

/** The stable event id (header `__cdc.id`, src/events/event-id.ts), when the record carries one. */
export function eventIdOf(r: TransformRecord): string | undefined {
  const id = r.headers[EVENT_ID_HEADER];
  return typeof id === 'string' ? id : undefined;
}

/** The server generation the record was read in (header `__cdc.server_generation`); 0 when absent. */
export function serverGenerationOf(r: TransformRecord): Json {
  return r.headers[SERVER_GENERATION_HEADER] ?? 0;
}

/**
 * The ids of the last `capacity` records handled, for dropping repeats (docs/delivery.md): a capture restart
 * re-publishes what followed its last committed offset, and a retried Lambda batch re-delivers what followed the
 * failed record. Memory is bounded: the oldest id is forgotten first.
 */
export class RecentIds {
  private readonly ids = new Set<string>();

  constructor(private readonly capacity: number) {}

  has(id: string): boolean {
    return this.ids.has(id);
  }

  add(id: string): void {
    if (this.capacity <= 0 || this.ids.has(id)) return;
    if (this.ids.size >= this.capacity) {
      const oldest = this.ids.values().next();
      if (!oldest.done) this.ids.delete(oldest.value);
    }
    this.ids.add(id);
  }

  get size(): number {
    return this.ids.size;
  }
}
