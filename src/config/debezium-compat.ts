/**
 * Debezium MySQL connector (1.x–3.x) and Kafka Connect property names we do not implement, so an existing
 * Debezium configuration loads: `ignored` ones (no meaning here) are accepted with one start-up warning,
 * `unsupported` ones (they would change what is captured or emitted) are errors saying what to do instead.
 * Names come from Debezium's MySqlConnectorConfig/BinlogConnectorConfig, CommonConnectorConfig,
 * RelationalDatabaseConnectorConfig, HistorizedRelationalDatabaseConnectorConfig, SchemaHistory and its Kafka
 * store, the signal/notification channels, and the MySQL connector documentation. Properties we do implement,
 * and renamed 1.x names we map (`database.whitelist`, `database.server.name`, ...), live in properties.ts.
 */
import type { PropertyDef } from './properties.js';

const KAFKA_CONNECT = 'Kafka Connect runtime setting; there is no Kafka Connect worker here.';
const SERIALIZATION =
  'Kafka Connect serialization; events are always JSON (key/value.converter.schemas.enable choose the envelope).';
const JDBC = 'JDBC driver (Connector/J) setting; this tool does not use JDBC.';
const KAFKA_HISTORY =
  'Kafka schema history topic; the schema history is kept in schema.history.internal (file or dynamodb).';
const JAVA = 'tuning of the Java implementation with no counterpart here; events are unaffected.';
const JMX = 'JMX metrics setting; see metrics.emf.enabled and metrics.http.port.';
const V1_REMOVED = 'Debezium 1.x setting removed in 2.0; no effect.';
const SIGNALS = 'signals come from the source, file or kinesis channels here (signal.enabled.channels).';
const AVRO = 'Avro name sanitising; JSON events keep database names unchanged.';
const SERVER = 'Debezium Server setting with no counterpart here.';

const ignore = (name: string, reason: string, secret = false): PropertyDef => ({
  name,
  type: 'string',
  group: 'ignored',
  description: reason,
  ignored: reason,
  ...(secret ? { secret } : {}),
});
const ignorePattern = (name: string, pattern: RegExp, reason: string): PropertyDef => ({
  ...ignore(name, reason),
  pattern,
});
const unsupported = (
  name: string,
  fix: string,
  harmless?: { values: readonly string[]; reason: string },
): PropertyDef => ({
  name,
  type: 'string',
  group: 'unsupported',
  description: fix,
  unsupported: fix,
  ...(harmless ? { harmlessValues: harmless.values, ignored: harmless.reason } : {}),
});

