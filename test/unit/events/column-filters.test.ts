import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type EventOptions, hashMapper, TableEventBuilder } from '../../../src/events/index.js';
import type { Row } from '../../../src/model/values.js';
import { col, fixedClock, source, table } from './fixtures.js';

const users = table(
  'shop',
  'users',
  [
    col('id', 'int', { nullable: false }),
    col('email', 'varchar(100)'),
    col('ssn', 'char(11)'),
    col('bio', 'text'),
    col('card', 'varchar(64)'),
    col('photo', 'blob'),
    col('age', 'int'),
  ],
  ['id'],
);
const row: Row = [1, 'a@b.c', '123-45-6789', 'a long biography', '4111111111111111', Buffer.from([1, 2, 3, 4, 5]), 30];

function build(o: Partial<EventOptions>) {
  const b = new TableEventBuilder(users, { topicPrefix: 'p', clockMicros: fixedClock, ...o });
  const after = JSON.parse(b.insert(row, source)[0].value ?? 'null').after;
  return { b, after };
}

describe('column include/exclude lists', () => {
  it('exclude list drops columns from the value struct and schema but not from the key', () => {
    const { b, after } = build({ columnExcludeList: [/shop\.users\.(ssn|card)/, /SHOP.USERS.ID/] });
    assert.deepEqual(Object.keys(after), ['email', 'bio', 'photo', 'age']);
    assert.deepEqual(
      b.valueSchema.fields?.map((f) => f.field),
      ['email', 'bio', 'photo', 'age'],
    );
    assert.equal(b.insert(row, source)[0].key, '{"id":1}');
  });

  it('include list keeps only full, case-insensitive matches', () => {
    const { after } = build({ columnIncludeList: [/shop\.users\.id/, /shop\.users\.E.*/, /users\.age/] });
    assert.deepEqual(Object.keys(after), ['id', 'email']);
  });
});

describe('column mappers', () => {
  it('column.mask.with.N.chars replaces character values (NULL too) and marks the schema', () => {
    const { b, after } = build({ columnMaskWithChars: [{ columns: [/shop\.users\.(ssn|age)/], length: 5 }] });
    assert.equal(after.ssn, '*****');
    assert.equal(after.age, 30); // not a character column: value untouched
    const nullRow = [...row];
    nullRow[2] = null;
    assert.equal(JSON.parse(b.insert(nullRow, source)[0].value ?? '').after.ssn, '*****');
    const ssn = b.valueSchema.fields?.find((f) => f.field === 'ssn');
    assert.deepEqual(ssn?.schema.parameters, { masked: 'true' });
  });

  it('column.truncate.to.N.chars truncates strings and bytes when the column may be longer', () => {
    const { b, after } = build({ columnTruncate: [{ columns: [/shop\.users\.(bio|photo|ssn)/], length: 3 }] });
    assert.equal(after.bio, 'a l');
    assert.equal(after.ssn, '123');
    assert.deepEqual([...Buffer.from(after.photo, 'base64')], [1, 2, 3]);
    const bio = b.valueSchema.fields?.find((f) => f.field === 'bio');
    assert.deepEqual(bio?.schema.parameters, { truncateLength: '3' });
    // char(11) can never exceed a limit of 12: no truncation, no parameter
    const wide = build({ columnTruncate: [{ columns: [/shop\.users\.ssn/], length: 12 }] });
    assert.equal(wide.after.ssn, '123-45-6789');
    assert.equal(wide.b.valueSchema.fields?.find((f) => f.field === 'ssn')?.schema.parameters, undefined);
  });

  it('column.mask.hash uses Debezium v1/v2 hashing (reference vectors from MaskStringsTest)', () => {
    assert.equal(
      hashMapper('SHA-256', 'salt', 'v1', null)('hello'),
      'af5843a0f0e728ab0332c8888b6e1190bfb79e584f0d40538de8f10df6ef29c6',
    );
    assert.equal(hashMapper('MD5', 'salt', 'v1', null)('world'), '030f632140d9c9591b0d8c21098024b8');
    assert.equal(
      hashMapper('SHA-256', 'salt', 'v2', null)('hello'),
      'cd31b3b98ece60cb739c0bf770b2de892ae0ad133f645513c3d83f08757a843a',
    );
    assert.equal(hashMapper('MD5', 'salt', 'v2', null)('world'), '172c8e95398cc72ab5358ead6981e7e5');
    // the hash is cut to the declared column length
    assert.equal(hashMapper('SHA-256', 'salt', 'v2', 10)('hello'), 'cd31b3b98e');
  });

  it('column.mask.hash through the builder: hex hash truncated to the column length', () => {
    const { after } = build({
      columnMaskHash: [{ columns: [/shop\.users\.card/], algorithm: 'SHA-256', salt: 'salt', version: 'v2' }],
    });
    assert.equal(after.card, hashMapper('SHA-256', 'salt', 'v2', 64)('4111111111111111'));
    assert.equal(after.card.length, 64);
  });

  it('column.propagate.source.type adds the __debezium.source.column.* parameters', () => {
    const { b } = build({ columnPropagateSourceType: [/shop\.users\.email/] });
    const email = b.valueSchema.fields?.find((f) => f.field === 'email');
    assert.deepEqual(email?.schema.parameters, {
      '__debezium.source.column.type': 'VARCHAR',
      '__debezium.source.column.length': '100',
      '__debezium.source.column.name': 'email',
    });
  });

  it('keys are never masked', () => {
    const t = table('shop', 'codes', [col('code', 'varchar(8)', { nullable: false })], ['code']);
    const kb = new TableEventBuilder(t, {
      topicPrefix: 'p',
      columnMaskWithChars: [{ columns: [/shop\.codes\.code/], length: 3 }],
    });
    const [r] = kb.insert(['ABC123'], source);
    assert.equal(r.key, '{"code":"ABC123"}');
    assert.equal(JSON.parse(r.value ?? '').after.code, '***');
  });
});
