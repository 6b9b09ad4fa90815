import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { SinkError } from '../../../src/common/errors.js';
import { recordLine } from '../../../src/model/record-line.js';
import type { SinkRecord } from '../../../src/model/sink-record.js';
import { FileSink, StdoutSink } from '../../../src/sinks/file/file-sink.js';

const records: SinkRecord[] = [
  {
    topic: 'app.shop.orders',
    key: '{"id":1}',
    value: '{"op":"c","after":{"id":1,"note":"line\\nbreak \\"q\\""}}',
    headers: { '__debezium.oldkey': '{"id":0}' },
    table: 'shop.orders',
    sizeBytes: 80,
  },
  { topic: 'app.shop.orders', key: '{"id":1}', value: null, table: 'shop.orders', sizeBytes: 8 },
  { topic: 'app', key: null, value: '{"ddl":"CREATE TABLE x (a int)"}', sizeBytes: 30 },
];

test('recordLine splices JSON text and parses back to the original values', () => {
  const parsed = records.map((r) => JSON.parse(recordLine(r)));
  assert.deepEqual(parsed[0], {
    topic: 'app.shop.orders',
    key: { id: 1 },
    value: { op: 'c', after: { id: 1, note: 'line\nbreak "q"' } },
    headers: { '__debezium.oldkey': { id: 0 } },
  });
  assert.deepEqual(parsed[1], { topic: 'app.shop.orders', key: { id: 1 }, value: null, headers: {} });
  assert.equal(parsed[2].key, null);
  // Pretty-printed JSON text is folded so one record stays one line.
  const pretty = recordLine({ topic: 't', key: '{\n  "id": 2\n}', value: null, sizeBytes: 0 });
  assert.equal(pretty.indexOf('\n'), pretty.length - 1);
  assert.deepEqual(JSON.parse(pretty).key, { id: 2 });
});

test('FileSink appends one line per record across batches and restarts', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'cdc-file-sink-'));
  try {
    const path = join(dir, 'nested', 'out.ndjson');
    const sink = new FileSink({ path });
    await assert.rejects(sink.send(records), SinkError);
    await sink.start();
    await sink.send(records.slice(0, 2));
    await sink.send([]);
    await sink.close();
    const again = new FileSink({ path });
    await again.start();
    await again.send(records.slice(2));
    await again.close();
    const lines = (await readFile(path, 'utf8')).trimEnd().split('\n');
    assert.equal(lines.length, 3);
    assert.deepEqual(
      lines.map((l) => JSON.parse(l).value?.op ?? null),
      ['c', null, null],
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('StdoutSink writes the same lines to the given stream', async () => {
  const stream = new PassThrough();
  const chunks: string[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c.toString('utf8')));
  const sink = new StdoutSink({ stream });
  await sink.start();
  await sink.send(records);
  await sink.close();
  assert.equal(chunks.join(''), records.map(recordLine).join(''));
});

test('FileSink cuts a torn last line (a killed writer) before appending', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'file-sink-torn-'));
  const path = join(dir, 'out.ndjson');
  writeFileSync(path, '{"topic":"a","key":null,"value":null}\n{"topic":"b","ke');
  const sink = new FileSink({ path });
  await sink.start();
  await sink.send([{ topic: 'c', key: null, value: '{"x":1}', sizeBytes: 7 }]);
  await sink.close();
  const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
  assert.deepEqual(
    lines.map((l) => (JSON.parse(l) as { topic: string }).topic),
    ['a', 'c'],
  );
});

test('after a failed append (injected ENOSPC mid-write) the retried batch starts on a clean line boundary', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'cdc-file-enospc-'));
  try {
    const path = join(dir, 'out.ndjson');
    // Injected failure: the handle writes half of the text, then reports ENOSPC (a short write on a full disk).
    // On the second failure the cut-back truncate fails too (EIO), so the sink must cut before its next write.
    let writes = 0;
    let truncateFails = false;
    const openFile = async (p: string, flags: 'a') => {
      const real = await open(p, flags);
      return {
        async writeFile(data: string, encoding: 'utf8') {
          writes++;
          if (writes === 2 || writes === 3) {
            truncateFails = writes === 3;
            await real.writeFile(data.slice(0, Math.floor(data.length / 2)), encoding);
            throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
          }
          await real.writeFile(data, encoding);
        },
        sync: () => real.sync(),
        async truncate(len: number) {
          if (truncateFails) {
            truncateFails = false;
            throw Object.assign(new Error('EIO: i/o error'), { code: 'EIO' });
          }
          await real.truncate(len);
        },
        stat: () => real.stat(),
        close: () => real.close(),
      };
    };
    const sink = new FileSink({ path, openFile });
    await sink.start();
    const retriable = (e: unknown) => e instanceof SinkError && e.retriable;
    await sink.send([records[0]]);
    // The same batch, as the Publisher retries it: twice refused, then written.
    await assert.rejects(sink.send([records[1]]), retriable);
    await assert.rejects(sink.send([records[1]]), retriable);
    await sink.send([records[1]]);
    await sink.send([records[2]]);
    await sink.close();
    assert.equal(await readFile(path, 'utf8'), records.map(recordLine).join(''));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
