import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { useMariaDb } from '../harness/fixtures.js';
import { KNOWN_DIFFERENCES } from './support/debezium-differences.js';
import { buildOracle } from './support/debezium-oracle.js';
import { runScenarios, type Scenario } from './support/debezium-scenario.js';
import { classify, compareStreams, describe } from './support/differential.js';

const db = useMariaDb();

before(() => buildOracle());

/** The names between the differences markers of docs/debezium-compatibility.md. */
function documentedNames(): string[] {
  const doc = readFileSync(new URL('../../docs/debezium-compatibility.md', import.meta.url), 'utf8');
  const section = /<!-- differences:start -->([\s\S]*?)<!-- differences:end -->/.exec(doc)?.[1] ?? '';
  return [...section.matchAll(/^- `([a-z0-9-]+)`/gm)].map((m) => m[1] ?? '');
}

const ndjson = (lines: unknown[]) => lines.map((l) => `${JSON.stringify(l)}\n`).join('');

const SCENARIOS: Scenario[] = [
  {
    name: 'basic',
    setup: [
      'CREATE TABLE $db.items (id INT PRIMARY KEY, label VARCHAR(40), price DECIMAL(10,2))',
      "INSERT INTO $db.items VALUES (1,'one',1.50),(2,'two',2.25)",
    ],
    stream: [
      "INSERT INTO $db.items VALUES (3,'three',3.00)",
      "UPDATE $db.items SET label='uno' WHERE id=1",
      'UPDATE $db.items SET id=10 WHERE id=2',
      'DELETE FROM $db.items WHERE id=3',
    ],
  },
];

test('Debezium and cdc run produce the same events, up to the documented differences', async () => {
  const names = documentedNames();
  assert.deepEqual(
    [...KNOWN_DIFFERENCES.map((k) => k.name)].sort(),
    [...names].sort(),
    'docs/debezium-compatibility.md and support/debezium-differences.ts must list the same differences',
  );
  const results = await runScenarios(db(), SCENARIOS);
  const observed = new Map<string, number>();
  const problems: string[] = [];
  if (process.env.CDC_DIFF_DUMP) {
    const events = await db().query<Array<Record<string, unknown>>>('SHOW BINLOG EVENTS');
    writeFileSync(join(process.env.CDC_DIFF_DUMP, 'binlog-events.ndjson'), ndjson(events));
  }
  for (const r of results) {
    if (process.env.CDC_DIFF_DUMP) {
      // Both streams of each scenario, for investigating a difference by hand.
      writeFileSync(join(process.env.CDC_DIFF_DUMP, `${r.scenario.name}.debezium.ndjson`), ndjson(r.debezium));
      writeFileSync(join(process.env.CDC_DIFF_DUMP, `${r.scenario.name}.ours.ndjson`), ndjson(r.ours));
    }
    assert.ok(r.debezium.length > 0, `${r.scenario.name}: Debezium produced no records`);
    const c = classify(compareStreams(r.debezium, r.ours), KNOWN_DIFFERENCES);
    for (const [k, n] of c.observed) observed.set(k, (observed.get(k) ?? 0) + n);
    if (c.unexplained.length > 0) {
      problems.push(`scenario ${r.scenario.name} (${r.database}):\n${describe(c.unexplained)}`);
    }
  }
  const unobserved = names.filter((n) => !observed.has(n));
  if (unobserved.length > 0) {
    console.log(`documented differences not observed in this run (remove them if fixed): ${unobserved.join(', ')}`);
  }
  assert.equal(problems.length, 0, `undocumented differences from Debezium:\n${problems.join('\n')}`);
});
