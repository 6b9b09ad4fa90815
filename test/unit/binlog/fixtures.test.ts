/** Golden tests on real MySQL / MariaDB / Aurora binlog files (see ../shared/fixtures/README.md). */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { MysqlJson, MysqlJsonPartial, MysqlTime, MysqlTimestamp } from '../../../src/model/values.js';
import { BinlogDecodeError, type BinlogEvent } from '../../../src/source/mysql/binlog/decoder.js';
import { EventType } from '../../../src/source/mysql/binlog/event-types.js';
import { readBinlogFile } from '../../../src/source/mysql/binlog/file-reader.js';
import { decodeAll, fixture } from './helpers.js';

const J = 'mysql-binlog-connector-java/';
const R = 'rust_mysql_common/';

const COUNTS: Record<string, number> = {
  [`${J}mysql-bin.checksum-none`]: 191,
  [`${J}mysql-bin.checksum-crc32`]: 303,
  [`${J}mysql-bin.compressed`]: 5,
  [`${R}binlog_transaction.000001`]: 20,
  [`${R}binlog-invisible-columns.000001`]: 22,
  [`${R}binlog_56_gtid_reserved_word.000001`]: 20,
  [`${R}binlog_transaction_with_GTID.000001`]: 11,
  [`${R}binlog_transaction_with_anonymous_GTID.000001`]: 9,
  [`${R}bug27213339-bin.000001`]: 95,
  [`${R}json.binlog.000001`]: 36,
  [`${R}mariadb-bin.000001`]: 13,
  [`${R}minimal_row_metadata.000001`]: 8,
  [`${R}mysql-enum-string-set.000001`]: 21,
  [`${R}mysql_type_bit.000001`]: 11,
  [`${R}time_issue.000001`]: 8,
  [`${R}transaction_compression.000001`]: 5,
  [`${R}ver_trunk_row_v2.001`]: 40,
};

async function readAll(file: string): Promise<Array<{ position: number; event: BinlogEvent }>> {
  const out: Array<{ position: number; event: BinlogEvent }> = [];
  for await (const e of readBinlogFile(fixture(file), { highWaterMark: 97 })) out.push(e);
  return out;
}

function only<T extends BinlogEvent['type']>(events: Array<{ event: BinlogEvent }>, type: T) {
  return events.map((e) => e.event).filter((e): e is BinlogEvent & { type: T } => e.type === type);
}

