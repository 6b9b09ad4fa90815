import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTableFilter } from '../../../src/source/mysql/table-filter.js';

const filters = {
  databaseInclude: null,
  databaseExclude: null,
  tableInclude: [/^shop\.orders$/i],
  tableExclude: null,
  columnInclude: null,
  columnExclude: null,
  signalDataCollection: null,
};

describe('createTableFilter', () => {
  it('answers each table by its own lists when the tables asked about alternate (the last answer is reused only for the same names)', () => {
    const captured = createTableFilter(filters);
    const asked: Array<[string, string, boolean]> = [
      ['shop', 'orders', true],
      ['shop', 'orders', true],
      ['shop', 'customers', false],
      ['shop', 'orders', true],
      ['other', 'orders', false],
      ['mysql', 'user', false],
      // Equal names in other string objects (a TABLE_MAP decoded again) get the same answer.
      [['sh', 'op'].join(''), ['ord', 'ers'].join(''), true],
      ['SHOP', 'ORDERS', true],
    ];
    for (const [db, table, want] of asked) assert.equal(captured(db, table), want, `${db}.${table}`);
  });
});
