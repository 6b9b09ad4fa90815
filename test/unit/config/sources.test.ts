// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these tests exercise the literal ${env:}/${file:} syntax
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ConfigError,
  envName,
  envToConfig,
  expandReferences,
  loadConfig,
  parseOverrides,
} from '../../../src/config/index.js';

const BASE = ['topic.prefix=shop', 'database.hostname=file-host', 'database.user=cdc'].join('\n');
const files = (map: Record<string, string>) => (p: string) => {
  if (p in map) return map[p];
  throw Object.assign(new Error(`ENOENT: ${p}`), { code: 'ENOENT' });
};

describe('environment variables', () => {
  it('maps CDC_<UPPER_SNAKE> to catalog names, including dashes and aliases', () => {
    const { values, problems } = envToConfig({
      CDC_DATABASE_HOSTNAME: 'h',
      CDC_SNAPSHOT_LOCKING_MODE: 'none',
      CDC_TOPIC_HEARTBEAT_PREFIX: 'hb',
      CDC_DATABASE_SERVER_NAME: 'legacy',
      PATH: '/bin',
    });
    assert.deepEqual(problems, []);
    assert.deepEqual(values, {
      'database.hostname': 'h',
      'snapshot.locking.mode': 'none',
      'topic.heartbeat.prefix': 'hb',
      'database.server.name': 'legacy',
    });
    assert.equal(envName('snapshot.select.statement.overrides'), 'CDC_SNAPSHOT_SELECT_STATEMENT_OVERRIDES');
  });

  it('maps pattern properties best effort, using listed transform and override names', () => {
    const { values, problems } = envToConfig(
      {
        CDC_TRANSFORMS: 'unwrap',
        CDC_TRANSFORMS_UNWRAP_TYPE: 'io.debezium.transforms.ExtractNewRecordState',
        CDC_TRANSFORMS_UNWRAP_DROP_TOMBSTONES: 'false',
        CDC_SINK_KAFKA_SASL_MECHANISM: 'PLAIN',
        CDC_COLUMN_MASK_WITH_12_CHARS: 'shop.customers.email',
        CDC_COLUMN_TRUNCATE_TO_20_CHARS: 'shop.customers.bio',
        CDC_COLUMN_MASK_HASH_SHA_256_WITH_SALT_CzQMA0cB5K: 'shop.customers.ssn',
        CDC_SNAPSHOT_SELECT_STATEMENT_OVERRIDES_SHOP_ORDER_ITEMS: 'SELECT * FROM shop.order_items WHERE id > 10',
      },
      { context: { 'snapshot.select.statement.overrides': 'shop.order_items' } },
    );
    assert.deepEqual(problems, []);
    assert.equal(values['transforms.unwrap.type'], 'io.debezium.transforms.ExtractNewRecordState');
    assert.equal(values['transforms.unwrap.drop.tombstones'], 'false');
    assert.equal(values['sink.kafka.sasl.mechanism'], 'PLAIN');
    assert.equal(values['column.mask.with.12.chars'], 'shop.customers.email');
    assert.equal(values['column.truncate.to.20.chars'], 'shop.customers.bio');
    assert.equal(values['column.mask.hash.SHA-256.with.salt.CzQMA0cB5K'], 'shop.customers.ssn');
    assert.equal(
      values['snapshot.select.statement.overrides.shop.order_items'],
      'SELECT * FROM shop.order_items WHERE id > 10',
    );
  });

  it('reports unknown CDC_* variables with a did-you-mean, and ignores CDC_TEST_* and CDC_COMPILED', () => {
    const { values, problems } = envToConfig({
      CDC_DATABSE_HOSTNAME: 'h',
      CDC_TEST_CONCURRENCY: '2',
      // bin/cdc.js's own switch: `CDC_COMPILED=1 cdc run` was refused as an unknown configuration variable.
      CDC_COMPILED: '1',
    });
    assert.deepEqual(values, {});
    assert.equal(problems.length, 1);
    assert.equal(problems[0].property, 'CDC_DATABSE_HOSTNAME');
    assert.match(problems[0].fix, /CDC_DATABASE_HOSTNAME \(database\.hostname\)/);
  });

  it('a transform variable whose transform is not listed explains how to make it mappable', () => {
    const { problems } = envToConfig({ CDC_TRANSFORMS_UNWRAP_TYPE: 'X' });
    assert.equal(problems.length, 1);
    assert.match(problems[0].fix, /list the transform name in transforms/);
  });
});