describe('binlog fixtures', () => {
  for (const [file, count] of Object.entries(COUNTS)) {
    it(`${file} decodes ${count} events through the streaming reader`, async () => {
      const events = await readAll(file);
      assert.equal(events.length, count);
      // The in-memory walk agrees with the chunked reader (97-byte chunks force reassembly).
      assert.deepEqual(
        decodeAll(fixture(file)).map((e) => [e.position, e.event.type]),
        events.map((e) => [e.position, e.event.type]),
      );
      let rows = 0;
      for (const { event } of events) if ('rows' in event) rows += event.rows.length;
      if (file.includes('checksum')) assert.ok(rows > 0, 'row events decode rows');
    });
  }

  it('checksum flavours are detected from FORMAT_DESCRIPTION', async () => {
    const none = await readAll(`${J}mysql-bin.checksum-none`);
    const crc = await readAll(`${J}mysql-bin.checksum-crc32`);
    const fdeNone = only(none, 'FORMAT_DESCRIPTION')[0];
    const fdeCrc = only(crc, 'FORMAT_DESCRIPTION')[0];
    assert.equal(fdeNone.checksum, 'NONE');
    assert.equal(fdeNone.serverVersion, '5.7.20-log');
    assert.equal(fdeCrc.checksum, 'CRC32');
    assert.equal(fdeCrc.serverVersion, '5.7.21-log');
  });

  it('binlog_transaction.000001 headers match expected-headers.tsv', () => {
    const tsv = readFileSync(fixture(`${R}binlog_transaction.000001.expected-headers.tsv`), 'utf8')
      .trim()
      .split('\n');
    const events = decodeAll(fixture(`${R}binlog_transaction.000001`));
    assert.equal(events.length, tsv.length - 1);
    const flagBits: Record<string, number> = { empty: 0, LOG_EVENT_SUPPRESS_USE_F: 0x8 };
    for (const line of tsv.slice(1)) {
      const [index, timestamp, type, serverId, size, logPos, flags] = line.split('\t');
      const h = events[Number(index)].event.header;
      const code = EventType[type.replace(/_EVENT$/, '') as keyof typeof EventType];
      assert.deepEqual(
        [h.timestamp, h.typeCode, h.serverId, h.eventSize, h.nextPosition, h.flags],
        [Number(timestamp), code, Number(serverId), Number(size), Number(logPos), flagBits[flags]],
        `header of event ${index}`,
      );
    }
  });

  it('aurora padding: the unknown ignorable event is skipped and QUERY BEGIN follows', async () => {
    const events = await readAll(`${J}mysql-bin.aurora-padding`);
    assert.deepEqual(
      events.map((e) => [e.position, e.event.type]),
      [
        [4, 'FORMAT_DESCRIPTION'],
        [185, 'PREVIOUS_GTIDS'],
        [216, 'ANONYMOUS_GTID'],
        [281, 'UNKNOWN_IGNORABLE'],
        [1209, 'QUERY'],
      ],
    );
    assert.equal(events[3].event.header.eventSize, 928);
    const q = events[4].event;
    assert.ok(q.type === 'QUERY' && q.query === 'BEGIN');
  });

  it('MariaDB 10.5 FULL row metadata, GTIDs and binlog name', async () => {
    const events = await readAll(`${R}mariadb-bin.000001`);
    const fde = only(events, 'FORMAT_DESCRIPTION')[0];
    assert.equal(fde.mariadb, true);
    assert.equal(only(events, 'MARIADB_BINLOG_CHECKPOINT')[0].logFile, 'mariadb-bin.000001');
    assert.deepEqual(
      only(events, 'MARIADB_GTID').map((g) => [g.gtid, g.standalone]),
      [
        ['0-1-1', false],
        ['0-1-2', false],
      ],
    );
    const tm = only(events, 'TABLE_MAP')[0];
    assert.equal(`${tm.database}.${tm.table}`, 'toddy_test.outbox');
    assert.deepEqual(
      tm.columns.map((c) => c.name),
      ['id', 'topic', 'event_type', 'event', 'created'],
    );
    assert.deepEqual(tm.primaryKey, [{ column: 0, prefix: 0 }]);
    assert.equal(tm.columns[1].collation, 45); // utf8mb4_general_ci
    assert.equal(tm.columns[2].collation, 45);
    assert.equal(tm.columns[3].charset, 'binary');
    assert.deepEqual(tm.columns[2].enumValues, ['BLOB', 'JSON', 'PROTOBUF']);
    const row = only(events, 'WRITE_ROWS')[0].rows[0];
    assert.equal(row[0], 62);
    assert.equal(row[1], 'foo');
    assert.equal(row[2], 2);
    assert.deepEqual(row[3], Buffer.from('{"foo":1}'));
    assert.ok(row[4] instanceof MysqlTimestamp && row[4].seconds === 1650493084);
  });

  it('minimal_row_metadata: collation of column 2 and unsigned value of column 4', async () => {
    const events = await readAll(`${R}minimal_row_metadata.000001`);
    const tm = only(events, 'TABLE_MAP')[0];
    assert.equal(tm.columns[2].collation, 255); // utf8mb4_0900_ai_ci
    assert.equal(tm.columns[4].unsigned, true);
    const w = only(events, 'WRITE_ROWS')[0];
    assert.deepEqual(w.columnsPresent, [true, false, true, false, true]);
    assert.deepEqual(w.rows[0], [1, undefined, 'a', undefined, 3230202323]);
  });

  it('ENUM / SET / long strings', async () => {
    const events = await readAll(`${R}mysql-enum-string-set.000001`);
    const s100 = '0123456789'.repeat(10);
    // The README calls it a 300-char string; its length prefix is 0x012a = 298 (two '9's are missing).
    const s300 = readFirstWrite(events)[1] as string;
    assert.equal(s300.length, 298);
    assert.equal(
      s300,
      `${'0123456789'.repeat(12)}012345678${'0123456789'.repeat(12)}012345678${'0123456789'.repeat(4)}`,
    );
    assert.deepEqual(readFirstWrite(events), [s100, s300, 1, 0b101n, '0123456789']);
    const upd = only(events, 'UPDATE_ROWS')[0].rows[0];
    assert.deepEqual(upd.after, ['field1', 'field_2', 2, 0b1010n, s300]);
    assert.deepEqual(only(events, 'DELETE_ROWS')[0].rows[0], upd.after);
    const tm = only(events, 'TABLE_MAP')[0];
    assert.deepEqual(tm.columns[2].enumValues, ['var1', 'variant2', 'foo']);
    assert.deepEqual(tm.columns[3].setValues, ['one', 'two', 'three', 'four']);
  });

  it('BIT columns', async () => {
    const events = await readAll(`${R}mysql_type_bit.000001`);
    const writes = only(events, 'WRITE_ROWS');
    assert.ok(writes.length > 0);
    for (const w of writes)
      for (const row of w.rows) assert.deepEqual(row, [Buffer.from([0x04]), 'foo', Buffer.from([0x20])]);
  });

  it('negative TIME -507:48:27', async () => {
    const events = await readAll(`${R}time_issue.000001`);
    const v = only(events, 'WRITE_ROWS')[0].rows[0][0];
    assert.ok(v instanceof MysqlTime);
    assert.equal(v.toString(), '-507:48:27');
    assert.equal(v.micros, -(507 * 3600 + 48 * 60 + 27) * 1_000_000);
  });

  for (const [file, rowsType] of [
    [`${R}transaction_compression.000001`, 'WRITE_ROWS'],
    [`${J}mysql-bin.compressed`, 'UPDATE_ROWS'],
  ]) {
    it(`${file}: TRANSACTION_PAYLOAD decompresses to QUERY, TABLE_MAP, ${rowsType}, XID`, async () => {
      const events = await readAll(file);
      const payload = only(events, 'TRANSACTION_PAYLOAD')[0];
      assert.equal(payload.compression, 'ZSTD');
      assert.deepEqual(
        payload.events.map((e) => e.type),
        ['QUERY', 'TABLE_MAP', rowsType, 'XID'],
      );
      const rows = payload.events[2];
      assert.ok('rows' in rows && rows.rows.length > 0);
      assert.equal(rows.table, payload.events[1]);
    });
  }

  it('v2 rows events (5.6.4-m7)', async () => {
    const events = await readAll(`${R}ver_trunk_row_v2.001`);
    const w = only(events, 'WRITE_ROWS')[0];
    assert.equal(w.version, 2);
    assert.equal(w.header.typeCode, EventType.WRITE_ROWS_V2);
    assert.deepEqual(w.rows, [
      [0, 'one'],
      [1, 'two'],
    ]);
    assert.deepEqual(only(events, 'UPDATE_ROWS')[0].rows, [
      { before: [0, 'one'], after: [1, 'one'] },
      { before: [1, 'two'], after: [2, 'two'] },
    ]);
    assert.deepEqual(only(events, 'DELETE_ROWS')[0].rows, [[2, 'two']]);
  });

  it('JSON columns render as compact JSON; partial JSON updates decode as diffs', async () => {
    const events = await readAll(`${R}json.binlog.000001`);
    const first = only(events, 'WRITE_ROWS')[0].rows[0];
    assert.equal(first[0], 1);
    assert.ok(first[1] instanceof MysqlJson);
    assert.equal(first[1].text, '{"age":24,"data":"xxxxxxxxxx","name":"Joe"}');
    assert.deepEqual(first.slice(2), ['Joe', 24]);
    const upd = only(events, 'UPDATE_ROWS')[0].rows[0];
    assert.equal((upd.after[1] as MysqlJson).text, '{"age":25,"data":"xxxxxxxxxx","name":"Joe"}');
    const partial = only(events, 'PARTIAL_UPDATE_ROWS')[0];
    const p0 = partial.rows[0];
    assert.deepEqual(p0.before, [1, undefined, undefined, undefined]);
    assert.equal(p0.after[0], undefined);
    assert.ok(p0.after[1] instanceof MysqlJsonPartial);
    assert.deepEqual(p0.after[1].diffs, [{ op: 'replace', path: '$.age', value: new MysqlJson('26') }]);
    assert.deepEqual(p0.after.slice(2), ['Joe', 26]);
  });

  it('invisible columns metadata (8.0.26)', async () => {
    const events = await readAll(`${R}binlog-invisible-columns.000001`);
    const tm = only(events, 'TABLE_MAP').find((t) => t.table === 't1');
    assert.ok(tm);
    assert.deepEqual(
      tm.columns.map((c) => [c.name, c.visible, c.unsigned ?? null]),
      [
        ['f1', false, true],
        ['f2', false, true],
        ['f3', true, false],
        ['f4', true, null],
        ['f5', true, null],
        ['f6', false, true],
      ],
    );
    assert.equal(only(events, 'GTID')[0].gtid, '97c7af02-4c50-11ec-acd8-681842034964:1');
  });

  it('5.6 GTID events with the 25-byte post-header', async () => {
    const events = await readAll(`${R}binlog_56_gtid_reserved_word.000001`);
    const gtids = only(events, 'GTID');
    assert.equal(gtids.length, 6);
    for (const g of gtids) {
      assert.match(g.gtid, /^[0-9a-f-]{36}:\d+$/);
      assert.equal(g.lastCommitted, undefined);
    }
    assert.equal(only(events, 'FORMAT_DESCRIPTION')[0].serverVersion.startsWith('5.6.41'), true);
  });

  it('truncated file fails cleanly with position and reason', async () => {
    const seen: string[] = [];
    await assert.rejects(
      async () => {
        for await (const e of readBinlogFile(fixture(`${R}binlog_truncated_event.000001`))) seen.push(e.event.type);
      },
      (err: unknown) => {
        assert.ok(err instanceof BinlogDecodeError);
        assert.equal(err.code, 'BINLOG_DECODE');
        assert.equal(err.position, 4);
        assert.match(err.message, /truncated event at position 4/);
        return true;
      },
    );
    assert.deepEqual(seen, []);
  });
});

function readFirstWrite(events: Array<{ event: BinlogEvent }>) {
  return only(events, 'WRITE_ROWS')[0].rows[0];
}
