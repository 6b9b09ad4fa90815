import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseJsonConfig, parseProperties } from '../../../src/config/index.js';

describe('parseProperties (Java .properties semantics)', () => {
  it('reads key=value, key: value and key value, ignoring comments and blank lines', () => {
    const { values, problems } = parseProperties(
      ['# comment', '! also a comment', '', 'a=1', 'b: 2', 'c 3', '  d = four  ', 'e', 'f='].join('\n'),
    );
    assert.deepEqual(problems, []);
    assert.deepEqual(values, { a: '1', b: '2', c: '3', d: 'four  ', e: '', f: '' });
  });

  it('joins continuation lines and strips their leading whitespace', () => {
    const { values } = parseProperties(
      'table.include.list=shop.orders,\\\n    shop.customers,\\\n\tshop.items\nnext=x',
    );
    assert.equal(values['table.include.list'], 'shop.orders,shop.customers,shop.items');
    assert.equal(values.next, 'x');
  });

  it('an even number of trailing backslashes is a literal backslash, not a continuation', () => {
    const { values } = parseProperties('path=C:\\\\dir\\\\\nother=y');
    assert.equal(values.path, 'C:\\dir\\');
    assert.equal(values.other, 'y');
  });

  it('decodes escapes: \\t \\n \\uXXXX, escaped separators in keys, other escapes drop the backslash', () => {
    const { values } = parseProperties('k\\=ey\\ x=a\\tb\\nc\\u00e9\\q\nsep=\\:\\=');
    assert.equal(values['k=ey x'], 'a\tb\ncé' + 'q');
    assert.equal(values.sep, ':=');
  });

  it('a comment line ending in a backslash does not swallow the next line; CRLF and BOM are handled', () => {
    const { values } = parseProperties('\uFEFF# comment \\\r\na=1\r\nb=2\r');
    assert.deepEqual(values, { a: '1', b: '2' });
  });

  it('reports a malformed \\u escape with its line number', () => {
    const { values, problems } = parseProperties('ok=1\nbad=\\u12G4');
    assert.equal(values.ok, '1');
    assert.equal(problems.length, 1);
    assert.equal(problems[0].property, 'bad');
    assert.match(problems[0].message, /line 2/);
  });

  it('last duplicate wins', () => {
    assert.equal(parseProperties('a=1\na=2').values.a, '2');
  });
});

describe('parseJsonConfig', () => {
  it('accepts flat dotted keys and nested objects, joins arrays, stringifies scalars, skips null', () => {
    const { values, problems } = parseJsonConfig(
      JSON.stringify({
        'database.hostname': 'db',
        database: { port: 3307, ssl: { mode: 'required' } },
        table: { include: { list: ['shop.a', 'shop.b'] } },
        'include.query': true,
        'snapshot.mode': null,
      }),
    );
    assert.deepEqual(problems, []);
    assert.deepEqual(values, {
      'database.hostname': 'db',
      'database.port': '3307',
      'database.ssl.mode': 'required',
      'table.include.list': 'shop.a,shop.b',
      'include.query': 'true',
    });
  });

  it('reports invalid JSON without quoting the file content', () => {
    const { problems } = parseJsonConfig('{"database.password": hunter2}', 'cfg.json');
    assert.equal(problems.length, 1);
    assert.equal(problems[0].property, 'cfg.json');
    assert.doesNotMatch(JSON.stringify(problems), /hunter2/);
  });

  it('rejects a non-object document', () => {
    assert.match(parseJsonConfig('[1,2]').problems[0].message, /JSON object/);
  });
});
