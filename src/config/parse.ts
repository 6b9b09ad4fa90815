/**
 * `parseConfig`: one pass from a raw key/value map to the typed, frozen `CdcConfig`. Every problem is collected
 * (unknown keys, bad values, cross-property rules) and reported together in a single ConfigError.
 */

import { getHashes } from 'node:crypto';
import { accessSync, constants as fsConstants } from 'node:fs';
import { ConfigError, type ConfigProblem } from '../common/config-error.js';
import { compileRegexList, deriveServerId, parseMessageKeyColumns, splitList } from '../common/config-values.js';
import { isInlinePem } from '../common/inline-pem.js';
import { REDACTED, Secret } from '../common/secret.js';
import { suggest } from '../common/suggest.js';
import { componentProblems } from './component-checks.js';
import { canonicalize } from './normalize.js';
import { findProperty, INT_MAX, isSecretKey, type PropertyDef } from './properties.js';
import type {
  CdcConfig,
  ClaimCheckConfig,
  ColumnsConfig,
  DynamoDbTableConfig,
  LeaseConfig,
  NotificationsConfig,
  Operation,
  SignalChannelName,
  SignalsConfig,
  SinkConfig,
  TransformConfig,
} from './types.js';
import {
  DEFAULT_VTGATE_PORT,
  isVitessConnectorClass,
  parseVitessConfig,
  VITESS_CONNECTOR_CLASS,
  VITESS_SNAPSHOT_MODE_FIX,
  VITESS_SNAPSHOT_MODES,
} from './vitess.js';

/** Parse and validate; throws ConfigError listing every problem. */
export function parseConfig(raw: Readonly<Record<string, string>>): CdcConfig {
  const { config, problems } = checkConfig(raw);
  if (!config || problems.length > 0) throw new ConfigError(problems);
  return config;
}

export interface CheckOptions {
  /** Legacy names already renamed by an earlier canonicalisation (`collectRaw`), for the deprecation warning. */
  readonly renamed?: readonly { readonly alias: string; readonly key: string }[];
}

/** Like `parseConfig` but returns the problems instead of throwing (config is null when any were found). */
export function checkConfig(
  raw: Readonly<Record<string, string>>,
  options: CheckOptions = {},
): {
  config: CdcConfig | null;
  problems: ConfigProblem[];
} {
  const { values, problems, renamed } = canonicalize(raw);
  const config = build(values, problems, [...(options.renamed ?? []), ...renamed]);
  // Component validators run in the same pass; a property already reported is not reported twice.
  const reported = new Set(problems.map((p) => p.property));
  for (const p of componentProblems(config)) if (!reported.has(p.property)) problems.push(p);
  return { config: problems.length === 0 ? config : null, problems };
}

/**
 * Ignored Debezium/Kafka Connect keys become one warning listing each key and why; unsupported ones are problems
 * unless their value is one we honour anyway; renamed legacy names become one deprecation warning.
 */
function compatibility(
  values: Map<string, string>,
  problems: ConfigProblem[],
  renamed: readonly { readonly alias: string; readonly key: string }[],
): string[] {
  const ignored: string[] = [];
  for (const [key, value] of [...values.entries()].sort(([a], [b]) => byCodeUnit(a, b))) {
    const def = findProperty(key)?.def;
    if (!def) continue;
    if (def.unsupported) {
      if (value.trim() === '' && !def.harmlessValues) continue;
      const v = value.trim().toLowerCase();
      if (def.harmlessValues?.some((h) => h.toLowerCase() === v)) ignored.push(`  ${key}: ${def.ignored}`);
      else
        problems.push({
          property: key,
          message: 'is a Debezium property this tool does not support.',
          fix: def.unsupported,
        });
    } else if (def.ignored) ignored.push(`  ${key}: ${def.ignored}`);
  }
  const warnings: string[] = [];
  if (ignored.length > 0)
    warnings.push(
      `Ignoring ${ignored.length} Debezium/Kafka Connect propert${ignored.length === 1 ? 'y' : 'ies'} that have no effect here:\n${ignored.join('\n')}`,
    );
  const seen = new Set<string>();
  const renames = renamed.filter((r) => !seen.has(r.alias) && seen.add(r.alias));
  if (renames.length > 0)
    warnings.push(
      `Deprecated Debezium property names were used; rename them:\n${renames
        .sort((a, b) => a.alias.localeCompare(b.alias))
        .map((r) => `  ${r.alias} -> ${r.key}`)
        .join('\n')}`,
    );
  return warnings;
}

const TEMPLATE_PLACEHOLDERS = ['topic', 'prefix', 'db', 'table'];
const ARN_REGION = /^arn:aws[a-z-]*:secretsmanager:([a-z0-9-]+):\d{12}:secret:.+$/;

