// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these tests exercise the literal ${env:}/${file:} syntax
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inspect } from 'node:util';
import {
  type CdcConfig,
  ConfigError,
  loadConfig,
  matchesAny,
  parseConfig,
  redactConfig,
} from '../../../src/config/index.js';

const MIN = { 'topic.prefix': 'shop', 'database.hostname': 'db.local', 'database.user': 'cdc' };
const PASSWORD = 'Tr0ub4dor&3-never-print-me';

function problemsOf(raw: Record<string, string>): ConfigError {
  try {
    parseConfig({ ...MIN, ...raw });
  } catch (err) {
    assert.ok(err instanceof ConfigError, `expected ConfigError, got ${err}`);
    return err;
  }
  assert.fail('expected a ConfigError');
}

function assertProblem(raw: Record<string, string>, property: string, message: RegExp): void {
  const err = problemsOf(raw);
  const p = err.problems.find((x) => x.property === property);
  assert.ok(p, `no problem for ${property}; got ${err.message}`);
  assert.match(p.message, message);
  assert.ok(p.fix.length > 0);
}

describe('defaults', () => {
  it('a minimal config resolves every field to Debezium-compatible defaults', () => {
    const c = parseConfig(MIN);
    assert.equal(c.name, 'shop');
    assert.equal(c.database.port, 3306);
    assert.equal(c.database.ssl.mode, 'preferred');
    assert.equal(c.database.serverIdSource, 'derived');
    assert.ok(c.database.serverId >= 5400 && c.database.serverId <= 6400);
    assert.equal(c.database.serverId, parseConfig(MIN).database.serverId, 'derived id is stable');
    assert.equal(c.database.password.isEmpty, true);
    assert.equal(c.database.secret, null);
    assert.equal(c.filters.tableInclude, null);
    assert.equal(c.snapshot.mode, 'initial');
    assert.equal(c.snapshot.lockingMode, 'minimal');
    assert.equal(c.snapshot.lockTimeoutMs, 10000);
    assert.equal(c.snapshot.maxThreads, 1);
    assert.equal(c.snapshot.chunked, false);
    assert.equal(c.snapshot.fetchSize, null);
    assert.equal(c.events.decimalHandlingMode, 'precise');
    assert.equal(c.events.timePrecisionMode, 'adaptive_time_microseconds');
    assert.equal(c.events.bigintUnsignedHandlingMode, 'long');
    assert.equal(c.events.binaryHandlingMode, 'bytes');
    assert.equal(c.events.tombstonesOnDelete, true);
    assert.equal(c.events.includeSchemaChanges, true);
    assert.equal(c.events.includeQuery, false);
    assert.equal(c.events.enableTimeAdjuster, true);
    assert.deepEqual([...c.events.skippedOperations], ['t']);
    assert.equal(c.events.keySchemasEnable, false);
    assert.equal(c.events.valueSchemasEnable, false);
    assert.deepEqual(c.topics, { delimiter: '.', transaction: 'transaction', heartbeatPrefix: '__debezium-heartbeat' });
    assert.equal(c.engine.maxBatchSize, 2048);
    assert.equal(c.engine.maxQueueSize, 8192);
    assert.equal(c.engine.maxQueueSizeInBytes, 64 * 1024 * 1024);
    assert.equal(c.engine.heartbeatIntervalMs, 0);
    assert.equal(c.engine.eventDeserializationFailureHandlingMode, 'fail');
    assert.equal(c.engine.inconsistentSchemaHandlingMode, 'fail');
    assert.equal(c.engine.errors.maxRetries, -1);
    assert.equal(c.schemaHistory.type, 'file');
    assert.equal(c.schemaHistory.skipUnparseableDdl, false);
    assert.deepEqual(c.offsets, { flushIntervalMs: 5000, type: 'file', filename: './data/offsets.json' });
    assert.deepEqual(c.sink, { type: 'stdout' });
    assert.deepEqual(c.lease, { enabled: false });
    assert.deepEqual(c.aws, { region: null, endpoint: null });
    assert.deepEqual(c.transforms, []);
    assert.deepEqual(c.log, { level: 'info', format: 'auto' });
  });

  it('the result is deeply frozen', () => {
    const c = parseConfig(MIN);
    assert.ok(Object.isFrozen(c) && Object.isFrozen(c.database) && Object.isFrozen(c.database.ssl));
    assert.throws(() => {
      (c as { topicPrefix: string }).topicPrefix = 'x';
    }, TypeError);
  });
});

