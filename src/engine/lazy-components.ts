/**
 * Components whose implementation module is imported on first use. buildComponents stays synchronous (the task and
 * its handle exist at once), while the AWS SDKs and the Kafka client load only when the configuration uses them:
 * a file-sink, file-store task never loads them, and the others load them during start-up's first async step.
 */
import { LeaseLostError } from '../common/errors.js';
import type { SinkRecord } from '../model/sink-record.js';
import { type DeliveryStatus, HEALTHY_DELIVERY } from '../sinks/delivery-status.js';
import type { Sink } from '../sinks/sink.js';
import type { Lease } from '../stores/lease.js';
import type { OffsetStore } from '../stores/offset-store.js';
import type { SchemaHistory, SchemaHistoryEntry } from '../stores/schema-history.js';

/** One import + construction, shared by every caller; a failed load is retried by the next call. */
class Loader<T> {
  value: T | undefined;
  private pending: Promise<T> | undefined;

  constructor(private readonly load: () => Promise<T>) {}

  get(): Promise<T> {
    if (this.value !== undefined) return Promise.resolve(this.value);
    this.pending ??= this.load().then(
      (v) => {
        this.value = v;
        return v;
      },
      (err: unknown) => {
        this.pending = undefined;
        throw err;
      },
    );
    return this.pending;
  }
}

export class LazySink implements Sink {
  private readonly impl: Loader<Sink>;

  constructor(
    readonly name: string,
    load: () => Promise<Sink>,
  ) {
    this.impl = new Loader(load);
  }

  async start(): Promise<void> {
    await (await this.impl.get()).start();
  }

  send(records: SinkRecord[]): Promise<void> {
    // Loaded by start(); the hot path takes no extra await.
    const sink = this.impl.value;
    return sink ? sink.send(records) : this.impl.get().then((s) => s.send(records));
  }

  async close(): Promise<void> {
    // Never loaded means never started: nothing to close (and no reason to load an SDK now).
    await this.impl.value?.close();
  }

  deliveryStatus(): DeliveryStatus {
    return this.impl.value?.deliveryStatus?.() ?? HEALTHY_DELIVERY;
  }
}

export class LazyOffsetStore implements OffsetStore {
  private readonly impl: Loader<OffsetStore>;

  constructor(load: () => Promise<OffsetStore>) {
    this.impl = new Loader(load);
  }

  async load() {
    return (await this.impl.get()).load();
  }

  async commit(offset: Parameters<OffsetStore['commit']>[0]) {
    return (await this.impl.get()).commit(offset);
  }

  async probe() {
    return (await this.impl.get()).probe();
  }

  async close() {
    await this.impl.value?.close();
  }
}

export class LazySchemaHistory implements SchemaHistory {
  private readonly impl: Loader<SchemaHistory>;

  constructor(load: () => Promise<SchemaHistory>) {
    this.impl = new Loader(load);
  }

  async initializeStorage() {
    return (await this.impl.get()).initializeStorage();
  }

  async exists() {
    return (await this.impl.get()).exists();
  }

  async record(entry: SchemaHistoryEntry) {
    return (await this.impl.get()).record(entry);
  }

  async recover(upTo?: Parameters<SchemaHistory['recover']>[0]) {
    return (await this.impl.get()).recover(upTo);
  }

  async close() {
    await this.impl.value?.close();
  }
}

export class LazyLease implements Lease {
  private readonly impl: Loader<Lease>;
  private readonly lostListeners: ((err: Error) => void)[] = [];

  constructor(
    private readonly leaseName: string,
    load: () => Promise<Lease>,
  ) {
    this.impl = new Loader(async () => {
      const lease = await load();
      for (const l of this.lostListeners) lease.onLost(l);
      return lease;
    });
  }

  async acquire(signal?: AbortSignal) {
    return (await this.impl.get()).acquire(signal);
  }

  assertHeld(): void {
    const lease = this.impl.value;
    if (!lease) throw new LeaseLostError(`lease "${this.leaseName}" is not held: call acquire() first`);
    lease.assertHeld();
  }

  get token(): number | null {
    return this.impl.value?.token ?? null;
  }

  onLost(listener: (err: Error) => void): void {
    const lease = this.impl.value;
    if (lease) lease.onLost(listener);
    else this.lostListeners.push(listener);
  }

  async release() {
    await this.impl.value?.release();
  }
}
