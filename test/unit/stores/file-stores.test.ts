import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { appendFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { OffsetStoreError, SchemaHistoryError } from '../../../src/common/errors.js';
import { FileOffsetStore } from '../../../src/stores/file/file-offset-store.js';
import { FileSchemaHistory } from '../../../src/stores/file/file-schema-history.js';
import type { SchemaHistoryEntry } from '../../../src/stores/schema-history.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cdc-file-stores-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('FileOffsetStore', () => {
  test('load returns null before the first commit, then the last committed offset across instances', async () => {
    const store = new FileOffsetStore({ directory: join(dir, 'a'), connectorName: 'c1' });
    assert.equal(await store.load(), null);
    await store.commit({ file: 'mysql-bin.000001', pos: 4, gtids: '0-1-1' });
    await store.commit({ file: 'mysql-bin.000001', pos: 900, event: 2, row: 1 });
    await store.close();
    const again = new FileOffsetStore({ directory: join(dir, 'a'), connectorName: 'c1' });
    assert.deepEqual(await again.load(), { file: 'mysql-bin.000001', pos: 900, event: 2, row: 1 });
    // No temp files left behind by the atomic write.
    assert.deepEqual(await readdir(join(dir, 'a')), ['c1.offset.json']);
  });

  test('never moves backwards, also in a fresh instance that did not call load()', async () => {
    const store = new FileOffsetStore({ directory: dir, connectorName: 'c2' });
    await store.commit({ file: 'mysql-bin.000002', pos: 100, event: 3 });
    await assert.rejects(store.commit({ file: 'mysql-bin.000002', pos: 100, event: 2 }), OffsetStoreError);
    await assert.rejects(store.commit({ file: 'mysql-bin.000001', pos: 99999 }), /moved backwards/);
    // Equal offsets are fine (snapshot chunk progress at the same binlog position).
    await store.commit({ file: 'mysql-bin.000002', pos: 100, event: 3, snapshot_chunks: { 'db.t': 5 } });
    const fresh = new FileOffsetStore({ directory: dir, connectorName: 'c2' });
    await assert.rejects(fresh.commit({ file: 'mysql-bin.000002', pos: 50 }), OffsetStoreError);
    assert.deepEqual((await fresh.load())?.snapshot_chunks, { 'db.t': 5 });
  });

  test('concurrent commits are applied in call order', async () => {
    const store = new FileOffsetStore({ directory: dir, connectorName: 'c3' });
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.commit({ file: 'b.000001', pos: 10 + i })));
    assert.equal((await store.load())?.pos, 29);
    const raw = JSON.parse(await readFile(store.path, 'utf8')) as { seq: number };
    assert.equal(raw.seq, 20);
  });

  test('a commit is durable on disk without waiting for event-loop turns (a source busy in microtasks)', async () => {
    const store = new FileOffsetStore({ directory: join(dir, 'busy'), connectorName: 'c1' });
    let done = false;
    const committed = store.commit({ file: 'b.000001', pos: 77 }).then(() => {
      done = true;
    });
    // Microtasks only, as a source decoding a buffered backlog: no timers, no I/O callbacks run meanwhile.
    for (let i = 0; i < 50 && !done; i++) await Promise.resolve();
    assert.equal(done, true);
    assert.equal(JSON.parse(readFileSync(join(dir, 'busy', 'c1.offset.json'), 'utf8')).offset.pos, 77);
    await committed;
  });

  test('a commit that cannot write is reported, and leaves no temp file', async () => {
    const store = new FileOffsetStore({ directory: join(dir, 'unwritable'), connectorName: 'c1' });
    assert.equal(await store.load(), null);
    // A directory where the offset file belongs: the rename over it fails.
    await mkdir(join(dir, 'unwritable', 'c1.offset.json'), { recursive: true });
    await assert.rejects(store.commit({ file: 'b.000001', pos: 4 }), (err: Error) => {
      return err instanceof OffsetStoreError && /cannot write/.test(err.message) && err.retriable === true;
    });
    assert.deepEqual(await readdir(join(dir, 'unwritable')), ['c1.offset.json']);
  });

  test('a corrupt file is reported with its path', async () => {
    await writeFile(join(dir, 'bad.offset.json'), '{"offset":');
    const store = new FileOffsetStore({ directory: dir, connectorName: 'bad' });
    await assert.rejects(store.load(), (err: Error) => err instanceof OffsetStoreError && /corrupt/.test(err.message));
  });

  test('rejects connector names that are not safe file names; an explicit path is used as is', async () => {
    assert.throws(() => new FileOffsetStore({ directory: dir, connectorName: '../x' }), OffsetStoreError);
    const path = join(dir, 'custom', 'my offsets.json');
    const store = new FileOffsetStore({ path, connectorName: 'any/name' });
    await store.commit({ file: 'b.000001', pos: 4 });
    assert.equal(JSON.parse(await readFile(path, 'utf8')).offset.pos, 4);
    const history = new FileSchemaHistory({ path: join(dir, 'custom', 'h.ndjson'), connectorName: 'any/name' });
    await history.record(entry(1, 'b.000001', 4));
    assert.equal((await history.recover()).length, 1);
  });
});

function entry(seq: number, file: string, pos: number): SchemaHistoryEntry {
  return {
    seq,
    position: { file, pos },
    ts_ms: 1_700_000_000_000 + seq,
    databaseName: 'shop',
    ddl: `ALTER TABLE t ADD COLUMN c${seq} INT`,
    tableChanges: [{ type: 'ALTER', id: 'shop.t', table: null }],
  };
}

describe('FileSchemaHistory', () => {
  test('records and recovers up to a position, in seq order', async () => {
    const h = new FileSchemaHistory({ directory: join(dir, 'h1'), connectorName: 'c' });
    await h.initializeStorage();
    assert.equal(await h.exists(), false);
    for (let i = 1; i <= 30; i++) await h.record(entry(i, `bin.00000${i <= 15 ? 1 : 2}`, i * 100));
    assert.equal(await h.exists(), true);
    assert.equal((await h.recover()).length, 30);
    const upTo = await h.recover({ file: 'bin.000002', pos: 2000 });
    assert.deepEqual(
      upTo.map((e) => e.seq),
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    assert.deepEqual(await h.recover({ file: 'bin.000001', pos: 150 }), [entry(1, 'bin.000001', 100)]);
  });

  test('tolerates a torn last line and cuts it before the next append', async () => {
    const d = join(dir, 'h2');
    const h = new FileSchemaHistory({ directory: d, connectorName: 'c' });
    await h.record(entry(1, 'bin.000001', 10));
    await appendFile(h.path, '{"seq":2,"position":{"fi');
    const reader = new FileSchemaHistory({ directory: d, connectorName: 'c' });
    assert.deepEqual(
      (await reader.recover()).map((e) => e.seq),
      [1],
    );
    await reader.record(entry(2, 'bin.000001', 20));
    assert.deepEqual(
      (await reader.recover()).map((e) => e.seq),
      [1, 2],
    );
    assert.equal((await readFile(h.path, 'utf8')).split('\n').length, 3);
  });

  test('a corrupt line in the middle fails loudly', async () => {
    const d = join(dir, 'h3');
    const h = new FileSchemaHistory({ directory: d, connectorName: 'c' });
    await h.record(entry(1, 'bin.000001', 10));
    await appendFile(h.path, 'garbage\n');
    await h.record(entry(2, 'bin.000001', 20));
    await assert.rejects(h.recover(), (err: Error) => err instanceof SchemaHistoryError && /line 2/.test(err.message));
  });
});
