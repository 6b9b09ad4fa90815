import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recordLine } from '../../../src/model/record-line.js';
import { recordSize, type SinkRecord } from '../../../src/model/sink-record.js';
import {
  fromRecordLine,
  fromSinkRecord,
  RecordLineError,
  toRecordLine,
  toSinkRecord,
} from '../../../src/transforms/record.js';

const sink = (key: string | null, value: string | null, headers?: Record<string, string>): SinkRecord => ({
  topic: 't.db.tbl',
  key,
  value,
  ...(headers ? { headers } : {}),
  table: 'db.tbl',
  sizeBytes: recordSize(key, value, headers),
});

test('SinkRecord → parsed → SinkRecord is byte-identical for compact JSON (big integers included)', () => {
  const r = sink('{"id":18446744073709551615}', '{"before":null,"after":{"id":18446744073709551615},"op":"c"}', {
    '__debezium.oldkey': '{"id":1}',
  });
  const parsed = fromSinkRecord(r);
  assert.deepEqual(parsed.headers, { '__debezium.oldkey': { id: 1 } });
  assert.deepEqual(toSinkRecord(parsed), r);
});

test('schema-wrapped values are split and re-wrapped; tombstones stay null', () => {
  const r = sink('{"schema":{"type":"int32"},"payload":1}', '{"schema":{"type":"struct"},"payload":{"op":"c"}}');
  const parsed = fromSinkRecord(r);
  assert.deepEqual(parsed.value, { op: 'c' });
  assert.deepEqual(parsed.valueSchema, { type: 'struct' });
  assert.equal(parsed.key, 1);
  assert.deepEqual(toSinkRecord(parsed), r);
  const tomb = sink('{"id":1}', null);
  assert.deepEqual(toSinkRecord(fromSinkRecord(tomb)), tomb);
});

test('file sink NDJSON lines round-trip through the parsed form', () => {
  const r = sink('{"id":1}', '{"op":"d"}', { h: '"x"' });
  const line = recordLine(r);
  const parsed = fromRecordLine(line.trimEnd());
  assert.equal(parsed.topic, 't.db.tbl');
  assert.deepEqual(parsed.key, { id: 1 });
  assert.equal(toRecordLine(parsed), line);
  assert.throws(() => fromRecordLine('{"key":1}'), RecordLineError);
  assert.throws(() => fromRecordLine('{"topic":"t","headers":[1]}'), /headers/);
});