export const DEBEZIUM_COMPAT_PROPERTIES: readonly PropertyDef[] = [
  // --- Kafka Connect connector-level keys and namespaces
  ignore('key.converter', SERIALIZATION),
  ignore('value.converter', SERIALIZATION),
  ignore('header.converter', SERIALIZATION),
  ignorePattern('key.converter.<option>', /^key\.converter\..+$/, SERIALIZATION),
  ignorePattern('value.converter.<option>', /^value\.converter\..+$/, SERIALIZATION),
  ignorePattern('header.converter.<option>', /^header\.converter\..+$/, SERIALIZATION),
  ignorePattern('internal.key.converter[.<option>]', /^internal\.key\.converter(\..+)?$/, SERIALIZATION),
  ignorePattern('internal.value.converter[.<option>]', /^internal\.value\.converter(\..+)?$/, SERIALIZATION),
  ignorePattern(
    'errors.<Kafka Connect option>',
    /^errors\..+$/,
    `${KAFKA_CONNECT} Ours: errors.max.retries, errors.retry.delay.*.`,
  ),
  ignorePattern('producer.<option>', /^producer\..+$/, `${KAFKA_CONNECT} Kafka sink settings are sink.kafka.*.`),
  ignorePattern('consumer.<option>', /^consumer\..+$/, KAFKA_CONNECT),
  ignorePattern('admin.<option>', /^admin\..+$/, KAFKA_CONNECT),
  ignorePattern(
    'producer.override.<option>',
    /^producer\.override\..+$/,
    `${KAFKA_CONNECT} Kafka sink settings are sink.kafka.*.`,
  ),
  ignorePattern('consumer.override.<option>', /^consumer\.override\..+$/, KAFKA_CONNECT),
  ignorePattern('admin.override.<option>', /^admin\.override\..+$/, KAFKA_CONNECT),
  ignorePattern('topic.creation.<option>', /^topic\.creation\..+$/, `${KAFKA_CONNECT} Create streams/topics up front.`),
  ignore('predicates', `${KAFKA_CONNECT} Transform predicates are not implemented.`),
  ignorePattern(
    'predicates.<name>.<option>',
    /^predicates\..+$/,
    `${KAFKA_CONNECT} Transform predicates are not implemented.`,
  ),
  ignore('config.action.reload', KAFKA_CONNECT),
  ignore('exactly.once.support', KAFKA_CONNECT),
  ignorePattern('transaction.boundary[.<option>]', /^transaction\.boundary(\..+)?$/, KAFKA_CONNECT),
  ignore('offsets.storage.topic', `${KAFKA_CONNECT} Offsets are kept in offset.storage (file or dynamodb).`),
  ignore('offset.storage.topic', `${KAFKA_CONNECT} Offsets are kept in offset.storage (file or dynamodb).`),
  ignore('offset.storage.partitions', KAFKA_CONNECT),
  ignore('offset.storage.replication.factor', KAFKA_CONNECT),
  ignore('offset.flush.timeout.ms', `${KAFKA_CONNECT} See offset.flush.interval.ms.`),
  ignore('retriable.restart.connector.wait.ms', `${KAFKA_CONNECT} Retries use errors.retry.delay.*.`),
  // --- JDBC
  ignore('database.jdbc.driver', JDBC),
  ignore('database.protocol', JDBC),
  ignore('database.query.timeout.ms', JDBC),
  ignore('database.connection.timeout.ms', `${JDBC} See connect.timeout.ms.`),
  ignore('connection.validation.timeout.ms', JDBC),
  ignore('query.fetch.size', `${JDBC} See snapshot.fetch.size.`),
  ignore(
    'min.row.count.to.stream.results',
    'JDBC result-set streaming threshold; snapshot rows are always streamed (see snapshot.fetch.size).',
  ),
  ignorePattern('driver.<option>', /^driver\..+$/, JDBC),
  ignorePattern(
    'database.<camelCaseDriverOption>',
    /^database\.[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*$/,
    `${JDBC} Debezium passes database.<camelCase> keys (allowPublicKeyRetrieval, connectionTimeZone, ...) to the driver; TLS is database.ssl.*.`,
  ),
  ignore('database.dbname', 'the MySQL connector reads every database; use database.include.list.'),
  ignore('connection.factory.class', JAVA),
  // --- schema history (Kafka store and Java internals)
  ignorePattern('schema.history.internal.kafka.<option>', /^schema\.history\.internal\.kafka\..+$/, KAFKA_HISTORY),
  ignorePattern(
    'schema.history.internal.producer.<option>',
    /^schema\.history\.internal\.producer\..+$/,
    KAFKA_HISTORY,
  ),
  ignorePattern(
    'schema.history.internal.consumer.<option>',
    /^schema\.history\.internal\.consumer\..+$/,
    KAFKA_HISTORY,
  ),
  ignorePattern(
    'schema.history.internal.{s3,redis,jdbc,azure,rocketmq,storage}.<option>',
    /^schema\.history\.internal\.(s3|redis|jdbc|azure|rocketmq|storage)\..+$/,
    'option of a Debezium history store not available here; schema.history.internal is file or dynamodb.',
  ),
  ignorePattern(
    'database.history.{kafka,producer,consumer}.<option>',
    /^database\.history\.(kafka|producer|consumer)\..+$/,
    `${KAFKA_HISTORY} (Debezium 1.x name)`,
  ),
  ...['schema.history.internal', 'database.history'].flatMap((p) => [
    ignore(`${p}.name`, JAVA),
    ignore(`${p}.connector.class`, JAVA),
    ignore(`${p}.connector.id`, JAVA),
    ignore(`${p}.prefer.ddl`, JAVA),
    unsupported(
      `${p}.ddl.filter`,
      'remove it; DDL filtering is not configurable. Unparseable statements can be skipped with schema.history.internal.skip.unparseable.ddl=true.',
    ),
  ]),
  ignore('schema.history.internal.memory.optimization', JAVA),
  ignore(
    'schema.history.internal.store.only.captured.databases.ddl',
    'only changes how much DDL the history keeps; see schema.history.internal.store.only.captured.tables.ddl.',
  ),
  // --- signals and notifications
  ignore('signal.emit.failure.backoff.ms', SIGNALS),
  ignore('signal.emit.failure.max.retries', SIGNALS),
  ignorePattern('signal.kafka.<option>', /^signal\.kafka\..+$/, SIGNALS),
  ignorePattern('signal.consumer.<option>', /^signal\.consumer\..+$/, SIGNALS),
  // --- observability and Java internals
  ignore('custom.metric.tags', JMX),
  ignore('statistics.metrics.enabled', JMX),
  ignore('advanced.metrics.enable', JMX),
  ignorePattern('openlineage.<option>', /^openlineage\..+$/, 'OpenLineage integration is not implemented.'),
  ignore('extended.headers.enabled', 'Kafka record context headers are not emitted.'),
  ignore('custom.sanitize.pattern', 'secrets are always redacted here; no extra patterns.'),
  ignore('custom.retriable.exception', 'Java exception class names; retries follow errors.max.retries.'),
  ignore('binlog.buffer.size', JAVA),
  ignore('binlog.net.read.timeout', JAVA),
  ignore('binlog.net.write.timeout', JAVA),
  ignore('use.nongraceful.disconnect', JAVA),
  ignore('executor.shutdown.timeout.ms', JAVA),
  ignore('poll.dispatch.interval.ms', JAVA),
  ignore('queue.provider.type', JAVA),
  ignore('topic.cache.size', JAVA),
  ignore('sourceinfo.struct.maker', JAVA),
  ignore('transaction.metadata.factory', JAVA),
  ignore('ddl.parser.type', JAVA),
  ignore('log.position.check.enable', JAVA),
  ignore('offset.activity.monitor.interval.ms', JAVA),
  ignore('memory.management.schemas.class', JAVA),
  ignore('memory.management.tables.class', JAVA),
  ignore('legacy.snapshot.max.threads', JAVA),
  ignore('internal.legacy.snapshot.max.threads', JAVA),
  ignore('snapshot.max.threads.multiplier', JAVA),
  ignore('snapshot.scan.all.columns.force', JAVA),
  ignore('snapshot.tables.order.by.row.count', 'only orders tables within the snapshot; not configurable.'),
  ignore('streaming.delay.ms', 'streaming starts right after the snapshot.'),
  ignore('resolve.create.table.like.schema', JAVA),
  ignore('guardrail.collections.max', 'the captured-table-count guardrail is not implemented.'),
  ignore('guardrail.collections.limit.action', 'the captured-table-count guardrail is not implemented.'),
  ignore('table.ignore.builtin', 'system databases (mysql, sys, performance_schema, ...) are never captured.'),
  ignore('unavailable.value.placeholder', 'MySQL row events always carry full values; no placeholder is needed.'),
  ignore('database.server.id.offset', V1_REMOVED),
  ignore('snapshot.new.tables', `${V1_REMOVED} New tables can be snapshotted with an ad-hoc snapshot signal.`),
  ignore('gtid.new.channel.position', V1_REMOVED),
  ignore('gtid.ignore.on.recovery', 'not configurable here.'),
  ignore('gtid.source.filter.dml.events', 'not configurable here; gtid.source.* only select the resume position.'),
  ignore(
    'event.processing.failure.handling.mode',
    'not separately configurable; undecodable events follow event.deserialization.failure.handling.mode.',
  ),
  ignore(
    'event.converting.failure.handling.mode',
    'not separately configurable; undecodable events follow event.deserialization.failure.handling.mode.',
  ),
  ignore('incremental.snapshot.allow.schema.changes', 'not configurable here.'),
  ignore('incremental.snapshot.watermarking.strategy', 'not configurable here; no watermarks are written.'),
  ignore('schema.include.list', 'not a MySQL connector property (databases are filtered by database.include.list).'),
  ignore('schema.exclude.list', 'not a MySQL connector property (databases are filtered by database.exclude.list).'),
  ignore('schema.whitelist', 'not a MySQL connector property (databases are filtered by database.include.list).'),
  ignore('schema.blacklist', 'not a MySQL connector property (databases are filtered by database.exclude.list).'),
  ignore('schema.name.adjustment.mode', AVRO),
  ignore('field.name.adjustment.mode', AVRO),
  ignore('sanitize.field.names', `${AVRO} (Debezium 1.x name)`),
  // --- recognised but not supported
  unsupported(
    'database.initial.statements',
    'remove it; session statements on connect are not supported. Set server or per-user defaults (e.g. in the DB parameter group) instead.',
  ),
  unsupported(
    'database.ssl.keystore',
    'convert the keystore to PEM files and set database.ssl.cert and database.ssl.key.',
  ),
  unsupported('database.ssl.truststore', 'convert the truststore to a PEM bundle and set database.ssl.ca.'),
  {
    ...unsupported('database.ssl.keystore.password', 'use PEM files: database.ssl.cert and database.ssl.key.'),
    secret: true,
  },
  { ...unsupported('database.ssl.truststore.password', 'use a PEM bundle: database.ssl.ca.'), secret: true },
  unsupported(
    'converters',
    'remove it and its <name>.* options; custom converters are Java classes. Convert values with a transform or downstream.',
    { values: [''], reason: 'empty: no custom converters.' },
  ),
  unsupported(
    'post.processors',
    'remove it and its <name>.* options; post processors (e.g. ReselectColumnsPostProcessor) are Java classes.',
    { values: [''], reason: 'empty: no post processors.' },
  ),
  unsupported(
    'skip.messages.without.change',
    'remove it; every update is emitted. Drop unchanged updates downstream or with a Filter transform.',
    { values: ['false'], reason: 'false is what this tool does.' },
  ),
  unsupported('include.schema.comments', 'remove it; column comments are not included in schema change events.', {
    values: ['false'],
    reason: 'false is what this tool does.',
  }),
  unsupported(
    'topic.naming.strategy',
    'remove it; topics are always <topic.prefix>.<db>.<table>. Rename destinations with a router transform.',
    {
      values: ['io.debezium.schema.DefaultTopicNamingStrategy', 'io.debezium.schema.SchemaTopicNamingStrategy'],
      reason: 'the default strategy is what this tool does.',
    },
  ),
  unsupported(
    'topic.heartbeat.name',
    'use topic.heartbeat.prefix; the heartbeat topic is <topic.heartbeat.prefix>.<topic.prefix>.',
  ),
  unsupported(
    'transaction.topic',
    'use topic.transaction=<suffix> (Debezium 2 name); the topic is <topic.prefix>.<suffix>.',
  ),
  unsupported('source.struct.version', 'remove it; events use the v2 source block.', {
    values: ['v2'],
    reason: 'v2 is what this tool emits.',
  }),
  unsupported(
    'snapshot.query.mode',
    'remove it or set select_all; use snapshot.select.statement.overrides for custom queries.',
    { values: ['select_all'], reason: 'select_all is what this tool does.' },
  ),
  unsupported(
    'snapshot.query.mode.custom.name',
    'remove it; custom snapshot query classes are Java. Use snapshot.select.statement.overrides.',
  ),
  unsupported(
    'snapshot.mode.custom.name',
    'remove it; custom Snapshotter classes are Java. Pick a built-in snapshot.mode.',
  ),
  unsupported(
    'snapshot.locking.mode.custom.name',
    'remove it; custom locking classes are Java. Use snapshot.locking.mode=minimal, extended or none.',
  ),
  {
    ...unsupported(
      'snapshot.mode.configuration.based.<option>',
      'remove it; snapshot.mode=configuration_based is not supported. Pick a built-in snapshot.mode.',
    ),
    pattern: /^snapshot\.mode\.configuration\.based\..+$/,
  },
  // --- Debezium Server (application.properties keys left after mapping debezium.source./sink./format.)
  ignorePattern(
    'debezium.format.<option>',
    /^debezium\.format\..+$/,
    'Debezium Server serialization; events are always JSON (schemas.enable maps to key/value.converter.schemas.enable).',
  ),
  ignorePattern(
    'debezium.sink.kinesis.credentials.profile',
    /^debezium\.sink\.kinesis\.credentials\.profile$/,
    'AWS credentials come from the default provider chain (set AWS_PROFILE).',
  ),
  ignorePattern(
    'debezium.sink.<option>',
    /^debezium\.sink\..+$/,
    'Debezium Server sink option without a counterpart here (see sink.*).',
  ),
  ignorePattern('debezium.<option>', /^debezium\..+$/, SERVER),
  ignorePattern(
    'quarkus.<option>',
    /^quarkus\..+$/,
    'Quarkus runtime setting of Debezium Server; see log.* and metrics.*.',
  ),
];
