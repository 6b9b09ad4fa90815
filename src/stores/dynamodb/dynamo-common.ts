import {
  type AttributeDefinition,
  type AttributeValue,
  CreateTableCommand,
  type DynamoDBClient,
  type KeySchemaElement,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { errorMessage } from '../../common/errors.js';

/** Hand-written marshalling: the stores use a handful of attribute types, not worth @aws-sdk/lib-dynamodb. */
export const S = (s: string): AttributeValue => ({ S: s });
export const N = (n: number): AttributeValue => ({ N: String(n) });
export const B = (b: Uint8Array): AttributeValue => ({ B: b });

export function str(item: Record<string, AttributeValue> | undefined, name: string): string | undefined {
  return item?.[name]?.S;
}
export function num(item: Record<string, AttributeValue> | undefined, name: string): number | undefined {
  const v = item?.[name]?.N;
  return v === undefined ? undefined : Number(v);
}
export function bin(item: Record<string, AttributeValue> | undefined, name: string): Uint8Array | undefined {
  return item?.[name]?.B;
}

export function isConditionalCheckFailed(err: unknown): boolean {
  return (err as { name?: string })?.name === 'ConditionalCheckFailedException';
}

/** Throttling, 5xx and network errors: worth retrying by the caller. */
export function isRetriableDynamoError(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number }; $retryable?: unknown };
  if (!e || typeof e !== 'object') return false;
  if (
    e.name === 'ProvisionedThroughputExceededException' ||
    e.name === 'ThrottlingException' ||
    e.name === 'RequestLimitExceeded' ||
    e.name === 'InternalServerError' ||
    e.$retryable
  ) {
    return true;
  }
  const status = e.$metadata?.httpStatusCode;
  return status === undefined ? !(err instanceof TypeError) : status >= 500;
}

/** A short, actionable description of an SDK error for a given table. */
export function describeDynamoError(err: unknown, table: string): string {
  const name = (err as { name?: string })?.name ?? 'Error';
  switch (name) {
    case 'ResourceNotFoundException':
      return `DynamoDB table "${table}" does not exist: create it, or let the task create it: set offset.storage.dynamodb.table.create=true or schema.history.internal.dynamodb.table.create=true (${errorMessage(err)})`;
    case 'AccessDeniedException':
    case 'UnrecognizedClientException':
    case 'ExpiredTokenException':
      return `not allowed to use DynamoDB table "${table}" (${name}): grant the task role access or refresh credentials`;
    default:
      return `DynamoDB request on table "${table}" failed (${name}): ${errorMessage(err)}`;
  }
}

/**
 * Create a PAY_PER_REQUEST table with string keys if it does not exist, and wait until it is ACTIVE.
 * Concurrent creators are fine: ResourceInUseException means someone else is creating it, and we wait as well.
 */
export async function ensureTable(
  client: DynamoDBClient,
  table: string,
  partitionKey: string,
  sortKey?: string,
  maxWaitSeconds = 120,
): Promise<void> {
  const keys: KeySchemaElement[] = [{ AttributeName: partitionKey, KeyType: 'HASH' }];
  const attrs: AttributeDefinition[] = [{ AttributeName: partitionKey, AttributeType: 'S' }];
  if (sortKey) {
    keys.push({ AttributeName: sortKey, KeyType: 'RANGE' });
    attrs.push({ AttributeName: sortKey, AttributeType: 'S' });
  }
  try {
    await client.send(
      new CreateTableCommand({
        TableName: table,
        KeySchema: keys,
        AttributeDefinitions: attrs,
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
  } catch (err) {
    if ((err as { name?: string }).name !== 'ResourceInUseException') throw err;
  }
  await waitUntilTableExists({ client, maxWaitTime: maxWaitSeconds, minDelay: 1, maxDelay: 5 }, { TableName: table });
}
