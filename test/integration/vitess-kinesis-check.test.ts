/**
 * The Vitess source into Kinesis (kinesalite) with its VGTID offset in DynamoDB (dynalite), and `cdc check` for a
 * Vitess config, both against the VTGate stand-in.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { startCapture } from '../../src/cli/commands/run.js';
import { main } from '../../src/cli/main.js';
import { silentLogger } from '../../src/common/logger.js';
import { parseConfig } from '../../src/config/index.js';
import { createStream, dynamoClient, kinesisClient, readAllRecords } from '../harness/aws.js';
import { useDynalite, useKinesalite } from '../harness/fixtures.js';
import { type StandinTable, VtgateStandin } from '../harness/vtgate-standin.js';
import { committedOffset, setStandInCredentials } from './support/kinesis-e2e.js';

const KS = 'shop';
const ORDERS: StandinTable = {
  name: 'orders',
  fields: [
    { name: 'id', type: 'INT32', flags: 3, column_type: 'int' },
    { name: 'total', type: 'DECIMAL', flags: 0, column_type: 'decimal(8,2)' },
  ],
};

function props(port: number, extra: Record<string, string> = {}): Record<string, string> {
  return {
    name: 'vt-kinesis',
    'connector.class': 'io.debezium.connector.vitess.VitessConnector',
    'topic.prefix': 'vk',
    'database.hostname': '127.0.0.1',
    'database.port': String(port),
    'database.user': 'cdc',
    'database.password': 'pw',
    'vitess.keyspace': KS,
    'connect.timeout.ms': '3000',
    ...extra,
  };
}

function captureIo() {
  let out = '';
  let err = '';
  const sink = (f: (s: string) => void) =>
    new Writable({
      write(chunk, _enc, cb) {
        f(String(chunk));
        cb();
      },
    });
  return {
    io: { stdout: sink((s) => (out += s)), stderr: sink((s) => (err += s)), env: {} },
    out: () => out,
    err: () => err,
  };
}

describe('Vitess source: Kinesis sink and DynamoDB offsets, cdc check', () => {
  const kinesalite = useKinesalite();
  const dynalite = useDynalite();
  let vtgate: VtgateStandin;
  before(async () => {
    setStandInCredentials();
    vtgate = new VtgateStandin({
      keyspace: KS,
      shards: ['-80', '80-'],
      tables: [ORDERS],
      credentials: { user: 'cdc', password: 'pw' },
      servingTabletTypes: ['PRIMARY'],
    });
    await vtgate.start();
    for (let i = 1; i <= 4; i++)
      vtgate.commit(i <= 2 ? '-80' : '80-', [{ table: 'orders', after: [String(i), `${i}.00`] }]);
  });
  after(() => vtgate.stop());

  it('streams the copy phase and changes into Kinesis; the VGTID lands in the DynamoDB offset store', async () => {
    const kinesis = kinesisClient(kinesalite().endpoint);
    const dynamo = dynamoClient(dynalite().endpoint);
    try {
      await createStream(kinesis, 'vitess-events', 1);
      const config = parseConfig(
        props(vtgate.port, {
          'sink.type': 'kinesis',
          'sink.kinesis.stream.name': 'vitess-events',
          'sink.kinesis.endpoint': kinesalite().endpoint,
          'offset.storage': 'dynamodb',
          'offset.storage.dynamodb.table': 'cdc_offsets',
          'offset.storage.dynamodb.table.create': 'true',
          'offset.storage.dynamodb.endpoint': dynalite().endpoint,
          'offset.flush.interval.ms': '0',
          'lease.dynamodb.table': 'vt-lease',
          'lease.dynamodb.endpoint': dynalite().endpoint,
        }),
      );
      const handle = startCapture(config, silentLogger);
      const values = async () =>
        (await readAllRecords(kinesis, 'vitess-events')).map(
          (r) =>
            JSON.parse(r.data.toString()) as {
              op: string;
              after: { id: number } | null;
              source: Record<string, string>;
            },
        );
      try {
        let got: Awaited<ReturnType<typeof values>> = [];
        const until = async (n: number) => {
          const deadline = Date.now() + 15_000;
          while (Date.now() < deadline) {
            got = await values();
            if (got.length >= n) return true;
            await new Promise((r) => setTimeout(r, 100));
          }
          return false;
        };
        assert.ok(await until(4), 'copy rows on the stream');
        vtgate.commit('80-', [{ table: 'orders', before: ['3', '3.00'], after: ['3', '9.99'] }]);
        assert.ok(await until(5), 'the update on the stream');
        assert.deepEqual(
          got.map((v) => v.op),
          ['c', 'c', 'c', 'c', 'u'],
        );
        assert.deepEqual(
          got.map((v) => v.after?.id),
          [1, 2, 3, 4, 3],
        );
        assert.equal(got[4].source.connector, 'vitess');
        assert.equal(got[4].source.shard, '80-');
        const deadline = Date.now() + 10_000;
        let stored = await committedOffset(dynamo, 'vt-kinesis');
        while (Date.now() < deadline && !stored?.vgtid?.includes(vtgate.gtid('80-'))) {
          await new Promise((r) => setTimeout(r, 100));
          stored = await committedOffset(dynamo, 'vt-kinesis');
        }
        assert.equal(stored?.file, 'vitess');
        const shards = JSON.parse(stored?.vgtid ?? '[]') as Array<{ shard: string; gtid: string }>;
        assert.deepEqual(shards.map((s) => [s.shard, s.gtid]).sort(), [
          ['-80', vtgate.gtid('-80')],
          ['80-', vtgate.gtid('80-')],
        ]);
      } finally {
        handle.stop();
        await handle.done;
      }
    } finally {
      kinesis.destroy();
      dynamo.destroy();
    }
  });

  it('cdc check passes against a healthy VTGate and names each problem with its fix', async () => {
    const ok = captureIo();
    const set = (p: Record<string, string>) => Object.entries(p).flatMap(([k, v]) => ['--set', `${k}=${v}`]);
    assert.equal(await main(['check', ...set(props(vtgate.port))], ok.io), 0, ok.out() + ok.err());
    for (const id of [
      'vtgate.reachable',
      'vtgate.credentials',
      'keyspace.exists',
      'shards.exist',
      'tablets.serving',
      'vstream.allowed',
    ])
      assert.match(ok.out(), new RegExp(`\\[PASS\\] ${id.replace('.', '\\.')}:`), ok.out());

    const bad = captureIo();
    const code = await main(
      ['check', ...set(props(vtgate.port, { 'vitess.shard': '-80,c0-', 'vitess.tablet.type': 'RDONLY' }))],
      bad.io,
    );
    assert.equal(code, 3, bad.out());
    assert.match(bad.out(), /\[FAIL\] shards\.exist: vitess\.shard names shard\(s\) c0-/);
    assert.match(bad.out(), /\[FAIL\] tablets\.serving: no SERVING RDONLY tablet/);
    assert.match(bad.out(), /fix: .*vitess\.tablet\.type/);

    const denied = captureIo();
    assert.equal(await main(['check', ...set(props(vtgate.port, { 'database.password': 'wrong' }))], denied.io), 3);
    assert.match(denied.out(), /\[FAIL\] vtgate\.credentials: .*fix: set database\.user\/database\.password/s);
    assert.doesNotMatch(denied.out() + denied.err(), /wrong/, 'the password is never printed');

    const nokeyspace = captureIo();
    assert.equal(await main(['check', ...set(props(vtgate.port, { 'vitess.keyspace': 'nope' }))], nokeyspace.io), 3);
    assert.match(
      nokeyspace.out(),
      /\[FAIL\] keyspace\.exists: keyspace 'nope' is not served by this VTGate \(it serves: shop\)/,
    );

    const down = captureIo();
    assert.equal(await main(['check', ...set(props(1, { 'connect.timeout.ms': '1000' }))], down.io), 3);
    assert.match(down.out(), /\[FAIL\] vtgate\.reachable: VTGate at 127\.0\.0\.1:1 did not answer/);
  });
});
