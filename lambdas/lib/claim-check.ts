/**
 * Claim-check resolution for the Lambda adapters: a decoded record whose value carries a `__cdc_claim_check`
 * pointer gets its original value back from S3 (size and SHA-256 checked), so transforms and writers never see the
 * pointer. Objects that are gone or do not match are poison (the parent record is marked, then dead-lettered);
 * transient S3 failures are thrown, so the invocation fails and Lambda retries the batch.
 */
import {
  CLAIM_CHECK_HEADER,
  ClaimCheckError,
  type ClaimCheckPointer,
  claimCheckPointerOf,
} from '../../src/sinks/claim-check/envelope.js';
import type { ClaimCheckResolver } from '../../src/sinks/claim-check/resolver.js';
import { parseJson } from '../../src/transforms/json.js';
import { type TransformRecord, unwrapSchema } from '../../src/transforms/record.js';
import type { ParentRecord } from './kinesis-input.js';

const resolvedFrom = new WeakMap<TransformRecord, ClaimCheckPointer>();

/** The pointer a record's value was resolved from (it arrived claim-checked), if it was. */
export function claimCheckOf(record: TransformRecord): ClaimCheckPointer | undefined {
  return resolvedFrom.get(record);
}

/** Resolve every pointer in place; returns how many records were resolved. */
export async function resolveClaimChecks(
  parents: readonly ParentRecord[],
  resolver: () => ClaimCheckResolver,
): Promise<number> {
  let resolved = 0;
  for (const p of parents) {
    if (p.error) continue;
    try {
      for (const { record } of p.records) {
        const pointer = claimCheckPointerOf(record.value);
        if (!pointer) continue;
        const value = unwrapSchema(parseJson(await resolver().valueText(pointer)));
        record.value = value.payload;
        resolvedFrom.set(record, pointer);
        if (value.schema !== undefined) record.valueSchema = value.schema;
        delete record.headers[CLAIM_CHECK_HEADER];
        resolved++;
      }
    } catch (err) {
      // A denied read may be an expired object: the record's age tells the operator which.
      if (err instanceof ClaimCheckError && err.readDenied)
        throw new ClaimCheckError(`${err.message} (the record arrived ${ageText(Date.now() - p.arrivalMs)} ago)`, {
          permanent: false,
          cause: err,
          readDenied: true,
        });
      if (!(err instanceof ClaimCheckError) || !err.permanent) throw err;
      p.records = [];
      p.error = `claim-check: ${err.message}`;
    }
  }
  return resolved;
}

function ageText(ms: number): string {
  const h = ms / 3_600_000;
  return h >= 48
    ? `${(h / 24).toFixed(1)} days`
    : h >= 1
      ? `${h.toFixed(1)} h`
      : `${Math.max(0, Math.round(ms / 60_000))} min`;
}
