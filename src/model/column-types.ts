/**
 * Families of MySQL column types by their information_schema DATA_TYPE (lower case), listed once for the schema
 * model, the snapshot reader and the TABLE_MAP check. MySQL 8 names the collection type `geomcollection`, MariaDB
 * and older MySQL `geometrycollection`.
 */
export const GEOMETRY_TYPES: ReadonlySet<string> = new Set([
  'geometry',
  'point',
  'linestring',
  'polygon',
  'multipoint',
  'multilinestring',
  'multipolygon',
  'geometrycollection',
  'geomcollection',
]);

export const BLOB_TYPES: ReadonlySet<string> = new Set(['tinyblob', 'blob', 'mediumblob', 'longblob']);

export const TEXT_TYPES: ReadonlySet<string> = new Set(['tinytext', 'text', 'mediumtext', 'longtext']);
