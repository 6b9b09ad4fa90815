/**
 * Event options, named and defaulted like the Debezium MySQL connector properties they mirror
 * (`decimal.handling.mode` → decimalHandlingMode, ...). Plain data; the config module maps properties onto it.
 */
export type DecimalHandlingMode = 'precise' | 'double' | 'string';
/** 'adaptive' is Debezium's legacy mode: TIME(0-3) → io.debezium.time.Time (ms), TIME(4-6) → MicroTime. */
export type TimePrecisionMode = 'adaptive_time_microseconds' | 'adaptive' | 'connect' | 'isostring';
export type BigintUnsignedHandlingMode = 'long' | 'precise';
export type BinaryHandlingMode = 'bytes' | 'base64' | 'base64-url-safe' | 'hex';
/** skipped.operations codes: c(reate), u(pdate), d(elete), t(runcate). */
export type SkippableOperation = 'c' | 'u' | 'd' | 't';
export type SchemaNameAdjustmentMode = 'none' | 'avro';

export interface ColumnRule {
  /** Compiled patterns over `db.table.column`, matched case-insensitively against the whole name. */
  columns: RegExp[];
}

export interface EventOptions {
  /** topic.prefix: logical server name; first segment of topics and schema names, `source.name`. */
  topicPrefix: string;
  /** `source.connector`: 'mysql' (default) or 'mariadb'. */
  connectorName?: 'mysql' | 'mariadb';
  /** `source.version` (the Debezium version string consumers see). */
  sourceVersion?: string;
  decimalHandlingMode?: DecimalHandlingMode;
  timePrecisionMode?: TimePrecisionMode;
  bigintUnsignedHandlingMode?: BigintUnsignedHandlingMode;
  binaryHandlingMode?: BinaryHandlingMode;
  /** enable.time.adjuster (default true): two-digit years 00-69 → 20xx, 70-99 → 19xx. */
  enableTimeAdjuster?: boolean;
  /** Kafka Connect JsonConverter `schemas.enable`: emit `{schema, payload}`; default false (payload only). */
  schemasEnable?: boolean;
  /** tombstones.on.delete (default true). */
  tombstonesOnDelete?: boolean;
  /** skipped.operations (default ['t'] like Debezium). */
  skippedOperations?: SkippableOperation[];
  /** Emit the `transaction` block / BEGIN-END records (provide.transaction.metadata); see transaction.ts. */
  provideTransactionMetadata?: boolean;
  /** TinyIntOneToBooleanConverter: TINYINT(1) columns become BOOLEAN. Default false (int8, like Debezium). */
  tinyIntOneToBoolean?: boolean;
  /** unavailable.value.placeholder for BLOB/TEXT columns missing from a NOBLOB row image. */
  unavailableValuePlaceholder?: string;
  /** schema.name.adjustment.mode (default 'none'). */
  schemaNameAdjustmentMode?: SchemaNameAdjustmentMode;
  /** column.include.list / column.exclude.list (mutually exclusive in Debezium). */
  columnIncludeList?: RegExp[];
  columnExcludeList?: RegExp[];
  /** column.truncate.to.N.chars. */
  columnTruncate?: Array<ColumnRule & { length: number }>;
  /** column.mask.with.N.chars. */
  columnMaskWithChars?: Array<ColumnRule & { length: number }>;
  /** column.mask.hash.<alg>.with.salt.<salt> (hashing 'v1', Java-serialised) and column.mask.hash.v2... ('v2'). */
  columnMaskHash?: Array<ColumnRule & { algorithm: string; salt: string; version?: 'v1' | 'v2' }>;
  /** column.propagate.source.type. */
  columnPropagateSourceType?: RegExp[];
  /** datatype.propagate.source.type, over `db.table.TYPENAME`... matched against the upper-case type name. */
  datatypePropagateSourceType?: RegExp[];
  /** message.key.columns, parsed (see parseMessageKeyColumns). */
  messageKeyColumns?: Array<{ table: RegExp; columns: string[] }>;
  /** Wall clock in epoch microseconds for envelope ts_*; injectable for tests. */
  clockMicros?: () => number;
}

export type ResolvedOptions = Required<
  Omit<
    EventOptions,
    | 'columnIncludeList'
    | 'columnExcludeList'
    | 'columnTruncate'
    | 'columnMaskWithChars'
    | 'columnMaskHash'
    | 'columnPropagateSourceType'
    | 'datatypePropagateSourceType'
    | 'messageKeyColumns'
  >
> &
  Pick<
    EventOptions,
    | 'columnIncludeList'
    | 'columnExcludeList'
    | 'columnTruncate'
    | 'columnMaskWithChars'
    | 'columnMaskHash'
    | 'columnPropagateSourceType'
    | 'datatypePropagateSourceType'
    | 'messageKeyColumns'
  >;

export const DEFAULT_SOURCE_VERSION = '3.0.0.Final';
export const DEFAULT_UNAVAILABLE_VALUE_PLACEHOLDER = '__debezium_unavailable_value';

const timeOrigin = performance.timeOrigin;
/** The last reading of the clock, reused by the records built right after it (see wallClockMicros). */
let lastMicros = -1;
let lastUses = 0;
let resetQueued = false;
const CLOCK_REUSES = 64;
function resetClock(): void {
  lastMicros = -1;
  resetQueued = false;
}

/**
 * The wall clock in microseconds (the envelope's ts_ms/ts_us/ts_ns: when the connector processed the change). The
 * rows of one rows event are built in one synchronous run, microseconds apart: they share one reading, for at most
 * CLOCK_REUSES records and never past the current microtask, so the time stays as precise as the processing and each
 * row does not pay for a clock call and a fresh number-to-text conversion.
 */
export function wallClockMicros(): number {
  if (lastMicros >= 0 && lastUses < CLOCK_REUSES) {
    lastUses++;
    return lastMicros;
  }
  lastMicros = Math.floor((timeOrigin + performance.now()) * 1000);
  lastUses = 1;
  if (!resetQueued) {
    resetQueued = true;
    queueMicrotask(resetClock);
  }
  return lastMicros;
}

export function resolveOptions(o: EventOptions): ResolvedOptions {
  return {
    ...o,
    topicPrefix: o.topicPrefix,
    connectorName: o.connectorName ?? 'mysql',
    sourceVersion: o.sourceVersion ?? DEFAULT_SOURCE_VERSION,
    decimalHandlingMode: o.decimalHandlingMode ?? 'precise',
    timePrecisionMode: o.timePrecisionMode ?? 'adaptive_time_microseconds',
    bigintUnsignedHandlingMode: o.bigintUnsignedHandlingMode ?? 'long',
    binaryHandlingMode: o.binaryHandlingMode ?? 'bytes',
    enableTimeAdjuster: o.enableTimeAdjuster ?? true,
    schemasEnable: o.schemasEnable ?? false,
    tombstonesOnDelete: o.tombstonesOnDelete ?? true,
    skippedOperations: o.skippedOperations ?? ['t'],
    provideTransactionMetadata: o.provideTransactionMetadata ?? false,
    tinyIntOneToBoolean: o.tinyIntOneToBoolean ?? false,
    unavailableValuePlaceholder: o.unavailableValuePlaceholder ?? DEFAULT_UNAVAILABLE_VALUE_PLACEHOLDER,
    schemaNameAdjustmentMode: o.schemaNameAdjustmentMode ?? 'none',
    clockMicros: o.clockMicros ?? wallClockMicros,
  };
}
