import { CdcError } from '../../../common/errors.js';

/** Binlog coordinates of a DDL statement, for error messages and history. */
export type DdlPosition = { file: string; pos: number; gtids?: string } | string;

export function formatPosition(position: DdlPosition | undefined): string {
  if (position === undefined) return 'unknown position';
  if (typeof position === 'string') return position;
  return `${position.file}:${position.pos}${position.gtids ? ` (gtids ${position.gtids})` : ''}`;
}

/** Shortens a statement for messages: whitespace collapsed, at most `max` characters. */
export function truncateStatement(ddl: string, max = 200): string {
  const s = ddl.replace(/\s+/g, ' ').trim();
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

/**
 * Neither the structural parser nor node-sql-parser understood a DDL statement, and
 * `schema.history.internal.skip.unparseable.ddl` is false.
 */
export class UnparseableDdlError extends CdcError {
  readonly statement: string;
  readonly position: string;
  /** Character offset in the statement where the structural parser stopped, when known. */
  readonly offset: number | null;
  constructor(ddl: string, position: DdlPosition | undefined, detail: string, offset: number | null, cause?: unknown) {
    const pos = formatPosition(position);
    super(
      'SCHEMA_UNPARSEABLE_DDL',
      `cannot parse DDL at binlog ${pos}${offset !== null ? `, offset ${offset}` : ''}: ${detail}; statement: ` +
        `${truncateStatement(ddl)}. Set schema.history.internal.skip.unparseable.ddl=true to skip it (the schema ` +
        'model may then be stale for the tables it touched), or report the statement.',
      cause === undefined ? {} : { cause },
    );
    this.statement = ddl;
    this.position = pos;
    this.offset = offset;
  }
}

/** The schema model cannot be reconciled with the server or binlog metadata. */
export class SchemaInconsistentError extends CdcError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('SCHEMA_INCONSISTENT', message, options);
  }
}
