/**
 * Dead-letter queue for poison records: records that cannot be decoded or transformed, that Kinesis refuses, or
 * that keep failing after `maxAttempts` deliveries. Each message carries the reason and the original record.
 */
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';

export interface DeadLetter {
  reason: string;
  /** Delivery attempts seen for this record (1 for deterministic failures). */
  attempts: number;
  eventSourceArn: string;
  eventId: string;
  sequenceNumber: string;
  partitionKey: string;
  /** Base64 data as received. */
  data: string;
  approximateArrivalTimestamp: number;
}

export interface DeadLetterQueue {
  send(letters: readonly DeadLetter[]): Promise<void>;
}

/** Minimal SQS surface used here, so tests can pass a fake that records sends. */
export type SqsSender = Pick<SQSClient, 'send'>;

export class DeadLetterError extends Error {
  override name = 'DeadLetterError';
}

/** SQS queue as DLQ: SendMessageBatch in groups of 10; any failed entry rejects (the batch is then retried). */
export class SqsDeadLetterQueue implements DeadLetterQueue {
  constructor(
    private readonly sqs: SqsSender,
    private readonly queueUrl: string,
  ) {}

  async send(letters: readonly DeadLetter[]): Promise<void> {
    for (let i = 0; i < letters.length; i += 10) {
      const chunk = letters.slice(i, i + 10);
      const out = await this.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: this.queueUrl,
          Entries: chunk.map((l, j) => ({
            Id: String(j),
            MessageBody: JSON.stringify(l),
            MessageAttributes: { reason: { DataType: 'String', StringValue: l.reason.slice(0, 256) } },
          })),
        }),
      );
      if (out.Failed && out.Failed.length > 0)
        throw new DeadLetterError(
          `SQS refused ${out.Failed.length} dead letter(s): ${out.Failed.map((f) => f.Message ?? f.Code).join('; ')}`,
        );
    }
  }
}
