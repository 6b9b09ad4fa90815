/**
 * The claim-check envelope: what a record carries when its value went to S3 instead of the stream.
 *
 * A Debezium envelope keeps `source`, `op`, `ts_ms` and `transaction`; `before` and `after` become null and a
 * pointer sits beside them:
 *
 *   {"before":null,"after":null,"source":{...},"op":"c","ts_ms":...,"transaction":null,
 *    "__cdc_claim_check":{"bucket":"b","key":"cdc/claim-check/<topic>/<sha256>.json","size":23456789,
 *                         "sha256":"<hex>","content":"value"}}
 *
 * The S3 object holds the complete original value text (with `{schema, payload}` when schemas are enabled), so
 * resolving is a byte-for-byte swap. Any other value (a flattened row after ExtractNewRecordState) becomes
 * `{"__cdc_claim_check":{...}}`. With schemas enabled the pointer's field is added to the value schema as an optional
 * struct `io.serverless_cdc.ClaimCheck`. The same pointer JSON is also put in the record header
 * `__cdc.claim_check` for consumers that route on headers (Kafka, the record payload on Kinesis).
 */
import { createHash } from 'node:crypto';

/** Field of the value that holds the pointer. */
export const CLAIM_CHECK_FIELD = '__cdc_claim_check';
/** Header that repeats the pointer (JSON text). */
export const CLAIM_CHECK_HEADER = '__cdc.claim_check';
/** Connect schema name of the pointer struct (schemas.enable=true). */
export const CLAIM_CHECK_SCHEMA_NAME = 'io.serverless_cdc.ClaimCheck';

export interface ClaimCheckPointer {
  bucket: string;
  key: string;
  /** Bytes of the S3 object (the original value text, UTF-8). */
  size: number;
  /** Lower-case hex SHA-256 of the S3 object. */
  sha256: string;
  /** What the object replaces: always the whole `value` text. */
  content: 'value';
}

export class ClaimCheckError extends Error {
  override name = 'ClaimCheckError';
  /** True when retrying cannot help (object gone, checksum mismatch, malformed pointer). */
  readonly permanent: boolean;
  /**
   * A read S3 denied: without s3:ListBucket that is also how S3 answers for a missing (expired) object, so it may
   * be either; retried like a transient failure, since a grant can fix it.
   */
  readonly readDenied: boolean;
  constructor(message: string, options: { permanent: boolean; cause?: unknown; readDenied?: boolean }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.permanent = options.permanent;
    this.readDenied = options.readDenied ?? false;
  }
}

export function sha256Hex(body: Buffer): string {
  return createHash('sha256').update(body).digest('hex');
}

const POINTER_SCHEMA = {
  type: 'struct',
  optional: true,
  name: CLAIM_CHECK_SCHEMA_NAME,
  version: 1,
  field: CLAIM_CHECK_FIELD,
  fields: [
    { type: 'string', optional: false, field: 'bucket' },
    { type: 'string', optional: false, field: 'key' },
    { type: 'int64', optional: false, field: 'size' },
    { type: 'string', optional: false, field: 'sha256' },
    { type: 'string', optional: false, field: 'content' },
  ],
};

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The value text that replaces `valueText` on the stream (see the module comment). */
export function claimCheckValue(valueText: string, pointer: ClaimCheckPointer): string {
  const parsed: unknown = JSON.parse(valueText);
  const wrapped = isObj(parsed) && 'schema' in parsed && 'payload' in parsed && Object.keys(parsed).length === 2;
  const payload = wrapped ? parsed.payload : parsed;
  let out: Obj;
  const envelope = isObj(payload) && typeof payload.op === 'string' && ('before' in payload || 'after' in payload);
  if (envelope) {
    // Keep the envelope's field order; the row images are what made it large.
    out = {};
    for (const [k, v] of Object.entries(payload)) out[k] = k === 'before' || k === 'after' ? null : v;
    out[CLAIM_CHECK_FIELD] = pointer;
  } else {
    out = { [CLAIM_CHECK_FIELD]: pointer };
  }
  if (!wrapped) return JSON.stringify(out);
  const schema = isObj(parsed.schema) ? { ...parsed.schema } : parsed.schema;
  if (isObj(schema) && Array.isArray(schema.fields)) {
    // Debezium's before/after are optional structs, so null stays valid; a flat row keeps only the pointer.
    schema.fields = [...(envelope ? schema.fields : []), POINTER_SCHEMA];
  }
  return JSON.stringify({ schema, payload: out });
}

/** The pointer of a value (payload form, schema already unwrapped), or null when it carries none. */
export function claimCheckPointerOf(value: unknown): ClaimCheckPointer | null {
  if (!isObj(value) || !(CLAIM_CHECK_FIELD in value)) return null;
  const p = value[CLAIM_CHECK_FIELD];
  if (
    !isObj(p) ||
    typeof p.bucket !== 'string' ||
    typeof p.key !== 'string' ||
    typeof p.size !== 'number' ||
    typeof p.sha256 !== 'string' ||
    !/^[0-9a-f]{64}$/.test(p.sha256)
  )
    throw new ClaimCheckError(`malformed ${CLAIM_CHECK_FIELD} pointer: expected {bucket, key, size, sha256}`, {
      permanent: true,
    });
  return { bucket: p.bucket, key: p.key, size: p.size, sha256: p.sha256, content: 'value' };
}

/** Check a fetched object against its pointer; returns the original value text. */
export function verifiedValue(pointer: ClaimCheckPointer, body: Buffer): string {
  if (body.length !== pointer.size || sha256Hex(body) !== pointer.sha256)
    throw new ClaimCheckError(
      `claim-check object s3://${pointer.bucket}/${pointer.key} does not match its pointer ` +
        `(${body.length} bytes, expected ${pointer.size} with sha256 ${pointer.sha256})`,
      { permanent: true },
    );
  return body.toString('utf8');
}
