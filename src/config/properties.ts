/**
 * The property catalog: the single source of truth for every configuration key — its type, default, allowed
 * values, aliases, group and secrecy. Parsing, validation, env-var mapping, did-you-mean and the generated
 * docs/configuration.md all read from here. Names and defaults follow Debezium's MySQL connector wherever it has
 * the property; our own namespaces (`sink.*`, `offset.storage.*`, `lease.*`, `aws.*`, ...) follow Debezium Server.
 */
import { DEBEZIUM_COMPAT_PROPERTIES } from './debezium-compat.js';
import { VITESS_PROPERTIES } from './vitess.js';

export type PropertyType = 'string' | 'int' | 'long' | 'boolean' | 'enum' | 'list' | 'regex-list' | 'password' | 'path';

export type GroupId =
  | 'connector'
  | 'database'
  | 'filters'
  | 'snapshot'
  | 'events'
  | 'columns'
  | 'topics'
  | 'engine'
  | 'schema-history'
  | 'offsets'
  | 'sink'
  | 'lease'
  | 'aws'
  | 'transforms'
  | 'observability'
  | 'vitess'
  | 'ignored'
  | 'unsupported';

export const GROUPS: readonly { id: GroupId; title: string; intro: string }[] = [
  { id: 'connector', title: 'Connector', intro: 'Identity of this capture pipeline.' },
  {
    id: 'database',
    title: 'Database connection',
    intro: 'How to reach the MySQL/MariaDB server and join it as a replica.',
  },
  {
    id: 'filters',
    title: 'Filters',
    intro:
      'Regular expressions (comma-separated) matched case-insensitively against the whole identifier: ' +
      '`db` for databases, `db.table` for tables, `db.table.column` for columns. Use `\\,` for a literal comma.',
  },
  { id: 'snapshot', title: 'Snapshot', intro: 'The initial consistent read of existing rows.' },
  { id: 'events', title: 'Event content', intro: 'What change events contain and how values are encoded.' },
  {
    id: 'columns',
    title: 'Column masking and source types',
    intro: 'Values are regular-expression lists of fully-qualified column names (`db.table.column`).',
  },
  { id: 'topics', title: 'Topic naming', intro: 'Destination names follow Debezium: `<topic.prefix>.<db>.<table>`.' },
  { id: 'engine', title: 'Engine and error handling', intro: 'Batching, queueing, heartbeats and retries.' },
  {
    id: 'schema-history',
    title: 'Schema history',
    intro: 'Where the DDL history (needed to decode old binlog events) is stored.',
  },
  { id: 'offsets', title: 'Offset storage', intro: 'Where the resume position is stored.' },
  { id: 'sink', title: 'Sink', intro: 'Destination of the change events.' },
  {
    id: 'lease',
    title: 'Lease',
    intro: 'Single-writer lease so that only one instance captures at a time (for Lambda/ECS deployments).',
  },
  {
    id: 'aws',
    title: 'AWS',
    intro: 'Shared defaults for every AWS client; per-service `*.region`/`*.endpoint` override them.',
  },
  {
    id: 'transforms',
    title: 'Transforms',
    intro: 'Single message transforms, configured Kafka Connect style and validated by the transforms module.',
  },
  { id: 'observability', title: 'Logging and metrics', intro: 'Operational output.' },
  {
    id: 'vitess',
    title: 'Vitess source',
    intro:
      "With `connector.class=io.debezium.connector.vitess.VitessConnector` a keyspace is captured through VTGate's VStream " +
      '(Debezium Vitess connector names); `database.hostname`/`database.port` (default 15991)/`database.user`/' +
      '`database.password` then name the VTGate gRPC endpoint and its static credentials. See docs/vitess.md.',
  },
  {
    id: 'ignored',
    title: 'Accepted and ignored (Kafka Connect, JDBC, Java tuning)',
    intro:
      'Debezium connector settings that have no meaning here: Kafka Connect runtime and serialization, JDBC ' +
      'driver options, the Kafka schema history topic, and tuning of the Java implementation. They are accepted ' +
      'so an existing Debezium configuration starts unchanged, and listed with the reason in one start-up warning.',
  },
  {
    id: 'unsupported',
    title: 'Recognised but not supported',
    intro:
      'Debezium settings that would change what is captured or emitted but are not implemented. Setting one is ' +
      'an error saying what to do instead; a value that matches what this tool does anyway (column "Accepted ' +
      'value") is accepted like an ignored property.',
  },
];

