import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inCopyPhase, parseVgtid, vgtidFromProto, vgtidJson, vgtidToProto } from '../../../src/source/vitess/vgtid.js';
import { ddlTable, schemaChangeRecord, VitessTableEvents } from '../../../src/source/vitess/vitess-events.js';
import { applyJournal } from '../../../src/source/vitess/vitess-source.js';
import { enumMembers, vitessColumns } from '../../../src/source/vitess/vitess-types.js';
import { splitRow } from '../../../src/source/vitess/vtgate-client.js';
import { vitessEventOptions } from './fixtures.js';

const opts = vitessEventOptions;
const b = (s: string) => Buffer.from(s);

describe('VGTID', () => {
  it('round-trips Debezium JSON and the proto shape, keys in Debezium order', () => {
    const text =
      '[{"keyspace":"ks","shard":"-80","gtid":"MySQL56/u:1-5","table_p_ks":[{"table_name":"t","lastpk":{"fields":[{"name":"id","type":"INT64","charset":63,"flags":3}],"rows":[{"lengths":["2"],"values":"42"}]}}]},{"shard":"80-","keyspace":"ks","gtid":""}]';
    const v = parseVgtid(text, 'test');
    assert.equal(
      vgtidJson(v),
      '[{"keyspace":"ks","shard":"-80","gtid":"MySQL56/u:1-5","table_p_ks":[{"table_name":"t","lastpk":{"fields":[{"name":"id","type":"INT64","charset":63,"flags":3}],"rows":[{"lengths":["2"],"values":"42"}]}}]},{"keyspace":"ks","shard":"80-","gtid":"","table_p_ks":[]}]',
    );
    assert.deepEqual(vgtidFromProto(vgtidToProto(v)), v);
    assert.equal(inCopyPhase(v), true);
    assert.equal(inCopyPhase([{ keyspace: 'ks', shard: '0', gtid: 'MySQL56/u:1-5', table_p_ks: [] }]), false);
  });

  it('names the problem of a bad VGTID', () => {
    assert.throws(() => parseVgtid('nope', 'vitess.vgtid'), /vitess\.vgtid is not JSON/);
    assert.throws(
      () => parseVgtid('[{"keyspace":"ks"}]', 'the stored offset'),
      /entry 0 needs string "keyspace" and "shard"/,
    );
  });

  it('a JOURNAL replaces its participants by the new shards', () => {
    const v = parseVgtid(
      '[{"keyspace":"ks","shard":"-80","gtid":"a"},{"keyspace":"ks","shard":"80-","gtid":"b"}]',
      't',
    );
    const next = applyJournal(v, {
      participants: [{ keyspace: 'ks', shard: '-80' }],
      shard_gtids: [
        { keyspace: 'ks', shard: '-40', gtid: 'c' },
        { keyspace: 'ks', shard: '40-80', gtid: 'd' },
      ],
    });
    assert.deepEqual(
      next.map((s) => `${s.shard}@${s.gtid}`),
      ['80-@b', '-40@c', '40-80@d'],
    );
  });
});

describe('Debezium Vitess type mapping', () => {
  const field = (type: string, column_type: string, extra: Record<string, number> = {}) => ({
    name: 'c',
    type,
    column_type,
    flags: 1,
    ...extra,
  });
  const one = (f: ReturnType<typeof field>, raw: string | Buffer, o = opts, enumAsText = false) => {
    const [c] = vitessColumns([f], o, enumAsText);
    assert.ok(c);
    return { schema: c.schema, json: c.toJson(typeof raw === 'string' ? b(raw) : raw) };
  };

  it('maps query.Type like VitessType.resolve + VitessValueConverter', () => {
    assert.deepEqual(one(field('INT8', 'tinyint'), '-5'), { schema: { type: 'int16', optional: false }, json: '-5' });
    assert.equal(one(field('UINT32', 'int unsigned'), '4294967295').schema.type, 'int64');
    assert.deepEqual(one(field('UINT64', 'bigint unsigned'), '18446744073709551615').json, '"18446744073709551615"');
    assert.equal(
      one(field('UINT64', 'bigint unsigned'), '18446744073709551615', { ...opts, bigintUnsignedHandlingMode: 'long' })
        .json,
      '-1',
    );
    assert.deepEqual(one(field('DECIMAL', 'decimal(10,2)'), '12.50'), {
      schema: { type: 'string', optional: false },
      json: '"12.50"',
    });
    assert.equal(one(field('JSON', 'json'), '{"a":1}').schema.name, 'io.debezium.data.Json');
    assert.deepEqual(one(field('FLOAT32', 'float'), '1.5').schema, { type: 'float64', optional: false });
    assert.deepEqual(one(field('DATE', 'date'), '1970-01-11'), {
      schema: { type: 'int32', name: 'io.debezium.time.Date', version: 1, optional: false },
      json: '10',
    });
    assert.equal(one(field('TIME', 'time(3)'), '-01:00:00.5').json, String(-3_600_500_000));
    assert.equal(one(field('DATETIME', 'datetime', { decimals: 0 }), '1970-01-01 00:00:01').json, '1000');
    assert.equal(
      one(field('DATETIME', 'datetime(6)', { decimals: 6 }), '1970-01-01 00:00:01.000002').schema.name,
      'io.debezium.time.MicroTimestamp',
    );
    assert.equal(
      one(field('TIMESTAMP', 'timestamp(3)', { decimals: 3 }), '2024-01-02 03:04:05.600').json,
      '"2024-01-02T03:04:05.600Z"',
    );
    assert.equal(
      one(field('TIMESTAMP', 'timestamp', { decimals: 0 }), '2024-01-02 03:04:05').json,
      '"2024-01-02T03:04:05Z"',
    );
    assert.equal(one(field('YEAR', 'year'), '2024').schema.name, 'io.debezium.time.Year');
    assert.equal(one(field('BIT', 'bit(1)', { column_length: 1 }), Buffer.from([1])).json, 'true');
    assert.equal(one(field('BLOB', 'text'), 'hi').json, '"hi"');
    assert.equal(one(field('VARBINARY', 'varbinary(4)'), Buffer.from([1, 2])).json, '"AQI="');
    assert.equal(one(field('BINARY', 'char(3)'), 'abc').json, '"abc"');
    assert.deepEqual(vitessColumns([field('GEOMETRY', 'point')], opts, false), [null]);
  });

  it('ENUM and SET: members from the column type, index/bitmask values while streaming, text in the copy phase', () => {
    assert.deepEqual(enumMembers("enum('a','b''c','d')"), ['a', "b'c", 'd']);
    const e = field('ENUM', "enum('free','pro')");
    assert.equal(one(e, '2').json, '"pro"');
    assert.equal(one(e, 'free', opts, true).json, '"free"');
    assert.deepEqual(one(e, '2').schema.parameters, { allowed: 'free,pro' });
    assert.equal(one(field('SET', "set('x','y','z')"), '5').json, '"x,z"');
  });
});

