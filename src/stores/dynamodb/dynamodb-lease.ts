import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { DynamoDBClient, type DynamoDBClientConfig, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { errorMessage, LeaseLostError } from '../../common/errors.js';
import { type Logger, silentLogger } from '../../common/logger.js';
import type { Lease } from '../lease.js';
import { describeDynamoError, ensureTable, isConditionalCheckFailed, N, num, S } from './dynamo-common.js';

export interface DynamoDbLeaseOptions {
  client?: DynamoDBClient;
  /** Config for the client built when `client` is absent. */
  clientConfig?: DynamoDBClientConfig;
  tableName: string;
  /** Lease name; one lease per connector, so usually the connector name. */
  leaseName: string;
  /** Unique id of this process. @default `<hostname>:<pid>:<random>` */
  owner?: string;
  /** How long an acquisition or renewal holds the lease. @default 30000 */
  leaseDurationMs?: number;
  /** Renewal period; must be well below leaseDurationMs - safetyMarginMs so a few renewals can fail. @default 5000 */
  renewIntervalMs?: number;
  /**
   * The holder gives up this long before its lease could expire for others, covering clock skew between hosts and
   * the time to stop publishing. @default 10000
   */
  safetyMarginMs?: number;
  /** Poll period while another process holds the lease. @default min(renewIntervalMs, 2000) */
  acquireRetryMs?: number;
  /** Create the table (PAY_PER_REQUEST) on first use. @default false */
  createTables?: boolean;
  logger?: Logger;
}

/**
 * DynamoDB lease with fencing tokens. The item `{lease, owner, expiresAt, fencingToken}` is only changed with
 * conditional writes (no transactions):
 * - acquire: `UpdateItem ADD fencingToken 1` when the item is absent, expired (expiresAt < now) or already ours;
 *   every acquisition therefore gets a strictly larger token, which offset commits carry to fence stale holders.
 * - renew (every renewIntervalMs): extend expiresAt if owner and token are still ours; a failed condition means
 *   somebody else took over -> lost at once. Transient errors are retried until the local deadline.
 * - deadline: measured on this process's monotonic clock from the last successful write; once
 *   `leaseDurationMs - safetyMarginMs` has passed, the lease counts as lost, so the holder stops before the item can
 *   look expired to anyone else (as long as wall clocks agree within the margin).
 * - release: expire the item (expiresAt = 0) rather than delete it, so the token keeps growing across owners.
 */
export class DynamoDbLease implements Lease {
  readonly owner: string;
  private readonly client: DynamoDBClient;
  private readonly ownsClient: boolean;
  private readonly durationMs: number;
  private readonly renewMs: number;
  private readonly marginMs: number;
  private readonly log: Logger;
  private currentToken: number | null = null;
  /** performance.now() of the start of the last successful acquire/renew request. */
  private lastRenewedAt = 0;
  private lost: Error | null = null;
  private readonly listeners: Array<(err: Error) => void> = [];
  private renewTimer: NodeJS.Timeout | undefined;
  private watchdog: NodeJS.Timeout | undefined;
  private renewing = false;
  private tableReady = false;

  constructor(private readonly options: DynamoDbLeaseOptions) {
    this.ownsClient = !options.client;
    this.client = options.client ?? new DynamoDBClient(options.clientConfig ?? {});
    this.owner = options.owner ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
    this.durationMs = options.leaseDurationMs ?? 30_000;
    this.renewMs = options.renewIntervalMs ?? 5_000;
    this.marginMs = options.safetyMarginMs ?? 10_000;
    if (this.marginMs >= this.durationMs || this.renewMs >= this.durationMs - this.marginMs) {
      throw new LeaseLostError(
        `lease timing is unsafe: need renewIntervalMs (${this.renewMs}) < leaseDurationMs (${this.durationMs}) - ` +
          `safetyMarginMs (${this.marginMs})`,
      );
    }
    this.log = (options.logger ?? silentLogger).child({ lease: options.leaseName, owner: this.owner });
  }

  get token(): number | null {
    return this.lost ? null : this.currentToken;
  }

  async acquire(signal?: AbortSignal): Promise<number> {
    if (this.options.createTables && !this.tableReady) {
      await ensureTable(this.client, this.options.tableName, 'lease');
      this.tableReady = true;
    }
    const retryMs = this.options.acquireRetryMs ?? Math.min(this.renewMs, 2000);
    for (;;) {
      signal?.throwIfAborted();
      const startedAt = performance.now();
      const now = Date.now();
      try {
        const out = await this.client.send(
          new UpdateItemCommand({
            TableName: this.options.tableName,
            Key: { lease: S(this.options.leaseName) },
            UpdateExpression: 'SET #owner = :me, expiresAt = :exp, acquiredAt = :now ADD fencingToken :one',
            ConditionExpression: 'attribute_not_exists(#lease) OR expiresAt < :now OR #owner = :me',
            ExpressionAttributeNames: { '#owner': 'owner', '#lease': 'lease' },
            ExpressionAttributeValues: {
              ':me': S(this.owner),
              ':exp': N(now + this.durationMs),
              ':now': N(now),
              ':one': N(1),
            },
            ReturnValues: 'ALL_NEW',
          }),
        );
        const token = num(out.Attributes, 'fencingToken');
        if (token === undefined) throw new Error('UpdateItem returned no fencingToken');
        this.currentToken = token;
        this.lastRenewedAt = startedAt;
        this.lost = null;
        this.startBackground();
        this.log.info('lease acquired', { fencingToken: token });
        return token;
      } catch (err) {
        if (!isConditionalCheckFailed(err)) {
          this.log.warn('lease acquisition failed, retrying', {
            error: describeDynamoError(err, this.options.tableName),
          });
        }
      }
      await sleep(retryMs, signal);
    }
  }

  assertHeld(): void {
    if (this.lost) throw this.lost;
    if (this.currentToken === null) {
      throw new LeaseLostError(`lease "${this.options.leaseName}" is not held by ${this.owner}: call acquire() first`);
    }
    // Checked here as well as by the watchdog timer: a blocked event loop must not let a stale holder publish.
    if (performance.now() - this.lastRenewedAt > this.durationMs - this.marginMs) {
      this.markLost(this.deadlineMissed());
      throw this.lost!;
    }
  }

  onLost(listener: (err: Error) => void): void {
    this.listeners.push(listener);
  }

  async release(): Promise<void> {
    this.stopBackground();
    const token = this.currentToken;
    this.currentToken = null;
    if (token !== null && !this.lost) {
      try {
        await this.client.send(
          new UpdateItemCommand({
            TableName: this.options.tableName,
            Key: { lease: S(this.options.leaseName) },
            UpdateExpression: 'SET expiresAt = :zero',
            ConditionExpression: '#owner = :me AND fencingToken = :token',
            ExpressionAttributeNames: { '#owner': 'owner' },
            ExpressionAttributeValues: { ':zero': N(0), ':me': S(this.owner), ':token': N(token) },
          }),
        );
      } catch (err) {
        // Somebody else holds it already, or DynamoDB is unreachable: either way it will expire on its own.
        if (!isConditionalCheckFailed(err)) this.log.warn('lease release failed', { error: errorMessage(err) });
      }
    }
    if (this.ownsClient) this.client.destroy();
  }

  private startBackground(): void {
    this.stopBackground();
    this.renewTimer = setInterval(() => void this.renew(), this.renewMs);
    this.armWatchdog();
  }

  private stopBackground(): void {
    clearInterval(this.renewTimer);
    clearTimeout(this.watchdog);
    this.renewTimer = undefined;
    this.watchdog = undefined;
  }

  /** Fires when the local deadline passes without a successful renewal. */
  private armWatchdog(): void {
    clearTimeout(this.watchdog);
    const deadline = this.lastRenewedAt + this.durationMs - this.marginMs;
    this.watchdog = setTimeout(
      () => {
        if (this.lost || this.currentToken === null) return;
        if (performance.now() >= deadline) this.markLost(this.deadlineMissed());
        else this.armWatchdog();
      },
      Math.max(0, deadline - performance.now()),
    );
  }

  /**
   * The local deadline (last renewal + duration - margin) has passed. On time, the holder stops before the lease can
   * look expired to others. Found late (the process was paused or starved of CPU past the deadline, and maybe past
   * the expiry itself), another process may already hold it: say so rather than claim to have stopped in time.
   */
  private deadlineMissed(): LeaseLostError {
    const limit = this.durationMs - this.marginMs;
    const since = performance.now() - this.lastRenewedAt;
    const late = since - limit;
    const name = this.options.leaseName;
    // Timers fire late on a busy loop; with half the margin still left before others can take over, "in time".
    if (late <= this.marginMs / 2) {
      return new LeaseLostError(
        `lease "${name}" could not be renewed within ${limit} ms; stopped publishing ${Math.round(this.marginMs - late)} ms before it can expire for other processes`,
      );
    }
    const expired = since >= this.durationMs;
    return new LeaseLostError(
      `lease "${name}" was not renewed for ${Math.round(since)} ms (limit ${limit} ms): this process was not running ` +
        `when its deadline passed (paused or starved of CPU for about ${Math.round(late)} ms)` +
        (expired
          ? `, and the lease has expired, so another process may hold it by now; `
          : `, ${Math.round(this.durationMs - since)} ms before it expires for others; `) +
        'stopping without publishing anything more',
    );
  }

  private async renew(): Promise<void> {
    if (this.renewing || this.lost || this.currentToken === null) return;
    this.renewing = true;
    const startedAt = performance.now();
    const now = Date.now();
    try {
      await this.client.send(
        new UpdateItemCommand({
          TableName: this.options.tableName,
          Key: { lease: S(this.options.leaseName) },
          UpdateExpression: 'SET expiresAt = :exp',
          ConditionExpression: '#owner = :me AND fencingToken = :token',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: {
            ':exp': N(now + this.durationMs),
            ':me': S(this.owner),
            ':token': N(this.currentToken),
          },
        }),
      );
      if (!this.lost) {
        this.lastRenewedAt = startedAt;
        this.armWatchdog();
      }
    } catch (err) {
      if (isConditionalCheckFailed(err)) {
        this.markLost(
          new LeaseLostError(
            `lease "${this.options.leaseName}" was taken over by another process (fencing token ${this.currentToken} is stale)`,
            { cause: err },
          ),
        );
      } else {
        this.log.warn('lease renewal failed; retrying until the deadline', {
          error: describeDynamoError(err, this.options.tableName),
        });
      }
    } finally {
      this.renewing = false;
    }
  }

  private markLost(err: LeaseLostError): void {
    if (this.lost) return;
    this.lost = err;
    this.stopBackground();
    this.log.error('lease lost', { error: err });
    for (const l of this.listeners) {
      try {
        l(err);
      } catch (listenerErr) {
        this.log.error('lease onLost listener threw', { error: errorMessage(listenerErr) });
      }
    }
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