export interface PropertyDef {
  /** The key; for pattern properties a display template such as `column.mask.with.<N>.chars`. */
  readonly name: string;
  /** Set for pattern properties: the keys it matches. */
  readonly pattern?: RegExp;
  readonly type: PropertyType;
  readonly group: GroupId;
  /** One line, shown in docs and `--help`. */
  readonly description: string;
  /** Default as it would be written in a config file; absent = no default. */
  readonly default?: string;
  /** Human text for computed defaults (shown in docs instead of `default`). */
  readonly defaultNote?: string;
  /** Always required. Conditional requirements are cross-property rules, described in `requiredNote`. */
  readonly required?: boolean;
  readonly requiredNote?: string;
  /** Allowed values for `enum`, or allowed members for a closed `list`. */
  readonly allowed?: readonly string[];
  /** Deprecated value spellings accepted and mapped to the canonical value. */
  readonly valueAliases?: Readonly<Record<string, string>>;
  /** Deprecated/legacy property names accepted as this property. */
  readonly aliases?: readonly string[];
  /** Never printed: redacted in `config.raw`, errors and logs. */
  readonly secret?: boolean;
  readonly min?: number;
  readonly max?: number;
  /** Enum values Debezium has but we do not implement, lower case, each with the fix shown in the error. */
  readonly unsupportedValues?: Readonly<Record<string, string>>;
  /**
   * Accepted and ignored: the reason it has no meaning here. Such keys produce one start-up warning (not an
   * error); their values are not validated.
   */
  readonly ignored?: string;
  /** Recognised Debezium property we do not implement: the `fix` of the error (what to do instead). */
  readonly unsupported?: string;
  /**
   * With `unsupported`: values (trimmed, case-insensitive; '' = empty) equal to what we do anyway; these are
   * accepted and warned about like `ignored` (the reason being `ignored`).
   */
  readonly harmlessValues?: readonly string[];
}

const INT_MAX = 2_147_483_647;
const HISTORY_FIX =
  'set schema.history.internal=file (default) or dynamodb; Kafka/JDBC/S3/Redis history stores are not available.';
const KAFKA_HISTORY_CLASSES: Readonly<Record<string, string>> = Object.fromEntries(
  [
    'io.debezium.storage.kafka.history.kafkaschemahistory',
    'io.debezium.relational.history.kafkadatabasehistory',
    'io.debezium.storage.s3.history.s3schemahistory',
    'io.debezium.storage.redis.history.redisschemahistory',
    'io.debezium.storage.jdbc.history.jdbcschemahistory',
    'io.debezium.storage.azure.blob.history.azureblobschemahistory',
    'io.debezium.storage.rocketmq.history.rocketmqschemahistory',
    'io.debezium.relational.history.memoryschemahistory',
  ].map((c) => [c, HISTORY_FIX]),
);
const ms = (name: string, group: GroupId, def: string, description: string, min = 0): PropertyDef => ({
  name,
  type: 'long',
  group,
  default: def,
  description,
  min,
});
const bool = (name: string, group: GroupId, def: boolean, description: string, aliases?: string[]): PropertyDef => ({
  name,
  type: 'boolean',
  group,
  default: String(def),
  description,
  ...(aliases ? { aliases } : {}),
});
const regexList = (name: string, group: GroupId, description: string, aliases?: string[]): PropertyDef => ({
  name,
  type: 'regex-list',
  group,
  description,
  ...(aliases ? { aliases } : {}),
});
const storeProps = (prefix: string, group: GroupId, what: string): PropertyDef[] => [
  {
    name: `${prefix}.dynamodb.table`,
    type: 'string',
    group,
    description: `DynamoDB table holding the ${what}.`,
    requiredNote: `when ${prefix}=dynamodb`,
  },
  {
    name: `${prefix}.dynamodb.region`,
    type: 'string',
    group,
    description: 'Region of that table.',
    defaultNote: '`aws.region`',
  },
  {
    name: `${prefix}.dynamodb.endpoint`,
    type: 'string',
    group,
    description: 'Endpoint override (e.g. DynamoDB Local).',
    defaultNote: '`aws.endpoint`',
  },
  bool(`${prefix}.dynamodb.table.create`, group, false, 'Create the table on start when it does not exist.'),
];