describe('values and aliases', () => {
  it('accepts legacy names and deprecated enum values', () => {
    const c = parseConfig({
      'database.server.name': 'legacy',
      'database.hostname': 'h',
      'database.user': 'u',
      'snapshot.mode': 'schema_only',
      'table.whitelist': 'shop\\.orders',
      'database.history.skip.unparseable.ddl': 'true',
    });
    assert.equal(c.topicPrefix, 'legacy');
    assert.equal(c.snapshot.mode, 'no_data');
    assert.equal(parseConfig({ ...MIN, 'snapshot.mode': 'schema_only_recovery' }).snapshot.mode, 'recovery');
    assert.ok(c.filters.tableInclude && matchesAny(c.filters.tableInclude, 'shop.orders'));
    assert.equal(c.schemaHistory.skipUnparseableDdl, true);
    assert.equal(c.raw['topic.prefix'], 'legacy', 'raw uses canonical names');
  });

  it('alias and canonical name with different values is a problem', () => {
    assertProblem({ 'database.server.name': 'other' }, 'database.server.name', /legacy name of topic\.prefix/);
  });

  it('regex lists are anchored full matches, case-insensitive, and split only at top-level commas', () => {
    const c = parseConfig({ ...MIN, 'table.include.list': 'shop\\.order.*, inv\\.t{1,2}, a\\,b\\.c' });
    const inc = c.filters.tableInclude ?? [];
    assert.equal(inc.length, 3);
    assert.ok(matchesAny(inc, 'SHOP.ORDERS'));
    assert.ok(matchesAny(inc, 'inv.tt'));
    assert.ok(matchesAny(inc, 'a,b.c'));
    assert.ok(!matchesAny(inc, 'xshop.orders'), 'anchored at the start');
    assert.ok(!matchesAny(inc, 'inv.ttt'), 'anchored at the end');
  });

  it('parses typed values: ints, booleans, lists, sets, pattern properties, message key columns', () => {
    const c = parseConfig({
      ...MIN,
      'database.server.id': '184054',
      'snapshot.fetch.size': '1000',
      'include.query': 'TRUE',
      'skipped.operations': 'none',
      'message.key.columns': 'shop.orders:id,region; (.*).purchases:pk',
      'column.mask.with.8.chars': 'shop.customers.email',
      'column.mask.hash.SHA-256.with.salt.pepper': 'shop.customers.ssn',
      'column.mask.hash.v2.MD5.with.salt.x': 'shop.customers.phone',
      'column.truncate.to.16.chars': 'shop.customers.bio',
      'snapshot.select.statement.overrides': 'shop.orders',
      'snapshot.select.statement.overrides.shop.orders': 'SELECT * FROM shop.orders WHERE deleted = 0',
      transforms: 'unwrap',
      'transforms.unwrap.type': 'io.debezium.transforms.ExtractNewRecordState',
      'transforms.unwrap.delete.tombstone.handling.mode': 'tombstone',
    });
    assert.equal(c.database.serverId, 184054);
    assert.equal(c.database.serverIdSource, 'configured');
    assert.equal(c.snapshot.fetchSize, 1000);
    assert.equal(c.events.includeQuery, true);
    assert.equal(c.events.skippedOperations.size, 0);
    assert.deepEqual(c.events.messageKeyColumns[0].columns, ['id', 'region']);
    assert.ok(c.events.messageKeyColumns[1].table.test('any.purchases'));
    assert.equal(c.columns.maskWithChars[0].length, 8);
    assert.ok(matchesAny(c.columns.maskWithChars[0].columns, 'shop.customers.email'));
    assert.deepEqual(
      c.columns.maskHash.map((h) => [h.algorithm, h.nodeAlgorithm, h.salt, h.version]),
      [
        ['SHA-256', 'sha256', 'pepper', 'v1'],
        ['MD5', 'md5', 'x', 'v2'],
      ],
    );
    assert.equal(c.columns.truncateToChars[0].length, 16);
    assert.equal(c.snapshot.selectStatementOverrides.get('shop.orders'), 'SELECT * FROM shop.orders WHERE deleted = 0');
    assert.deepEqual(JSON.parse(JSON.stringify(c.transforms)), [
      {
        name: 'unwrap',
        type: 'io.debezium.transforms.ExtractNewRecordState',
        options: { 'delete.tombstone.handling.mode': 'tombstone' },
      },
    ]);
  });

  it('builds each sink, store and lease variant with AWS defaults inherited', () => {
    const c = parseConfig({
      ...MIN,
      'aws.region': 'eu-west-1',
      'aws.endpoint': 'http://localhost:4566',
      'sink.type': 'kinesis',
      'sink.kinesis.stream.name.template': '{prefix}-{db}-{table}',
      'sink.kinesis.region': 'us-east-1',
      'offset.storage': 'dynamodb',
      'offset.storage.dynamodb.table': 'offsets',
      'schema.history.internal': 'dynamodb',
      'schema.history.internal.dynamodb.table': 'history',
      'schema.history.internal.dynamodb.table.create': 'true',
      'lease.enabled': 'true',
      'lease.dynamodb.table': 'leases',
    });
    assert.deepEqual(c.sink, {
      type: 'kinesis',
      streamName: null,
      streamNameTemplate: '{prefix}-{db}-{table}',
      region: 'us-east-1',
      endpoint: 'http://localhost:4566',
      aggregation: false,
      payload: 'value',
      oversizeHandling: 'fail',
      maxRecordBytes: null,
      claimCheck: null,
      maxInFlight: 4,
    });
    assert.equal(c.offsets.type, 'dynamodb');
    if (c.offsets.type === 'dynamodb') assert.equal(c.offsets.region, 'eu-west-1');
    assert.equal(c.schemaHistory.type === 'dynamodb' && c.schemaHistory.createTable, true);
    assert.equal(c.lease.enabled && c.lease.table, 'leases');
    assert.equal(c.lease.enabled && c.lease.durationMs, 30000);

    const kafka = parseConfig({
      ...MIN,
      'sink.type': 'kafka',
      'sink.kafka.bootstrap.servers': 'b1:9092, b2:9092',
      'sink.kafka.security.protocol': 'SASL_SSL',
      'sink.kafka.sasl.mechanism': 'PLAIN',
      'sink.kafka.sasl.username': 'u',
      'sink.kafka.sasl.password': PASSWORD,
    }).sink;
    assert.equal(kafka.type, 'kafka');
    if (kafka.type === 'kafka') {
      assert.deepEqual(kafka.bootstrapServers, ['b1:9092', 'b2:9092']);
      assert.equal(kafka.properties['sasl.mechanism'], 'PLAIN');
      assert.doesNotMatch(JSON.stringify(kafka), new RegExp(PASSWORD));
    }
    assert.deepEqual(parseConfig({ ...MIN, 'sink.type': 'file', 'sink.file.path': '/tmp/e.jsonl' }).sink, {
      type: 'file',
      path: '/tmp/e.jsonl',
    });
  });
});

