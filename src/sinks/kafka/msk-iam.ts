/**
 * Amazon MSK IAM authentication: SASL/OAUTHBEARER with a token that is a base64url-encoded SigV4-presigned URL
 * `https://kafka.<region>.amazonaws.com/?Action=kafka-cluster:Connect&...` (15 minutes), signed with credentials from
 * the AWS default chain (task role, env, profile, ...). Signing is done by AWS's `aws-msk-iam-sasl-signer-js`.
 */
import { generateAuthToken, generateAuthTokenFromCredentialsProvider } from 'aws-msk-iam-sasl-signer-js';

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiration?: Date;
}

export interface MskIamTokenProviderOptions {
  region: string;
  /** Credentials source; default: the AWS default credential chain. */
  credentials?: () => Promise<AwsCredentials>;
  /**
   * A cached token is reused until this long before it expires (tokens live 15 minutes; brokers check the expiry
   * only when a connection authenticates).
   * @default 120000
   */
  refreshBeforeExpiryMs?: number;
  /** Clock for the cache (tests). @default Date.now */
  now?: () => number;
}

/** A token provider for @platformatic/kafka's `sasl.token`: one signature per ~13 minutes, shared by connections. */
export function mskIamTokenProvider(options: MskIamTokenProviderOptions): () => Promise<string> {
  const now = options.now ?? Date.now;
  const margin = options.refreshBeforeExpiryMs ?? 120_000;
  let cached: { token: string; expiryTime: number } | null = null;
  let inflight: Promise<string> | null = null;
  return () => {
    if (cached && now() < cached.expiryTime - margin) return Promise.resolve(cached.token);
    inflight ??= (async () => {
      try {
        const { credentials, region } = options;
        const out = credentials
          ? await generateAuthTokenFromCredentialsProvider({ region, awsCredentialsProvider: credentials })
          : await generateAuthToken({ region });
        cached = out;
        return out.token;
      } finally {
        inflight = null;
      }
    })();
    return inflight;
  };
}

/** Decodes a token back to its presigned URL (diagnostics and tests). */
export function decodeMskIamToken(token: string): URL {
  return new URL(Buffer.from(token, 'base64url').toString('utf8'));
}
