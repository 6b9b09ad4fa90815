import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { describe, it, mock } from 'node:test';
import { decodeMskIamToken, mskIamTokenProvider } from '../../../../src/sinks/kafka/msk-iam.js';

const CREDS = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  sessionToken: 'session/token+1',
};
const NOW = Date.UTC(2024, 0, 2, 3, 4, 5);

/** SigV4 query-string signature recomputed independently (AWS docs, "Authenticating Requests: Using Query Parameters"). */
function expectedSignature(url: URL): string {
  const enc = (s: string) =>
    encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  // User-Agent is appended after signing, so it is not part of the signature.
  const params = [...url.searchParams].filter(([k]) => k !== 'X-Amz-Signature' && k !== 'User-Agent');
  const query = params
    .map(([k, v]) => [enc(k), enc(v)])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const canonical = [
    'GET',
    '/',
    query,
    `host:${url.host}`,
    '',
    'host',
    createHash('sha256').update('').digest('hex'),
  ].join('\n');
  const date = url.searchParams.get('X-Amz-Date') ?? '';
  const scope = `${date.slice(0, 8)}/us-east-1/kafka-cluster/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', date, scope, createHash('sha256').update(canonical).digest('hex')].join('\n');
  let key: Buffer = createHmac('sha256', `AWS4${CREDS.secretAccessKey}`).update(date.slice(0, 8)).digest();
  for (const part of ['us-east-1', 'kafka-cluster', 'aws4_request'])
    key = createHmac('sha256', key).update(part).digest();
  return createHmac('sha256', key).update(toSign).digest('hex');
}

describe('MSK IAM token provider', () => {
  it('signs a kafka-cluster:Connect presigned URL, deterministic for fixed credentials and clock', async (t) => {
    t.mock.timers.enable({ apis: ['Date'], now: NOW });
    const credentials = mock.fn(async () => CREDS);
    const token = await mskIamTokenProvider({ region: 'us-east-1', credentials })();
    const again = await mskIamTokenProvider({ region: 'us-east-1', credentials })();
    assert.equal(again, token);
    assert.match(token, /^[A-Za-z0-9_-]+$/, 'base64url without padding');

    const url = decodeMskIamToken(token);
    assert.equal(url.protocol, 'https:');
    assert.equal(url.host, 'kafka.us-east-1.amazonaws.com');
    const q = url.searchParams;
    assert.equal(q.get('Action'), 'kafka-cluster:Connect');
    assert.equal(q.get('X-Amz-Algorithm'), 'AWS4-HMAC-SHA256');
    assert.equal(q.get('X-Amz-Credential'), 'AKIDEXAMPLE/20240102/us-east-1/kafka-cluster/aws4_request');
    assert.equal(q.get('X-Amz-Date'), '20240102T030405Z');
    assert.equal(q.get('X-Amz-Expires'), '900');
    assert.equal(q.get('X-Amz-SignedHeaders'), 'host');
    assert.equal(q.get('X-Amz-Security-Token'), CREDS.sessionToken);
    assert.equal(q.get('X-Amz-Signature'), expectedSignature(url));
  });

  it('reuses a token until shortly before it expires, then signs a new one', async (t) => {
    t.mock.timers.enable({ apis: ['Date'], now: NOW });
    const credentials = mock.fn(async () => CREDS);
    const provider = mskIamTokenProvider({ region: 'us-east-1', credentials, refreshBeforeExpiryMs: 60_000 });
    const first = await provider();
    t.mock.timers.tick(13 * 60_000);
    assert.equal(await provider(), first);
    assert.equal(credentials.mock.callCount(), 1);
    t.mock.timers.tick(60_000); // 14 min: inside the refresh margin of a 15 min token
    const second = await provider();
    assert.notEqual(second, first);
    assert.equal(decodeMskIamToken(second).searchParams.get('X-Amz-Date'), '20240102T031805Z');
    assert.equal(credentials.mock.callCount(), 2);
  });
});