describe('validation rules', () => {
  const cases: [string, Record<string, string>, string, RegExp][] = [
    ['required topic.prefix', { 'topic.prefix': '' }, 'topic.prefix', /required/],
    ['topic.prefix characters', { 'topic.prefix': 'shop/prod' }, 'topic.prefix', /not allowed/],
    ['required hostname', { 'database.hostname': '' }, 'database.hostname', /required/],
    ['required user', { 'database.user': '' }, 'database.user', /required/],
    [
      'enum value',
      { 'decimal.handling.mode': 'exact' },
      'decimal.handling.mode',
      /not one of: precise, double, string/,
    ],
    ['boolean', { 'tombstones.on.delete': 'yes' }, 'tombstones.on.delete', /not a boolean/],
    ['integer syntax', { 'database.port': '33o6' }, 'database.port', /not a whole number/],
    ['integer range', { 'database.port': '70000' }, 'database.port', /out of range/],
    ['server id range', { 'database.server.id': '0' }, 'database.server.id', /out of range/],
    ['tasks.max', { 'tasks.max': '4' }, 'tasks.max', /out of range/],
    [
      'connector.class',
      { 'connector.class': 'io.debezium.connector.postgresql.PostgresConnector' },
      'connector.class',
      /not a MySQL/,
    ],
    [
      'db include/exclude',
      { 'database.include.list': 'a', 'database.exclude.list': 'b' },
      'database.exclude.list',
      /cannot be combined/,
    ],
    [
      'table include/exclude',
      { 'table.include.list': 'a.b', 'table.exclude.list': 'a.c' },
      'table.exclude.list',
      /cannot be combined/,
    ],
    [
      'column include/exclude',
      { 'column.include.list': 'a.b.c', 'column.exclude.list': 'a.b.d' },
      'column.exclude.list',
      /cannot be combined/,
    ],
    [
      'gtid includes/excludes',
      { 'gtid.source.includes': 'a', 'gtid.source.excludes': 'b' },
      'gtid.source.excludes',
      /cannot be combined/,
    ],
    [
      'regex syntax',
      { 'table.include.list': 'shop\\.(orders' },
      'table.include.list',
      /not a valid regular expression/,
    ],
    ['queue > batch', { 'max.batch.size': '4096', 'max.queue.size': '4096' }, 'max.queue.size', /must be larger/],
    ['retry delays', { 'errors.retry.delay.initial.ms': '20000' }, 'errors.retry.delay.initial.ms', /exceeds/],
    [
      'heartbeat query without heartbeat',
      { 'heartbeat.action.query': 'UPDATE hb SET ts=NOW()' },
      'heartbeat.action.query',
      /heartbeats are off/,
    ],
    ['skipped.operations values', { 'skipped.operations': 'c,x' }, 'skipped.operations', /unknown value/],
    ['skipped.operations none', { 'skipped.operations': 'none,t' }, 'skipped.operations', /cannot be combined/],
    ['message.key.columns', { 'message.key.columns': 'shop.orders' }, 'message.key.columns', /is not/],
    ['message.key.columns qualified', { 'message.key.columns': 'orders:id' }, 'message.key.columns', /fully-qualified/],
    ['signal collection', { 'signal.data.collection': 'signals' }, 'signal.data.collection', /<db>\.<table>/],
    [
      'hash algorithm',
      { 'column.mask.hash.NOPE-1.with.salt.s': 'a.b.c' },
      'column.mask.hash.NOPE-1.with.salt.s',
      /not supported/,
    ],
    ['mask length', { 'column.mask.with.0.chars': 'a.b.c' }, 'column.mask.with.0.chars', /positive/],
    [
      'override missing',
      { 'snapshot.select.statement.overrides': 'shop.orders' },
      'snapshot.select.statement.overrides.shop.orders',
      /missing/,
    ],
    [
      'override not listed',
      { 'snapshot.select.statement.overrides.shop.items': 'SELECT 1' },
      'snapshot.select.statement.overrides.shop.items',
      /not listed/,
    ],
    ['ssl cert without key', { 'database.ssl.cert': '/c.pem' }, 'database.ssl.key', /required when database.ssl.cert/],
    ['kinesis needs a stream', { 'sink.type': 'kinesis' }, 'sink.kinesis.stream.name', /required/],
    [
      'kinesis name xor template',
      { 'sink.type': 'kinesis', 'sink.kinesis.stream.name': 's', 'sink.kinesis.stream.name.template': '{table}' },
      'sink.kinesis.stream.name',
      /both set/,
    ],
    [
      'kinesis stream name pattern',
      { 'sink.type': 'kinesis', 'sink.kinesis.stream.name': 'arn:aws:kinesis:eu-west-1:1:stream/s' },
      'sink.kinesis.stream.name',
      /not a valid Kinesis stream name/,
    ],
    [
      'kinesis template placeholders',
      { 'sink.type': 'kinesis', 'sink.kinesis.stream.name.template': '{schema}-{table}' },
      'sink.kinesis.stream.name.template',
      /\{schema\}/,
    ],
    ['kafka needs brokers', { 'sink.type': 'kafka' }, 'sink.kafka.bootstrap.servers', /required/],
    ['file sink needs path', { 'sink.type': 'file' }, 'sink.file.path', /required/],
    [
      'sink props of another type',
      { 'sink.kinesis.stream.name': 's' },
      'sink.kinesis.stream.name',
      /sink.type is 'stdout'/,
    ],
    ['dynamodb offsets need table', { 'offset.storage': 'dynamodb' }, 'offset.storage.dynamodb.table', /required/],
    [
      'dynamodb history needs table',
      { 'schema.history.internal': 'dynamodb' },
      'schema.history.internal.dynamodb.table',
      /required/,
    ],
    [
      'store props of another type',
      { 'offset.storage.dynamodb.table': 't' },
      'offset.storage.dynamodb.table',
      /offset.storage is 'file'/,
    ],
    ['lease needs table', { 'lease.enabled': 'true' }, 'lease.dynamodb.table', /required/],
    [
      'lease renew < duration',
      { 'lease.enabled': 'true', 'lease.dynamodb.table': 't', 'lease.renew.interval.ms': '30000' },
      'lease.renew.interval.ms',
      /shorter/,
    ],
    ['endpoint URL', { 'aws.endpoint': 'localhost:4566' }, 'aws.endpoint', /not an http\(s\) URL/],
    ['transform without type', { transforms: 'unwrap' }, 'transforms.unwrap.type', /required/],
    [
      'transform not listed',
      { transforms: 'unwrap', 'transforms.unwrap.type': 'X', 'transforms.unwrp.type': 'X' },
      'transforms.unwrp.type',
      /not listed/,
    ],
    ['unknown property', { 'snapshot.mod': 'initial' }, 'snapshot.mod', /not a known property/],
  ];
  for (const [title, raw, property, message] of cases) it(title, () => assertProblem(raw, property, message));

  it('an unknown pattern-like key suggests the pattern property', () => {
    const err = problemsOf({ 'transfroms.unwrap.type': 'x' });
    assert.match(err.problems[0].fix, /did you mean 'transforms\.unwrap\.type'/);
  });

  it('an invalid enum value gets a did-you-mean fix', () => {
    const err = problemsOf({ 'snapshot.locking.mode': 'minimall' });
    assert.match(err.problems[0].fix, /did you mean 'minimal'/);
  });
});