const CORE_PROPERTIES: readonly PropertyDef[] = [
  // --- connector
  {
    name: 'name',
    type: 'string',
    group: 'connector',
    defaultNote: 'value of `topic.prefix`',
    description: 'Unique name of this connector; keys offsets, history and the lease.',
  },
  {
    name: 'topic.prefix',
    type: 'string',
    group: 'connector',
    required: true,
    aliases: ['database.server.name'],
    description: 'Logical server name; prefix of every topic/stream name. Letters, digits, `_`, `-`, `.` only.',
  },
  {
    name: 'connector.class',
    type: 'string',
    group: 'connector',
    description: 'Accepted for Debezium compatibility: must name the MySQL or MariaDB connector; otherwise ignored.',
  },
  {
    name: 'tasks.max',
    type: 'int',
    group: 'connector',
    default: '1',
    min: 1,
    max: 1,
    description: 'Accepted for Debezium compatibility: capture is single-task, so only 1 is valid.',
  },
  // --- database
  {
    name: 'database.hostname',
    type: 'string',
    group: 'database',
    requiredNote: 'unless `database.secret.arn` supplies `host`',
    description: 'Host name or IP address of the MySQL/MariaDB server.',
  },
  {
    name: 'database.port',
    type: 'int',
    group: 'database',
    default: '3306',
    min: 1,
    max: 65535,
    description: 'TCP port of the server.',
  },
  {
    name: 'database.user',
    type: 'string',
    group: 'database',
    requiredNote: 'unless `database.secret.arn` supplies `username`',
    description: 'User to connect as; needs REPLICATION SLAVE, REPLICATION CLIENT, SELECT (and RELOAD for locks).',
  },
  {
    name: 'database.password',
    type: 'password',
    group: 'database',
    secret: true,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: documents the literal reference syntax
    description: 'Password of `database.user`. Prefer `database.secret.arn` or `${env:VAR}`/`${file:/path}`.',
  },
  {
    name: 'database.server.id',
    type: 'long',
    group: 'database',
    min: 1,
    max: 4_294_967_295,
    defaultNote: 'stable hash of `name` in 5400–6400',
    description:
      'Replica server id used when reading the binlog; must be unique among replicas. Set it explicitly in production.',
  },
  {
    name: 'database.secret.arn',
    type: 'string',
    group: 'database',
    description:
      'Secrets Manager secret (RDS JSON format) supplying user/password, and host/port when those are not set.',
  },
  {
    name: 'database.secret.region',
    type: 'string',
    group: 'database',
    defaultNote: 'region in the ARN, else `aws.region`',
    description: 'Region of the Secrets Manager secret.',
  },
  {
    name: 'database.iam.authentication',
    type: 'boolean',
    group: 'database',
    default: 'false',
    description:
      'Sign in with an RDS/Aurora IAM authentication token (15-minute, from the AWS credential chain) instead of a password; needs TLS (database.ssl.mode not disabled) and a database user created for IAM.',
  },
  {
    name: 'database.iam.region',
    type: 'string',
    group: 'database',
    description: 'Region of the database for IAM tokens; defaults to aws.region, then the SDK default chain.',
  },
  {
    name: 'database.ssl.mode',
    type: 'enum',
    group: 'database',
    default: 'preferred',
    allowed: ['disabled', 'preferred', 'required', 'verify_ca', 'verify_identity'],
    description: 'TLS use: off, opportunistic, required, or required with CA / CA+hostname verification.',
  },
  {
    name: 'database.ssl.ca',
    type: 'path',
    group: 'database',
    description:
      'PEM file of trusted CA certificates (e.g. the RDS bundle), or the PEM text itself; replaces Debezium truststore.',
  },
  {
    name: 'database.ssl.cert',
    type: 'path',
    group: 'database',
    description: 'PEM client certificate for mutual TLS; replaces Debezium keystore.',
  },
  {
    name: 'database.ssl.key',
    type: 'path',
    group: 'database',
    requiredNote: 'when `database.ssl.cert` is set',
    description: 'PEM private key file of the client certificate.',
  },
  ms('connect.timeout.ms', 'database', '30000', 'Maximum time to wait for a database connection.', 1),
  bool('connect.keep.alive', 'database', true, 'Reconnect automatically when the binlog connection drops.'),
  ms('connect.keep.alive.interval.ms', 'database', '60000', 'Delay between reconnect attempts.', 1),
  regexList(
    'gtid.source.includes',
    'database',
    'Only GTIDs whose source UUID matches are used to find the resume position.',
  ),
  regexList('gtid.source.excludes', 'database', 'GTIDs whose source UUID matches are ignored for positioning.'),
  // --- filters
  regexList('database.include.list', 'filters', 'Databases to capture; all when unset.', ['database.whitelist']),
  regexList('database.exclude.list', 'filters', 'Databases not to capture.', ['database.blacklist']),
  regexList('table.include.list', 'filters', 'Tables (`db.table`) to capture; all non-system tables when unset.', [
    'table.whitelist',
  ]),
  regexList('table.exclude.list', 'filters', 'Tables (`db.table`) not to capture.', ['table.blacklist']),
  regexList('column.include.list', 'filters', 'Columns (`db.table.column`) to keep in events; all when unset.', [
    'column.whitelist',
  ]),
  regexList('column.exclude.list', 'filters', 'Columns (`db.table.column`) to drop from events.', ['column.blacklist']),
  {
    name: 'signal.data.collection',
    type: 'string',
    group: 'filters',
    description: 'Signalling table `db.table` (ad-hoc snapshots etc.); must also be captured.',
  },
  {
    name: 'signal.enabled.channels',
    type: 'list',
    group: 'filters',
    default: 'source',
    allowed: ['source', 'file', 'kinesis'],
    description:
      'Where signals come from: `source` (rows of signal.data.collection), `file` (signal.file), `kinesis` (signal.kinesis.stream.name).',
  },
  {
    name: 'signal.file',
    type: 'path',
    group: 'filters',
    requiredNote: 'when `signal.enabled.channels` has `file`',
    description: 'File of JSON signal lines, read and emptied every signal.poll.interval.ms (Debezium file channel).',
  },
  ms('signal.poll.interval.ms', 'filters', '5000', 'How often the file and Kinesis signal channels are read.', 10),
  {
    name: 'signal.kinesis.stream.name',
    type: 'string',
    group: 'filters',
    requiredNote: 'when `signal.enabled.channels` has `kinesis`',
    description: 'Kinesis stream whose records are JSON signals; its read position is kept in the offsets.',
  },
  {
    name: 'signal.kinesis.region',
    type: 'string',
    group: 'filters',
    defaultNote: '`aws.region`',
    description: 'Region of the signal stream.',
  },
  {
    name: 'signal.kinesis.endpoint',
    type: 'string',
    group: 'filters',
    defaultNote: '`aws.endpoint`',
    description: 'Endpoint override for the signal stream (e.g. a local Kinesis stand-in).',
  },
  // --- snapshot
  {
    name: 'snapshot.mode',
    type: 'enum',
    group: 'snapshot',
    default: 'initial',
    allowed: ['initial', 'initial_only', 'when_needed', 'never', 'no_data', 'recovery'],
    valueAliases: { schema_only: 'no_data', schema_only_recovery: 'recovery' },
    unsupportedValues: {
      always: 'use initial (snapshot once) or when_needed; snapshotting on every start is not supported.',
      configuration_based: 'use one of the built-in modes; snapshot.mode.configuration.based.* is not supported.',
      custom: 'use one of the built-in modes; custom Snapshotter classes are Java and cannot be loaded here.',
    },
    description:
      'When to snapshot: initial (once, then stream), initial_only, when_needed, never, no_data (schema only), recovery (rebuild history).',
  },
  bool(
    'snapshot.chunked',
    'snapshot',
    false,
    'Read tables in primary-key chunks with resumable progress instead of one long SELECT.',
  ),
  bool(
    'read.only',
    'snapshot',
    false,
    "Ad-hoc and chunked snapshots with GTID watermarks (Debezium's read-only incremental snapshot): nothing is written to the source, chunks may be read from a replica or behind a reader endpoint; MySQL needs gtid_mode=ON.",
  ),
  {
    name: 'snapshot.locking.mode',
    type: 'enum',
    group: 'snapshot',
    default: 'minimal',
    allowed: ['minimal', 'extended', 'none'],
    unsupportedValues: {
      minimal_percona: 'use minimal (FLUSH TABLES WITH READ LOCK) or none; Percona backup locks are not used.',
      minimal_percona_no_table_locks: 'use minimal or none; Percona backup locks are not used.',
      custom: 'use minimal, extended or none; custom locking classes are Java and cannot be loaded here.',
    },
    description:
      'Global read lock only while reading schemas (minimal), for the whole snapshot (extended), or never (none).',
  },
  {
    name: 'snapshot.fetch.size',
    type: 'int',
    group: 'snapshot',
    min: 1,
    defaultNote: 'streaming row by row',
    description: 'Rows fetched per round trip while snapshotting.',
  },
  {
    name: 'snapshot.select.statement.overrides',
    type: 'list',
    group: 'snapshot',
    description: 'Tables (`db.table`) whose snapshot SELECT is replaced by the matching pattern property below.',
  },
  {
    name: 'snapshot.select.statement.overrides.<db>.<table>',
    pattern: /^snapshot\.select\.statement\.overrides\.(.+)$/,
    type: 'string',
    group: 'snapshot',
    description: 'The SELECT used to snapshot that table; the table must be listed in the property above.',
  },
  regexList(
    'snapshot.include.collection.list',
    'snapshot',
    'Tables (`db.table`) to snapshot; defaults to all captured tables.',
  ),
  ms('snapshot.delay.ms', 'snapshot', '0', 'Delay before the snapshot starts (e.g. to let a cluster settle).'),
  ms('snapshot.lock.timeout.ms', 'snapshot', '10000', 'Maximum time to wait for table locks during the snapshot.', 1),
  {
    name: 'snapshot.chunk.size',
    type: 'int',
    group: 'snapshot',
    default: '10000',
    min: 1,
    aliases: ['incremental.snapshot.chunk.size'],
    description:
      'Rows per chunk when `snapshot.chunked=true` (at most: a chunk also ends once it holds 16 MiB of row data, so wide rows make chunks of fewer rows).',
  },
  {
    name: 'snapshot.max.threads',
    type: 'int',
    group: 'snapshot',
    default: '1',
    min: 1,
    max: 64,
    description: 'Tables snapshotted in parallel.',
  },
  // --- events
  bool('tombstones.on.delete', 'events', true, 'Follow each delete event with a tombstone (null value).'),
  bool('include.schema.changes', 'events', true, 'Emit DDL changes to the `<topic.prefix>` schema change topic.'),
  bool('include.query', 'events', false, 'Add the originating SQL (needs binlog_rows_query_log_events=ON).'),
  bool('provide.transaction.metadata', 'events', false, 'Emit BEGIN/END events and add transaction ids to events.'),
  {
    name: 'decimal.handling.mode',
    type: 'enum',
    group: 'events',
    default: 'precise',
    allowed: ['precise', 'double', 'string'],
    description: 'DECIMAL/NUMERIC encoding: exact bytes (precise), a double, or a string.',
  },
  {
    name: 'time.precision.mode',
    type: 'enum',
    group: 'events',
    default: 'adaptive_time_microseconds',
    allowed: ['adaptive_time_microseconds', 'connect', 'isostring'],
    description:
      'Temporal encoding: per-column precision (adaptive_time_microseconds), Kafka Connect logical types (connect), ' +
      'or ISO-8601 strings at UTC for DATE, TIME and DATETIME (isostring: io.debezium.time.IsoDate/IsoTime/IsoTimestamp).',
  },
  {
    name: 'bigint.unsigned.handling.mode',
    type: 'enum',
    group: 'events',
    default: 'long',
    allowed: ['long', 'precise', 'string'],
    defaultNote: '`long`; `string` for the Vitess connector',
    description:
      'BIGINT UNSIGNED as a signed 64-bit long (may overflow), an exact decimal, or (Vitess connector only) a string.',
  },
  {
    name: 'binary.handling.mode',
    type: 'enum',
    group: 'events',
    default: 'bytes',
    allowed: ['bytes', 'base64', 'base64-url-safe', 'hex'],
    description: 'Encoding of BINARY/BLOB values.',
  },
  bool('enable.time.adjuster', 'events', true, 'Expand two-digit YEAR values the way MySQL does (70–99 → 19xx).'),
  {
    name: 'skipped.operations',
    type: 'list',
    group: 'events',
    default: 't',
    allowed: ['c', 'u', 'd', 't', 'none'],
    description: 'Operations not emitted: c=create, u=update, d=delete, t=truncate; `none` emits all.',
  },
  {
    name: 'message.key.columns',
    type: 'string',
    group: 'events',
    description: 'Custom event keys: `<db>.<table regex>:<col>,<col>;...` (overrides the primary key).',
  },
  bool(
    'key.converter.schemas.enable',
    'events',
    false,
    'Wrap keys in a `{schema, payload}` envelope. Debezium defaults to true; we emit the payload only.',
  ),
  bool(
    'value.converter.schemas.enable',
    'events',
    false,
    'Wrap values in a `{schema, payload}` envelope. Debezium defaults to true; we emit the payload only.',
  ),
  // --- columns
  {
    name: 'column.mask.with.<N>.chars',
    pattern: /^column\.mask\.with\.(\d+)\.chars$/,
    type: 'regex-list',
    group: 'columns',
    description: 'Replace values of matching string columns with N asterisks.',
  },
  {
    name: 'column.mask.hash.[v2.]<algorithm>.with.salt.<salt>',
    pattern: /^column\.mask\.hash\.(?:(v[12])\.)?([A-Za-z0-9-]+)\.with\.salt\.(.+)$/,
    type: 'regex-list',
    group: 'columns',
    description: 'Replace values of matching string columns with a salted hash (e.g. SHA-256), hex encoded.',
  },
  {
    name: 'column.truncate.to.<N>.chars',
    pattern: /^column\.truncate\.to\.(\d+)\.chars$/,
    type: 'regex-list',
    group: 'columns',
    description: 'Truncate values of matching string columns to N characters.',
  },
  regexList(
    'column.propagate.source.type',
    'columns',
    'Add `__debezium.source.column.type/length/scale` schema parameters for matching columns.',
  ),
  regexList(
    'datatype.propagate.source.type',
    'columns',
    'Same as above, selected by database type name (e.g. `VARCHAR`, `DECIMAL`).',
  ),
  // --- topics
  {
    name: 'topic.delimiter',
    type: 'string',
    group: 'topics',
    default: '.',
    description: 'Separator between topic name parts.',
  },
  {
    name: 'topic.transaction',
    type: 'string',
    group: 'topics',
    default: 'transaction',
    description: 'Suffix of the transaction metadata topic `<prefix><delimiter><suffix>`.',
  },
  {
    name: 'topic.heartbeat.prefix',
    type: 'string',
    group: 'topics',
    default: '__debezium-heartbeat',
    aliases: ['heartbeat.topics.prefix'],
    description: 'Prefix of the heartbeat topic `<heartbeat prefix><delimiter><topic.prefix>`.',
  },
  // --- engine
  {
    name: 'max.batch.size',
    type: 'int',
    group: 'engine',
    default: '2048',
    min: 1,
    description: 'Maximum events per batch handed to the sink.',
  },
  {
    name: 'max.queue.size',
    type: 'int',
    group: 'engine',
    default: '8192',
    min: 2,
    description: 'Maximum events buffered between reader and sink; must exceed `max.batch.size`.',
  },
  {
    name: 'max.queue.size.in.bytes',
    type: 'long',
    group: 'engine',
    default: String(64 * 1024 * 1024),
    min: 0,
    description: 'Byte bound of that buffer; 0 = unbounded. Debezium defaults to 0; we bound memory at 64 MiB.',
  },
  ms('poll.interval.ms', 'engine', '500', 'How long the sink side waits for a batch to fill before sending.', 1),
  ms('heartbeat.interval.ms', 'engine', '0', 'Heartbeat period (keeps offsets fresh on idle tables); 0 = off.'),
  {
    name: 'heartbeat.action.query',
    type: 'string',
    group: 'engine',
    description: 'SQL executed on every heartbeat (e.g. an UPDATE on a heartbeat table).',
  },
  {
    name: 'event.deserialization.failure.handling.mode',
    type: 'enum',
    group: 'engine',
    default: 'fail',
    allowed: ['fail', 'warn', 'skip'],
    valueAliases: { ignore: 'skip' },
    description: 'What to do with a binlog event that cannot be decoded.',
  },
  {
    name: 'inconsistent.schema.handling.mode',
    type: 'enum',
    group: 'engine',
    default: 'fail',
    allowed: ['fail', 'warn', 'skip'],
    valueAliases: { ignore: 'skip' },
    description: 'What to do with a row event for a table missing from the schema history.',
  },
  {
    name: 'errors.max.retries',
    type: 'int',
    group: 'engine',
    default: '-1',
    min: -1,
    description: 'Retries of retriable errors before failing: -1 = unlimited, 0 = none.',
  },
  ms('errors.retry.delay.initial.ms', 'engine', '300', 'First retry delay (doubles each attempt).', 1),
  ms('errors.retry.delay.max.ms', 'engine', '10000', 'Upper bound of the retry delay.', 1),
  // --- schema history
  {
    name: 'schema.history.internal',
    type: 'enum',
    group: 'schema-history',
    default: 'file',
    allowed: ['file', 'dynamodb'],
    aliases: ['database.history'],
    valueAliases: {
      'io.debezium.storage.file.history.fileschemahistory': 'file',
      'io.debezium.relational.history.filedatabasehistory': 'file',
    },
    unsupportedValues: KAFKA_HISTORY_CLASSES,
    description: 'Schema history store. Debezium file history class names are accepted as `file`.',
  },
  {
    name: 'schema.history.internal.file.filename',
    type: 'path',
    group: 'schema-history',
    default: './data/schema-history.jsonl',
    aliases: ['database.history.file.filename'],
    description:
      'History file when `schema.history.internal=file`; a relative path resolves against the directory `cdc run` starts in.',
  },
  ...storeProps('schema.history.internal', 'schema-history', 'schema history'),
  bool(
    'schema.history.internal.skip.unparseable.ddl',
    'schema-history',
    false,
    'Log and skip DDL that cannot be parsed instead of failing.',
    ['database.history.skip.unparseable.ddl'],
  ),
  bool(
    'schema.history.internal.store.only.captured.tables.ddl',
    'schema-history',
    false,
    'Record only DDL of captured tables.',
    ['database.history.store.only.captured.tables.ddl', 'database.history.store.only.monitored.tables.ddl'],
  ),
  // --- offsets
  {
    name: 'offset.storage',
    type: 'enum',
    group: 'offsets',
    default: 'file',
    allowed: ['file', 'dynamodb'],
    valueAliases: { 'org.apache.kafka.connect.storage.fileoffsetbackingstore': 'file' },
    unsupportedValues: {
      'org.apache.kafka.connect.storage.kafkaoffsetbackingstore':
        'set offset.storage=file or dynamodb; offsets in a Kafka topic are not supported.',
      'org.apache.kafka.connect.storage.memoryoffsetbackingstore':
        'set offset.storage=file or dynamodb; in-memory offsets would re-snapshot on every start.',
    },
    description: 'Offset store. Kafka Connect `FileOffsetBackingStore` is accepted as `file`.',
  },
  {
    name: 'offset.storage.file.filename',
    type: 'path',
    group: 'offsets',
    default: './data/offsets.json',
    description:
      'Offset file when `offset.storage=file`; a relative path resolves against the directory `cdc run` starts in.',
  },
  ...storeProps('offset.storage', 'offsets', 'offsets'),
  ms('offset.flush.interval.ms', 'offsets', '5000', 'Minimum interval between offset commits; 0 = after every batch.'),
  // --- sink
  {
    name: 'sink.type',
    type: 'enum',
    group: 'sink',
    default: 'stdout',
    allowed: ['kinesis', 'kafka', 'file', 'stdout'],
    description: 'Destination of events. Defaults to stdout so a first run shows events without AWS.',
  },
  {
    name: 'sink.kinesis.stream.name',
    type: 'string',
    group: 'sink',
    requiredNote: 'when sink.type=kinesis (or the template)',
    description: 'Single Kinesis stream receiving every topic.',
  },
  {
    name: 'sink.kinesis.stream.name.template',
    type: 'string',
    group: 'sink',
    description: 'Per-topic stream name with placeholders `{topic}`, `{prefix}`, `{db}`, `{table}`.',
  },
  {
    name: 'sink.kinesis.region',
    type: 'string',
    group: 'sink',
    defaultNote: '`aws.region`',
    description: 'Region of the streams.',
  },
  {
    name: 'sink.kinesis.endpoint',
    type: 'string',
    group: 'sink',
    defaultNote: '`aws.endpoint`',
    description: 'Endpoint override (e.g. LocalStack).',
  },
  bool('sink.kinesis.aggregation', 'sink', false, 'Pack records with the KPL aggregation format.'),
  {
    name: 'sink.kinesis.payload',
    type: 'enum',
    group: 'sink',
    default: 'value',
    allowed: ['value', 'record'],
    description:
      "Record data: 'value', the value JSON (Debezium Server's layout; headers such as the event id `__cdc.id` are dropped), or 'record', the file sink's line `{topic, key, value, headers}` (keeps key and headers; the Lambdas read both).",
  },
  {
    name: 'sink.kinesis.oversize.handling',
    type: 'enum',
    group: 'sink',
    default: 'fail',
    allowed: ['fail', 'truncate', 'claim-check'],
    description:
      "Records over the stream's record limit: fail, truncate large column values, or claim-check (the value goes " +
      'to S3 first and the record carries a pointer; see `sink.claim.check.*` and docs/large-records.md).',
  },
  {
    name: 'sink.kinesis.max.record.size.kib',
    type: 'int',
    group: 'sink',
    min: 1024,
    max: 10240,
    defaultNote: "each stream's `MaxRecordSizeInKiB` (DescribeStreamSummary), else 1024",
    description:
      'Largest Kinesis record (data + partition key) in KiB, for streams whose limit was raised (up to 10 MiB); ' +
      'set it when the task may not call DescribeStreamSummary.',
  },
  {
    name: 'sink.claim.check.bucket',
    type: 'string',
    group: 'sink',
    requiredNote: 'when sink.kinesis.oversize.handling=claim-check',
    description:
      'S3 bucket receiving the values of claim-checked records (written before the record is published). With ' +
      '`sink.type=kafka` setting it turns the claim-check on for records over `sink.kafka.max.request.size`.',
  },
  {
    name: 'sink.claim.check.prefix',
    type: 'string',
    group: 'sink',
    default: 'cdc/claim-check/',
    description: 'Key prefix of the claim-check objects (`<prefix><topic>/<sha256>.json`).',
  },
  {
    name: 'sink.claim.check.threshold.bytes',
    type: 'int',
    group: 'sink',
    min: 1024,
    defaultNote: "the stream's record limit",
    description:
      'Records larger than this (data + partition key) are claim-checked even where the stream would take them.',
  },
  {
    name: 'sink.claim.check.region',
    type: 'string',
    group: 'sink',
    defaultNote: '`aws.region`',
    description: 'Region of the claim-check bucket.',
  },
  {
    name: 'sink.claim.check.endpoint',
    type: 'string',
    group: 'sink',
    defaultNote: '`aws.endpoint`',
    description: 'S3 endpoint override (an S3-compatible server; path-style addressing).',
  },
  {
    name: 'sink.kinesis.max.in.flight',
    type: 'int',
    group: 'sink',
    default: '4',
    min: 1,
    max: 64,
    description: 'Concurrent PutRecords calls (ordering per key is kept).',
  },
  {
    name: 'sink.kafka.bootstrap.servers',
    type: 'list',
    group: 'sink',
    requiredNote: 'when sink.type=kafka',
    description: 'Kafka brokers `host:port,...`.',
  },
  {
    name: 'sink.kafka.<producer property>',
    pattern: /^sink\.kafka\.(.+)$/,
    type: 'string',
    group: 'sink',
    description:
      'Kafka producer settings under their Java names (acks, compression.type, batch.size, enable.idempotence, security.protocol, sasl.*, ssl.*, topic.creation.*), validated at start-up; see src/config/kafka-sink.ts.',
  },
  {
    name: 'sink.file.path',
    type: 'path',
    group: 'sink',
    requiredNote: 'when sink.type=file',
    description: 'File receiving one JSON line per event.',
  },
  // --- lease
  {
    name: 'lease.enabled',
    type: 'boolean',
    group: 'lease',
    defaultNote: '`true` when `offset.storage=dynamodb`, else `false`',
    description:
      'Hold a DynamoDB lease while capturing (one publisher at a time; offset commits are fenced by it). Without it ' +
      'DynamoDB offsets are written unfenced, so only one task may ever run.',
  },
  {
    name: 'lease.dynamodb.table',
    type: 'string',
    group: 'lease',
    requiredNote: 'when lease.enabled=true',
    description: 'DynamoDB table holding the lease.',
  },
  {
    name: 'lease.dynamodb.region',
    type: 'string',
    group: 'lease',
    defaultNote: '`aws.region`',
    description: 'Region of that table.',
  },
  {
    name: 'lease.dynamodb.endpoint',
    type: 'string',
    group: 'lease',
    defaultNote: '`aws.endpoint`',
    description: 'Endpoint override.',
  },
  ms('lease.duration.ms', 'lease', '30000', 'Lease validity; another instance may take over after it expires.', 1000),
  ms('lease.renew.interval.ms', 'lease', '10000', 'Renewal period; must be shorter than the duration.', 100),
  // --- aws
  {
    name: 'aws.region',
    type: 'string',
    group: 'aws',
    defaultNote: 'SDK default chain (AWS_REGION, profile)',
    description: 'Default region of every AWS client.',
  },
  {
    name: 'aws.endpoint',
    type: 'string',
    group: 'aws',
    description: 'Default endpoint of every AWS client (e.g. `http://localhost:4566`).',
  },
  // --- transforms
  {
    name: 'transforms',
    type: 'list',
    group: 'transforms',
    description: 'Ordered transform names; each needs `transforms.<name>.type`.',
  },
  {
    name: 'transforms.<name>.<option>',
    pattern: /^transforms\.([^.]+)\.(.+)$/,
    type: 'string',
    group: 'transforms',
    description: 'Transform `type` (class) and options, handed to the transforms module.',
  },
  // --- notifications (Debezium's notification channels; docs/notifications.md)
  {
    name: 'notification.enabled.channels',
    type: 'list',
    group: 'observability',
    allowed: ['log', 'sink', 'kinesis'],
    defaultNote: 'none',
    description:
      "Where snapshot notifications go (Debezium's names; JMX has no counterpart): log, sink (notification.sink.topic.name through the capture's sink), kinesis (ours: notification.kinesis.stream.name).",
  },
  {
    name: 'notification.sink.topic.name',
    type: 'string',
    group: 'observability',
    requiredNote: 'when notification.enabled.channels includes sink',
    description: "Topic of the notification records on the capture's sink (a Kinesis sink routes it like any topic).",
  },
  {
    name: 'notification.kinesis.stream.name',
    type: 'string',
    group: 'observability',
    requiredNote: 'when notification.enabled.channels includes kinesis',
    description: 'Kinesis stream the kinesis channel writes one record per notification to (partition key: its id).',
  },
  {
    name: 'notification.kinesis.region',
    type: 'string',
    group: 'observability',
    defaultNote: '`aws.region`',
    description: 'Region of the notification stream.',
  },
  {
    name: 'notification.kinesis.endpoint',
    type: 'string',
    group: 'observability',
    defaultNote: '`aws.endpoint`',
    description: 'Endpoint override of the notification stream (e.g. a local stand-in).',
  },
  // --- observability
  bool('metrics.emf.enabled', 'observability', false, 'Write CloudWatch Embedded Metric Format lines.'),
  {
    name: 'metrics.http.port',
    type: 'int',
    group: 'observability',
    min: 1,
    max: 65535,
    defaultNote: 'off',
    description: 'Serve Prometheus metrics and health on this port.',
  },
  {
    name: 'log.level',
    type: 'enum',
    group: 'observability',
    default: 'info',
    allowed: ['debug', 'info', 'warn', 'error'],
    description: 'Minimum log level.',
  },
  {
    name: 'log.format',
    type: 'enum',
    group: 'observability',
    default: 'auto',
    allowed: ['auto', 'json', 'pretty'],
    description: 'Log line format; auto = pretty on a terminal, JSON otherwise.',
  },
];

