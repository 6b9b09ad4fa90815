/**
 * Start-up loads only what the command and the configuration use: in a child process whose module resolution
 * refuses the AWS SDK clients, the Kafka client and gRPC, `cdc --help`, `cdc check` and a `cdc run` with a file sink
 * and file stores get as far as the (absent) database, and the components of a file-sink task work; the Kinesis,
 * Kafka and DynamoDB components load their SDK at first use (which the refusal turns into a visible error, so the
 * check itself is shown to catch a load). Nor does a file-sink `cdc run` load Node's undici or http2.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runRefusingModules } from '../harness/refuse-modules.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const url = (p: string) => pathToFileURL(join(root, p)).href;
const dir = mkdtempSync(join(tmpdir(), 'cdc-lazy-'));
after(() => rmSync(dir, { recursive: true, force: true }));

// The modules start-up must not load unless the config uses them.
const REFUSED = /^(@aws-sdk\/client-|@platformatic\/kafka|@grpc\/)/;

const fileProps = join(dir, 'file.properties');
writeFileSync(
  fileProps,
  [
    'topic.prefix=shop',
    'database.hostname=127.0.0.1',
    // Nothing listens on port 1: the command fails connecting, after everything it needs is loaded.
    'database.port=1',
    'database.user=cdc',
    'database.password=x',
    'database.server.id=5',
    'sink.type=file',
    `sink.file.path=${join(dir, 'out.jsonl')}`,
    `offset.storage.file.filename=${join(dir, 'offsets.json')}`,
    `schema.history.internal.file.filename=${join(dir, 'history.jsonl')}`,
    '',
  ].join('\n'),
);

const child = `
const { main } = await import(${JSON.stringify(url('src/cli/main.ts'))});
const { parseConfig } = await import(${JSON.stringify(url('src/config/index.ts'))});
const { buildComponents } = await import(${JSON.stringify(url('src/engine/components.ts'))});
const { silentLogger } = await import(${JSON.stringify(url('src/common/logger.ts'))});
const out = [];
const sink = { write: (s) => { out.push(String(s)); return true; } };
const io = { stdout: sink, stderr: sink, env: {} };
const cli = async (...argv) => {
  const code = await main(argv, io);
  const text = out.join('');
  out.length = 0;
  const reached = text.includes('ECONNREFUSED') ? 'reached the database' : text.includes('commands:') ? 'usage' : text;
  console.log(argv[0], 'exit', code, text.includes('NOT-LOADABLE') ? 'LOADED-A-REFUSED-MODULE' : reached);
};
await cli('--help');
await cli('check', '-c', ${JSON.stringify(fileProps)});
await cli('run', '-c', ${JSON.stringify(fileProps)});
// An ESM import of node:http (its export facade reads the lazy undici exports) loads these without any use.
const loaded = ['http2', 'internal/deps/undici/undici'].filter((m) => process.moduleLoadList.includes('NativeModule ' + m));
console.log('builtins loaded by start-up:', loaded.join(' ') || 'none');
const base = {
  'topic.prefix': 'shop', 'database.hostname': 'db.local', 'database.user': 'cdc', 'database.server.id': '5',
  'offset.storage.file.filename': ${JSON.stringify(join(dir, 'o2.json'))},
  'schema.history.internal.file.filename': ${JSON.stringify(join(dir, 'h2.jsonl'))},
};
const file = buildComponents(parseConfig({ ...base, 'sink.type': 'file', 'sink.file.path': ${JSON.stringify(join(dir, 'o.jsonl'))} }), silentLogger);
await file.sink.start();
await file.sink.send([{ topic: 't', key: null, value: '{}', sizeBytes: 2 }]);
await file.sink.close();
console.log('file components', await file.offsetStore.load(), await file.schemaHistory.exists());
const tryStart = async (kind, props, use) => {
  const all = { ...base, ...props };
  if (props['offset.storage'] === 'dynamodb') delete all['offset.storage.file.filename'];
  const c = buildComponents(parseConfig(all), silentLogger);
  const err = await use(c).then(() => 'started', (e) => e.message);
  console.log(kind, 'built;', 'first use:', /NOT-LOADABLE (\\S+)/.exec(err)?.[1] ?? err);
};
await tryStart('kinesis', { 'sink.type': 'kinesis', 'sink.kinesis.stream.name': 's', 'aws.region': 'eu-west-1' }, (c) => c.sink.start());
await tryStart('kafka', { 'sink.type': 'kafka', 'sink.kafka.bootstrap.servers': 'k:9092' }, (c) => c.sink.start());
await tryStart('dynamodb', {
  'sink.type': 'file', 'sink.file.path': ${JSON.stringify(join(dir, 'o3.jsonl'))},
  'offset.storage': 'dynamodb', 'offset.storage.dynamodb.table': 'offsets', 'lease.dynamodb.table': 'leases', 'aws.region': 'eu-west-1',
}, (c) => c.offsetStore.load());
`;

describe('start-up module loading', () => {
  it('loads neither the AWS SDKs nor the Kafka client nor gRPC unless the config uses them', () => {
    const r = runRefusingModules(REFUSED, 'NOT-LOADABLE', child, { cwd: root, timeoutMs: 90_000 });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(r.stdout.trim().split('\n'), [
      '--help exit 0 usage',
      'check exit 1 reached the database',
      'run exit 1 reached the database',
      'builtins loaded by start-up: none',
      'file components null false',
      'kinesis built; first use: @aws-sdk/client-kinesis',
      'kafka built; first use: @platformatic/kafka',
      'dynamodb built; first use: @aws-sdk/client-dynamodb',
    ]);
  });
});