describe('Debezium Vitess records', () => {
  const fields = [
    { name: 'id', type: 'INT64', flags: 3, column_type: 'bigint' },
    { name: 'name', type: 'VARCHAR', flags: 0, column_type: 'varchar(10)' },
  ];
  const source = { tsMs: 1000, snapshot: 'false' as const, shard: '-80', vgtid: '[]' };

  it('builds the envelope, key and tombstone; skips operations', () => {
    const t = new VitessTableEvents('ks', 't', fields, opts, false);
    const row = splitRow({ lengths: ['1', '-1'], values: b('7') });
    const [del, tomb] = t.change(row, null, source, false);
    assert.equal(del.topic, 'vt.ks.t');
    assert.equal(del.key, '{"id":7}');
    assert.equal(
      del.value,
      '{"before":{"id":7,"name":null},"after":null,"source":{"version":"3.0.0.Final","connector":"vitess","name":"vt","ts_ms":1000,"snapshot":"false","db":"","sequence":null,"ts_us":1000000,"ts_ns":1000000000,"keyspace":"ks","table":"t","shard":"-80","vgtid":"[]"},"transaction":null,"op":"d","ts_ms":1700000000000,"ts_us":1700000000000000,"ts_ns":1700000000000000000}',
    );
    assert.equal(tomb.value, null);
    assert.equal(tomb.key, '{"id":7}');
    const skipping = new VitessTableEvents('ks', 't', fields, { ...opts, skippedOperations: new Set(['u']) }, false);
    assert.deepEqual(skipping.change(row, row, source, false), []);
  });

  it('stable event ids: streamed changes by shard position, row event and row; copy-phase rows by their key', () => {
    const t = new VitessTableEvents('ks', 't', fields, opts, false);
    const row = splitRow({ lengths: ['1', '-1'], values: b('7') });
    const id = (r: { headers?: Record<string, string> }) => JSON.parse(r.headers?.['__cdc.id'] ?? 'null');
    const streamed = t.change(row, null, { ...source, id: 'ks/-80@MySQL56/u:1-9/2/0' }, false);
    assert.deepEqual(streamed.map(id), ['ks/-80@MySQL56/u:1-9/2/0/0', 'ks/-80@MySQL56/u:1-9/2/0/1']);
    const copied = t.change(null, row, { ...source, id: 'ks/-80@MySQL56/u:1-5/copy/t/', idByKey: true }, true);
    assert.deepEqual(copied.map(id), ['ks/-80@MySQL56/u:1-5/copy/t/{"id":7}/0']);
    assert.equal(t.change(null, row, source, false)[0].headers, undefined);
  });

  it('with schemas: io.debezium.connector.vitess.Source in the envelope schema', () => {
    const t = new VitessTableEvents('ks', 't', fields, { ...opts, schemasEnable: true }, false);
    const [rec] = t.change(null, splitRow({ lengths: ['1', '1'], values: b('1a') }), source, true);
    const v = JSON.parse(rec.value as string) as {
      schema: { fields: { field: string; name?: string }[] };
      payload: { op: string };
    };
    assert.equal(v.payload.op, 'r');
    assert.equal(v.schema.fields[2].name, 'io.debezium.connector.vitess.Source');
    assert.match(rec.key as string, /"name":"vt\.ks\.t\.Key"/);
  });

  it('DDL: schema change record keyed by keyspace, table taken from the statement', () => {
    assert.equal(ddlTable('ALTER TABLE `ks`.`orders` ADD c int'), 'orders');
    assert.equal(ddlTable('create table if not exists t2 (id int)'), 't2');
    assert.equal(ddlTable('CREATE INDEX i ON t(c)'), '');
    const r = schemaChangeRecord(opts, 'ks', 'drop table t', source);
    assert.equal(r.topic, 'vt');
    assert.equal(r.key, '{"databaseName":"ks"}');
    const v = JSON.parse(r.value as string) as Record<string, unknown>;
    assert.deepEqual(Object.keys(v), ['source', 'ts_ms', 'databaseName', 'schemaName', 'ddl', 'tableChanges']);
  });
});
