/**
 * The column-type matrix of streaming-types.test.ts (every MariaDB column type; row A maxima and exotic values,
 * row B minima and zero dates, row C NULLs/defaults), for the Debezium differential scenarios. Without INET4 and
 * INET6: Debezium 3.5's MariaDB DDL parser rejects them (`no viable alternative at input ... inet4`) and stops.
 */
export const TYPE_COLUMNS = `
  id INT PRIMARY KEY,
  ti TINYINT, tiu TINYINT UNSIGNED, si SMALLINT, siu SMALLINT UNSIGNED, mi MEDIUMINT, miu MEDIUMINT UNSIGNED,
  i INT, iu INT UNSIGNED, bi BIGINT, biu BIGINT UNSIGNED,
  f FLOAT, d DOUBLE, dec65 DECIMAL(65,30), dec52 DECIMAL(5,2),
  b1 BIT(1), b10 BIT(10), y YEAR, dt DATE, tm TIME(6), dt0 DATETIME, dt3 DATETIME(3), dt6 DATETIME(6),
  ts0 TIMESTAMP NULL DEFAULT NULL, ts6 TIMESTAMP(6) NULL DEFAULT NULL,
  zd DATE NULL, zdn DATE NOT NULL DEFAULT '2000-01-01', zdt DATETIME NULL,
  zdtn DATETIME NOT NULL DEFAULT '2000-01-01 00:00:00', zts TIMESTAMP NOT NULL DEFAULT '2000-01-01 00:00:00',
  c CHAR(4) CHARACTER SET utf8mb4, vc VARCHAR(20) CHARACTER SET utf8mb4, l1 VARCHAR(20) CHARACTER SET latin1,
  bn BINARY(4), vb VARBINARY(8), bl BLOB, tx TEXT,
  e ENUM('a,b','c','d''e'), st SET('x','y','z'),
  j JSON, g GEOMETRY, p POINT,
  u UUID`;

const NAMES = TYPE_COLUMNS.split('\n')
  .join(' ')
  .split(/,(?![^(]*\))/)
  .map((c) => c.trim().split(/\s+/)[0])
  .filter(Boolean);

/** Row value lists (without id). Row A: maxima and exotic values; row B: minima and zero dates; row C: NULLs. */
export const TYPE_ROW_A = `127, 255, 32767, 65535, 8388607, 16777215, 2147483647, 4294967295, 9223372036854775807, 18446744073709551615,
  1.5, -1.25e300, '-12345678901234567890123456789012345.123456789012345678901234567890', -0.01,
  b'1', b'1000000001', 2155, '2024-02-29', '-838:59:59.000000', '2024-01-02 03:04:05', '2024-01-02 03:04:05.123',
  '2024-01-02 03:04:05.123456', '2024-01-02 03:04:05', '2038-01-19 03:14:07.999999',
  '2024-01-01', '2024-01-01', '2024-01-01 10:00:00', '2024-01-01 10:00:00', '2024-01-01 10:00:00',
  'a😀', '😀 emoji ünï', 'café ÿ', x'0102', x'00ff', x'deadbeef00', 'long text ✓',
  'a,b', 'x,z', '{"a": [1, 2.5, "x"], "b": null}', ST_GeomFromText('LINESTRING(0 0,1 1)'), POINT(1.5, -2),
  '123e4567-e89b-12d3-a456-426614174000'`;
export const TYPE_ROW_B = `-128, 0, -32768, 0, -8388608, 0, -2147483648, 0, -9223372036854775808, 0,
  -3.4028234e38, 5e-324, '0.000000000000000000000000000001', -999.99,
  b'0', b'0000000000', 1901, '1000-01-01', '-12:34:56.789012', '1000-01-01 00:00:00', '9999-12-31 23:59:59.999',
  '1970-01-01 00:00:00.000001', '1970-01-01 00:00:01', '1970-01-01 00:00:01.000001',
  '0000-00-00', '0000-00-00', '0000-00-00 00:00:00', '0000-00-00 00:00:00', '0000-00-00 00:00:00',
  '', '', '', x'', x'', x'', '',
  'd''e', '', '[]', ST_GeomFromText('POINT(3 4)', 4326), POINT(0, 0),
  '00000000-0000-0000-0000-000000000000'`;
export const TYPE_ROW_C = NAMES.slice(1)
  .map((n) => (/^(zdn|zdtn|zts)$/.test(n) ? 'DEFAULT' : 'NULL'))
  .join(', ');

export const TYPE_SESSION = "SET SESSION sql_mode='', time_zone='+00:00';";