function build(
  values: Map<string, string>,
  problems: ConfigProblem[],
  renamed: readonly { readonly alias: string; readonly key: string }[],
): CdcConfig {
  const r = new Reader(values, problems);
  const warnings = compatibility(values, problems, renamed);

  // --- connector
  const topicPrefix = r.str('topic.prefix') ?? '';
  if (topicPrefix === '') r.missing('topic.prefix', 'set topic.prefix=<logical server name>, e.g. topic.prefix=shop.');
  else if (!/^[A-Za-z0-9_.-]+$/.test(topicPrefix))
    r.add(
      'topic.prefix',
      `'${topicPrefix}' contains characters not allowed in topic names.`,
      'use only letters, digits, `_`, `-` and `.`.',
    );
  const name = r.str('name') ?? topicPrefix;
  const connectorClass = r.str('connector.class');
  const isVitess = isVitessConnectorClass(connectorClass);
  if (connectorClass !== null && !isVitess && !/(MySql|MariaDb)Connector$/i.test(connectorClass))
    r.add(
      'connector.class',
      `'${connectorClass}' is not a MySQL, MariaDB or Vitess connector.`,
      `remove connector.class (MySQL/MariaDB) or set it to ${VITESS_CONNECTOR_CLASS}.`,
    );
  r.int('tasks.max');

  // --- database
  const secretArn = r.str('database.secret.arn');
  const hostname = r.str('database.hostname') ?? '';
  if (hostname === '' && secretArn === null)
    r.missing('database.hostname', 'set database.hostname=<host> (or CDC_DATABASE_HOSTNAME), or database.secret.arn.');
  const user = r.str('database.user') ?? '';
  if (user === '' && secretArn === null && !isVitess)
    r.missing('database.user', 'set database.user=<user> (or CDC_DATABASE_USER), or database.secret.arn.');
  const configuredServerId = r.int('database.server.id');
  const sslCert = r.str('database.ssl.cert');
  const sslKey = r.str('database.ssl.key');
  if ((sslCert === null) !== (sslKey === null)) {
    const [set, unset] =
      sslCert === null ? ['database.ssl.key', 'database.ssl.cert'] : ['database.ssl.cert', 'database.ssl.key'];
    r.add(
      unset,
      `is required when ${set} is set (client certificate and key come as a pair).`,
      `set ${unset}=<PEM file> or remove ${set}.`,
    );
  }
  // TLS material is read from these files at each connect; a path that cannot be read is a config error now,
  // not a confusing certificate failure later.
  for (const key of ['database.ssl.ca', 'database.ssl.cert', 'database.ssl.key'] as const) {
    const path = r.str(key);
    if (path !== null && !isInlinePem(path) && !isReadableFile(path))
      r.add(key, `names ${path}, which does not exist or cannot be read.`, `point ${key} at a readable PEM file.`);
  }
  const awsRegion = r.str('aws.region');
  const awsEndpoint = r.str('aws.endpoint');
  r.url('aws.endpoint');

  // --- filters
  const filters = {
    databaseInclude: r.regexes('database.include.list'),
    databaseExclude: r.regexes('database.exclude.list'),
    tableInclude: r.regexes('table.include.list'),
    tableExclude: r.regexes('table.exclude.list'),
    columnInclude: r.regexes('column.include.list'),
    columnExclude: r.regexes('column.exclude.list'),
    signalDataCollection: r.str('signal.data.collection'),
  };
  r.exclusive('database.include.list', 'database.exclude.list');
  r.exclusive('table.include.list', 'table.exclude.list');
  r.exclusive('column.include.list', 'column.exclude.list');
  r.exclusive('gtid.source.includes', 'gtid.source.excludes');
  if (filters.signalDataCollection !== null && !/^[^.]+\.[^.]+$/.test(filters.signalDataCollection))
    r.add(
      'signal.data.collection',
      `'${filters.signalDataCollection}' is not '<db>.<table>'.`,
      'name the signalling table as <db>.<table>.',
    );

  // --- signal channels
  const channels = new Set((r.list('signal.enabled.channels') ?? ['source']) as SignalChannelName[]);
  const signalFile = r.str('signal.file');
  if (channels.has('file') && signalFile === null)
    r.add(
      'signal.enabled.channels',
      'has file, and signal.file is not set.',
      'set signal.file=<path of the signal file> or remove file from signal.enabled.channels.',
    );
  const signalStream = r.str('signal.kinesis.stream.name');
  if (channels.has('kinesis') && signalStream === null)
    r.add(
      'signal.enabled.channels',
      'has kinesis, and signal.kinesis.stream.name is not set.',
      'set signal.kinesis.stream.name=<stream> or remove kinesis from signal.enabled.channels.',
    );
  r.url('signal.kinesis.endpoint');
  const signals: SignalsConfig = {
    channels,
    file: signalFile,
    pollIntervalMs: r.int('signal.poll.interval.ms') ?? 5000,
    kinesis:
      signalStream === null
        ? null
        : {
            streamName: signalStream,
            region: r.str('signal.kinesis.region') ?? awsRegion,
            endpoint: r.str('signal.kinesis.endpoint') ?? awsEndpoint,
          },
  };

  // --- snapshot
  const overrides = new Map<string, string>();
  const overrideTables = r.list('snapshot.select.statement.overrides') ?? [];
  const overrideKeys = r.patternKeys('snapshot.select.statement.overrides.<db>.<table>');
  for (const table of overrideTables) {
    const stmt = r.str(`snapshot.select.statement.overrides.${table}`);
    if (stmt === null)
      r.add(
        `snapshot.select.statement.overrides.${table}`,
        `is missing although ${table} is listed in snapshot.select.statement.overrides.`,
        `set snapshot.select.statement.overrides.${table}=SELECT ... FROM ${table} ...`,
      );
    else overrides.set(table, stmt);
  }
  for (const { key, groups } of overrideKeys) {
    const table = groups[0] ?? '';
    if (!overrideTables.includes(table))
      r.add(
        key,
        `is ignored because ${table} is not listed in snapshot.select.statement.overrides.`,
        `add ${table} to snapshot.select.statement.overrides.`,
      );
  }
  const chunked = r.bool('snapshot.chunked');

  // --- events
  const skipped = r.list('skipped.operations') ?? [];
  if (skipped.includes('none') && skipped.length > 1)
    r.add(
      'skipped.operations',
      `'none' cannot be combined with other operations.`,
      `use either 'none' or a list of c,u,d,t.`,
    );
  const keyColumnsRaw = r.str('message.key.columns');
  const keyColumns = keyColumnsRaw === null ? { entries: [], errors: [] } : parseMessageKeyColumns(keyColumnsRaw);
  for (const e of keyColumns.errors)
    r.add('message.key.columns', `${e}.`, 'write entries as <db>.<table>:<col>[,<col>...] separated by `;`.');

  // --- columns
  const columns: ColumnsConfig = {
    maskWithChars: r.patternKeys('column.mask.with.<N>.chars').map(({ key, groups }) => ({
      length: r.positive(key, groups[0]),
      columns: r.regexes(key) ?? [],
    })),
    maskHash: r.patternKeys('column.mask.hash.[v2.]<algorithm>.with.salt.<salt>').map(({ key, groups }) => {
      const algorithm = groups[1] ?? '';
      return {
        algorithm,
        nodeAlgorithm: r.hashAlgorithm(key, algorithm),
        salt: groups[2] ?? '',
        version: groups[0] === 'v2' ? ('v2' as const) : ('v1' as const),
        columns: r.regexes(key) ?? [],
      };
    }),
    truncateToChars: r.patternKeys('column.truncate.to.<N>.chars').map(({ key, groups }) => ({
      length: r.positive(key, groups[0]),
      columns: r.regexes(key) ?? [],
    })),
    propagateSourceType: r.regexes('column.propagate.source.type'),
    datatypePropagateSourceType: r.regexes('datatype.propagate.source.type'),
  };

  // --- topics
  const delimiter = values.get('topic.delimiter') ?? '.';
  if (delimiter === '')
    r.add('topic.delimiter', 'must not be empty.', `remove it to use '.', or set a separator such as '_'.`);

  // --- engine
  const maxBatchSize = r.int('max.batch.size') ?? 2048;
  const maxQueueSize = r.int('max.queue.size') ?? 8192;
  if (maxQueueSize <= maxBatchSize)
    r.add(
      'max.queue.size',
      `(${maxQueueSize}) must be larger than max.batch.size (${maxBatchSize}).`,
      `set max.queue.size to at least ${maxBatchSize * 2} or lower max.batch.size.`,
    );
  const heartbeatIntervalMs = r.int('heartbeat.interval.ms') ?? 0;
  const heartbeatActionQuery = r.str('heartbeat.action.query');
  if (heartbeatActionQuery !== null && heartbeatIntervalMs === 0)
    r.add(
      'heartbeat.action.query',
      'has no effect because heartbeats are off (heartbeat.interval.ms=0).',
      'set heartbeat.interval.ms, e.g. 10000, or remove heartbeat.action.query.',
    );
  const retryInitial = r.int('errors.retry.delay.initial.ms') ?? 300;
  const retryMax = r.int('errors.retry.delay.max.ms') ?? 10000;
  if (retryInitial > retryMax)
    r.add(
      'errors.retry.delay.initial.ms',
      `(${retryInitial}) exceeds errors.retry.delay.max.ms (${retryMax}).`,
      'lower the initial delay or raise the maximum.',
    );

  // --- stores
  const dynamo = (prefix: string): DynamoDbTableConfig => {
    const table = r.str(`${prefix}.dynamodb.table`);
    if (table === null)
      r.missing(
        `${prefix}.dynamodb.table`,
        `set ${prefix}.dynamodb.table=<table name> (needed because ${prefix}=dynamodb).`,
      );
    r.url(`${prefix}.dynamodb.endpoint`);
    return {
      type: 'dynamodb',
      table: table ?? '',
      region: r.str(`${prefix}.dynamodb.region`) ?? awsRegion,
      endpoint: r.str(`${prefix}.dynamodb.endpoint`) ?? awsEndpoint,
      createTable: r.bool(`${prefix}.dynamodb.table.create`),
    };
  };
  const historyType = r.enum('schema.history.internal');
  r.onlyFor('schema.history.internal', historyType, {
    file: ['schema.history.internal.file.'],
    dynamodb: ['schema.history.internal.dynamodb.'],
  });
  const schemaHistory = {
    skipUnparseableDdl: r.bool('schema.history.internal.skip.unparseable.ddl'),
    storeOnlyCapturedTablesDdl: r.bool('schema.history.internal.store.only.captured.tables.ddl'),
    ...(historyType === 'dynamodb'
      ? dynamo('schema.history.internal')
      : { type: 'file' as const, filename: r.str('schema.history.internal.file.filename') ?? '' }),
  };
  const offsetType = r.enum('offset.storage');
  r.onlyFor('offset.storage', offsetType, { file: ['offset.storage.file.'], dynamodb: ['offset.storage.dynamodb.'] });
  const offsets = {
    flushIntervalMs: r.int('offset.flush.interval.ms') ?? 5000,
    ...(offsetType === 'dynamodb'
      ? dynamo('offset.storage')
      : { type: 'file' as const, filename: r.str('offset.storage.file.filename') ?? '' }),
  };

  // --- sink
  const sinkType = r.enum('sink.type');
  r.onlyFor('sink.type', sinkType, {
    kinesis: ['sink.kinesis.'],
    kafka: ['sink.kafka.'],
    file: ['sink.file.'],
    stdout: [],
  });
  const claimCheckConfig = (): ClaimCheckConfig => {
    r.url('sink.claim.check.endpoint');
    return {
      bucket: r.str('sink.claim.check.bucket') ?? '',
      prefix: r.str('sink.claim.check.prefix') ?? 'cdc/claim-check/',
      thresholdBytes: r.int('sink.claim.check.threshold.bytes'),
      region: r.str('sink.claim.check.region') ?? awsRegion,
      endpoint: r.str('sink.claim.check.endpoint') ?? awsEndpoint,
    };
  };
  let sink: SinkConfig;
  switch (sinkType) {
    case 'kinesis': {
      const streamName = r.str('sink.kinesis.stream.name');
      const template = r.str('sink.kinesis.stream.name.template');
      if (streamName === null && template === null)
        r.missing(
          'sink.kinesis.stream.name',
          'set sink.kinesis.stream.name=<stream> (one stream) or sink.kinesis.stream.name.template={prefix}-{db}-{table} (per table).',
        );
      // Checked here, not when the (lazily loaded) sink is built, so it is listed with every other problem at start-up.
      if (streamName !== null && !/^[a-zA-Z0-9_.-]{1,128}$/.test(streamName))
        r.add(
          'sink.kinesis.stream.name',
          `is "${streamName}", which is not a valid Kinesis stream name.`,
          'use 1 to 128 of the characters a-z, A-Z, 0-9, _ . - (the name, not the stream ARN).',
        );
      if (streamName !== null && template !== null)
        r.add(
          'sink.kinesis.stream.name',
          'and sink.kinesis.stream.name.template are both set.',
          'keep only one: a single stream name or a per-topic template.',
        );
      if (template !== null) {
        const unknown = [...template.matchAll(/\{([^}]*)\}/g)]
          .map((m) => m[1])
          .filter((p) => !TEMPLATE_PLACEHOLDERS.includes(p));
        if (unknown.length > 0)
          r.add(
            'sink.kinesis.stream.name.template',
            `uses unknown placeholder(s) ${unknown.map((p) => `{${p}}`).join(', ')}.`,
            `use only ${TEMPLATE_PLACEHOLDERS.map((p) => `{${p}}`).join(', ')}.`,
          );
      }
      r.url('sink.kinesis.endpoint');
      const oversizeHandling = r.enum<'fail' | 'truncate' | 'claim-check'>('sink.kinesis.oversize.handling');
      const maxRecordKib = r.int('sink.kinesis.max.record.size.kib');
      let claimCheck: ClaimCheckConfig | null = null;
      if (oversizeHandling === 'claim-check') {
        if (r.str('sink.claim.check.bucket') === null)
          r.missing(
            'sink.claim.check.bucket',
            'set sink.claim.check.bucket=<bucket> (sink.kinesis.oversize.handling=claim-check writes large values there).',
          );
        claimCheck = claimCheckConfig();
      }
      sink = {
        type: 'kinesis',
        streamName,
        streamNameTemplate: template,
        region: r.str('sink.kinesis.region') ?? awsRegion,
        endpoint: r.str('sink.kinesis.endpoint') ?? awsEndpoint,
        aggregation: r.bool('sink.kinesis.aggregation'),
        payload: r.enum('sink.kinesis.payload'),
        oversizeHandling,
        maxRecordBytes: maxRecordKib === null ? null : maxRecordKib * 1024,
        claimCheck,
        maxInFlight: r.int('sink.kinesis.max.in.flight') ?? 4,
      };
      break;
    }
    case 'kafka': {
      const servers = r.list('sink.kafka.bootstrap.servers');
      if (servers === null)
        r.missing('sink.kafka.bootstrap.servers', 'set sink.kafka.bootstrap.servers=<host:port>[,<host:port>...].');
      const properties: Record<string, string | Secret> = {};
      for (const { key } of r.patternKeys('sink.kafka.<producer property>')) {
        const k = key.slice('sink.kafka.'.length);
        const v = values.get(key) ?? '';
        properties[k] = isSecretKey(key) ? new Secret(v) : v;
      }
      // Kafka has no truncate mode: a claim-check bucket is the switch.
      const claimCheck = r.str('sink.claim.check.bucket') === null ? null : claimCheckConfig();
      sink = { type: 'kafka', bootstrapServers: servers ?? [], properties, claimCheck };
      break;
    }
    case 'file': {
      const path = r.str('sink.file.path');
      if (path === null) r.missing('sink.file.path', 'set sink.file.path=<file>, e.g. ./data/events.jsonl.');
      sink = { type: 'file', path: path ?? '' };
      break;
    }
    default:
      sink = { type: 'stdout' };
  }

  if (!((sink.type === 'kinesis' || sink.type === 'kafka') && sink.claimCheck))
    for (const key of values.keys())
      if (key.startsWith('sink.claim.check.'))
        r.add(
          key,
          'is set but no sink uses a claim-check, so it would be ignored.',
          'set sink.type=kinesis with sink.kinesis.oversize.handling=claim-check, or remove it.',
        );

  // --- lease
  let lease: LeaseConfig = { enabled: false };
  const leaseDuration = r.int('lease.duration.ms') ?? 30000;
  const leaseRenew = r.int('lease.renew.interval.ms') ?? 10000;
  // The lease follows DynamoDB offsets by default: they are the deployment with several tasks (ECS rollouts).
  const leaseFollowsOffsets = !r.isSet('lease.enabled') && offsetType === 'dynamodb';
  if (leaseFollowsOffsets || r.bool('lease.enabled')) {
    const table = r.str('lease.dynamodb.table');
    if (table === null)
      r.missing(
        'lease.dynamodb.table',
        leaseFollowsOffsets
          ? 'set lease.dynamodb.table=<table name> (lease.enabled defaults to true with offset.storage=dynamodb), ' +
              'or set lease.enabled=false if only one task can ever run.'
          : 'set lease.dynamodb.table=<table name> (needed because lease.enabled=true).',
      );
    if (leaseRenew >= leaseDuration)
      r.add(
        'lease.renew.interval.ms',
        `(${leaseRenew}) must be shorter than lease.duration.ms (${leaseDuration}).`,
        `set it to about a third of the duration, e.g. ${Math.floor(leaseDuration / 3)}.`,
      );
    r.url('lease.dynamodb.endpoint');
    lease = {
      enabled: true,
      table: table ?? '',
      region: r.str('lease.dynamodb.region') ?? awsRegion,
      endpoint: r.str('lease.dynamodb.endpoint') ?? awsEndpoint,
      durationMs: leaseDuration,
      renewIntervalMs: leaseRenew,
    };
  }

  const iamEnabled = r.bool('database.iam.authentication');
  if (iamEnabled && r.enum('database.ssl.mode') === 'disabled')
    r.add(
      'database.ssl.mode',
      'is disabled, but IAM authentication sends its token in clear text and RDS requires TLS for it.',
      'set database.ssl.mode=verify_identity (or required) with database.ssl.ca pointing at the RDS CA bundle.',
    );
  const secretRegion =
    r.str('database.secret.region') ?? (secretArn ? (ARN_REGION.exec(secretArn)?.[1] ?? awsRegion) : null);
  const vitess = isVitess ? parseVitessConfig(r) : undefined;
  if (vitess) vitessRules(r, values);
  else
    for (const key of values.keys())
      if (key.startsWith('vitess.'))
        r.add(
          key,
          'only applies to the Vitess connector.',
          `set connector.class=${VITESS_CONNECTOR_CLASS} or remove ${key}.`,
        );
  const bigintMode = r.enum<'long' | 'precise' | 'string'>('bigint.unsigned.handling.mode');
  if (bigintMode === 'string' && !vitess)
    r.add(
      'bigint.unsigned.handling.mode',
      "'string' is a Vitess connector mode.",
      'use long or precise for MySQL/MariaDB.',
    );
  const config: CdcConfig = {
    name,
    topicPrefix,
    ...(vitess ? { vitess } : {}),
    database: {
      hostname,
      // Debezium Vitess: database.port is VTGate's gRPC port, default 15991.
      port: vitess && !r.isSet('database.port') ? DEFAULT_VTGATE_PORT : (r.int('database.port') ?? 3306),
      user,
      password: new Secret(values.get('database.password') ?? ''),
      serverId: configuredServerId ?? deriveServerId(name),
      serverIdSource: configuredServerId === null ? 'derived' : 'configured',
      ssl: { mode: r.enum('database.ssl.mode'), ca: r.str('database.ssl.ca'), cert: sslCert, key: sslKey },
      connectTimeoutMs: r.int('connect.timeout.ms') ?? 30000,
      keepAlive: r.bool('connect.keep.alive'),
      keepAliveIntervalMs: r.int('connect.keep.alive.interval.ms') ?? 60000,
      gtidSourceIncludes: r.regexes('gtid.source.includes'),
      gtidSourceExcludes: r.regexes('gtid.source.excludes'),
      secret: secretArn === null ? null : { arn: secretArn, region: secretRegion, resolved: false },
      iam: { enabled: iamEnabled, region: r.str('database.iam.region') ?? awsRegion },
    },
    filters,
    signals,
    snapshot: {
      mode: r.enum('snapshot.mode'),
      chunked,
      readOnly: r.bool('read.only'),
      chunkSize: r.int('snapshot.chunk.size') ?? 10000,
      lockingMode: r.enum('snapshot.locking.mode'),
      fetchSize: r.int('snapshot.fetch.size'),
      selectStatementOverrides: overrides,
      includeCollections: r.regexes('snapshot.include.collection.list'),
      delayMs: r.int('snapshot.delay.ms') ?? 0,
      lockTimeoutMs: r.int('snapshot.lock.timeout.ms') ?? 10000,
      maxThreads: r.int('snapshot.max.threads') ?? 1,
    },
    events: {
      tombstonesOnDelete: r.bool('tombstones.on.delete'),
      // Debezium's Vitess connector publishes DDL only when asked (default false); MySQL's default is true.
      includeSchemaChanges: vitess && !r.isSet('include.schema.changes') ? false : r.bool('include.schema.changes'),
      includeQuery: r.bool('include.query'),
      provideTransactionMetadata: r.bool('provide.transaction.metadata'),
      decimalHandlingMode: r.enum('decimal.handling.mode'),
      timePrecisionMode: r.enum('time.precision.mode'),
      // Vitess's default is 'string' (vitess.ts reads it from here); MySQL/MariaDB never see 'string'.
      bigintUnsignedHandlingMode: (vitess
        ? r.isSet('bigint.unsigned.handling.mode')
          ? bigintMode
          : 'string'
        : bigintMode === 'string'
          ? 'long'
          : bigintMode) as 'long' | 'precise',
      binaryHandlingMode: r.enum('binary.handling.mode'),
      enableTimeAdjuster: r.bool('enable.time.adjuster'),
      skippedOperations: new Set(skipped.filter((o): o is Operation => o !== 'none')),
      messageKeyColumns: keyColumns.entries,
      keySchemasEnable: r.bool('key.converter.schemas.enable'),
      valueSchemasEnable: r.bool('value.converter.schemas.enable'),
    },
    columns,
    topics: {
      delimiter,
      transaction: r.str('topic.transaction') ?? 'transaction',
      heartbeatPrefix: r.str('topic.heartbeat.prefix') ?? '__debezium-heartbeat',
    },
    engine: {
      maxBatchSize,
      maxQueueSize,
      maxQueueSizeInBytes: r.int('max.queue.size.in.bytes') ?? 0,
      pollIntervalMs: r.int('poll.interval.ms') ?? 500,
      heartbeatIntervalMs,
      heartbeatActionQuery,
      eventDeserializationFailureHandlingMode: r.enum('event.deserialization.failure.handling.mode'),
      inconsistentSchemaHandlingMode: r.enum('inconsistent.schema.handling.mode'),
      errors: {
        maxRetries: r.int('errors.max.retries') ?? -1,
        retryDelayInitialMs: retryInitial,
        retryDelayMaxMs: retryMax,
      },
    },
    schemaHistory,
    offsets,
    sink,
    lease,
    aws: { region: awsRegion, endpoint: awsEndpoint },
    transforms: readTransforms(r, values),
    metrics: { emfEnabled: r.bool('metrics.emf.enabled'), httpPort: r.int('metrics.http.port') },
    notifications: readNotifications(r, awsRegion, awsEndpoint),
    log: { level: r.enum('log.level'), format: r.enum('log.format') },
    raw: redactRaw(values),
    warnings,
  };
  return deepFreeze(config);
}