describe('the three mistakes case', () => {
  it('reports a typo, an invalid enum and a missing hostname together, each with a fix', () => {
    let error: unknown;
    try {
      loadConfig({
        overrides: {
          'topic.prefix': 'shop',
          'database.user': 'cdc',
          'tabel.include.list': 'shop\\.orders',
          'snapshot.mode': 'full',
        },
      });
    } catch (err) {
      error = err;
    }
    assert.ok(error instanceof ConfigError);
    assert.equal(error.code, 'CONFIG_INVALID');
    assert.equal(error.retriable, false);
    assert.deepEqual(error.problems.map((p) => p.property).sort(), [
      'database.hostname',
      'snapshot.mode',
      'tabel.include.list',
    ]);
    const typo = error.problems.find((p) => p.property === 'tabel.include.list');
    assert.match(typo?.fix ?? '', /did you mean 'table\.include\.list'/);
    for (const p of error.problems) {
      assert.ok(p.fix.length > 10, `fix for ${p.property}`);
      assert.ok(error.message.includes(p.property) && error.message.includes(p.fix));
    }
    assert.match(error.message, /3 problems/);
  });
});

describe('secrets are never printed', () => {
  const withPassword = (): CdcConfig =>
    parseConfig({
      ...MIN,
      'database.password': PASSWORD,
      'sink.type': 'kafka',
      'sink.kafka.bootstrap.servers': 'b:9092',
      'sink.kafka.security.protocol': 'SASL_SSL',
      'sink.kafka.sasl.mechanism': 'PLAIN',
      'sink.kafka.sasl.username': 'u',
      'sink.kafka.sasl.password': PASSWORD,
    });

  it('not in JSON, inspect, String, redactConfig or raw', () => {
    const c = withPassword();
    assert.equal(c.database.password.reveal(), PASSWORD);
    for (const text of [
      JSON.stringify(c),
      inspect(c, { depth: 10 }),
      `${c.database.password}`,
      JSON.stringify(redactConfig(c)),
      JSON.stringify(c.raw),
    ])
      assert.ok(!text.includes(PASSWORD), text.slice(0, 200));
    assert.equal(c.raw['database.password'], '***');
    assert.equal(redactConfig(c).database && (redactConfig(c).database as { password: string }).password, '***');
  });

  it('not in error messages about a bad password-like value', () => {
    const err = problemsOf({
      'database.password': PASSWORD,
      'database.port': 'x',
      'sink.kafka.sasl.password': PASSWORD,
    });
    assert.ok(!err.message.includes(PASSWORD));
    assert.ok(!JSON.stringify(err.problems).includes(PASSWORD));
  });

  it('an unresolved ${env:} password reference is reported against its property', () => {
    assert.throws(
      () => loadConfig({ overrides: { ...MIN, 'database.password': '${env:PW}' }, env: {} }),
      (err: unknown) => err instanceof ConfigError && err.problems[0].property === 'database.password',
    );
  });
});

