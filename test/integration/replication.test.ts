/**
 * The live replication transport against a real MariaDB: event order and positions, resume by file/position and
 * by GTID, lost positions, auth failures, reconnect after KILL, heartbeat watchdog, backpressure, >16 MiB events.
 */
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import { describe, test } from 'node:test';
import { crc32 } from 'node:zlib';
import { BinlogDecoder } from '../../src/source/mysql/binlog/decoder.js';
import {
  BinlogAuthError,
  BinlogPositionLostError,
  BinlogReplicationClient,
  type BinlogReplicationClientOptions,
  type BinlogStartPosition,
  EventType,
  type RawBinlogEvent,
  ResilientBinlogStream,
} from '../../src/source/mysql/binlog/replication/index.js';
import { useMariaDb } from '../harness/fixtures.js';
import { waitFor } from '../harness/wait.js';

const WRITE_ROWS_V1 = 23;
const UPDATE_ROWS_V1 = 24;
const DELETE_ROWS_V1 = 25;
const TIMEOUT = { timeout: 60_000 };

const server = useMariaDb({ serverId: 1, options: { 'max-allowed-packet': '64M' } });
let nextServerId = 100;

function clientOptions(start: BinlogStartPosition, extra: Partial<BinlogReplicationClientOptions> = {}) {
  const s = server();
  return {
    connection: { host: s.host, port: s.port, user: s.admin.user, password: s.admin.password },
    serverId: nextServerId++,
    start,
    ...extra,
  };
}

async function masterPosition(): Promise<{ file: string; pos: number; gtid: string }> {
  const [st] = await server().query<{ File: string; Position: number }[]>('SHOW MASTER STATUS');
  const [g] = await server().query<{ g: string }[]>('SELECT @@gtid_binlog_pos AS g');
  return { file: st.File, pos: Number(st.Position), gtid: g.g };
}

/** Pulls events until `until` says stop (inclusive), then ends the iteration (which stops the client). */
async function collect(
  source: AsyncIterable<RawBinlogEvent>,
  until: (ev: RawBinlogEvent, all: RawBinlogEvent[]) => boolean,
  onEvent?: (ev: RawBinlogEvent) => Promise<void> | void,
): Promise<RawBinlogEvent[]> {
  const all: RawBinlogEvent[] = [];
  for await (const ev of source) {
    all.push(ev);
    await onEvent?.(ev);
    if (until(ev, all)) break;
  }
  return all;
}

const count = (evs: RawBinlogEvent[], type: number) => evs.filter((e) => e.typeCode === type).length;
const untilXids = (n: number) => (_: RawBinlogEvent, all: RawBinlogEvent[]) => count(all, EventType.XID) >= n;
/** Events that sit in the binlog file (not the fake ROTATE, not the FORMAT_DESCRIPTION resent mid-file). */
const inFile = (evs: RawBinlogEvent[]) => evs.filter((e) => !e.artificial && e.nextPosition > e.position);

function assertChecksum(ev: RawBinlogEvent): void {
  const body = ev.raw.subarray(0, ev.raw.length - 4);
  assert.equal(crc32(body), ev.raw.readUInt32LE(ev.raw.length - 4), `CRC32 of event at ${ev.file}:${ev.position}`);
}

function assertContiguous(evs: RawBinlogEvent[]): void {
  for (let i = 1; i < evs.length; i++) {
    assert.equal(evs[i].file, evs[i - 1].file);
    assert.equal(evs[i].position, evs[i - 1].nextPosition, `gap or duplicate before event ${i}`);
  }
}

