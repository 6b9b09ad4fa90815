export type { ColumnDef, DatabaseDef, TableDef } from '../../../model/table-def.js';
export { tableId } from '../../../model/table-def.js';
export { readServerInfo, type ServerInfo, type SqlQueryable } from '../server-info.js';
export { charsetOfCollation, defaultCollation, type ServerFlavor } from './charsets.js';
export { buildColumn, resolveType } from './column-definition.js';
export type { AlterSpec, ColumnSpec, DdlStatement, KeySpec, QualifiedName, TypeSpec } from './ddl-ast.js';
export { DdlSyntaxError, parseDdl } from './ddl-parser.js';
export { type DdlPosition, SchemaInconsistentError, UnparseableDdlError } from './errors.js';
export { parseWithNodeSqlParser } from './fallback-parser.js';
export {
  columnFromInformationSchema,
  type LoadedSchema,
  type LoadSchemaOptions,
  loadSchema,
  parseEnumValues,
  prepareSchemaSession,
  schemaSessionStatements,
  seedTracker,
  trackerOptionsFor,
} from './schema-loader.js';
export {
  type AppliedDdl,
  type ApplyContext,
  type SchemaSnapshot,
  SchemaTracker,
  type SchemaTrackerOptions,
  type TableChange,
} from './schema-tracker.js';
export {
  checkTableMap,
  expectedTypeCodes,
  type TableMapInfo,
  type TableMapMismatch,
  type TableMapMismatchKind,
} from './table-map-check.js';
export { splitStatements, tokenize } from './tokenizer.js';
