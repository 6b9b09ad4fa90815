import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { describeProperty, PROPERTIES, renderConfigDocs } from '../../../src/config/index.js';

describe('generated configuration docs', () => {
  it('docs/configuration.md matches renderConfigDocs() — run `npm run docs` after changing the catalog', () => {
    const committed = readFileSync(new URL('../../../docs/configuration.md', import.meta.url), 'utf8');
    assert.ok(
      committed === renderConfigDocs(),
      'docs/configuration.md is stale: regenerate it with `npm run docs` and commit the result',
    );
  });

  it('lists every property once with its group table', () => {
    const docs = renderConfigDocs();
    for (const p of PROPERTIES) assert.ok(docs.includes(`| \`${p.name.replace(/\|/g, '\\|')}\` |`), p.name);
    assert.match(docs, /## Snapshot/);
    assert.match(docs, /Alias: `database\.server\.name`/);
    assert.match(docs, /`schema_only` as `no_data`/);
  });

  it('the catalog has no duplicate names or aliases and every enum default is allowed', () => {
    const seen = new Set<string>();
    for (const p of PROPERTIES) {
      for (const n of [p.name, ...(p.aliases ?? [])]) {
        assert.ok(!seen.has(n), `duplicate ${n}`);
        seen.add(n);
      }
      if (p.type === 'enum') assert.ok(p.default && p.allowed?.includes(p.default), p.name);
      assert.ok(p.description.length > 0 && !p.description.includes('\n'), p.name);
    }
  });
});

describe('describeProperty', () => {
  it('describes a property with type, default, env name', () => {
    const text = describeProperty('snapshot.locking.mode');
    assert.match(text, /type: enum: minimal, extended, none/);
    assert.match(text, /default: minimal/);
    assert.match(text, /env: CDC_SNAPSHOT_LOCKING_MODE/);
  });

  it('resolves legacy names and suggests for typos', () => {
    assert.match(describeProperty('database.server.name'), /^topic\.prefix \(legacy name: database\.server\.name\)/);
    assert.match(describeProperty('database.hostnme'), /Did you mean database\.hostname\?/);
  });
});
