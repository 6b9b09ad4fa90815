import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import {
  type AttributeValue,
  DynamoDBClient,
  type DynamoDBClientConfig,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
} from '@aws-sdk/client-dynamodb';
import { SchemaHistoryError } from '../../common/errors.js';
import { redactSqlSecrets } from '../../common/redact-sql.js';
import { BinlogPosition } from '../../model/binlog-position.js';
import type { SourceOffset } from '../../model/source-offset.js';
import type { SchemaHistory, SchemaHistoryEntry } from '../schema-history.js';
import {
  B,
  bin,
  describeDynamoError,
  ensureTable,
  isConditionalCheckFailed,
  isRetriableDynamoError,
  N,
  num,
  S,
  str,
} from './dynamo-common.js';

export interface DynamoDbSchemaHistoryOptions {
  client?: DynamoDBClient;
  /** Config for the client built when `client` is absent. */
  clientConfig?: DynamoDBClientConfig;
  tableName: string;
  connectorName: string;
  /**
   * Entries whose JSON exceeds this many bytes are gzip-compressed; compressed data over it is split across items.
   * Stays well under DynamoDB's 400 KB item limit. @default 350000
   */
  maxItemBytes?: number;
  /** Create the table (PAY_PER_REQUEST) on first use. @default false */
  createTables?: boolean;
}

const SEQ_WIDTH = 15;
const PART_WIDTH = 5;

/**
 * Schema history in DynamoDB: pk `connector`, sk `<seq zero-padded>#<part zero-padded>`. Small entries are one item
 * with the JSON in `doc` (S). Large ones are gzipped into `gz` (B) and, when still too big, split across parts
 * 1..n-1 written first and part 0 written last: part 0 (with `parts` and the SHA-256 of the JSON) is the commit
 * point, so a crash mid-entry leaves orphan parts that recovery ignores. Recovery is one paginated Query.
 */
export class DynamoDbSchemaHistory implements SchemaHistory {
  private readonly client: DynamoDBClient;
  private readonly ownsClient: boolean;
  private readonly maxItemBytes: number;
  private tableReady = false;

  constructor(private readonly options: DynamoDbSchemaHistoryOptions) {
    this.ownsClient = !options.client;
    this.client = options.client ?? new DynamoDBClient(options.clientConfig ?? {});
    this.maxItemBytes = options.maxItemBytes ?? 350_000;
  }

  async initializeStorage(): Promise<void> {
    if (this.tableReady || !this.options.createTables) return;
    try {
      await ensureTable(this.client, this.options.tableName, 'connector', 'sk');
    } catch (err) {
      throw this.wrap(err);
    }
    this.tableReady = true;
  }

  async exists(): Promise<boolean> {
    await this.initializeStorage();
    try {
      const out = await this.client.send(
        new QueryCommand({
          TableName: this.options.tableName,
          KeyConditionExpression: 'connector = :c',
          ExpressionAttributeValues: { ':c': S(this.options.connectorName) },
          ConsistentRead: true,
          Limit: 1,
          ProjectionExpression: 'sk',
        }),
      );
      return (out.Items?.length ?? 0) > 0;
    } catch (err) {
      throw this.wrap(err);
    }
  }

  async record(recorded: SchemaHistoryEntry): Promise<void> {
    // The history is not a credential store: account statements and CONNECTION strings lose their passwords.
    const entry = { ...recorded, ddl: redactSqlSecrets(recorded.ddl) };
    await this.initializeStorage();
    const json = JSON.stringify(entry);
    const sha = createHash('sha256').update(json).digest('hex');
    const bytes = Buffer.byteLength(json, 'utf8');
    const base = (part: number): Record<string, AttributeValue> => ({
      connector: S(this.options.connectorName),
      sk: S(sortKey(entry.seq, part)),
      seq: N(entry.seq),
      part: N(part),
    });
    let head: Record<string, AttributeValue>;
    if (bytes <= this.maxItemBytes) {
      head = { ...base(0), doc: S(json) };
    } else {
      const gz = gzipSync(json);
      const chunks: Buffer[] = [];
      for (let o = 0; o < gz.length; o += this.maxItemBytes) chunks.push(gz.subarray(o, o + this.maxItemBytes));
      for (let p = chunks.length - 1; p >= 1; p--) await this.put({ ...base(p), gz: B(chunks[p]) }, false);
      head = { ...base(0), gz: B(chunks[0]), parts: N(chunks.length) };
    }
    head.sha256 = S(sha);
    head.file = S(entry.position.file);
    head.pos = N(entry.position.pos);
    try {
      await this.put(head, true);
    } catch (err) {
      if (!isConditionalCheckFailed(err)) throw this.wrap(err);
      // Same seq already recorded: fine if it is the same entry (a retried write), corruption otherwise.
      const existing = await this.client.send(
        new GetItemCommand({
          TableName: this.options.tableName,
          Key: { connector: head.connector, sk: head.sk },
          ConsistentRead: true,
        }),
      );
      if (str(existing.Item, 'sha256') !== sha) {
        throw new SchemaHistoryError(
          `schema history for "${this.options.connectorName}" already has a different entry with seq ${entry.seq}; ` +
            `two writers are recording history at once (check the lease) or seq was reused`,
          { cause: err },
        );
      }
    }
  }

