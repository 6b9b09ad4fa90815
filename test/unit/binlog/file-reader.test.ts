/** readBinlogDirectory ordering (.index first, else sorted names) and reader edge cases. */
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { BinlogDecodeError } from '../../../src/source/mysql/binlog/errors.js';
import { readBinlogDirectory, readBinlogFile } from '../../../src/source/mysql/binlog/file-reader.js';
import { fixture } from './helpers.js';

const dir = mkdtempSync(path.join(tmpdir(), 'binlog-dir-'));
after(() => rmSync(dir, { recursive: true, force: true }));

async function collect(it: AsyncIterable<{ file?: string; position: number }>) {
  const out: Array<[string | undefined, number]> = [];
  for await (const e of it) out.push([e.file, e.position]);
  return out;
}

describe('binlog file reader', () => {
  it('reads a directory in .index order, then falls back to sorted names', async () => {
    copyFileSync(fixture('rust_mysql_common/time_issue.000001'), path.join(dir, 'bin.000001'));
    copyFileSync(fixture('rust_mysql_common/minimal_row_metadata.000001'), path.join(dir, 'bin.000002'));
    writeFileSync(path.join(dir, 'notes.txt'), 'not a binlog');
    const sorted = await collect(readBinlogDirectory(dir));
    assert.equal(sorted.length, 16);
    assert.deepEqual(sorted[0], ['bin.000001', 4]);
    assert.equal(sorted[8][0], 'bin.000002');
    writeFileSync(path.join(dir, 'bin.index'), './bin.000002\n./bin.000001\n');
    const indexed = await collect(readBinlogDirectory(dir));
    assert.equal(indexed[0][0], 'bin.000002');
    assert.equal(indexed[15][0], 'bin.000001');
  });

  it('rejects a file without the binlog magic', async () => {
    const p = path.join(dir, 'bad.bin');
    writeFileSync(p, Buffer.from('hello world, not a binlog'));
    await assert.rejects(collect(readBinlogFile(p)), (err: unknown) => {
      assert.ok(err instanceof BinlogDecodeError);
      assert.match(err.message, /not a binlog file: expected magic fe 62 69 6e at position 0/);
      return true;
    });
  });

  it('yields complete events, then fails on a cut-off tail with its position', async () => {
    const src = fixture('mysql-binlog-connector-java/mysql-bin.checksum-crc32');
    const { readFileSync } = await import('node:fs');
    const bytes = readFileSync(src);
    const p = path.join(dir, 'cut.000001');
    writeFileSync(p, bytes.subarray(0, 1000));
    const seen: number[] = [];
    await assert.rejects(
      async () => {
        for await (const e of readBinlogFile(p, { highWaterMark: 64 })) seen.push(e.position);
      },
      (err: unknown) => err instanceof BinlogDecodeError && /truncated event at position \d+/.test(err.message),
    );
    assert.ok(seen.length > 3);
    assert.ok(seen[seen.length - 1] < 1000);
  });
});