function readNotifications(r: Reader, awsRegion: string | null, awsEndpoint: string | null): NotificationsConfig {
  const channels = [
    ...new Set(r.list('notification.enabled.channels') ?? []),
  ] as NotificationsConfig['channels'][number][];
  const sinkTopic = r.str('notification.sink.topic.name');
  if (channels.includes('sink') && !sinkTopic)
    r.missing(
      'notification.sink.topic.name',
      'set notification.sink.topic.name=<topic> (needed because notification.enabled.channels includes sink).',
    );
  const streamName = r.str('notification.kinesis.stream.name');
  if (channels.includes('kinesis') && !streamName)
    r.missing(
      'notification.kinesis.stream.name',
      'set notification.kinesis.stream.name=<stream> (needed because notification.enabled.channels includes kinesis).',
    );
  r.url('notification.kinesis.endpoint');
  for (const [key, channel] of [
    ['notification.sink.topic.name', 'sink'],
    ['notification.kinesis.stream.name', 'kinesis'],
  ] as const)
    if (r.isSet(key) && !channels.includes(channel))
      r.add(
        key,
        `has no effect: notification.enabled.channels does not include ${channel}.`,
        `add ${channel} to notification.enabled.channels, or remove ${key}.`,
      );
  return {
    channels,
    sinkTopic: channels.includes('sink') ? sinkTopic : null,
    kinesis:
      channels.includes('kinesis') && streamName
        ? {
            streamName,
            region: r.str('notification.kinesis.region') ?? awsRegion,
            endpoint: r.str('notification.kinesis.endpoint') ?? awsEndpoint,
          }
        : null,
  };
}

