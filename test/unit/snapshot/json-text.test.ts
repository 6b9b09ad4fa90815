/**
 * JSON columns: a MySQL snapshot reads MySQL's own text (`{"a": 1, "b": [true, null]}`), the binlog decoder prints
 * the binary value compactly (`{"a":1,"b":[true,null]}`); a row's `r` and `u` events must carry the same text.
 * MariaDB's JSON is LONGTEXT (not result type 245) and stays verbatim, as its binlog carries the stored text.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ColumnDef, TableDef } from '../../../src/model/table-def.js';
import { MysqlJson, type Row } from '../../../src/model/values.js';
import { compactJsonText, jsonBinaryToText } from '../../../src/source/mysql/binlog/json-binary.js';
import { scanTable } from '../../../src/source/mysql/snapshot/table-scan.js';
import { fakeTextProtocolConnection } from './text-protocol-fake.js';

function col(name: string, position: number, dataType: string): ColumnDef {
  return {
    name,
    position,
    dataType,
    columnType: dataType,
    length: null,
    scale: null,
    unsigned: false,
    nullable: true,
    charset: dataType === 'json' ? 'binary' : 'utf8mb4',
    collation: null,
    defaultValue: null,
    hasDefault: false,
    autoIncrement: false,
    enumValues: null,
    generated: false,
    invisible: false,
    comment: null,
  };
}

async function scanJson(columnType: number, text: string): Promise<string> {
  const table: TableDef = {
    database: 'd',
    name: 't',
    columns: [col('id', 0, 'int'), col('doc', 1, 'json')],
    primaryKey: ['id'],
    uniqueKeys: [],
    charset: null,
    comment: null,
  };
  const { conn } = fakeTextProtocolConnection({
    fields: [
      { name: 'id', columnType: 3, characterSet: 63 },
      { name: 'doc', columnType, characterSet: 63 },
    ],
    rows: [['1', Buffer.from(text)]],
  });
  const out: Row[] = [];
  await scanTable(conn, table, 'SELECT id, doc FROM d.t', {
    highWaterMark: 16,
    onRow: async (r) => {
      out.push(r);
    },
  });
  const v = out[0][1];
  assert.ok(v instanceof MysqlJson);
  return v.text;
}

describe('snapshot JSON text', () => {
  // {"a":1.5,"b":[true]} in MySQL's binary JSON format, as a streamed row carries it.
  const binary = Buffer.from(
    '000200230012000100130001000b1400021c006162000000000000f83f0100070004 0100'.replace(/ /g, ''),
    'hex',
  );

  it('MySQL native JSON (result type 245): the server text is re-spaced like the binlog decoder prints it', async () => {
    const streamed = jsonBinaryToText(binary, 0, binary.length);
    assert.equal(await scanJson(245, '{"a": 1.5, "b": [true]}'), streamed);
    assert.equal(
      await scanJson(245, '{"s": "x, y: \\"z\\" \\\\", "n": [1, 2.0, -0.0, 1e100], "o": {"k": null}}'),
      '{"s":"x, y: \\"z\\" \\\\","n":[1,2.0,-0.0,1e100],"o":{"k":null}}',
      'spacing inside strings (and after escaped quotes) is kept; scalars keep MySQL spelling',
    );
  });

  it('MariaDB JSON (LONGTEXT, a blob result type) stays verbatim', async () => {
    assert.equal(await scanJson(252, '{"a": 1,  "b" : [true]}'), '{"a": 1,  "b" : [true]}');
  });

  it('compactJsonText leaves compact text untouched', () => {
    const s = '{"a":[1,{"b":"c d"}]}';
    assert.equal(compactJsonText(s), s);
    assert.equal(compactJsonText(' [ 1 ,\n 2 ] '), '[1,2]');
  });
});
