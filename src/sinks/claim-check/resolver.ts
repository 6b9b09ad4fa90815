/** Consumer side of the claim-check: fetch the object a pointer names and check it before handing it out. */
import { ClaimCheckError, type ClaimCheckPointer, verifiedValue } from './envelope.js';
import type { ClaimCheckStore } from './s3-store.js';

export class ClaimCheckResolver {
  /** Objects fetched since construction (tests and metrics). */
  fetched = 0;

  constructor(private readonly store: ClaimCheckStore) {}

  /** The original value text; throws ClaimCheckError (permanent when the object is gone or does not match). */
  async valueText(pointer: ClaimCheckPointer): Promise<string> {
    let body: Buffer;
    try {
      body = await this.store.get(pointer.bucket, pointer.key);
    } catch (err) {
      if (err instanceof ClaimCheckError) throw err;
      throw new ClaimCheckError(`cannot read s3://${pointer.bucket}/${pointer.key}: ${(err as Error).message}`, {
        permanent: false,
        cause: err,
      });
    }
    this.fetched++;
    return verifiedValue(pointer, body);
  }
}