function readTransforms(r: Reader, values: Map<string, string>): TransformConfig[] {
  const names = r.list('transforms') ?? [];
  const seen = new Set<string>();
  for (const n of names) {
    if (seen.has(n)) r.add('transforms', `lists '${n}' twice.`, 'list each transform once.');
    if (!/^[A-Za-z0-9_-]+$/.test(n))
      r.add('transforms', `name '${n}' may only contain letters, digits, '_' and '-'.`, 'rename the transform.');
    seen.add(n);
  }
  const byName = new Map<string, { type: string | null; options: Record<string, string | Secret> }>();
  for (const n of seen) byName.set(n, { type: null, options: {} });
  for (const { key, groups } of r.patternKeys('transforms.<name>.<option>')) {
    const [tname = '', option = ''] = groups;
    const t = byName.get(tname);
    if (!t) {
      const [guess] = suggest(tname, seen);
      r.add(
        key,
        `configures transform '${tname}', which is not listed in transforms.`,
        guess
          ? `did you mean transforms.${guess}.${option}? Otherwise add '${tname}' to transforms or remove the key.`
          : `add '${tname}' to transforms or remove the key.`,
      );
      continue;
    }
    const v = values.get(key) ?? '';
    if (option === 'type') t.type = v.trim();
    else t.options[option] = isSecretKey(key) ? new Secret(v) : v;
  }
  const out: TransformConfig[] = [];
  for (const [tname, t] of byName) {
    if (!t.type)
      r.missing(
        `transforms.${tname}.type`,
        `set transforms.${tname}.type=<transform class>, e.g. io.debezium.transforms.ExtractNewRecordState.`,
      );
    out.push({ name: tname, type: t.type ?? '', options: t.options });
  }
  return out;
}

