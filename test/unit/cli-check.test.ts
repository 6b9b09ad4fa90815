import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { ExitCode } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';

function io() {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const text = (s: PassThrough) => () => (s.read() as Buffer | null)?.toString('utf8') ?? '';
  return { io: { stdout, stderr, env: {} }, out: text(stdout), err: text(stderr) };
}

describe('cdc check: one configuration pass', () => {
  it('lists core, sink.kafka.* and transforms.* problems together, before connecting (exit 2)', async () => {
    const t = io();
    const set = [
      'topic.prefix=x',
      'database.hostname=127.0.0.1',
      'database.port=1', // never contacted: the configuration is rejected first
      'database.user=u',
      'snapshot.mode=sometimes',
      'sink.type=kafka',
      'sink.kafka.bootstrap.servers=b:9092',
      'sink.kafka.compression.type=lzma',
      'transforms=u',
      'transforms.u.type=io.debezium.transforms.ExtractNewRecordState',
      'transforms.u.no.such.option=1',
    ].flatMap((s) => ['--set', s]);
    const code = await main(['check', ...set], t.io);
    const err = t.err();
    assert.equal(code, ExitCode.USAGE, err);
    assert.match(err, /snapshot\.mode/);
    assert.match(err, /sink\.kafka\.compression\.type/);
    assert.match(err, /transforms\.u\.no\.such\.option/);
  });
});

describe('cdc check exit codes agree with check --help', () => {
  it('an unreachable database exits 1 (the usage text says so), not 3', async () => {
    const t = io();
    const set = ['topic.prefix=x', 'database.hostname=127.0.0.1', 'database.port=1', 'database.user=u'];
    const code = await main(
      ['check', ...set.flatMap((s) => ['--set', s]), '--set', 'database.ssl.mode=disabled'],
      t.io,
    );
    assert.equal(code, ExitCode.FAILURE, t.err());
    const help = io();
    await main(['check', '--help'], help.io);
    assert.match(help.out(), /1 the database could not be reached/);
  });
});
