/**
 * Regression tests for decoder fixes found on foreign binlog files and by fuzzing, on hand-built bytes:
 * pre-GA event type codes, metadata-less TABLE_MAPs, and sanity limits / bounds checks on corrupt input.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stringDecoderFor } from '../../../src/source/mysql/binlog/charsets.js';
import { BinlogDecodeError, BinlogDecoder } from '../../../src/source/mysql/binlog/decoder.js';
import { EventType } from '../../../src/source/mysql/binlog/event-types.js';
import { JSON_MAX_DEPTH, jsonBinaryToText } from '../../../src/source/mysql/binlog/json-binary.js';
import { ColumnType } from '../../../src/source/mysql/column-type.js';
import { buildEvent, packed, rowsV2Body, str, tableMapBody, u16, u32, u48, u64 } from './helpers.js';

/** FORMAT_DESCRIPTION body for a server without checksum support (< 5.6.1): version + post-header lengths. */
function fdeBody(version: string, postHeaderLengths: number[]): number[] {
  const v = Buffer.alloc(50);
  v.write(version, 'latin1');
  return [...u16(4), ...v, ...u32(1199978482), 19, ...postHeaderLengths];
}

// Post-header lengths as a 5.2.2-a_drop6p13 server writes them, indexed by its own (old) type codes:
// 16 = TABLE_MAP (6), 17-19 = row events (6), 20 = XID (0), 21 = BEGIN_LOAD_QUERY (4), 22 = EXECUTE_LOAD_QUERY (26).
const DROP6_POST_HEADER = [56, 13, 0, 8, 0, 18, 0, 4, 4, 4, 4, 18, 0, 0, 79, 6, 6, 6, 6, 0, 4, 26];

/** Pre-GA TABLE_MAP body: 4-byte table id, flags, db, table, column count, types — nothing after. */
function preGaTableMap(tableId: number, db: string, table: string, types: number[]): number[] {
  return [
    ...u32(tableId),
    ...u16(0),
    db.length,
    ...str(db),
    0,
    table.length,
    ...str(table),
    0,
    ...packed(types.length),
    ...types,
  ];
}

function expectDecodeError(fn: () => unknown, position: number, reason: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof BinlogDecodeError, `typed error, got ${String(err)}`);
    assert.equal(err.position, position);
    assert.match(err.message, new RegExp(`position ${position}\\b`));
    assert.match(err.message, reason);
    return true;
  });
}

describe('pre-GA 5.1/5.2 "a_drop" binlogs (other event type codes)', () => {
  it('maps the old codes back: 20 is XID, 16 a TABLE_MAP without metadata, 17 its raw write-rows event', () => {
    const d = new BinlogDecoder();
    const fde = d.decode(
      buildEvent(EventType.FORMAT_DESCRIPTION, fdeBody('5.2.2-a_drop6p13-debug-log', DROP6_POST_HEADER)),
    );
    assert.equal(fde.type, 'FORMAT_DESCRIPTION');

    const xid = d.decode(buildEvent(20, u64(16), { position: 411 }), 411);
    assert.equal(xid.type, 'XID');
    assert.equal(xid.type === 'XID' && xid.xid, 16n);
    assert.equal(xid.header.typeCode, EventType.XID);

    const tm = d.decode(buildEvent(16, preGaTableMap(7, 'test', 't1', [ColumnType.LONG, ColumnType.STRING])), 428);
    assert.equal(tm.type, 'TABLE_MAP');
    if (tm.type !== 'TABLE_MAP') return;
    assert.equal(tm.tableId, 7);
    assert.equal(`${tm.database}.${tm.table}`, 'test.t1');
    assert.deepEqual(
      tm.columns.map((c) => c.type),
      [ColumnType.LONG, ColumnType.STRING],
    );
    assert.equal(tm.noColumnMetadata, true);

    // Row images in the engine's record layout cannot be decoded without column metadata: kept raw, not garbage.
    const rowsBody = [...u32(7), ...u16(1), 2, 0xff, 0xf9, ...u32(0), 3, ...str('one')];
    const rows = d.decode(buildEvent(17, rowsBody), 466);
    assert.equal(rows.type, 'OTHER');
    assert.equal(rows.type === 'OTHER' && rows.name, 'PRE_GA_WRITE_ROWS');
    assert.deepEqual(rows.type === 'OTHER' && [...rows.body], rowsBody);

    const begin = d.decode(buildEvent(21, [...u32(2), ...str('a\nb\n')]), 874);
    assert.equal(begin.type === 'OTHER' && begin.name, 'BEGIN_LOAD_QUERY');
  });

  it('leaves the codes of released servers alone (5.1.23: 16 is XID)', () => {
    const d = new BinlogDecoder();
    d.decode(buildEvent(EventType.FORMAT_DESCRIPTION, fdeBody('5.1.23-rc-debug-log', DROP6_POST_HEADER)));
    assert.equal(d.decode(buildEvent(16, u64(5)), 100).type, 'XID');
  });
});