/** Our properties, then the Debezium/Kafka Connect names we accept and ignore or reject (debezium-compat.ts). */
export const PROPERTIES: readonly PropertyDef[] = [
  ...CORE_PROPERTIES,
  ...DEBEZIUM_COMPAT_PROPERTIES,
  ...VITESS_PROPERTIES,
];

export { INT_MAX };

const BY_NAME = new Map<string, PropertyDef>();
const BY_ALIAS = new Map<string, PropertyDef>();
const PATTERNS: PropertyDef[] = [];
for (const p of PROPERTIES) {
  if (p.pattern) PATTERNS.push(p);
  else BY_NAME.set(p.name, p);
  for (const a of p.aliases ?? []) BY_ALIAS.set(a, p);
}

export interface PropertyMatch {
  readonly def: PropertyDef;
  /** The canonical key: the catalog name, or the key itself for pattern properties. */
  readonly key: string;
  /** Set when `key` was written under a legacy alias. */
  readonly alias?: string;
  /** Pattern capture groups (e.g. N of `column.mask.with.<N>.chars`). */
  readonly groups?: readonly (string | undefined)[];
}

/** Look a key up: exact name first, then legacy alias, then pattern properties. Null when unknown. */
export function findProperty(key: string): PropertyMatch | null {
  const exact = BY_NAME.get(key);
  if (exact) return { def: exact, key };
  const aliased = BY_ALIAS.get(key);
  if (aliased) return { def: aliased, key: aliased.name, alias: key };
  for (const p of PATTERNS) {
    const m = p.pattern!.exec(key);
    if (m) return { def: p, key, groups: m.slice(1) };
  }
  return null;
}

/** Every fixed (non-pattern) property name and alias; the vocabulary for did-you-mean. */
export function knownNames(): string[] {
  return [...BY_NAME.keys(), ...BY_ALIAS.keys()];
}

/** Fixed prefixes of pattern properties (`transforms.`, `sink.kafka.`, ...), for did-you-mean and env mapping. */
export function patternPrefixes(): { prefix: string; def: PropertyDef }[] {
  return PATTERNS.map((def) => ({ def, prefix: def.name.slice(0, def.name.search(/[<[]/)) }));
}

/** True when a key holds a secret: catalog secrets plus pass-through keys that look like credentials. */
export function isSecretKey(key: string): boolean {
  const m = findProperty(key);
  if (m && !m.def.pattern) return m.def.secret === true;
  return /password|passwd|secret|jaas\.config|credential|token|api[._-]?key|access[._-]?key/i.test(key);
}
