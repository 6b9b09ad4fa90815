/**
 * Which records a KinesisSink `send()` actually delivered, learned without changing the sink: an SDK middleware on
 * the sink's own client observes every PutRecords request and its per-entry results, deaggregates acknowledged
 * entries, and matches them (stream, partition key, data) against registered outputs. Records of one key are
 * dispatched strictly in order by the sink, so identical contents are matched first-in first-out.
 */
import { createHash } from 'node:crypto';
import type { KinesisClient, PutRecordsInput, PutRecordsOutput } from '@aws-sdk/client-kinesis';
import { recordLine } from '../../src/model/record-line.js';
import type { SinkRecord } from '../../src/model/sink-record.js';
import { deaggregate } from '../../src/sinks/kinesis/kpl-aggregation.js';
import { partitionKeyFor, StreamRouter, type StreamRoutingOptions } from '../../src/sinks/kinesis/routing.js';

export class DeliveryTracker {
  private readonly pending = new Map<string, number[]>();
  private readonly delivered = new Set<number>();
  private readonly router: StreamRouter;

  constructor(
    routing: StreamRoutingOptions,
    private readonly payload: 'value' | 'record',
    private readonly skipTombstones: boolean,
  ) {
    this.router = new StreamRouter(routing);
  }

  /** Observe `client` (call once, on the client handed to the KinesisSink). */
  attach(client: KinesisClient): void {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        if (context.commandName === 'PutRecordsCommand') {
          const input = args.input as PutRecordsInput;
          const output = result.output as PutRecordsOutput;
          (output.Records ?? []).forEach((res, i) => {
            const entry = input.Records?.[i];
            if (res.ErrorCode || !entry?.Data || !entry.PartitionKey) return;
            for (const u of deaggregate({ partitionKey: entry.PartitionKey, data: entry.Data }))
              this.ack(input.StreamName ?? '', u.partitionKey, u.data);
          });
        }
        return result;
      },
      { step: 'initialize', name: 'cdcDeliveryTracker' },
    );
  }

  /** Forget earlier sends; register the outputs of the next one (`id` is the output's index). */
  reset(): void {
    this.pending.clear();
    this.delivered.clear();
  }

  register(id: number, record: SinkRecord): void {
    const stream = this.router.route(record);
    if (stream === null || (record.value === null && this.payload === 'value' && this.skipTombstones)) {
      this.delivered.add(id); // dropped by the sink on purpose
      return;
    }
    const data =
      this.payload === 'record' ? recordLine(record).slice(0, -1) : record.value === null ? '' : record.value;
    const k = contentKey(stream, partitionKeyFor(record), Buffer.from(data, 'utf8'));
    const q = this.pending.get(k);
    if (q) q.push(id);
    else this.pending.set(k, [id]);
  }

  isDelivered(id: number): boolean {
    return this.delivered.has(id);
  }

  private ack(stream: string, partitionKey: string, data: Uint8Array): void {
    const q = this.pending.get(contentKey(stream, partitionKey, data));
    const id = q?.shift();
    if (id !== undefined) this.delivered.add(id);
  }
}

function contentKey(stream: string, partitionKey: string, data: Uint8Array): string {
  return `${stream}\u0000${partitionKey}\u0000${createHash('sha1').update(data).digest('base64')}`;
}
