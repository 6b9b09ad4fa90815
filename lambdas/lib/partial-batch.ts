/**
 * Partial batch responses through Powertools' BatchProcessor: `handle` runs once per Kinesis record of the event,
 * and a record whose handler throws is reported in `batchItemFailures` (Lambda then restarts the shard from the
 * lowest one). Failures are listed in event order, also when records are handled in parallel.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { KinesisStreamBatchResponse, KinesisStreamEvent, KinesisStreamRecord } from 'aws-lambda';

export async function processKinesisBatch(
  event: KinesisStreamEvent,
  handle: (record: KinesisStreamRecord) => Promise<void>,
  options: { readonly inParallel: boolean },
): Promise<KinesisStreamBatchResponse> {
  const response = await processPartialResponse(event, handle, new BatchProcessor(EventType.KinesisDataStreams), {
    // Every record failing is still a partial response (the shard retries it), never a thrown error.
    throwOnFullBatchFailure: false,
    processInParallel: options.inParallel,
  });
  const order = new Map(event.Records.map((r, i) => [r.kinesis.sequenceNumber, i]));
  const failed = [...new Set(response.batchItemFailures.map((f) => f.itemIdentifier))];
  failed.sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
  return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
}