/**
 * Property keys (ASCII) in code-unit order. Not localeCompare: its first call loads ICU collation data, ~7 ms CPU
 * on every start of a capture, for an order nobody reads differently.
 */
function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Canonical raw map for display: secrets replaced by `***`. */
export function redactRaw(
  values: ReadonlyMap<string, string> | Readonly<Record<string, string>>,
): Record<string, string> {
  const entries = values instanceof Map ? [...values.entries()] : Object.entries(values);
  const out: Record<string, string> = {};
  for (const [k, v] of entries.sort(([a], [b]) => byCodeUnit(a, b))) out[k] = isSecretKey(k) ? REDACTED : v;
  return out;
}

export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof RegExp || value instanceof Map || value instanceof Set || value instanceof Secret) return value;
  for (const v of Object.values(value as object)) deepFreeze(v);
  return Object.freeze(value);
}

/** Typed access to the canonical map that records a problem for every bad value instead of throwing. */
function isReadableFile(path: string): boolean {
  try {
    accessSync(path, fsConstants.R_OK);
    return true;
  } catch {
    return false;
  }
}

class Reader {
  constructor(
    private readonly values: Map<string, string>,
    private readonly problems: ConfigProblem[],
  ) {}

  add(property: string, message: string, fix: string): void {
    this.problems.push({ property, message, fix });
  }

