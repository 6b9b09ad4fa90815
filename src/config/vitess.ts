/**
 * The Vitess source's properties (Debezium's Vitess connector names: `vitess.*`, with `database.hostname/port/
 * user/password` naming the VTGate gRPC endpoint) and their parsing into `CdcConfig.vitess`. Selected by
 * `connector.class=io.debezium.connector.vitess.VitessConnector`.
 */
import type { PropertyDef } from './properties.js';
import type { VitessConfig } from './types.js';

export const VITESS_CONNECTOR_CLASS = 'io.debezium.connector.vitess.VitessConnector';
export const DEFAULT_VTGATE_PORT = 15991;
export const TABLET_TYPES = ['MASTER', 'PRIMARY', 'REPLICA', 'RDONLY'] as const;
/**
 * The snapshot.mode values Debezium's Vitess connector takes (its own SnapshotMode enum: anything else fails its
 * config validation). initial_only, when_needed, no_data and recovery are MySQL-connector modes.
 */
export const VITESS_SNAPSHOT_MODES: readonly string[] = ['initial', 'never'];
export const VITESS_SNAPSHOT_MODE_FIX =
  'use initial (copy the tables through VStream, then stream) or never (stream from vitess.vgtid).';

const NOT_HERE =
  'multi-task offsets and transaction ordering are Java/Kafka Connect features; run one connector per keyspace (or per shard list with vitess.shard).';

export const VITESS_PROPERTIES: readonly PropertyDef[] = [
  {
    name: 'vitess.keyspace',
    type: 'string',
    group: 'vitess',
    requiredNote: 'for the Vitess connector',
    description: 'Keyspace to capture (the Vitess counterpart of a MySQL database), e.g. commerce.',
  },
  {
    name: 'vitess.shard',
    type: 'list',
    group: 'vitess',
    defaultNote: 'every shard of the keyspace',
    description: 'Shards to stream, comma-separated (e.g. `-80,80-`; `0` for an unsharded keyspace).',
  },
  {
    name: 'vitess.vgtid',
    type: 'string',
    group: 'vitess',
    default: 'current',
    aliases: ['vitess.gtid'],
    description:
      'Start position when no offset is stored and snapshot.mode=never: `current`, or a VGTID JSON list `[{"keyspace":"ks","shard":"-80","gtid":"MySQL56/..."}]`.',
  },
  {
    name: 'vitess.tablet.type',
    type: 'string',
    group: 'vitess',
    default: 'MASTER',
    allowed: TABLET_TYPES,
    description: 'Tablet type VTGate streams from: MASTER (= PRIMARY), REPLICA or RDONLY.',
  },
  {
    name: 'vitess.stop_on_reshard',
    type: 'boolean',
    group: 'vitess',
    default: 'false',
    description:
      "VStream's stop_on_reshard flag: VTGate ends the stream with a JOURNAL event at a reshard; the connector then resumes on the new shards.",
  },
  {
    name: 'vitess.keepalive.interval.ms',
    type: 'long',
    group: 'vitess',
    min: 0,
    defaultNote: 'off',
    description: 'Interval of gRPC keepalive pings on the VStream channel (0 or unset = none).',
  },
  {
    name: 'vitess.grpc.headers',
    type: 'string',
    group: 'vitess',
    description: 'Extra gRPC call metadata as `name:value,name:value`.',
  },
  {
    name: 'vitess.grpc.max_inbound_message_size',
    type: 'int',
    group: 'vitess',
    default: '4194304',
    min: 1,
    description: 'Largest gRPC message accepted from VTGate, in bytes.',
  },
  {
    name: 'vitess.grpc.tls.enabled',
    type: 'boolean',
    group: 'vitess',
    default: 'false',
    description: 'Use TLS on the VTGate gRPC channel (our addition: Debezium Vitess connects in plaintext).',
  },
  {
    name: 'vitess.grpc.tls.ca',
    type: 'path',
    group: 'vitess',
    description: 'PEM file of the CA that signed the VTGate certificate (default: the system roots).',
  },
  {
    name: 'vitess.grpc.tls.cert',
    type: 'path',
    group: 'vitess',
    description: 'PEM client certificate for mutual TLS (with vitess.grpc.tls.key).',
  },
  {
    name: 'vitess.grpc.tls.key',
    type: 'path',
    group: 'vitess',
    description: 'PEM private key of vitess.grpc.tls.cert.',
  },
  {
    name: 'vitess.grpc.tls.server.name',
    type: 'string',
    group: 'vitess',
    description: 'Name expected in the VTGate certificate when it differs from database.hostname.',
  },
  {
    name: 'vitess.copy.phase.read.events',
    type: 'boolean',
    group: 'vitess',
    default: 'false',
    description:
      "Emit the rows of VStream's copy phase (snapshot.mode=initial) as op `r` with source.snapshot=true, like a MySQL snapshot. Default false: op `c`, as Debezium's Vitess connector emits them.",
  },
  {
    name: 'include.unknown.datatypes',
    type: 'boolean',
    group: 'vitess',
    default: 'false',
    description:
      'Vitess: emit columns of types without a mapping (GEOMETRY, VECTOR, ...) as bytes instead of leaving them out.',
  },
  ...[
    'vitess.offset.storage.per.task',
    'vitess.offset.storage.task.key.gen',
    'vitess.prev.num.tasks',
    'vitess.shard.epoch.map',
    'vitess.inherit.epoch',
    'vitess.connector.generation',
  ].map(
    (name): PropertyDef => ({
      name,
      type: 'string',
      group: 'unsupported',
      description: 'Debezium Vitess multi-task/ordering setting; not supported.',
      unsupported: NOT_HERE,
      harmlessValues: ['', 'false', '-1', '0'],
      ignored: 'single task: the default behaviour.',
    }),
  ),
  {
    name: 'vitess.stream.keyspace.heartbeats',
    type: 'boolean',
    group: 'unsupported',
    description: 'Debezium Vitess: stream the rows of the Vitess heartbeat table; not supported.',
    unsupported: 'remove it; heartbeats come from heartbeat.interval.ms.',
    harmlessValues: ['false'],
    ignored: 'false is the behaviour here.',
  },
  {
    name: 'vitess.exclude.keyspace.from.table.name',
    type: 'boolean',
    group: 'ignored',
    description: 'Debezium Vitess VTGate tuning; table names are handled either way.',
    ignored: 'table names with or without the keyspace are both understood.',
  },
  {
    name: 'vitess.grpc.default.load.balancing.policy',
    type: 'string',
    group: 'ignored',
    description: 'Java gRPC load balancing policy.',
    ignored: 'Java gRPC setting; one VTGate address is dialled.',
  },
];

