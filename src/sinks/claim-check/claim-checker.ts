/**
 * Producer side of the claim-check: the value goes to S3 first, the record that is published carries a pointer.
 * Keys are content-addressed (`<prefix><topic>/<sha256>.json`), so a record re-published after a crash rewrites the
 * same object with the same bytes: replays are idempotent and never leave a second copy.
 */
import { SinkError } from '../../common/errors.js';
import type { SinkRecord } from '../../model/sink-record.js';
import { CLAIM_CHECK_HEADER, ClaimCheckError, type ClaimCheckPointer, claimCheckValue, sha256Hex } from './envelope.js';
import type { ClaimCheckStore } from './s3-store.js';

export interface ClaimCheckerOptions {
  store: ClaimCheckStore;
  bucket: string;
  /** Key prefix inside the bucket. @default 'cdc/claim-check/' */
  prefix?: string;
}

export class ClaimChecker {
  /** Objects written since construction, and their bytes (for stats and tests). */
  readonly stats = { objects: 0, bytes: 0, largestBytes: 0 };

  constructor(private readonly options: ClaimCheckerOptions) {}

  get bucket(): string {
    return this.options.bucket;
  }

  close(): void {
    this.options.store.close();
  }

  /** `check` for the records `over` selects (a few uploads at a time); the others pass unchanged, order kept. */
  async checkAll(records: readonly SinkRecord[], over: (r: SinkRecord) => boolean): Promise<SinkRecord[]> {
    const out = [...records];
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < out.length; i = next++)
        if (out[i].value !== null && over(out[i])) out[i] = await this.check(out[i]);
    };
    await Promise.all(Array.from({ length: Math.min(4, out.length) }, worker));
    return out;
  }

  /**
   * Upload the record's value and return the record to publish instead. Resolves only after S3 acknowledged the
   * object, so a pointer is never published before its payload is durable. A tombstone is returned unchanged.
   */
  async check(r: SinkRecord): Promise<SinkRecord> {
    if (r.value === null) return r;
    const body = Buffer.from(r.value, 'utf8');
    const sha256 = sha256Hex(body);
    const key = `${this.options.prefix ?? 'cdc/claim-check/'}${safeSegment(r.topic)}/${sha256}.json`;
    const pointer: ClaimCheckPointer = {
      bucket: this.options.bucket,
      key,
      size: body.length,
      sha256,
      content: 'value',
    };
    try {
      await this.options.store.put(this.options.bucket, key, body, sha256);
    } catch (err) {
      const permanent = err instanceof ClaimCheckError && err.permanent;
      throw new SinkError(`claim-check upload of a record of topic "${r.topic}" failed: ${(err as Error).message}`, {
        cause: err,
        retriable: !permanent,
      });
    }
    this.stats.objects++;
    this.stats.bytes += body.length;
    this.stats.largestBytes = Math.max(this.stats.largestBytes, body.length);
    const value = claimCheckValue(r.value, pointer);
    const headers: Record<string, string> = { ...(r.headers ?? {}), [CLAIM_CHECK_HEADER]: JSON.stringify(pointer) };
    let size = (r.key?.length ?? 0) + value.length;
    for (const k in headers) size += k.length + headers[k].length;
    return { ...r, value, headers, sizeBytes: size };
  }
}

/** Topic names are already S3-safe in practice; anything else is replaced so a key never gains a path segment. */
function safeSegment(topic: string): string {
  return topic.replace(/[^A-Za-z0-9._-]/g, '_') || '_';
}
