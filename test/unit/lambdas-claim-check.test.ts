/**
 * lambdas/lib/claim-check.ts on decoded Kinesis events: pointers are swapped for the stored value (schema and
 * header handled); a missing or mismatching object makes the parent record poison with the reason; a transient
 * S3 failure is thrown so the invocation is retried. In-memory store, no network.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import type { KinesisStreamRecord } from 'aws-lambda';
import { resolveClaimChecks } from '../../lambdas/lib/claim-check.js';
import { decodeEvent } from '../../lambdas/lib/kinesis-input.js';
import { CLAIM_CHECK_HEADER, ClaimCheckError, claimCheckValue } from '../../src/sinks/claim-check/envelope.js';
import { ClaimCheckResolver } from '../../src/sinks/claim-check/resolver.js';
import { type ClaimCheckStore, translateS3Error } from '../../src/sinks/claim-check/s3-store.js';

class Store implements ClaimCheckStore {
  readonly objects = new Map<string, Buffer>();
  transient = false;
  async put(_b: string, key: string, body: Buffer): Promise<void> {
    this.objects.set(key, body);
  }
  async get(_b: string, key: string): Promise<Buffer> {
    if (this.transient) throw new ClaimCheckError('s3:GetObject failed (SlowDown)', { permanent: false });
    const b = this.objects.get(key);
    if (!b) throw new ClaimCheckError(`claim-check object ${key} does not exist`, { permanent: true });
    return b;
  }
  close(): void {}
}

const original = JSON.stringify({
  before: null,
  after: { id: 7, doc: 'z'.repeat(5000) },
  source: { db: 'shop', table: 'docs', file: 'mysql-bin.000001', pos: 9, row: 0 },
  op: 'c',
  ts_ms: 1,
});

function pointerRecord(store: Store, key: string, body = original, seq = '1'): KinesisStreamRecord {
  const sha256 = createHash('sha256').update(body).digest('hex');
  store.objects.set(key, Buffer.from(body));
  const pointer = { bucket: 'b', key, size: Buffer.byteLength(body), sha256, content: 'value' as const };
  const line = JSON.stringify({
    topic: 'it.shop.docs',
    key: { id: 7 },
    value: JSON.parse(claimCheckValue(body, pointer)),
    headers: { [CLAIM_CHECK_HEADER]: pointer },
  });
  return {
    kinesis: {
      kinesisSchemaVersion: '1.0',
      partitionKey: '{"id":7}',
      sequenceNumber: seq,
      data: Buffer.from(line).toString('base64'),
      approximateArrivalTimestamp: 1,
    },
    eventSource: 'aws:kinesis',
    eventVersion: '1.0',
    eventID: `shardId-000000000000:${seq}`,
    eventName: 'aws:kinesis:record',
    invokeIdentityArn: 'arn:aws:iam::000000000000:role/test',
    awsRegion: 'us-east-1',
    eventSourceARN: 'arn:aws:kinesis:us-east-1:000000000000:stream/docs',
  };
}

test('pointers resolve to the stored value; the header is dropped; others pass', async () => {
  const store = new Store();
  const parents = decodeEvent([pointerRecord(store, 'k1')], 'record');
  const resolver = new ClaimCheckResolver(store);
  assert.equal(await resolveClaimChecks(parents, () => resolver), 1);
  const r = parents[0].records[0].record;
  assert.deepEqual(r.value, JSON.parse(original));
  assert.equal(r.headers[CLAIM_CHECK_HEADER], undefined);
  assert.equal(parents[0].error, undefined);
});

test('a missing or tampered object makes the record poison with the reason; transient failures throw', async () => {
  const store = new Store();
  const gone = pointerRecord(store, 'gone', original, '1');
  store.objects.delete('gone');
  const tampered = pointerRecord(store, 'tampered', original, '2');
  store.objects.set('tampered', Buffer.from(original.replace('zzz', 'zzy')));
  const fine = pointerRecord(store, 'fine', original, '3');
  const parents = decodeEvent([gone, tampered, fine], 'record');
  const resolver = new ClaimCheckResolver(store);
  assert.equal(await resolveClaimChecks(parents, () => resolver), 1);
  assert.match(parents[0].error ?? '', /claim-check: .*gone does not exist/);
  assert.match(parents[1].error ?? '', /does not match its pointer/);
  assert.deepEqual(parents[0].records, []);
  assert.equal(parents[2].error, undefined);

  store.transient = true;
  const again = decodeEvent([fine], 'record');
  await assert.rejects(
    resolveClaimChecks(again, () => resolver),
    /SlowDown/,
  );
});

test('a denied read names the likely cause (expired by the lifecycle rule) and the fixes, with the record age', async () => {
  const store = new Store();
  const denied = Object.assign(new Error('Access Denied'), { name: 'AccessDenied' });
  store.get = async (b, key) => {
    throw translateS3Error(denied, 'GetObject', b, key);
  };
  const record = pointerRecord(store, 'old');
  record.kinesis.approximateArrivalTimestamp = (Date.now() - 30 * 3_600_000) / 1000;
  const parents = decodeEvent([record], 'record');
  const err = await resolveClaimChecks(parents, () => new ClaimCheckResolver(store)).then(
    () => null,
    (e: unknown) => e as ClaimCheckError,
  );
  assert.ok(err instanceof ClaimCheckError, 'thrown: retried, since a grant can fix it');
  assert.equal(err.permanent, false);
  assert.match(err.message, /s3:GetObject on s3:\/\/b\/old was denied \(AccessDenied\)/);
  assert.match(err.message, /lifecycle rule already expired/);
  assert.match(err.message, /claimCheck\.expiration/);
  assert.match(err.message, /s3:ListBucket/);
  assert.match(err.message, /the record arrived 30\.0 h ago/);
  // A denied write stays a grant problem.
  assert.match(translateS3Error(denied, 'PutObject', 'b', 'k').message, /grant the role s3:PutObject/);
});