  missing(property: string, fix: string): void {
    this.add(property, 'is required but not set.', fix);
  }

  private def(key: string): PropertyDef {
    const m = findProperty(key);
    if (!m) throw new Error(`internal: ${key} is not in the property catalog`);
    return m.def;
  }

  /** Shown value for messages; secrets are never echoed. */
  private show(key: string, v: string): string {
    return isSecretKey(key) ? 'the value' : `'${v}'`;
  }

  /** Trimmed value, or the catalog default, or null. Empty strings count as unset. */
  str(key: string): string | null {
    const v = this.values.get(key)?.trim();
    if (v !== undefined && v !== '') return v;
    return this.def(key).default ?? null;
  }

  isSet(key: string): boolean {
    const v = this.values.get(key);
    return v !== undefined && v.trim() !== '';
  }

  int(key: string): number | null {
    const v = this.str(key);
    if (v === null) return null;
    const def = this.def(key);
    const max = def.max ?? (def.type === 'int' ? INT_MAX : Number.MAX_SAFE_INTEGER);
    const min = def.min ?? (def.type === 'int' ? -INT_MAX - 1 : Number.MIN_SAFE_INTEGER);
    const range = def.max !== undefined ? `${min}..${max}` : `>= ${min}`;
    if (!/^[+-]?\d+$/.test(v)) {
      this.add(
        key,
        `${this.show(key, v)} is not a whole number.`,
        `set an integer ${range}${def.default ? ` (default ${def.default})` : ''}.`,
      );
      return null;
    }
    const n = Number(v);
    if (n < min || n > max) {
      this.add(key, `${n} is out of range.`, `set an integer ${range}.`);
      return null;
    }
    return n;
  }

