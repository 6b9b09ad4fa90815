/** QUERY_EVENT (and MariaDB QUERY_COMPRESSED_EVENT) with its status variables. */
import type { ByteReader } from './byte-reader.js';
import { BINARY_COLLATION, charsetOfCollation, type StringDecoderFn, stringDecoderFor } from './charsets.js';
import type { EventHeader, QueryEvent, QueryStatusVars } from './events.js';
import { mariadbUncompress } from './mariadb-compression.js';

/** Status variable codes (sql/log_event.h; 128+ are MariaDB's). */
const Q = {
  FLAGS2: 0,
  SQL_MODE: 1,
  CATALOG: 2,
  AUTO_INCREMENT: 3,
  CHARSET: 4,
  TIME_ZONE: 5,
  CATALOG_NZ: 6,
  LC_TIME_NAMES: 7,
  CHARSET_DATABASE: 8,
  TABLE_MAP_FOR_UPDATE: 9,
  MASTER_DATA_WRITTEN: 10,
  INVOKER: 11,
  UPDATED_DB_NAMES: 12,
  MICROSECONDS: 13,
  COMMIT_TS: 14,
  COMMIT_TS2: 15,
  EXPLICIT_DEFAULTS_FOR_TIMESTAMP: 16,
  DDL_LOGGED_WITH_XID: 17,
  DEFAULT_COLLATION_FOR_UTF8MB4: 18,
  SQL_REQUIRE_PRIMARY_KEY: 19,
  DEFAULT_TABLE_ENCRYPTION: 20,
  MARIADB_HRNOW: 128,
  MARIADB_XID: 129,
} as const;

/** Parses status variables in [r.pos, end); stops at the first unknown code (its size is unknowable). */
function readStatusVars(r: ByteReader, end: number): QueryStatusVars {
  const v: QueryStatusVars = {};
  const str8 = () => r.utf8(r.u8());
  while (r.pos < end) {
    const code = r.u8();
    switch (code) {
      case Q.FLAGS2:
        v.flags2 = r.u32();
        break;
      case Q.SQL_MODE:
        v.sqlMode = r.u64();
        break;
      case Q.CATALOG:
        v.catalog = str8();
        r.skip(1);
        break;
      case Q.AUTO_INCREMENT:
        v.autoIncrementIncrement = r.u16();
        v.autoIncrementOffset = r.u16();
        break;
      case Q.CHARSET:
        v.charset = { client: r.u16(), connection: r.u16(), server: r.u16() };
        break;
      case Q.TIME_ZONE:
        v.timeZone = str8();
        break;
      case Q.CATALOG_NZ:
        v.catalog = str8();
        break;
      case Q.LC_TIME_NAMES:
        v.lcTimeNames = r.u16();
        break;
      case Q.CHARSET_DATABASE:
        v.charsetDatabase = r.u16();
        break;
      case Q.TABLE_MAP_FOR_UPDATE:
        v.tableMapForUpdate = r.u64();
        break;
      case Q.MASTER_DATA_WRITTEN:
        r.skip(4);
        break;
      case Q.INVOKER: {
        const user = str8();
        v.invoker = { user, host: str8() };
        break;
      }
      case Q.UPDATED_DB_NAMES: {
        const n = r.u8();
        const names: string[] = [];
        // 254 = OVER_MAX_DBS_IN_EVENT_MTS: too many databases, none listed.
        if (n !== 254) for (let i = 0; i < n && r.pos < end; i++) names.push(r.cstring());
        v.updatedDbNames = names;
        break;
      }
      case Q.MICROSECONDS:
      case Q.MARIADB_HRNOW:
        v.microseconds = r.u24();
        break;
      case Q.COMMIT_TS:
      case Q.COMMIT_TS2:
        // Never written by released servers; their size is unknown, so stop here.
        r.pos = end;
        break;
      case Q.EXPLICIT_DEFAULTS_FOR_TIMESTAMP:
        v.explicitDefaultsForTimestamp = r.u8() !== 0;
        break;
      case Q.DDL_LOGGED_WITH_XID:
        v.ddlXid = r.u64();
        break;
      case Q.DEFAULT_COLLATION_FOR_UTF8MB4:
        v.defaultCollationForUtf8mb4 = r.u16();
        break;
      case Q.SQL_REQUIRE_PRIMARY_KEY:
        v.sqlRequirePrimaryKey = r.u8();
        break;
      case Q.DEFAULT_TABLE_ENCRYPTION:
        v.defaultTableEncryption = r.u8();
        break;
      case Q.MARIADB_XID:
        v.xid = r.u64();
        break;
      default:
        r.pos = end;
    }
  }
  return v;
}

const latin1: StringDecoderFn = (b, s, e) => b.toString('latin1', s, e);

/**
 * The statement text is logged as the client sent it, in character_set_client (Q_CHARSET_CODE's first id):
 * utf8/utf8mb3/utf8mb4 → UTF-8, latin1 → cp1252 (MySQL's latin1), other known charsets through their decoder,
 * binary → latin1 (byte-preserving: each byte becomes the code point of the same value). UTF-8 when the status
 * variable is absent (old servers) or the collation id is unknown.
 */
export function queryTextDecoder(clientCollation: number | undefined): StringDecoderFn {
  if (clientCollation === undefined) return (b, s, e) => b.toString('utf8', s, e);
  if (clientCollation === BINARY_COLLATION) return latin1;
  return stringDecoderFor(charsetOfCollation(clientCollation)) ?? latin1;
}

export function decodeQuery(
  r: ByteReader,
  header: EventHeader,
  postHeaderLength: number,
  compressed: boolean,
): QueryEvent {
  const start = r.pos;
  r.need(11, 'QUERY post-header');
  const threadId = r.u32();
  const executionTime = r.u32();
  const dbLen = r.u8();
  const errorCode = r.u16();
  let statusLen = 0;
  if (postHeaderLength >= 13) statusLen = r.u16();
  r.pos = start + postHeaderLength;
  r.need(statusLen + dbLen + 1, 'QUERY status variables and database');
  const statusEnd = r.pos + statusLen;
  const statusVars = readStatusVars(r, statusEnd);
  r.pos = statusEnd;
  // The default database stays UTF-8: the server keeps identifiers (thd->db()) in its system charset
  // (utf8mb3), converting them from character_set_client when parsing, so it is not in the client charset.
  const database = r.utf8(dbLen);
  r.skip(1);
  const text = compressed ? mariadbUncompress(r.rest(), r.eventPosition) : r.rest();
  const decode = queryTextDecoder(statusVars.charset?.client);
  return {
    type: 'QUERY',
    header,
    threadId,
    executionTime,
    errorCode,
    database,
    query: decode(text, 0, text.length),
    statusVars,
    compressed,
  };
}
