import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig, parseConfig, readConfigFile } from '../../../src/config/index.js';

const files = (map: Record<string, string>) => (p: string) => {
  if (p in map) return map[p];
  throw Object.assign(new Error(`ENOENT: ${p}`), { code: 'ENOENT' });
};

function loadFile(path: string, text: string, overrides?: Record<string, string>) {
  return loadConfig({ file: path, env: {}, readFile: files({ [path]: text }), ...(overrides ? { overrides } : {}) });
}

function loadErrors(path: string, text: string): ConfigError {
  try {
    loadFile(path, text);
  } catch (err) {
    assert.ok(err instanceof ConfigError, `expected ConfigError, got ${err}`);
    return err;
  }
  assert.fail('expected a ConfigError');
}

const MIN = { 'topic.prefix': 'shop', 'database.hostname': 'db.local', 'database.user': 'cdc' };

// The connector registration from Debezium's tutorial (register-mysql.json, Debezium 2.x/3.x).
const TUTORIAL = JSON.stringify({
  name: 'inventory-connector',
  config: {
    'connector.class': 'io.debezium.connector.mysql.MySqlConnector',
    'tasks.max': '1',
    'database.hostname': 'mysql',
    'database.port': '3306',
    'database.user': 'debezium',
    'database.password': 'dbz',
    'database.server.id': '184054',
    'topic.prefix': 'dbserver1',
    'database.include.list': 'inventory',
    'schema.history.internal.kafka.bootstrap.servers': 'kafka:9092',
    'schema.history.internal.kafka.topic': 'schemahistory.inventory',
  },
});

describe('Kafka Connect connector registration JSON', () => {
  it("loads Debezium's tutorial inventory connector and warns once about the Kafka history keys", () => {
    const c = loadFile('register-mysql.json', TUTORIAL);
    assert.equal(c.name, 'inventory-connector');
    assert.equal(c.topicPrefix, 'dbserver1');
    assert.equal(c.database.hostname, 'mysql');
    assert.equal(c.database.serverId, 184054);
    assert.equal(c.database.password.reveal(), 'dbz');
    assert.ok(c.filters.databaseInclude?.[0].test('inventory'));
    assert.equal(c.warnings.length, 1);
    const [w] = c.warnings;
    assert.match(w, /^Ignoring 2 Debezium\/Kafka Connect properties/);
    assert.match(w, /schema\.history\.internal\.kafka\.bootstrap\.servers: Kafka schema history topic/);
    assert.match(w, /schema\.history\.internal\.kafka\.topic: /);
    assert.doesNotMatch(w, /kafka:9092|dbz/, 'values are not echoed');
  });

  it('ignores Kafka Connect converters, errors.*, topic.creation.*, JDBC and Java-tuning keys, keeping schemas.enable', () => {
    const doc = JSON.parse(TUTORIAL);
    Object.assign(doc.config, {
      name: 'from-config',
      'key.converter': 'org.apache.kafka.connect.json.JsonConverter',
      'value.converter': 'io.confluent.connect.avro.AvroConverter',
      'value.converter.schema.registry.url': 'http://registry:8081',
      'value.converter.schemas.enable': 'true',
      'key.converter.schemas.enable': 'false',
      'errors.tolerance': 'all',
      'errors.deadletterqueue.topic.name': 'dlq',
      'errors.max.retries': '5',
      'topic.creation.default.partitions': '1',
      'producer.override.compression.type': 'lz4',
      'database.allowPublicKeyRetrieval': 'true',
      'database.connectionTimeZone': 'UTC',
      'database.jdbc.driver': 'com.mysql.cj.jdbc.Driver',
      'driver.useSSL': 'false',
      'snapshot.new.tables': 'parallel',
      'min.row.count.to.stream.results': '1000',
      'signal.enabled.channels': 'source',
      'notification.enabled.channels': 'log',
      'custom.metric.tags': 'env=prod',
      'incremental.snapshot.chunk.size': '2048',
      'read.only': 'false',
      'binlog.buffer.size': '0',
      'use.nongraceful.disconnect': 'false',
      'table.ignore.builtin': 'true',
      'event.processing.failure.handling.mode': 'warn',
      converters: '',
      'schema.history.internal.producer.security.protocol': 'SASL_SSL',
      'schema.history.internal.producer.sasl.jaas.config': 'secret-jaas',
    });
    const c = loadFile('connector.json', JSON.stringify(doc));
    assert.equal(c.name, 'from-config', 'config.name wins over the outer name');
    assert.equal(c.events.valueSchemasEnable, true);
    assert.equal(c.events.keySchemasEnable, false);
    assert.equal(c.engine.errors.maxRetries, 5);
    assert.equal(c.snapshot.chunkSize, 2048, 'incremental.snapshot.chunk.size is an alias');
    assert.equal(c.warnings.length, 2);
    const [ignored, renamed] = c.warnings;
    for (const key of [
      'key.converter',
      'value.converter',
      'value.converter.schema.registry.url',
      'errors.tolerance',
      'errors.deadletterqueue.topic.name',
      'topic.creation.default.partitions',
      'producer.override.compression.type',
      'database.allowPublicKeyRetrieval',
      'database.connectionTimeZone',
      'database.jdbc.driver',
      'driver.useSSL',
      'snapshot.new.tables',
      'converters',
      'schema.history.internal.producer.sasl.jaas.config',
    ])
      assert.match(ignored, new RegExp(`^  ${key.replace(/\./g, '\\.')}: \\S`, 'm'), key);
    // Debezium's notification channels are implemented (docs/notifications.md).
    assert.deepEqual(c.notifications.channels, ['log']);
    for (const key of [
      'value.converter.schemas.enable',
      'key.converter.schemas.enable',
      'errors.max.retries',
      'signal.enabled.channels',
      'notification.enabled.channels',
    ])
      assert.doesNotMatch(ignored, new RegExp(`^  ${key.replace(/\./g, '\\.')}:`, 'm'), `${key} is supported`);
    assert.doesNotMatch(ignored, /secret-jaas|SASL_SSL/);
    assert.equal(c.raw['schema.history.internal.producer.sasl.jaas.config'], '***');
    assert.match(renamed, /incremental\.snapshot\.chunk\.size -> snapshot\.chunk\.size/);
  });

  it('a plain config object with a "config"-named property is not mistaken for the REST shape', () => {
    const { values } = readConfigFile('x.json', () => JSON.stringify({ name: 'n', config: { a: 1 }, extra: 'y' }));
    assert.deepEqual(values, { name: 'n', 'config.a': '1', extra: 'y' });
  });
});