/** The subset of the config Reader this module needs (kept structural so parse.ts owns the Reader). */
export interface VitessReader {
  str(key: string): string | null;
  isSet(key: string): boolean;
  int(key: string): number | null;
  bool(key: string): boolean;
  list(key: string): string[] | null;
  add(property: string, message: string, fix: string): void;
  missing(property: string, fix: string): void;
}

export function isVitessConnectorClass(connectorClass: string | null): boolean {
  return connectorClass !== null && /(^|\.)VitessConnector$/.test(connectorClass);
}

export function parseVitessConfig(r: VitessReader): VitessConfig {
  const keyspace = r.str('vitess.keyspace') ?? '';
  if (keyspace === '') r.missing('vitess.keyspace', 'set vitess.keyspace=<keyspace>, e.g. vitess.keyspace=commerce.');
  const tabletRaw = (r.str('vitess.tablet.type') ?? 'MASTER').toUpperCase();
  const tabletType = (TABLET_TYPES as readonly string[]).includes(tabletRaw) ? tabletRaw : 'MASTER';
  if (tabletType !== tabletRaw)
    r.add('vitess.tablet.type', `'${tabletRaw}' is not a tablet type.`, `use one of ${TABLET_TYPES.join(', ')}.`);
  const vgtid = r.str('vitess.vgtid') ?? 'current';
  if (vgtid !== 'current') {
    try {
      const doc: unknown = JSON.parse(vgtid);
      if (!Array.isArray(doc) || doc.length === 0) throw new Error('not a list');
    } catch {
      r.add(
        'vitess.vgtid',
        'is neither `current` nor a VGTID JSON list.',
        'write [{"keyspace":"<ks>","shard":"<shard>","gtid":"MySQL56/<uuid>:1-9"}] or leave it unset.',
      );
    }
  }
  const headers: Record<string, string> = {};
  for (const h of (r.str('vitess.grpc.headers') ?? '').split(',')) {
    if (h.trim() === '') continue;
    const i = h.indexOf(':');
    if (i <= 0) {
      r.add('vitess.grpc.headers', `entry '${h.trim()}' is not name:value.`, 'write headers as name:value,name:value.');
      continue;
    }
    headers[h.slice(0, i).trim().toLowerCase()] = h.slice(i + 1).trim();
  }
  const cert = r.str('vitess.grpc.tls.cert');
  const key = r.str('vitess.grpc.tls.key');
  if ((cert === null) !== (key === null))
    r.add(
      cert === null ? 'vitess.grpc.tls.cert' : 'vitess.grpc.tls.key',
      'is required with its pair (client certificate and key come together).',
      'set both vitess.grpc.tls.cert and vitess.grpc.tls.key, or neither.',
    );
  const tlsEnabled = r.bool('vitess.grpc.tls.enabled');
  for (const k of ['vitess.grpc.tls.ca', 'vitess.grpc.tls.cert', 'vitess.grpc.tls.key', 'vitess.grpc.tls.server.name'])
    if (!tlsEnabled && r.isSet(k))
      r.add(k, 'has no effect while vitess.grpc.tls.enabled=false.', 'set vitess.grpc.tls.enabled=true.');
  return {
    keyspace,
    shards: r.list('vitess.shard'),
    vgtid,
    tabletType: tabletType as VitessConfig['tabletType'],
    stopOnReshard: r.bool('vitess.stop_on_reshard'),
    keepaliveIntervalMs: r.int('vitess.keepalive.interval.ms') ?? 0,
    grpcHeaders: headers,
    maxInboundMessageSize: r.int('vitess.grpc.max_inbound_message_size') ?? 4_194_304,
    includeUnknownDatatypes: r.bool('include.unknown.datatypes'),
    copyPhaseReadEvents: r.bool('vitess.copy.phase.read.events'),
    tls: {
      enabled: tlsEnabled,
      ca: r.str('vitess.grpc.tls.ca'),
      cert,
      key,
      serverName: r.str('vitess.grpc.tls.server.name'),
    },
  };
}
