import { DynamoDBClient, type DynamoDBClientConfig, GetItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { OffsetStoreError } from '../../common/errors.js';
import { BinlogPosition } from '../../model/binlog-position.js';
import type { SourceOffset } from '../../model/source-offset.js';
import { describeOffset } from '../file/offset-order.js';
import type { OffsetStore } from '../offset-store.js';
import {
  describeDynamoError,
  ensureTable,
  isConditionalCheckFailed,
  isRetriableDynamoError,
  N,
  num,
  S,
  str,
} from './dynamo-common.js';

export interface DynamoDbOffsetStoreOptions {
  client?: DynamoDBClient;
  /** Config for the client built when `client` is absent. */
  clientConfig?: DynamoDBClientConfig;
  tableName: string;
  connectorName: string;
  /**
   * Current fencing token of this writer (usually `() => lease.token`). Commits are rejected once an item carries a
   * larger token. Without it the token is 0, which still fences against nothing but keeps the item format.
   */
  fencingToken?: () => number | null;
  /** Create the table (PAY_PER_REQUEST) on first use. @default false */
  createTables?: boolean;
}

/**
 * Binlog coordinates as one string that sorts like compareOffsets (server generation, file name, then zero-padded
 * pos, event, row), so
 * DynamoDB can enforce "never backwards" in the condition expression without a read.
 */
export function positionKey(o: SourceOffset): string {
  const pad = (n: number | undefined, w: number) => String(n ?? 0).padStart(w, '0');
  const at = BinlogPosition.from(o);
  return `${at.sortableGeneration()}${at.sortableFile()}|${pad(o.pos, 20)}|${pad(o.event, 10)}|${pad(o.row, 10)}`;
}

/**
 * One item per connector: `{connector, offset (JSON), position, seq, fencingToken, updatedAt}`. Every commit is a
 * single conditional UpdateItem: the position never moves backwards and the item's fencing token is not above ours;
 * `seq` counts commits. `load()` also stamps our token on the item, fencing a previous holder that has not yet
 * noticed it lost the lease before we publish anything.
 */
export class DynamoDbOffsetStore implements OffsetStore {
  private readonly client: DynamoDBClient;
  private readonly ownsClient: boolean;
  private tableReady = false;

  constructor(private readonly options: DynamoDbOffsetStoreOptions) {
    this.ownsClient = !options.client;
    this.client = options.client ?? new DynamoDBClient(options.clientConfig ?? {});
  }

  private get token(): number {
    const t = this.options.fencingToken?.();
    if (t === null) {
      throw new OffsetStoreError(
        `offset store for "${this.options.connectorName}" has no fencing token: the lease is not held`,
      );
    }
    return t ?? 0;
  }

  async load(): Promise<SourceOffset | null> {
    await this.ready();
    const token = this.token;
    if (this.options.fencingToken) await this.fence(token);
    try {
      const out = await this.client.send(
        new GetItemCommand({
          TableName: this.options.tableName,
          Key: { connector: S(this.options.connectorName) },
          ConsistentRead: true,
        }),
      );
      const text = str(out.Item, 'offset');
      if (text === undefined) return null;
      return JSON.parse(text) as SourceOffset;
    } catch (err) {
      if (err instanceof SyntaxError) {
        throw new OffsetStoreError(`stored offset for "${this.options.connectorName}" is not valid JSON`, {
          cause: err,
        });
      }
      throw this.wrap(err);
    }
  }

  async commit(offset: SourceOffset): Promise<void> {
    await this.ready();
    const token = this.token;
    try {
      await this.client.send(
        new UpdateItemCommand({
          TableName: this.options.tableName,
          Key: { connector: S(this.options.connectorName) },
          UpdateExpression:
            'SET #offset = :offset, #position = :position, fencingToken = :token, updatedAt = :now ADD seq :one',
          ConditionExpression:
            'attribute_not_exists(connector) OR ((attribute_not_exists(#position) OR #position <= :position) AND ' +
            '(attribute_not_exists(fencingToken) OR fencingToken <= :token))',
          ExpressionAttributeNames: { '#offset': 'offset', '#position': 'position' },
          ExpressionAttributeValues: {
            ':offset': S(JSON.stringify(offset)),
            ':position': S(positionKey(offset)),
            ':token': N(token),
            ':now': S(new Date().toISOString()),
            ':one': N(1),
          },
        }),
      );
    } catch (err) {
      if (!isConditionalCheckFailed(err)) throw this.wrap(err);
      throw await this.explainRejection(offset, token, err);
    }
  }

  /** A conditional write of the same shape as a commit (fencing condition included) that leaves the offset alone. */
  async probe(): Promise<void> {
    await this.ready();
    const token = this.token;
    try {
      await this.client.send(
        new UpdateItemCommand({
          TableName: this.options.tableName,
          Key: { connector: S(this.options.connectorName) },
          UpdateExpression: 'SET probedAt = :now',
          ConditionExpression: 'attribute_not_exists(fencingToken) OR fencingToken <= :token',
          ExpressionAttributeValues: { ':now': S(new Date().toISOString()), ':token': N(token) },
        }),
      );
    } catch (err) {
      if (!isConditionalCheckFailed(err)) throw this.wrap(err);
      throw await this.explainRejection(null, token, err);
    }
  }

  async close(): Promise<void> {
    if (this.ownsClient) this.client.destroy();
  }

  /** Raise the item's fencing token to ours (creating the item if needed) without touching the offset. */
  private async fence(token: number): Promise<void> {
    try {
      await this.client.send(
        new UpdateItemCommand({
          TableName: this.options.tableName,
          Key: { connector: S(this.options.connectorName) },
          UpdateExpression: 'SET fencingToken = :token',
          ConditionExpression: 'attribute_not_exists(fencingToken) OR fencingToken <= :token',
          ExpressionAttributeValues: { ':token': N(token) },
        }),
      );
    } catch (err) {
      if (!isConditionalCheckFailed(err)) throw this.wrap(err);
      throw await this.explainRejection(null, token, err);
    }
  }

  /** Read the item after a failed condition to say which rule rejected the write. */
  private async explainRejection(
    offset: SourceOffset | null,
    token: number,
    cause: unknown,
  ): Promise<OffsetStoreError> {
    const name = this.options.connectorName;
    try {
      const out = await this.client.send(
        new GetItemCommand({
          TableName: this.options.tableName,
          Key: { connector: S(name) },
          ConsistentRead: true,
        }),
      );
      const theirs = num(out.Item, 'fencingToken') ?? 0;
      if (theirs > token && !this.options.fencingToken) {
        return new OffsetStoreError(
          `offset commit for "${name}" rejected: the item is fenced by a lease holder (token ${theirs}) and this ` +
            'task runs without a lease; set lease.enabled=true with the same lease.dynamodb.table as the other tasks',
          { cause },
        );
      }
      if (theirs > token) {
        return new OffsetStoreError(
          `offset commit for "${name}" rejected: lease lost (our fencing token ${token} is older than ${theirs} ` +
            `stored by the current holder); stop publishing`,
          { cause },
        );
      }
      const stored = str(out.Item, 'offset');
      if (offset && stored) {
        return new OffsetStoreError(
          `offset moved backwards for "${name}": ${describeOffset(offset)} is before the committed ` +
            `${describeOffset(JSON.parse(stored) as SourceOffset)}; refusing to commit`,
          { cause },
        );
      }
    } catch {
      // Fall through to the generic message.
    }
    return new OffsetStoreError(
      `offset commit for "${name}" rejected by its condition (offset moved backwards or lease lost)`,
      { cause },
    );
  }

  private async ready(): Promise<void> {
    if (this.tableReady || !this.options.createTables) return;
    try {
      await ensureTable(this.client, this.options.tableName, 'connector');
    } catch (err) {
      throw this.wrap(err);
    }
    this.tableReady = true;
  }

  private wrap(err: unknown): OffsetStoreError {
    return new OffsetStoreError(describeDynamoError(err, this.options.tableName), {
      cause: err,
      retriable: isRetriableDynamoError(err),
    });
  }
}
