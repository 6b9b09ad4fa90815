import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import agg from 'aws-kinesis-agg';
import {
  AggregateBuilder,
  aggregate,
  deaggregate,
  isAggregated,
  KplDecodeError,
  partitionKeyHash,
  type UserRecord,
} from '../../../src/sinks/kinesis/kpl-aggregation.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const FIXTURES = resolve(repoRoot, '../shared/fixtures/kpl');

function fixturesDir(): string {
  if (!existsSync(join(FIXTURES, 'vectors'))) {
    throw new Error(
      `KPL fixtures missing: expected ${FIXTURES}/vectors (the shared fixtures live beside the repo at ../shared)`,
    );
  }
  return FIXTURES;
}

function deaggWithReference(pk: string, blob: Buffer): Array<{ partitionKey: string; data: Buffer }> {
  let out: Array<{ partitionKey: string; data: Buffer }> | undefined;
  let error: Error | undefined;
  agg.deaggregateSync(
    { partitionKey: pk, data: blob.toString('base64'), sequenceNumber: '1' } as never,
    true,
    (err: Error | null | undefined, records?: Array<{ partitionKey: string; data: string }>) => {
      if (err) error = err;
      out = records?.map((r) => ({ partitionKey: r.partitionKey, data: Buffer.from(r.data, 'base64') }));
    },
  );
  if (error) throw error;
  return out!;
}

function randomRecords(n: number, seed: number): UserRecord[] {
  let s = seed;
  const rnd = () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
  return Array.from({ length: n }, (_, i) => ({
    partitionKey: `{"id":${Math.floor(rnd() * 50)}}${'ü'.repeat(i % 3)}`,
    data: Buffer.from(`{"op":"u","i":${i},"pad":"${'x'.repeat(Math.floor(rnd() * 400))}"}`),
  }));
}

test('our aggregates deaggregate with aws-kinesis-agg to exactly the records sent, in order', () => {
  for (const n of [2, 7, 200, 1500]) {
    const records = randomRecords(n, n);
    const blob = aggregate(records);
    assert.ok(isAggregated(blob));
    assert.deepEqual(
      deaggWithReference(records[0].partitionKey, blob),
      records.map((r) => ({ partitionKey: r.partitionKey, data: r.data })),
    );
    assert.deepEqual(deaggregate({ partitionKey: 'x', data: blob }), records);
  }
});

test('AggregateBuilder predicts its exact encoded size as records are added', () => {
  const b = new AggregateBuilder();
  for (const r of randomRecords(300, 7)) {
    const predicted = b.sizeWith(r);
    b.add(r);
    assert.equal(b.size, predicted);
  }
  assert.equal(b.build().length, b.size);
  // Varint boundaries: data lengths around 127/128 and 16383/16384, and > 127 table entries.
  const edge = new AggregateBuilder();
  for (const len of [0, 127, 128, 16383, 16384, 70000])
    edge.add({ partitionKey: `k${len}`, data: Buffer.alloc(len, 1) });
  for (let i = 0; i < 200; i++) edge.add({ partitionKey: `p${i}`, explicitHashKey: `${i}`, data: Buffer.from('d') });
  const blob = edge.build();
  assert.equal(blob.length, edge.size);
  assert.equal(deaggregate({ partitionKey: 'x', data: blob }).length, 206);
});

test('explicit hash keys round-trip and repeated keys are stored once', () => {
  const records: UserRecord[] = [
    { partitionKey: 'a', explicitHashKey: '5', data: Buffer.from('1') },
    { partitionKey: 'a', explicitHashKey: '5', data: Buffer.from('2') },
    { partitionKey: 'b', data: Buffer.from('3') },
  ];
  const blob = aggregate(records);
  assert.deepEqual(deaggregate({ partitionKey: 'x', data: blob }), records);
  assert.equal(blob.toString('latin1').split('a').length - 1, 1);
});

test('partitionKeyHash is MD5 read as a 128-bit big-endian integer (SampleLambdaEvent: pk "abc")', () => {
  assert.equal(partitionKeyHash('abc').toString(), '191415658344158766168031473277922803570');
  assert.equal(partitionKeyHash('').toString(16), 'd41d8cd98f00b204e9800998ecf8427e');
});

test('non-aggregated and checksum-mismatched records pass through unchanged; bad protobuf with good MD5 throws', () => {
  const plain = Buffer.from('hello');
  assert.deepEqual(deaggregate({ partitionKey: 'k', data: plain }), [{ partitionKey: 'k', data: plain }]);
  const blob = aggregate(randomRecords(3, 1));
  const corrupt = Buffer.from(blob);
  corrupt[10] ^= 0xff;
  assert.equal(isAggregated(corrupt), false);
  assert.deepEqual(deaggregate({ partitionKey: 'k', data: corrupt }), [{ partitionKey: 'k', data: corrupt }]);
  // Record index pointing past the table, with a valid checksum.
  const bad = new AggregateBuilder();
  bad.add({ partitionKey: 'a', data: Buffer.from('x') });
  const built = bad.build();
  // Drop the partition key table entry (tag, length 1, 'a'): the record's index 0 now points nowhere.
  const recordField = built.subarray(4 + 3, built.length - 16);
  const forged = Buffer.concat([built.subarray(0, 4), recordField, createHash('md5').update(recordField).digest()]);
  assert.throws(() => deaggregate({ partitionKey: 'k', data: forged }), KplDecodeError);
});

interface Vector {
  input: {
    kinesis?: { partitionKey: string; data: string };
    data?: string;
    kinesisStreamRecordMetadata?: { partitionKey: string };
  };
  expected_user_records: Array<{ partitionKey: string; explicitHashKey?: string | null; data: string }>;
}

test('decodes the real KPL test vectors with our deaggregator', () => {
  const dir = join(fixturesDir(), 'vectors');
  const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  assert.ok(files.length >= 4, `expected at least 4 vectors in ${dir}`);
  for (const f of files) {
    const v = JSON.parse(readFileSync(join(dir, f), 'utf8')) as Vector;
    const pk = v.input.kinesis?.partitionKey ?? v.input.kinesisStreamRecordMetadata!.partitionKey;
    const data = Buffer.from(v.input.kinesis?.data ?? v.input.data!, 'base64');
    const got = deaggregate({ partitionKey: pk, data }).map((u) => ({
      partitionKey: u.partitionKey,
      explicitHashKey: u.explicitHashKey ?? null,
      data: u.data.toString('utf8'),
    }));
    const want = v.expected_user_records.map((e) => ({
      partitionKey: e.partitionKey,
      explicitHashKey: e.explicitHashKey ?? null,
      data: e.data,
    }));
    assert.deepEqual(got, want, f);
  }
  const sample = JSON.parse(
    readFileSync(join(fixturesDir(), 'kinesis-aggregation/SampleLambdaEvent.json'), 'utf8'),
  ) as {
    Records: Array<{ kinesis: { partitionKey: string; data: string } }>;
  };
  const users = deaggregate({
    partitionKey: sample.Records[0].kinesis.partitionKey,
    data: Buffer.from(sample.Records[0].kinesis.data, 'base64'),
  });
  assert.equal(users.length, 100);
  assert.ok(users.every((u) => u.partitionKey === 'abc' && u.explicitHashKey === partitionKeyHash('abc').toString()));
  assert.equal(users[1].data.toString(), 'zyxwvutsrqponmlkjihgfedcba');
});