/** A decoder that has seen a 5.7-style TABLE_MAP for table 1 with the given columns. */
function withTable(cols: Array<{ type: number; meta?: number[] }>, optional: Array<[number, number[]]> = []) {
  const d = new BinlogDecoder();
  d.decode(buildEvent(EventType.TABLE_MAP, tableMapBody(1, 'db', 't', cols, optional)), 100);
  return d;
}

describe('corrupt row events fail with a positioned BinlogDecodeError', () => {
  it('an empty columns-present bitmap (row image of zero bytes) is an error, not an endless loop', () => {
    const d = withTable([{ type: ColumnType.LONG }]);
    const body = [...u48(1), ...u16(1), ...u16(2), ...packed(1), 0x00, 0x00, 0x00];
    expectDecodeError(() => d.decode(buildEvent(EventType.WRITE_ROWS_V2, body), 200), 200, /no columns and no bytes/);
  });

  it('a huge column count is rejected before anything is allocated', () => {
    const d = withTable([{ type: ColumnType.LONG }]);
    const body = [...u48(1), ...u16(1), ...u16(2), 0xfe, ...u64(2 ** 40), 0xff];
    expectDecodeError(() => d.decode(buildEvent(EventType.WRITE_ROWS_V2, body), 300), 300, /column bitmap/);
  });

  it('a fixed-size value cut off by the end of the event', () => {
    const d = withTable([{ type: ColumnType.LONGLONG }]);
    const body = rowsV2Body(1, 1, [[0x00, 1, 2, 3]]);
    expectDecodeError(() => d.decode(buildEvent(EventType.WRITE_ROWS_V2, body), 400), 400, /runs past the end/);
  });

  it('DECIMAL metadata out of range (precision 255)', () => {
    const d = withTable([{ type: ColumnType.NEWDECIMAL, meta: [0xff, 2] }]);
    const body = rowsV2Body(1, 1, [[0x00, 1, 2, 3, 4]]);
    expectDecodeError(() => d.decode(buildEvent(EventType.WRITE_ROWS_V2, body), 500), 500, /DECIMAL precision\/scale/);
  });

  it('a BLOB whose length prefix is 0 bytes (corrupt TABLE_MAP metadata)', () => {
    const d = withTable([{ type: ColumnType.BLOB, meta: [0] }]);
    const body = rowsV2Body(1, 1, [[0x00, 1, 0x41]]);
    expectDecodeError(
      () => d.decode(buildEvent(EventType.WRITE_ROWS_V2, body), 600),
      600,
      /length prefix must be 1 to 4/,
    );
  });
});