describe('Debezium Server application.properties', () => {
  const SERVER = [
    'debezium.sink.type=kinesis',
    'debezium.sink.kinesis.region=eu-central-1',
    'debezium.sink.kinesis.endpoint=http://localhost:4566',
    'debezium.sink.kinesis.credentials.profile=default',
    'debezium.sink.kinesis.null.key=null',
    'debezium.source.connector.class=io.debezium.connector.mysql.MySqlConnector',
    'debezium.source.offset.storage=org.apache.kafka.connect.storage.FileOffsetBackingStore',
    'debezium.source.offset.storage.file.filename=data/offsets.dat',
    'debezium.source.offset.flush.interval.ms=0',
    'debezium.source.database.hostname=mysql',
    'debezium.source.database.port=3306',
    'debezium.source.database.user=debezium',
    'debezium.source.database.password=dbz',
    'debezium.source.database.server.id=184054',
    'debezium.source.topic.prefix=tutorial',
    'debezium.source.database.include.list=inventory',
    'debezium.source.schema.history.internal=io.debezium.storage.file.history.FileSchemaHistory',
    'debezium.source.schema.history.internal.file.filename=data/schema_history.dat',
    'debezium.format.value=json',
    'debezium.format.value.schemas.enable=false',
    'debezium.transforms=unwrap',
    'debezium.transforms.unwrap.type=io.debezium.transforms.ExtractNewRecordState',
    'quarkus.log.console.json=false',
  ].join('\n');

  it('strips debezium.source., maps the Kinesis sink, formats and transforms, and ignores the rest', () => {
    const c = loadFile('application.properties', SERVER);
    assert.equal(c.topicPrefix, 'tutorial');
    assert.equal(c.database.hostname, 'mysql');
    assert.deepEqual(c.offsets, { flushIntervalMs: 0, type: 'file', filename: 'data/offsets.dat' });
    assert.equal(c.schemaHistory.type, 'file');
    assert.equal(c.schemaHistory.type === 'file' && c.schemaHistory.filename, 'data/schema_history.dat');
    assert.equal(c.sink.type, 'kinesis');
    if (c.sink.type !== 'kinesis') return;
    assert.equal(c.sink.region, 'eu-central-1');
    assert.equal(c.sink.endpoint, 'http://localhost:4566');
    assert.equal(c.sink.streamName, null);
    assert.equal(c.sink.streamNameTemplate, '{topic}', 'Debezium Server: one stream per topic, same name');
    assert.equal(c.events.valueSchemasEnable, false);
    assert.deepEqual(
      c.transforms.map((t) => [t.name, t.type]),
      [['unwrap', 'io.debezium.transforms.ExtractNewRecordState']],
    );
    assert.equal(c.warnings.length, 1);
    const [w] = c.warnings;
    for (const key of [
      'debezium.sink.kinesis.credentials.profile',
      'debezium.sink.kinesis.null.key',
      'debezium.format.value',
      'quarkus.log.console.json',
    ])
      assert.match(w, new RegExp(`^  ${key.replace(/\./g, '\\.')}: \\S`, 'm'), key);
    assert.match(w, /credentials\.profile: AWS credentials come from the default provider chain/);
  });

  it('maps the Kafka sink producer properties onto sink.kafka.*', () => {
    const text = [
      'debezium.sink.type=kafka',
      'debezium.sink.kafka.producer.bootstrap.servers=kafka:9092',
      'debezium.sink.kafka.producer.acks=all',
      'debezium.source.topic.prefix=t',
      'debezium.source.database.hostname=h',
      'debezium.source.database.user=u',
    ].join('\n');
    const c = loadFile('application.properties', text);
    assert.equal(c.sink.type, 'kafka');
    if (c.sink.type !== 'kafka') return;
    assert.deepEqual(c.sink.bootstrapServers, ['kafka:9092']);
    assert.equal(c.sink.properties.acks, 'all');
    assert.deepEqual(c.warnings, []);
  });

  it('an unsupported Debezium Server sink type is an error naming the choices', () => {
    const err = loadErrors('application.properties', `${SERVER.replace('sink.type=kinesis', 'sink.type=pubsub')}`);
    const p = err.problems.find((x) => x.property === 'sink.type');
    assert.ok(p, err.message);
    assert.match(p.message, /'pubsub' is not one of: kinesis, kafka, file, stdout/);
  });
});

