/** `cdc binlog-dump` on real fixtures: NDJSON output, exit codes, clean error on a truncated file. */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { binlogDumpCommand } from '../../src/cli/commands/binlog-dump.js';
import { fixture } from './binlog/helpers.js';

async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c) => {
    out += c;
  });
  stderr.on('data', (c) => {
    err += c;
  });
  const code = await binlogDumpCommand(argv, { stdout, stderr });
  return { code, out, err };
}

describe('cdc binlog-dump', () => {
  it('prints one JSON line per event with named columns and resolved ENUM/SET', async () => {
    const { code, out, err } = await run([
      fixture('rust_mysql_common/mysql-enum-string-set.000001'),
      '--format',
      'ndjson',
    ]);
    assert.equal(code, 0, err);
    const lines = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(lines.length, 21);
    assert.deepEqual(Object.keys(lines[0]).slice(0, 5), ['type', 'position', 'nextPosition', 'timestamp', 'serverId']);
    assert.equal(lines[0].type, 'FORMAT_DESCRIPTION');
    assert.equal(lines[0].position, 4);
    const upd = lines.find((l) => l.type === 'UPDATE_ROWS');
    assert.equal(upd.table, 'mysql.t');
    assert.equal(upd.rows[0].after.f1, 'field1');
    assert.equal(upd.rows[0].after.f3, 'variant2');
    assert.equal(upd.rows[0].after.f4, 'two,four');
    assert.equal(upd.rows[0].before.f3, 'var1');
    assert.equal(upd.rows[0].before.f4, 'one,three');
  });

  it('unnamed columns are @1.., bytes base64, temporals as text, --start-position skips', async () => {
    const { code, out, err } = await run([fixture('rust_mysql_common/time_issue.000001'), '--start-position', '312']);
    assert.equal(code, 0, err);
    const lines = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      lines.map((l) => [l.position, l.type]),
      [
        [312, 'TABLE_MAP'],
        [358, 'WRITE_ROWS'],
        [397, 'XID'],
        [428, 'ROTATE'],
      ],
    );
    assert.deepEqual(lines[1].rows, [{ '@1': '-507:48:27' }]);
    const bits = await run([fixture('rust_mysql_common/mysql_type_bit.000001')]);
    const w = bits.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .find((l) => l.type === 'WRITE_ROWS');
    assert.deepEqual(w.rows[0], { a: 'BA==', b: 'foo', c: 'IA==' });
  });

  it('truncated file: exit 1, position and reason on stderr, no stack trace', async () => {
    const { code, out, err } = await run([fixture('rust_mysql_common/binlog_truncated_event.000001')]);
    assert.equal(code, 1);
    assert.equal(out, '');
    assert.match(err, /^binlog-dump: BINLOG_DECODE: .*truncated event at position 4: only 10 bytes remain/);
    assert.doesNotMatch(err, /\n\s+at /);
  });

  it('--help and bad arguments', async () => {
    const help = await run(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.out, /usage: cdc binlog-dump <file\|dir>/);
    assert.equal((await run([])).code, 2);
    assert.equal((await run(['x', '--format', 'csv'])).code, 2);
    assert.equal((await run(['x', '--start-position', 'abc'])).code, 2);
    const missing = await run(['/nonexistent/binlog.000001']);
    assert.equal(missing.code, 1);
    assert.match(missing.err, /ENOENT/);
  });
});