  bool(key: string): boolean {
    const v = this.str(key)?.toLowerCase() ?? 'false';
    if (v === 'true') return true;
    if (v !== 'false') this.add(key, `${this.show(key, v)} is not a boolean.`, 'set true or false.');
    return false;
  }

  /** T is inferred from the destination field's union type, which mirrors the catalog's `allowed`. */
  enum<T extends string>(key: string): T {
    const def = this.def(key);
    const allowed = def.allowed ?? [];
    const fallback = (def.default ?? allowed[0]) as T;
    const v = this.str(key);
    if (v === null) return fallback;
    const lower = v.toLowerCase();
    if (allowed.includes(lower)) return lower as T;
    const unsupportedFix = def.unsupportedValues?.[lower];
    if (unsupportedFix) {
      this.add(key, `${this.show(key, v)} is a Debezium value this tool does not support.`, unsupportedFix);
      return fallback;
    }
    const [guess] = suggest(lower, allowed);
    this.add(
      key,
      `${this.show(key, v)} is not one of: ${allowed.join(', ')}.`,
      guess ? `did you mean '${guess}'?` : `use one of: ${allowed.join(', ')}.`,
    );
    return fallback;
  }

  list(key: string): string[] | null {
    const v = this.str(key);
    if (v === null) return null;
    const items = splitList(v);
    const allowed = this.def(key).allowed;
    if (allowed) {
      const bad = items.filter((i) => !allowed.includes(i));
      if (bad.length > 0)
        this.add(
          key,
          `contains unknown value(s) ${bad.map((b) => `'${b}'`).join(', ')}.`,
          `use a comma-separated subset of: ${allowed.join(', ')}.`,
        );
      return items.filter((i) => allowed.includes(i));
    }
    return items;
  }