describe('--set overrides', () => {
  it('splits at the first = and reports items without one', () => {
    const { values, problems } = parseOverrides(['a=b=c', 'empty=', 'broken']);
    assert.deepEqual(values, { a: 'b=c', empty: '' });
    assert.equal(problems.length, 1);
    assert.equal(problems[0].property, 'broken');
  });
});

describe('precedence: file < env < overrides', () => {
  it('later sources win, also across legacy aliases', () => {
    const readFile = files({
      'c.properties':
        'database.server.name=legacy\ndatabase.hostname=file-host\ndatabase.user=cdc\ndatabase.port=3307\nsnapshot.mode=never',
    });
    const config = loadConfig({
      file: 'c.properties',
      readFile,
      env: { CDC_DATABASE_PORT: '3308', CDC_SNAPSHOT_MODE: 'initial_only', CDC_TOPIC_PREFIX: 'from-env' },
      overrides: ['database.port=3309'],
    });
    assert.equal(config.database.port, 3309);
    assert.equal(config.snapshot.mode, 'initial_only');
    assert.equal(config.topicPrefix, 'from-env');
    assert.equal(config.database.hostname, 'file-host');
  });

  it('reads a JSON file by extension', () => {
    const readFile = files({
      'c.json': JSON.stringify({ topic: { prefix: 'shop' }, database: { hostname: 'h', user: 'u' } }),
    });
    assert.equal(loadConfig({ file: 'c.json', readFile }).database.hostname, 'h');
  });

  it('an unreadable config file is a problem, not a crash', () => {
    assert.throws(
      () => loadConfig({ file: 'missing.properties', readFile: files({}), overrides: ['topic.prefix=x'] }),
      (err: unknown) => err instanceof ConfigError && err.problems.some((p) => p.property === 'missing.properties'),
    );
  });
});

describe('${env:} and ${file:} references', () => {
  it('a reference may name any variable, CDC_ prefix included (the README quick start)', () => {
    const readFile = files({ 'c.properties': `${BASE}\ndatabase.password=\${env:CDC_DB_PASSWORD}` });
    const config = loadConfig({ file: 'c.properties', readFile, env: { CDC_DB_PASSWORD: 's3cret' } });
    assert.equal(config.database.password.reveal(), 's3cret');
    // Referenced from --set or from another variable's value counts too; an unreferenced stray CDC_ name does not.
    const viaSet = loadConfig({
      file: 'c.properties',
      readFile: files({ 'c.properties': BASE }),
      env: { CDC_PW: 'a', CDC_DATABASE_USER: '${env:CDC_USER_NAME}', CDC_USER_NAME: 'bob' },
      overrides: ['database.password=${env:CDC_PW}'],
    });
    assert.equal(viaSet.database.password.reveal(), 'a');
    assert.equal(viaSet.database.user, 'bob');
    assert.throws(
      () => loadConfig({ file: 'c.properties', readFile, env: { CDC_DB_PASSWORD: 'x', CDC_STRAY: 'y' } }),
      (err: unknown) =>
        err instanceof ConfigError && err.problems.length === 1 && err.problems[0].property === 'CDC_STRAY',
    );
  });

  it('expands references from the given env and files, trimming one trailing newline', () => {
    const { values, problems } = expandReferences(
      { 'database.password': '${env:DB_PASS}', 'database.user': '${file:/run/user}', url: 'mysql://${env:H}:3306' },
      { env: { DB_PASS: 'hunter2', H: 'db' }, readFile: files({ '/run/user': 'cdc\n' }) },
    );
    assert.deepEqual(problems, []);
    assert.deepEqual(values, { 'database.password': 'hunter2', 'database.user': 'cdc', url: 'mysql://db:3306' });
  });

  it('reports unset variables and unreadable files per property', () => {
    const { problems } = expandReferences(
      { 'database.password': '${env:NOPE}', 'database.ssl.ca': '${file:/nope}' },
      { env: {}, readFile: files({}) },
    );
    assert.deepEqual(
      problems.map((p) => p.property),
      ['database.password', 'database.ssl.ca'],
    );
    assert.match(problems[0].fix, /export NOPE/);
  });

  it('loadConfig resolves references after merging all sources', () => {
    const config = loadConfig({
      file: 'c.properties',
      readFile: files({ 'c.properties': `${BASE}\ndatabase.password=\${env:DB_PASS}` }),
      env: { DB_PASS: 's3cret!' },
    });
    assert.equal(config.database.password.reveal(), 's3cret!');
  });
});