describe('corrupt TABLE_MAP and payload lengths', () => {
  it('an ENUM value count larger than the field is an error (checked before allocating)', () => {
    const cols = [{ type: ColumnType.STRING, meta: [ColumnType.ENUM, 1] }];
    const enumValues: [number, number[]] = [6, [0xfe, ...u64(2 ** 40)]];
    expectDecodeError(
      () =>
        new BinlogDecoder().decode(
          buildEvent(EventType.TABLE_MAP, tableMapBody(1, 'db', 't', cols, [enumValues])),
          700,
        ),
      700,
      /ENUM\/SET value list/,
    );
  });

  it('a fixed-size field read past the end (INTVAR with 5 bytes)', () => {
    expectDecodeError(
      () => new BinlogDecoder().decode(buildEvent(EventType.INTVAR, [1, 2, 3, 4, 5]), 800),
      800,
      /truncated/,
    );
  });

  it('TRANSACTION_PAYLOAD claiming an implausible uncompressed size is refused before allocating it', () => {
    const size = 0x7fffffff;
    // Header fields (type, length, packed value): payload size 4, compression 0 (zstd), uncompressed size
    // 2^31 - 1; end mark 0; then 4 bytes of "compressed" data (a zstd magic).
    const full = [1, 1, 4, 2, 1, 0, 3, 9, 0xfe, ...u64(size), 0, 0x28, 0xb5, 0x2f, 0xfd];
    expectDecodeError(
      () => new BinlogDecoder().decode(buildEvent(EventType.TRANSACTION_PAYLOAD, full), 900),
      900,
      /implausible uncompressed size 2147483647/,
    );
  });
});

describe('corrupt binary JSON values (bounds and nesting checks)', () => {
  /** WRITE_ROWS of one JSON column (4-byte length prefix) holding `json` (type byte first). */
  function decodeJson(json: number[], position: number) {
    const d = withTable([{ type: ColumnType.JSON, meta: [4] }]);
    return d.decode(
      buildEvent(EventType.WRITE_ROWS_V2, rowsV2Body(1, 1, [[0x00, ...u32(json.length), ...json]])),
      position,
    );
  }
  /** Small array (type 0x02) with one value entry `[type, offset]` and the given trailing bytes. */
  function smallArray(entryType: number, offset: number, tail: number[] = []): number[] {
    return [0x02, ...u16(1), ...u16(7 + tail.length), entryType, ...u16(offset), ...tail];
  }

  it('a value offset past the container is a positioned error', () => {
    expectDecodeError(() => decodeJson(smallArray(0x07, 200), 1000), 1000, /JSON column .*value offset 200 outside/);
  });

  it('a value inside the container whose bytes run past it (int64 at the last byte)', () => {
    // The container ends one byte after the int64 starts; the old decoder read the 7 bytes after the value.
    const json = smallArray(0x09, 7, [0x2a]);
    expectDecodeError(() => decodeJson([...json, 1, 2, 3, 4, 5, 6, 7], 1100), 1100, /int64 \(8 bytes\) past end/);
  });

  it('an offset pointing back into its own container is an error, not a stack overflow', () => {
    expectDecodeError(() => decodeJson(smallArray(0x02, 0), 1200), 1200, /points into the container's own header/);
  });

  it(`nesting deeper than ${JSON_MAX_DEPTH} containers is refused; ${JSON_MAX_DEPTH} decode`, () => {
    const nested = (depth: number): number[] => {
      let inner = [...u16(0), ...u16(4)]; // empty small array, without its type byte
      for (let i = 1; i < depth; i++) inner = [...u16(1), ...u16(7 + inner.length), 0x02, ...u16(7), ...inner];
      return [0x02, ...inner];
    };
    const ok = Buffer.from(nested(JSON_MAX_DEPTH));
    assert.equal(jsonBinaryToText(ok, 0, ok.length), `${'['.repeat(JSON_MAX_DEPTH)}${']'.repeat(JSON_MAX_DEPTH)}`);
    expectDecodeError(() => decodeJson(nested(JSON_MAX_DEPTH + 1), 1300), 1300, /nesting deeper than 100/);
  });
});

describe('charsets', () => {
  it('utf32 text with a value above U+10FFFF decodes with a replacement character instead of throwing', () => {
    const decode = stringDecoderFor('utf32');
    assert.ok(decode);
    const b = Buffer.from([0, 0, 0, 0x41, 0x00, 0x11, 0x00, 0x00, 0, 0, 0, 0x42]);
    assert.equal(decode(b, 0, b.length), 'A\ufffdB');
  });
});