  regexes(key: string): RegExp[] | null {
    const v = this.str(key);
    if (v === null) return null;
    const { regexes, errors } = compileRegexList(v);
    for (const e of errors)
      this.add(
        key,
        `'${e.source}' is not a valid regular expression (${e.message}).`,
        'fix the expression; escape literal dots as \\. and commas as \\,.',
      );
    return regexes;
  }

  exclusive(a: string, b: string): void {
    if (this.isSet(a) && this.isSet(b))
      this.add(b, `cannot be combined with ${a}.`, `use either ${a} or ${b}, not both.`);
  }

  url(key: string): void {
    const v = this.values.get(key)?.trim();
    if (!v) return;
    let ok = /^https?:\/\//i.test(v);
    try {
      new URL(v);
    } catch {
      ok = false;
    }
    if (!ok) this.add(key, `'${v}' is not an http(s) URL.`, 'write it with a scheme, e.g. http://localhost:4566.');
  }

  positive(key: string, text: string | undefined): number {
    const n = Number(text);
    if (!Number.isSafeInteger(n) || n < 1) {
      this.add(key, `length '${text}' must be a positive integer.`, 'use a length of at least 1 in the property name.');
      return 1;
    }
    return n;
  }

  hashAlgorithm(key: string, algorithm: string): string {
    const available = new Set(getHashes().map((h) => h.toLowerCase()));
    const lower = algorithm.toLowerCase();
    for (const candidate of [lower, lower.replace(/-/g, '')]) if (available.has(candidate)) return candidate;
    this.add(key, `hash algorithm '${algorithm}' is not supported.`, 'use a digest such as SHA-256, SHA-512 or MD5.');
    return 'sha256';
  }

  /** Every set key matching the pattern property named by its display template. */
  patternKeys(template: string): { key: string; groups: readonly (string | undefined)[] }[] {
    const out: { key: string; groups: readonly (string | undefined)[] }[] = [];
    for (const key of this.values.keys()) {
      const m = findProperty(key);
      if (m?.def.name === template && m.def.pattern) out.push({ key, groups: m.groups ?? [] });
    }
    return out.sort((x, y) => x.key.localeCompare(y.key));
  }

  /** Reports keys of a variant that is not selected, e.g. `sink.kinesis.*` while `sink.type=stdout`. */
  onlyFor(selector: string, selected: string, prefixes: Record<string, string[]>): void {
    const chosen = this.values.get(selector)?.trim().toLowerCase();
    if (chosen && !this.def(selector).allowed?.includes(chosen)) return; // already reported as a bad value
    for (const [variant, list] of Object.entries(prefixes)) {
      if (variant === selected) continue;
      for (const key of this.values.keys())
        if (list.some((p) => key.startsWith(p)))
          this.add(
            key,
            `is set but ${selector} is '${selected}', so it would be ignored.`,
            `set ${selector}=${variant}, or remove ${key}.`,
          );
    }
  }
}

/** Cross-property rules of the Vitess connector (what it does not take from the MySQL side). */
function vitessRules(r: Reader, values: Map<string, string>): void {
  const mode = values.get('snapshot.mode')?.trim().toLowerCase();
  if (mode !== undefined && mode !== '' && !VITESS_SNAPSHOT_MODES.includes(mode))
    r.add('snapshot.mode', `'${mode}' is not a Vitess snapshot mode.`, VITESS_SNAPSHOT_MODE_FIX);
  if (r.bool('provide.transaction.metadata'))
    r.add(
      'provide.transaction.metadata',
      'is not implemented for the Vitess connector.',
      'remove provide.transaction.metadata (or set it to false).',
    );
  for (const key of [
    'database.server.id',
    'database.ssl.mode',
    'database.iam.authentication',
    'snapshot.chunked',
    'read.only',
  ])
    if (r.isSet(key))
      r.add(
        key,
        'does not apply to the Vitess connector.',
        'remove it; VTGate is reached over gRPC (see vitess.grpc.*).',
      );
}