describe('Debezium 1.x configuration', () => {
  const V1 = [
    'name=inventory-connector',
    'connector.class=io.debezium.connector.mysql.MySqlConnector',
    'tasks.max=1',
    'database.hostname=mysql',
    'database.port=3306',
    'database.user=debezium',
    'database.password=dbz',
    'database.server.id=184054',
    'database.server.name=dbserver1',
    'database.whitelist=inventory',
    'table.blacklist=inventory\\.spatial_ref_sys',
    'column.blacklist=inventory\\.customers\\.email',
    'database.history=io.debezium.relational.history.FileDatabaseHistory',
    'database.history.file.filename=/tmp/history.dat',
    'database.history.kafka.bootstrap.servers=kafka:9092',
    'database.history.kafka.topic=dbhistory.inventory',
    'database.history.skip.unparseable.ddl=true',
    'database.history.producer.security.protocol=SSL',
    'heartbeat.topics.prefix=hb',
    'event.deserialization.failure.handling.mode=ignore',
    'snapshot.mode=schema_only',
  ].join('\n');

  it('loads with the 1.x names mapped, Kafka history ignored and one deprecation warning', () => {
    const c = loadFile('connector.properties', V1);
    assert.equal(c.topicPrefix, 'dbserver1');
    assert.ok(c.filters.databaseInclude?.[0].test('inventory'));
    assert.ok(c.filters.tableExclude?.[0].test('inventory.spatial_ref_sys'));
    assert.ok(c.filters.columnExclude?.[0].test('inventory.customers.email'));
    assert.equal(c.schemaHistory.type, 'file');
    assert.equal(c.schemaHistory.type === 'file' && c.schemaHistory.filename, '/tmp/history.dat');
    assert.equal(c.schemaHistory.skipUnparseableDdl, true);
    assert.equal(c.topics.heartbeatPrefix, 'hb');
    assert.equal(c.engine.eventDeserializationFailureHandlingMode, 'skip');
    assert.equal(c.snapshot.mode, 'no_data');
    assert.equal(c.warnings.length, 2);
    const [ignored, renamed] = c.warnings;
    assert.match(ignored, /^Ignoring 3 /);
    assert.match(ignored, /database\.history\.kafka\.bootstrap\.servers: Kafka schema history topic/);
    assert.match(ignored, /database\.history\.producer\.security\.protocol: /);
    for (const pair of [
      'database.server.name -> topic.prefix',
      'database.whitelist -> database.include.list',
      'table.blacklist -> table.exclude.list',
      'column.blacklist -> column.exclude.list',
      'database.history -> schema.history.internal',
      'database.history.file.filename -> schema.history.internal.file.filename',
      'heartbeat.topics.prefix -> topic.heartbeat.prefix',
    ])
      assert.ok(renamed.includes(`  ${pair}`), pair);
  });

  it('parseConfig reports the same warnings for an in-memory map', () => {
    const c = parseConfig({ ...MIN, 'database.whitelist': 'a', 'tasks.max': '1', 'key.converter': 'x' });
    assert.equal(c.warnings.length, 2);
    assert.match(c.warnings[0], /key\.converter: Kafka Connect serialization/);
    assert.match(c.warnings[1], /database\.whitelist -> database\.include\.list/);
  });

  it('a config of our own names has no warnings', () => {
    assert.deepEqual(parseConfig(MIN).warnings, []);
  });
});

