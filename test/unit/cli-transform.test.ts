import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { transformCommand } from '../../src/cli/commands/transform.js';
import { ExitCode } from '../../src/cli/io.js';

function io() {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const text = (s: PassThrough) => () => (s.read() as Buffer | null)?.toString('utf8') ?? '';
  return { io: { stdout, stderr, env: {} }, out: text(stdout), err: text(stderr) };
}

const line = (op: string, id: number, after: object | null) =>
  JSON.stringify({
    topic: 'it.shop.orders',
    key: { id },
    value: { before: null, after, source: { db: 'shop', table: 'orders', file: 'b.000001', pos: 4, row: 0 }, op },
    headers: {},
  });

test('cdc transform applies the configured chain to NDJSON (a full connector config works too)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cdc-transform-'));
  const config = join(dir, 'cdc.properties');
  writeFileSync(
    config,
    [
      'database.hostname=ignored',
      'transforms=insert,unwrap',
      'transforms.insert.type=io.debezium.connector.mysql.transforms.ReadToInsertEvent',
      'transforms.unwrap.type=io.debezium.transforms.ExtractNewRecordState',
      'transforms.unwrap.add.fields=op',
    ].join('\n'),
  );
  const input = join(dir, 'in.ndjson');
  const big = '{"topic":"it.shop.orders","key":{"id":18446744073709551615},"value":null,"headers":{}}';
  writeFileSync(input, `${line('r', 1, { id: 1, amount: 5 })}\n\n${line('d', 2, null)}\n${big}\n`);
  const t = io();
  const code = await transformCommand.run(['--config', config, '--input', input], t.io);
  assert.equal(code, ExitCode.OK, t.err());
  assert.equal(
    t.out(),
    '{"topic":"it.shop.orders","key":{"id":1},"value":{"id":1,"amount":5,"__op":"c"},"headers":{}}\n' + `${big}\n`,
  );

  const output = join(dir, 'out.ndjson');
  const t2 = io();
  await transformCommand.run(
    ['--config', config, '--input', input, '--output', output, '--set', 'transforms.unwrap.add.fields='],
    t2.io,
  );
  assert.match(readFileSync(output, 'utf8'), /"value":\{"id":1,"amount":5\}/);
});

test('bad configuration exits 2 listing every problem; a bad line exits 1 with its number', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cdc-transform-'));
  const config = join(dir, 'cdc.json');
  writeFileSync(
    config,
    JSON.stringify({ transforms: 'f,u', 'transforms.f.type': 'filter', 'transforms.u.type': 'unwarp' }),
  );
  const t = io();
  assert.equal(await transformCommand.run(['--config', config], t.io), ExitCode.USAGE);
  const err = t.err();
  assert.match(err, /transforms\.f\.condition: is required/);
  assert.match(err, /transforms\.u\.type: 'unwarp' is not a known transform\. Fix: did you mean unwrap\?/);

  const input = join(dir, 'in.ndjson');
  writeFileSync(input, `${line('c', 1, { id: 1 })}\n{"topic":\n`);
  const t2 = io();
  const code = await transformCommand.run(
    ['--set', 'transforms=u', '--set', 'transforms.u.type=unwrap', '--input', input],
    t2.io,
  );
  assert.equal(code, ExitCode.FAILURE);
  assert.match(t2.err(), /line 2: invalid JSON/);
  assert.equal(await transformCommand.run([], io().io), ExitCode.USAGE);
});