describe('TLS material: a readable file or inline PEM', () => {
  const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
  it('a CA path that does not exist is a problem naming the property', () => {
    assertProblem({ 'database.ssl.ca': '/nonexistent/ca.pem' }, 'database.ssl.ca', /does not exist/);
  });
  it('inline PEM text is accepted as the material itself', () => {
    const cfg = parseConfig({ ...MIN, 'database.ssl.mode': 'verify_ca', 'database.ssl.ca': pem });
    assert.equal(cfg.database.ssl.ca, pem.trim());
  });
});

describe('large records (sink.kinesis.max.record.size.kib, claim-check)', () => {
  const KINESIS = { 'sink.type': 'kinesis', 'sink.kinesis.stream.name': 'events', 'aws.region': 'eu-west-1' };
  it('claim-check resolves bucket, prefix, threshold, region and endpoint; the record limit in bytes', () => {
    const c = parseConfig({
      ...MIN,
      ...KINESIS,
      'sink.kinesis.oversize.handling': 'claim-check',
      'sink.kinesis.max.record.size.kib': '10240',
      'sink.claim.check.bucket': 'claims',
      'sink.claim.check.threshold.bytes': '2097152',
      'sink.claim.check.endpoint': 'http://127.0.0.1:4569',
    });
    assert.ok(c.sink.type === 'kinesis');
    assert.equal(c.sink.maxRecordBytes, 10 * 1024 * 1024);
    assert.deepEqual(c.sink.claimCheck, {
      bucket: 'claims',
      prefix: 'cdc/claim-check/',
      thresholdBytes: 2097152,
      region: 'eu-west-1',
      endpoint: 'http://127.0.0.1:4569',
    });
  });
  it('all problems at once: no bucket, a limit over 10 MiB, a bad endpoint', () => {
    const err = problemsOf({
      ...KINESIS,
      'sink.kinesis.oversize.handling': 'claim-check',
      'sink.kinesis.max.record.size.kib': '20480',
      'sink.claim.check.endpoint': 'not a url',
    });
    const props = err.problems.map((p) => p.property);
    for (const p of ['sink.claim.check.bucket', 'sink.kinesis.max.record.size.kib', 'sink.claim.check.endpoint'])
      assert.ok(props.includes(p), `${p} in ${props.join(', ')}`);
  });
  it('with sink.type=kafka the bucket turns the claim-check on', () => {
    const c = parseConfig({
      ...MIN,
      'sink.type': 'kafka',
      'sink.kafka.bootstrap.servers': 'b1:9092',
      'sink.claim.check.bucket': 'claims',
      'sink.claim.check.region': 'us-west-2',
    });
    assert.ok(c.sink.type === 'kafka');
    assert.equal(c.sink.claimCheck?.bucket, 'claims');
    assert.equal(c.sink.claimCheck?.region, 'us-west-2');
    assert.equal(c.sink.claimCheck?.thresholdBytes, null);
  });
  it('claim-check properties without claim-check handling are reported as ignored', () => {
    assertProblem({ ...KINESIS, 'sink.claim.check.bucket': 'claims' }, 'sink.claim.check.bucket', /would be ignored/);
  });
});