describe('meaningful but unsupported Debezium properties', () => {
  function problems(raw: Record<string, string>) {
    try {
      parseConfig({ ...MIN, ...raw });
    } catch (err) {
      assert.ok(err instanceof ConfigError);
      return err.problems;
    }
    assert.fail('expected a ConfigError');
  }

  it('are errors whose fix says what to do instead', () => {
    const ps = problems({
      'database.initial.statements': 'SET SESSION wait_timeout=2000',
      'database.ssl.truststore': '/etc/truststore.jks',
      'database.ssl.truststore.password': 'trust-secret',
      converters: 'boolean',
      'boolean.type': 'io.debezium.connector.mysql.converters.TinyIntOneToBooleanConverter',
      'skip.messages.without.change': 'true',
      'topic.naming.strategy': 'com.example.MyStrategy',
    });
    const byKey = new Map(ps.map((p) => [p.property, p]));
    assert.match(byKey.get('database.initial.statements')?.fix ?? '', /not supported.*parameter group/);
    assert.match(byKey.get('database.ssl.truststore')?.fix ?? '', /PEM bundle and set database\.ssl\.ca/);
    assert.match(byKey.get('converters')?.fix ?? '', /Java classes/);
    assert.match(byKey.get('skip.messages.without.change')?.fix ?? '', /every update is emitted/);
    assert.match(byKey.get('topic.naming.strategy')?.fix ?? '', /<topic\.prefix>\.<db>\.<table>/);
    for (const k of ['database.initial.statements', 'database.ssl.truststore.password'])
      assert.match(byKey.get(k)?.message ?? '', /Debezium property this tool does not support/);
    assert.ok(!JSON.stringify(ps).includes('trust-secret'), 'secrets are not echoed');
  });

  it('accepts values equal to what this tool does anyway', () => {
    const c = parseConfig({
      ...MIN,
      'topic.naming.strategy': 'io.debezium.schema.DefaultTopicNamingStrategy',
      'skip.messages.without.change': 'false',
      'source.struct.version': 'v2',
    });
    assert.match(c.warnings[0], /topic\.naming\.strategy: the default strategy is what this tool does/);
  });

  it('unsupported enum values name the alternative', () => {
    const ps = problems({
      'snapshot.mode': 'custom',
      'snapshot.locking.mode': 'minimal_percona',
      'schema.history.internal': 'io.debezium.storage.kafka.history.KafkaSchemaHistory',
      'offset.storage': 'org.apache.kafka.connect.storage.KafkaOffsetBackingStore',
    });
    const fix = (k: string) => ps.find((p) => p.property === k)?.fix ?? '';
    assert.match(fix('snapshot.mode'), /custom Snapshotter classes are Java/);
    assert.match(fix('snapshot.locking.mode'), /use minimal/);
    assert.match(fix('schema.history.internal'), /schema\.history\.internal=file \(default\) or dynamodb/);
    assert.match(fix('offset.storage'), /offset\.storage=file or dynamodb/);
  });
});

describe('truly unknown keys', () => {
  it('still get did-you-mean errors, also inside ignored namespaces', () => {
    let err: unknown;
    try {
      parseConfig({
        ...MIN,
        'database.hostnme': 'x',
        'errors.max.retires': '3',
        'value.converter.schemas.enabled': 'true',
        'snapshot.moode': 'initial',
      });
    } catch (e) {
      err = e;
    }
    assert.ok(err instanceof ConfigError);
    const fix = (k: string) => err.problems.find((p) => p.property === k)?.fix ?? '';
    assert.match(fix('database.hostnme'), /did you mean 'database\.hostname'/);
    assert.match(fix('errors.max.retires'), /did you mean 'errors\.max\.retries'/);
    assert.match(fix('value.converter.schemas.enabled'), /did you mean 'value\.converter\.schemas\.enable'/);
    assert.match(fix('snapshot.moode'), /did you mean 'snapshot\.mode'/);
  });
});
