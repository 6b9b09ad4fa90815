/** Transform types by Debezium/Kafka class name and short name. */
import { extractChangedRecordState } from './extract-changed-record-state.js';
import { extractNewRecordState } from './extract-new-record-state.js';
import { filter } from './filter.js';
import { headerToValue } from './header-to-value.js';
import type { OptionReader } from './options.js';
import { readToInsert } from './read-to-insert.js';
import type { Transform } from './record.js';
import { byLogicalTableRouter, regexRouter, tombstoneRouter } from './routers.js';
import { timezoneConverter } from './timezone-converter.js';

export interface TransformType {
  /** Display name (Debezium class simple name). */
  readonly name: string;
  /** Accepted `transforms.<name>.type` values (class names and short names). */
  readonly aliases: readonly string[];
  readonly create: (options: OptionReader) => Transform;
}

export const TRANSFORM_TYPES: readonly TransformType[] = [
  {
    name: 'ExtractNewRecordState',
    aliases: ['io.debezium.transforms.ExtractNewRecordState', 'unwrap', 'extract-new-record-state'],
    create: extractNewRecordState,
  },
  {
    name: 'ReadToInsertEvent',
    aliases: [
      'io.debezium.connector.mysql.transforms.ReadToInsertEvent',
      'io.debezium.transforms.ReadToInsertEvent',
      'read-to-insert',
    ],
    create: readToInsert,
  },
  {
    name: 'ByLogicalTableRouter',
    aliases: ['io.debezium.transforms.ByLogicalTableRouter', 'router', 'by-logical-table-router'],
    create: byLogicalTableRouter,
  },
  {
    name: 'RegexRouter',
    aliases: ['org.apache.kafka.connect.transforms.RegexRouter', 'regex-router'],
    create: regexRouter,
  },
  { name: 'Filter', aliases: ['io.debezium.transforms.Filter', 'filter'], create: filter },
  { name: 'TombstoneRouter', aliases: ['tombstone-router'], create: tombstoneRouter },
  {
    name: 'HeaderToValue',
    aliases: ['io.debezium.transforms.HeaderToValue', 'header-to-value'],
    create: headerToValue,
  },
  {
    name: 'TimezoneConverter',
    aliases: ['io.debezium.transforms.TimezoneConverter', 'timezone-converter'],
    create: timezoneConverter,
  },
  {
    name: 'ExtractChangedRecordState',
    aliases: ['io.debezium.transforms.ExtractChangedRecordState', 'changes', 'extract-changed-record-state'],
    create: extractChangedRecordState,
  },
];

const BY_ALIAS = new Map(TRANSFORM_TYPES.flatMap((t) => t.aliases.map((a) => [a.toLowerCase(), t] as const)));

export function findTransformType(type: string): TransformType | undefined {
  return BY_ALIAS.get(type.trim().toLowerCase());
}

export function transformTypeNames(): string[] {
  return TRANSFORM_TYPES.flatMap((t) => t.aliases);
}