  async recover(upTo?: Pick<SourceOffset, 'file' | 'pos'>): Promise<SchemaHistoryEntry[]> {
    await this.initializeStorage();
    const items: Array<Record<string, AttributeValue>> = [];
    let startKey: Record<string, AttributeValue> | undefined;
    try {
      do {
        const out = await this.client.send(
          new QueryCommand({
            TableName: this.options.tableName,
            KeyConditionExpression: 'connector = :c',
            ExpressionAttributeValues: { ':c': S(this.options.connectorName) },
            ConsistentRead: true,
            ExclusiveStartKey: startKey,
          }),
        );
        items.push(...(out.Items ?? []));
        startKey = out.LastEvaluatedKey;
      } while (startKey);
    } catch (err) {
      throw this.wrap(err);
    }
    // Items arrive sorted by sk: all parts of one seq are adjacent, part 0 first.
    const entries: SchemaHistoryEntry[] = [];
    for (let i = 0; i < items.length; ) {
      const seq = num(items[i], 'seq')!;
      let j = i;
      const group: Array<Record<string, AttributeValue>> = [];
      while (j < items.length && num(items[j], 'seq') === seq) group.push(items[j++]);
      i = j;
      const head = group[0];
      if (num(head, 'part') !== 0) continue; // orphan parts of an entry whose head was never written
      if (upTo) {
        const position = { file: str(head, 'file')!, pos: num(head, 'pos')! };
        if (BinlogPosition.compare(position, upTo) > 0) continue;
      }
      entries.push(this.decode(group, seq));
    }
    return entries;
  }

  async close(): Promise<void> {
    if (this.ownsClient) this.client.destroy();
  }

  private decode(group: Array<Record<string, AttributeValue>>, seq: number): SchemaHistoryEntry {
    const head = group[0];
    let json = str(head, 'doc');
    if (json === undefined) {
      const parts = num(head, 'parts') ?? 1;
      const chunks = group.filter((it) => (num(it, 'part') ?? -1) < parts).map((it) => bin(it, 'gz'));
      if (chunks.length !== parts || chunks.some((c) => c === undefined)) {
        throw new SchemaHistoryError(
          `schema history entry seq ${seq} of "${this.options.connectorName}" has ${chunks.length} of ${parts} parts; ` +
            `the table was modified outside the capture`,
        );
      }
      json = gunzipSync(Buffer.concat(chunks as Uint8Array[])).toString('utf8');
    }
    if (createHash('sha256').update(json).digest('hex') !== str(head, 'sha256')) {
      throw new SchemaHistoryError(
        `schema history entry seq ${seq} of "${this.options.connectorName}" fails its checksum`,
      );
    }
    return JSON.parse(json) as SchemaHistoryEntry;
  }

  private async put(item: Record<string, AttributeValue>, onlyIfAbsent: boolean): Promise<void> {
    try {
      await this.client.send(
        new PutItemCommand({
          TableName: this.options.tableName,
          Item: item,
          ...(onlyIfAbsent ? { ConditionExpression: 'attribute_not_exists(sk)' } : {}),
        }),
      );
    } catch (err) {
      if (onlyIfAbsent && isConditionalCheckFailed(err)) throw err;
      throw this.wrap(err);
    }
  }

  private wrap(err: unknown): SchemaHistoryError {
    return new SchemaHistoryError(describeDynamoError(err, this.options.tableName), {
      cause: err,
      retriable: isRetriableDynamoError(err),
    });
  }
}

function sortKey(seq: number, part: number): string {
  return `${String(seq).padStart(SEQ_WIDTH, '0')}#${String(part).padStart(PART_WIDTH, '0')}`;
}
