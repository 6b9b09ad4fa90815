/** S3 side of the claim-check: write an object durably (checksummed) and read it back. */
import { GetObjectCommand, PutObjectCommand, S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { errorMessage } from '../../common/errors.js';
import { ClaimCheckError } from './envelope.js';

/** Where claim-check payloads live; injectable for tests. */
export interface ClaimCheckStore {
  /** Resolves once S3 acknowledged the write (it is durable then). `sha256` is the body's hex digest. */
  put(bucket: string, key: string, body: Buffer, sha256: string): Promise<void>;
  get(bucket: string, key: string): Promise<Buffer>;
  close(): void;
}

export interface S3ClaimCheckStoreOptions {
  /** Injected client (tests, custom credentials). When absent one is built from `clientConfig`. */
  client?: S3Client;
  /** Config of the client built when `client` is absent; an endpoint override implies path-style addressing. */
  clientConfig?: S3ClientConfig;
}

export class S3ClaimCheckStore implements ClaimCheckStore {
  private readonly client: S3Client;
  private readonly ownsClient: boolean;

  constructor(options: S3ClaimCheckStoreOptions = {}) {
    this.ownsClient = !options.client;
    const cfg = options.clientConfig ?? {};
    // Stand-ins (and most S3-compatible servers) have no per-bucket DNS names.
    this.client = options.client ?? new S3Client({ ...(cfg.endpoint ? { forcePathStyle: true } : {}), ...cfg });
  }

  async put(bucket: string, key: string, body: Buffer, sha256: string): Promise<void> {
    try {
      await this.client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: key,
          Body: body,
          ContentType: 'application/json',
          // S3 checks the body against it and refuses a corrupted upload.
          ChecksumSHA256: Buffer.from(sha256, 'hex').toString('base64'),
        }),
      );
    } catch (err) {
      throw translateS3Error(err, 'PutObject', bucket, key);
    }
  }

  async get(bucket: string, key: string): Promise<Buffer> {
    try {
      const out = await this.client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      if (!out.Body) throw new Error('empty response body');
      return Buffer.from(await out.Body.transformToByteArray());
    } catch (err) {
      throw translateS3Error(err, 'GetObject', bucket, key);
    }
  }

  close(): void {
    if (this.ownsClient) this.client.destroy();
  }
}

/** Name the bucket, the key and what to grant or fix; permanent errors are the ones a retry cannot cure. */
export function translateS3Error(err: unknown, operation: string, bucket: string, key: string): ClaimCheckError {
  const name = (err as { name?: string })?.name ?? 'Error';
  const where = `s3://${bucket}/${key}`;
  let hint: string;
  let permanent = false;
  let readDenied = false;
  switch (name) {
    case 'NoSuchBucket':
      hint = `claim-check bucket "${bucket}" does not exist; create it or fix sink.claim.check.bucket`;
      break;
    case 'NoSuchKey':
      hint = `claim-check object ${where} does not exist (expired by the bucket's lifecycle rule, or never written)`;
      permanent = true;
      break;
    case 'AccessDenied':
    case 'Forbidden':
      if (operation === 'GetObject') {
        // S3 answers a GetObject of a missing key with 403 unless the caller may s3:ListBucket.
        hint = `s3:GetObject on ${where} was denied (${name}); S3 answers so for a missing object too when the role may not s3:ListBucket (the CDK app's consumers may, for the prefix), so the likely cause is an object the bucket's lifecycle rule already expired because its expiry is shorter than how late this consumer reads (stream retention, retries, replays from a dead-letter queue): raise the expiry (CdcPipeline claimCheck.expiration) above the longest consumer lag, and grant s3:ListBucket on the bucket to have a missing object reported as missing; if the object exists, grant the role s3:GetObject on the bucket (and kms:Decrypt on its key)`;
        readDenied = true;
        break;
      }
      hint = `not allowed to call s3:${operation} on ${where} (${name}); grant the role s3:${operation} on the bucket (and kms:${operation === 'PutObject' ? 'GenerateDataKey' : 'Decrypt'} on its key)`;
      break;
    case 'InvalidAccessKeyId':
    case 'SignatureDoesNotMatch':
    case 'ExpiredToken':
      hint = `not allowed to call s3:${operation} on ${where} (${name}); grant the role s3:${operation} on the bucket (and kms:${operation === 'PutObject' ? 'GenerateDataKey' : 'Decrypt'} on its key)`;
      break;
    case 'BadDigest':
    case 'InvalidDigest':
      hint = `S3 refused ${where}: the body does not match its SHA-256 (${name})`;
      break;
    default:
      hint = `s3:${operation} on ${where} failed (${name})`;
  }
  return new ClaimCheckError(`${hint}: ${errorMessage(err)}`, { permanent, cause: err, readDenied });
}