describe('BinlogReplicationClient', () => {
  // Shared by the resume tests: three transactions streamed from `before`.
  let db = '';
  let before: { file: string; pos: number; gtid: string };
  let reference: RawBinlogEvent[] = [];

  test('streams an INSERT, UPDATE and DELETE in order with positions and checksums', TIMEOUT, async () => {
    const s = server();
    db = await s.createDatabase('repl');
    await s.query(`CREATE TABLE ${db}.t (id INT PRIMARY KEY, v VARCHAR(20))`);
    before = await masterPosition();
    await s.query(`INSERT INTO ${db}.t VALUES (1, 'a')`);
    await s.query(`UPDATE ${db}.t SET v = 'b' WHERE id = 1`);
    await s.query(`DELETE FROM ${db}.t WHERE id = 1`);

    const client = new BinlogReplicationClient(clientOptions({ file: before.file, pos: before.pos }));
    await client.start();
    assert.equal(client.session?.flavor, 'mariadb');
    assert.equal(client.session?.checksumAlgorithm, 'CRC32');
    const evs = await collect(client, untilXids(3));

    // The server opens with a fake ROTATE naming our start, then the file's FORMAT_DESCRIPTION.
    assert.equal(evs[0].typeCode, EventType.ROTATE);
    assert.ok(evs[0].artificial);
    assert.deepEqual([evs[0].file, evs[0].position], [before.file, before.pos]);
    assert.equal(evs[1].typeCode, EventType.FORMAT_DESCRIPTION);

    reference = inFile(evs);
    const types = reference.map((e) => e.typeCode);
    const txn = (rows: number) => [EventType.MARIADB_GTID, EventType.MARIADB_ANNOTATE_ROWS, EventType.TABLE_MAP, rows];
    assert.deepEqual(types, [
      ...txn(WRITE_ROWS_V1),
      EventType.XID,
      ...txn(UPDATE_ROWS_V1),
      EventType.XID,
      ...txn(DELETE_ROWS_V1),
      EventType.XID,
    ]);
    assert.equal(reference[0].position, before.pos);
    assertContiguous(reference);
    for (const ev of evs) assertChecksum(ev);
    // ANNOTATE_ROWS carries the statement text: proof the events are the ones we caused.
    assert.match(reference[1].raw.toString('latin1'), /INSERT INTO .*\.t VALUES \(1, 'a'\)/);
    assert.match(reference[6].raw.toString('latin1'), /UPDATE .*\.t SET v = 'b'/);
    // And the decoder (which verifies every CRC32) reads the row changes back from the raw events.
    const decoder = new BinlogDecoder();
    decoder.setChecksum(client.session?.checksumAlgorithm === 'CRC32' ? 'CRC32' : 'NONE');
    const changes = evs
      .map((e) => decoder.decode(e.raw, e.position))
      .flatMap((d): unknown[][] => {
        if (d.type === 'WRITE_ROWS' || d.type === 'DELETE_ROWS') return [[d.type, d.table.table, ...d.rows]];
        if (d.type === 'UPDATE_ROWS') return [[d.type, d.table.table, ...d.rows.map((r) => [r.before, r.after])]];
        return [];
      });
    assert.deepEqual(changes, [
      ['WRITE_ROWS', 't', [1, 'a']],
      [
        'UPDATE_ROWS',
        't',
        [
          [1, 'a'],
          [1, 'b'],
        ],
      ],
      ['DELETE_ROWS', 't', [1, 'b']],
    ]);
    assert.equal(client.state.connected, false);
    assert.ok(client.state.bytesReceived >= reference.reduce((n, e) => n + e.raw.length, 0));
  });

  test('resumes from a file/position with exactly the remaining events', TIMEOUT, async () => {
    const firstXid = reference.findIndex((e) => e.typeCode === EventType.XID);
    const resume = { file: reference[firstXid].file, pos: reference[firstXid].nextPosition };
    const client = new BinlogReplicationClient(clientOptions(resume));
    const evs = inFile(await collect(client, untilXids(2)));
    const expected = reference.slice(firstXid + 1);
    assert.deepEqual(
      evs.map((e) => [e.position, e.nextPosition, e.typeCode]),
      expected.map((e) => [e.position, e.nextPosition, e.typeCode]),
    );
    for (let i = 0; i < evs.length; i++) assert.ok(evs[i].raw.equals(expected[i].raw));
  });

  test('resumes from a MariaDB GTID with exactly the later transactions', TIMEOUT, async () => {
    const s = server();
    await s.query(`INSERT INTO ${db}.t VALUES (10, 'x')`);
    const between = await masterPosition();
    await s.query(`INSERT INTO ${db}.t VALUES (11, 'y')`);
    await s.query(`INSERT INTO ${db}.t VALUES (12, 'z')`);

    const client = new BinlogReplicationClient(clientOptions({ gtidSet: between.gtid }));
    const evs = await collect(client, untilXids(2));
    const real = inFile(evs);
    // Nothing of the transaction before the GTID; the first real transaction starts where it ended.
    const firstGtid = real.find((e) => e.typeCode === EventType.MARIADB_GTID);
    assert.equal(firstGtid?.position, between.pos);
    const txnEvents = real.filter((e) => e.position >= between.pos);
    assertContiguous(txnEvents);
    const annotations = txnEvents
      .filter((e) => e.typeCode === EventType.MARIADB_ANNOTATE_ROWS)
      .map((e) => /VALUES \((\d+)/.exec(e.raw.toString('latin1'))?.[1]);
    assert.deepEqual(annotations, ['11', '12']);
    assert.equal(count(txnEvents, EventType.XID), 2);
    // The GTID event's sequence number is the one after `between` (domain-server-seq).
    const seq = Number(between.gtid.split('-')[2]);
    assert.equal(Number(firstGtid?.raw.readBigUInt64LE(19)), seq + 1);
  });

  test('a server-side heartbeat arrives when idle', TIMEOUT, async () => {
    const end = await masterPosition();
    const client = new BinlogReplicationClient(
      clientOptions({ file: end.file, pos: end.pos }, { heartbeatIntervalMs: 200, yieldHeartbeats: true }),
    );
    const evs = await collect(client, (e) => e.typeCode === EventType.HEARTBEAT);
    const hb = evs[evs.length - 1];
    assert.ok(hb.artificial);
    assert.equal(hb.raw.readUInt32LE(13), end.pos, 'heartbeat log_pos is the current end of the binlog');
    assert.match(hb.raw.toString('latin1'), new RegExp(end.file.replace('.', '\\.')));
    assert.equal(client.state.heartbeatsReceived, 1);
  });

  test('bad credentials fail fast with a clear, password-free error', TIMEOUT, async () => {
    const s = server();
    const password = 'not-the-password-12345';
    const client = new BinlogReplicationClient({
      ...clientOptions({ file: before.file, pos: 4 }),
      connection: { host: s.host, port: s.port, user: s.admin.user, password },
    });
    const err = await client.start().then(
      () => assert.fail('expected an auth error'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof BinlogAuthError, String(err));
    assert.equal(err.code, 'CONNECTION_FAILED');
    assert.equal(err.retriable, false);
    assert.match(err.message, /Access denied/);
    assert.ok(!err.message.includes(password));
  });

  test('a user without REPLICATION SLAVE gets a privilege error', TIMEOUT, async () => {
    const s = server();
    const creds = await s.createUser('repl_noslave', ['SELECT']);
    const client = new BinlogReplicationClient({
      ...clientOptions({ file: before.file, pos: 4 }),
      connection: { host: s.host, port: s.port, ...creds },
    });
    await assert.rejects(client.start(), (e: unknown) => {
      assert.ok(e instanceof BinlogAuthError, String(e));
      assert.match(e.message, /REPLICATION SLAVE/);
      return true;
    });
  });

  test('backpressure: a slow consumer of a large transaction keeps the buffer bounded', TIMEOUT, async () => {
    const s = server();
    await s.query(`CREATE TABLE ${db}.big (id INT PRIMARY KEY, b MEDIUMBLOB)`);
    const start = await masterPosition();
    const rows = 600;
    // One transaction of ~12 MiB of row events (20 KiB per row).
    await s.query(`INSERT INTO ${db}.big SELECT seq, REPEAT(CHAR(65 + seq % 26), 20480) FROM ${db}.seq_1_to_${rows}`);
    const bound = 256 * 1024;
    const client = new BinlogReplicationClient(clientOptions(start, { maxBufferedBytes: bound }));
    let largest = 0;
    let rowBytes = 0;
    const evs = await collect(client, untilXids(1), async (ev) => {
      largest = Math.max(largest, ev.raw.length);
      if (ev.typeCode === WRITE_ROWS_V1) rowBytes += ev.raw.length;
      // A consumer slower than loopback: yield to the event loop a few times per event.
      await new Promise<void>((r) => setImmediate(r));
      await new Promise<void>((r) => setImmediate(r));
    });
    assert.ok(rowBytes > 40 * bound, `transaction large enough (${rowBytes} bytes of row events)`);
    assert.ok(client.state.pauseCount > 0, 'the socket was paused');
    // At most: the bound, plus the rest of the socket chunk being parsed (64 KiB), plus one event.
    const limit = bound + 64 * 1024 + largest;
    assert.ok(
      client.state.peakBufferedBytes <= limit,
      `peak ${client.state.peakBufferedBytes} bytes <= ${limit} bytes`,
    );
    assertContiguous(inFile(evs));
  });

  test('events kept across later packets keep their bytes; only long-lived events are copied', TIMEOUT, async () => {
    const s = server();
    await s.query(`CREATE TABLE ${db}.small (id INT PRIMARY KEY, v VARCHAR(40))`);
    const start = await masterPosition();
    // ~8 KiB rows events, several to a socket chunk, in 5 transactions (5 TABLE_MAPs, GTIDs, ANNOTATE_ROWS, XIDs).
    for (let i = 0; i < 5; i++)
      await s.query(
        `INSERT INTO ${db}.small SELECT seq + ${i * 4000}, REPEAT('x', 30 + seq % 10) FROM ${db}.seq_1_to_4000`,
      );
    const client = new BinlogReplicationClient(clientOptions(start));
    // Every event is held to the end while the socket keeps reading (a consumer slower than loopback).
    const evs = await collect(client, untilXids(5), async () => {
      await new Promise<void>((r) => setImmediate(r));
    });
    for (const ev of evs) assertChecksum(ev);
    const rows = evs.filter((e) => e.typeCode === WRITE_ROWS_V1);
    assert.ok(rows.length > 20, `${rows.length} rows events`);
    // Rows events are views of shared read buffers (no per-event copy) ...
    const shared = new Set(rows.map((e) => e.raw.buffer));
    assert.ok(shared.size < rows.length, `${rows.length} rows events in ${shared.size} buffers`);
    // ... while the events a decoder keeps are private copies that pin no read chunk of rows bytes.
    const rowBuffers = new Set(rows.map((e) => e.raw.buffer));
    for (const e of evs.filter(
      (x) => x.typeCode === EventType.TABLE_MAP || x.typeCode === EventType.FORMAT_DESCRIPTION,
    ))
      assert.ok(!rowBuffers.has(e.raw.buffer), `event at ${e.file}:${e.position} shares a read buffer`);
  });

  test('an event larger than 16 MiB arrives whole (multi-packet reassembly)', TIMEOUT, async () => {
    const s = server();
    await s.query(`CREATE TABLE ${db}.huge (id INT PRIMARY KEY, b LONGBLOB)`);
    const start = await masterPosition();
    const size = 17 * 1024 * 1024 + 123;
    await s.query(`INSERT INTO ${db}.huge VALUES (1, REPEAT('Z', ${size}))`);
    const client = new BinlogReplicationClient(clientOptions(start));
    const evs = await collect(client, untilXids(1));
    const rowsEv = evs.find((e) => e.typeCode === WRITE_ROWS_V1);
    assert.ok(rowsEv, 'WRITE_ROWS event received');
    assert.ok(rowsEv.raw.length > 16 * 1024 * 1024, `event is ${rowsEv.raw.length} bytes`);
    assert.equal(rowsEv.raw.readUInt32LE(9), rowsEv.raw.length);
    assertChecksum(rowsEv);
    const blobAt = rowsEv.raw.indexOf('ZZZZZZZZ');
    assert.ok(blobAt > 0 && rowsEv.raw.lastIndexOf('Z') - blobAt + 1 === size, 'the whole blob is in the event');
    assertContiguous(inFile(evs));
  });

  test('a purged binlog file is reported as a lost position with the fix', TIMEOUT, async () => {
    const s = server();
    const old = await masterPosition();
    await s.query('FLUSH BINARY LOGS');
    const now = await masterPosition();
    // Dump threads of earlier tests' closed clients may not have noticed yet; a file in use is not purged.
    const dumps = await s.query<{ id: number }[]>(
      "SELECT id FROM information_schema.processlist WHERE command = 'Binlog Dump'",
    );
    for (const d of dumps) await s.query(`KILL ${d.id}`).catch(() => {});
    await waitFor('killed dump threads to exit', async () => {
      const left = await s.query<unknown[]>(
        "SELECT id FROM information_schema.processlist WHERE command = 'Binlog Dump'",
      );
      return left.length === 0;
    });
    // MariaDB only purges a file once its binlog checkpoint moved on (asynchronously): retry until it is gone.
    await waitFor(`${old.file} to be purged`, async () => {
      await s.query(`PURGE BINARY LOGS TO '${now.file}'`);
      return !(await s.binlogFiles()).some((f) => f.endsWith(`/${old.file}`));
    });
    const client = new BinlogReplicationClient(clientOptions({ file: old.file, pos: 4 }));
    await assert.rejects(client.start(), (e: unknown) => {
      assert.ok(e instanceof BinlogPositionLostError, String(e));
      assert.equal(e.code, 'BINLOG_POSITION_LOST');
      assert.equal(e.retriable, false);
      assert.ok(e.message.includes(old.file), e.message);
      assert.match(e.message, /snapshot\.mode=when_needed/);
      return true;
    });
    // The resilient stream gives up at once on it instead of retrying.
    const stream = new ResilientBinlogStream({
      ...clientOptions({ file: old.file, pos: 4 }),
      resumePosition: () => ({ file: old.file, pos: 4 }),
      initialDelayMs: 10,
    });
    await assert.rejects(
      collect(stream, () => true),
      BinlogPositionLostError,
    );
    assert.equal(stream.state.reconnects, 0);
    // A nonexistent file and an unknown GTID are lost positions too.
    await assert.rejects(
      new BinlogReplicationClient(clientOptions({ file: 'no-such-binlog.000042', pos: 4 })).start(),
      (e: unknown) => e instanceof BinlogPositionLostError && e.message.includes('no-such-binlog.000042'),
    );
    await assert.rejects(
      new BinlogReplicationClient(clientOptions({ gtidSet: '0-1-999999' })).start(),
      (e: unknown) => e instanceof BinlogPositionLostError && e.message.includes("'0-1-999999'"),
    );
  });
});

describe('ResilientBinlogStream', () => {
  /** Events of `n` single-row inserts, by a reference stream that is never interrupted. */
  async function referenceEvents(start: BinlogStartPosition, xids: number): Promise<RawBinlogEvent[]> {
    return inFile(await collect(new BinlogReplicationClient(clientOptions(start)), untilXids(xids)));
  }

  test(
    'reconnects after KILL and continues from the confirmed position without loss or duplication',
    TIMEOUT,
    async () => {
      const s = server();
      const db = await s.createDatabase('kill');
      await s.query(`CREATE TABLE ${db}.t (id INT PRIMARY KEY)`);
      const start = await masterPosition();
      for (let i = 1; i <= 4; i++) await s.query(`INSERT INTO ${db}.t VALUES (${i})`);

      let confirmed: BinlogStartPosition = { file: start.file, pos: start.pos };
      const stream = new ResilientBinlogStream({
        ...clientOptions(confirmed),
        resumePosition: () => confirmed,
        initialDelayMs: 20,
        maxDelayMs: 200,
      });
      let killed = false;
      let xids = 0;
      const evs = await collect(stream, untilXids(6), async (ev) => {
        if (!ev.artificial && ev.nextPosition > ev.position) confirmed = { file: ev.file, pos: ev.nextPosition };
        if (ev.typeCode !== EventType.XID) return;
        xids++;
        if (xids === 2 && !killed) {
          killed = true;
          const id = stream.session?.connectionId;
          assert.ok(id, 'connection id known');
          await s.query(`KILL ${id}`);
          // Written after the kill: only a reconnected stream can deliver them.
          await s.query(`INSERT INTO ${db}.t VALUES (5)`);
          await s.query(`INSERT INTO ${db}.t VALUES (6)`);
        }
      });
      assert.ok(stream.state.disconnects >= 1, `disconnects: ${stream.state.disconnects}`);
      assert.ok(stream.state.reconnects >= 1);
      const got = inFile(evs);
      assertContiguous(got);
      const expected = await referenceEvents(start, 6);
      assert.deepEqual(
        got.map((e) => [e.position, e.typeCode]),
        expected.map((e) => [e.position, e.typeCode]),
      );
      for (let i = 0; i < got.length; i++) assert.ok(got[i].raw.equals(expected[i].raw), `event ${i} identical`);
    },
  );

  test(
    'retries a refused connection with backoff, then gives up; stop() cancels a pending retry',
    TIMEOUT,
    async () => {
      const closed = createServer();
      await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
      const addr = closed.address();
      assert.ok(addr && typeof addr === 'object');
      await new Promise<void>((r) => closed.close(() => r()));
      const base = {
        connection: { host: '127.0.0.1', port: addr.port, user: 'x', password: 'y' },
        serverId: nextServerId++,
        resumePosition: () => ({ file: 'b.000001', pos: 4 }),
      };

      const giveUp = new ResilientBinlogStream({ ...base, initialDelayMs: 5, maxDelayMs: 20, maxAttempts: 3 });
      await assert.rejects(
        collect(giveUp, () => true),
        (e: unknown) => {
          assert.ok(e instanceof Error && 'code' in e && e.code === 'BINLOG_STREAM', String(e));
          assert.match(e.message, /gave up .* after 3 consecutive failed attempts: .*ECONNREFUSED/);
          return true;
        },
      );
      assert.equal(giveUp.state.reconnects, 2);
      assert.equal(giveUp.state.disconnects, 0, 'never connected, so nothing was lost');

      const patient = new ResilientBinlogStream({
        ...base,
        initialDelayMs: 60_000,
        maxAttempts: Number.POSITIVE_INFINITY,
      });
      const done = collect(patient, () => true);
      await waitFor('the first failed attempt', async () => patient.state.consecutiveFailures === 1);
      const t0 = Date.now();
      await patient.stop();
      assert.deepEqual(await done, []);
      assert.ok(Date.now() - t0 < 5_000, 'stop() did not wait out the 30-60 s backoff');
    },
  );

  test('the heartbeat watchdog reconnects a connection that went silent', TIMEOUT, async () => {
    const s = server();
    const db = await s.createDatabase('silent');
    await s.query(`CREATE TABLE ${db}.t (id INT PRIMARY KEY)`);
    const start = await masterPosition();
    await s.query(`INSERT INTO ${db}.t VALUES (1)`);

    // A TCP proxy that can black-hole server-to-client traffic while keeping the socket open.
    const proxy = await startFreezableProxy(s.host, s.port);
    let confirmed: BinlogStartPosition = { file: start.file, pos: start.pos };
    const stream = new ResilientBinlogStream({
      ...clientOptions(confirmed),
      connection: { host: '127.0.0.1', port: proxy.port, user: s.admin.user, password: s.admin.password },
      resumePosition: () => confirmed,
      heartbeatIntervalMs: 200,
      heartbeatTimeoutMs: 600,
      initialDelayMs: 20,
    });
    try {
      let frozen = false;
      const evs = await collect(stream, untilXids(2), async (ev) => {
        if (!ev.artificial && ev.nextPosition > ev.position) confirmed = { file: ev.file, pos: ev.nextPosition };
        if (ev.typeCode === EventType.XID && !frozen) {
          frozen = true;
          proxy.freezeExisting();
          await s.query(`INSERT INTO ${db}.t VALUES (2)`);
        }
      });
      assert.equal(stream.state.disconnects, 1);
      assert.match(stream.state.lastError ?? '', /no binlog event or heartbeat/);
      assertContiguous(inFile(evs));
      assert.equal(count(evs, EventType.XID), 2);
    } finally {
      await stream.stop();
      await proxy.close();
    }
  });
});

/** Forwards TCP to the server; `freezeExisting()` silently drops server→client data on current connections. */
async function startFreezableProxy(
  host: string,
  port: number,
): Promise<{ port: number; freezeExisting(): void; close(): Promise<void> }> {
  const pairs = new Set<{ client: Socket; upstream: Socket; frozen: boolean }>();
  const srv: Server = createServer((client) => {
    const upstream = tcpConnect(port, host);
    const pair = { client, upstream, frozen: false };
    pairs.add(pair);
    client.on('data', (d) => upstream.write(d));
    upstream.on('data', (d) => {
      if (!pair.frozen) client.write(d);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
      pairs.delete(pair);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const addr = srv.address();
  assert.ok(addr && typeof addr === 'object');
  return {
    port: addr.port,
    freezeExisting() {
      for (const p of pairs) p.frozen = true;
    },
    async close() {
      for (const p of pairs) {
        p.client.destroy();
        p.upstream.destroy();
      }
      await new Promise<void>((r) => srv.close(() => r()));
    },
  };
}
