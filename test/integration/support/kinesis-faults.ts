/**
 * Partial PutRecords failures and throttling, which no Kinesis emulator produces: the only fake in the Kinesis
 * tests. An SDK middleware throttles every `throttleEvery`-th call and fails every `failEvery`-th entry (the rest
 * reach kinesalite), then merges the results back as the service would.
 */
import type {
  KinesisClient,
  PutRecordsCommandInput,
  PutRecordsCommandOutput,
  PutRecordsResultEntry,
} from '@aws-sdk/client-kinesis';
import { PutRecordsCommand } from '@aws-sdk/client-kinesis';

export function injectFaults(client: KinesisClient, failEvery: number, throttleEvery: number) {
  const counts = { calls: 0, entries: 0, failedEntries: 0, throttledCalls: 0 };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== PutRecordsCommand.name) return next(args);
      counts.calls++;
      if (counts.calls % throttleEvery === 0) {
        counts.throttledCalls++;
        throw Object.assign(new Error('Rate exceeded for stream (injected)'), {
          name: 'ProvisionedThroughputExceededException',
          $metadata: { httpStatusCode: 400 },
        });
      }
      const input = args.input as PutRecordsCommandInput;
      const failed = new Map<number, PutRecordsResultEntry>();
      const kept = input.Records!.filter((_, i) => {
        counts.entries++;
        if (counts.entries % failEvery !== 0) return true;
        counts.failedEntries++;
        failed.set(i, {
          ErrorCode: counts.failedEntries % 2 ? 'ProvisionedThroughputExceededException' : 'InternalFailure',
          ErrorMessage: 'injected',
        });
        return false;
      });
      // A request whose entries all "failed" never reaches the service (it rejects empty requests).
      const result =
        kept.length > 0
          ? await next({ ...args, input: { ...input, Records: kept } })
          : { response: {}, output: { Records: [], FailedRecordCount: 0, $metadata: {} } };
      const output = result.output as PutRecordsCommandOutput;
      const ok = output.Records ?? [];
      let j = 0;
      const merged = input.Records!.map((_, i) => failed.get(i) ?? ok[j++]);
      return {
        ...result,
        output: { ...output, Records: merged, FailedRecordCount: (output.FailedRecordCount ?? 0) + failed.size },
      };
    },
    { step: 'initialize', name: 'injectPutRecordsFaults' },
  );
  return counts;
}
