/**
 * Character sets and their default collations, as the server resolves them when DDL names a charset without a
 * collation (or a collation without a charset). `utf8` is reported as `utf8mb3` by MariaDB 10.6+ and MySQL 8.0.30+;
 * we always use the explicit name.
 */
import type { ServerFlavor } from '../server-info.js';

export type { ServerFlavor };

interface CharsetInfo {
  maxLen: number;
  defaultCollation: string;
}

const CHARSETS: Record<string, CharsetInfo> = {
  armscii8: { maxLen: 1, defaultCollation: 'armscii8_general_ci' },
  ascii: { maxLen: 1, defaultCollation: 'ascii_general_ci' },
  big5: { maxLen: 2, defaultCollation: 'big5_chinese_ci' },
  binary: { maxLen: 1, defaultCollation: 'binary' },
  cp1250: { maxLen: 1, defaultCollation: 'cp1250_general_ci' },
  cp1251: { maxLen: 1, defaultCollation: 'cp1251_general_ci' },
  cp1256: { maxLen: 1, defaultCollation: 'cp1256_general_ci' },
  cp1257: { maxLen: 1, defaultCollation: 'cp1257_general_ci' },
  cp850: { maxLen: 1, defaultCollation: 'cp850_general_ci' },
  cp852: { maxLen: 1, defaultCollation: 'cp852_general_ci' },
  cp866: { maxLen: 1, defaultCollation: 'cp866_general_ci' },
  cp932: { maxLen: 2, defaultCollation: 'cp932_japanese_ci' },
  dec8: { maxLen: 1, defaultCollation: 'dec8_swedish_ci' },
  eucjpms: { maxLen: 3, defaultCollation: 'eucjpms_japanese_ci' },
  euckr: { maxLen: 2, defaultCollation: 'euckr_korean_ci' },
  gb18030: { maxLen: 4, defaultCollation: 'gb18030_chinese_ci' },
  gb2312: { maxLen: 2, defaultCollation: 'gb2312_chinese_ci' },
  gbk: { maxLen: 2, defaultCollation: 'gbk_chinese_ci' },
  geostd8: { maxLen: 1, defaultCollation: 'geostd8_general_ci' },
  greek: { maxLen: 1, defaultCollation: 'greek_general_ci' },
  hebrew: { maxLen: 1, defaultCollation: 'hebrew_general_ci' },
  hp8: { maxLen: 1, defaultCollation: 'hp8_english_ci' },
  keybcs2: { maxLen: 1, defaultCollation: 'keybcs2_general_ci' },
  koi8r: { maxLen: 1, defaultCollation: 'koi8r_general_ci' },
  koi8u: { maxLen: 1, defaultCollation: 'koi8u_general_ci' },
  latin1: { maxLen: 1, defaultCollation: 'latin1_swedish_ci' },
  latin2: { maxLen: 1, defaultCollation: 'latin2_general_ci' },
  latin5: { maxLen: 1, defaultCollation: 'latin5_turkish_ci' },
  latin7: { maxLen: 1, defaultCollation: 'latin7_general_ci' },
  macce: { maxLen: 1, defaultCollation: 'macce_general_ci' },
  macroman: { maxLen: 1, defaultCollation: 'macroman_general_ci' },
  sjis: { maxLen: 2, defaultCollation: 'sjis_japanese_ci' },
  swe7: { maxLen: 1, defaultCollation: 'swe7_swedish_ci' },
  tis620: { maxLen: 1, defaultCollation: 'tis620_thai_ci' },
  ucs2: { maxLen: 2, defaultCollation: 'ucs2_general_ci' },
  ujis: { maxLen: 3, defaultCollation: 'ujis_japanese_ci' },
  utf16: { maxLen: 4, defaultCollation: 'utf16_general_ci' },
  utf16le: { maxLen: 4, defaultCollation: 'utf16le_general_ci' },
  utf32: { maxLen: 4, defaultCollation: 'utf32_general_ci' },
  utf8mb3: { maxLen: 3, defaultCollation: 'utf8mb3_general_ci' },
  utf8mb4: { maxLen: 4, defaultCollation: 'utf8mb4_general_ci' },
};

/** 'utf8' → 'utf8mb3'; lower-cases. */
export function normalizeCharset(name: string): string {
  const n = name.toLowerCase();
  return n === 'utf8' ? 'utf8mb3' : n;
}

/** 'utf8_bin' → 'utf8mb3_bin'; lower-cases. */
export function normalizeCollation(name: string): string {
  const n = name.toLowerCase();
  return n.startsWith('utf8_') ? `utf8mb3_${n.slice(5)}` : n;
}

export function defaultCollation(charset: string, flavor: ServerFlavor): string {
  const cs = normalizeCharset(charset);
  if (cs === 'utf8mb4' && flavor === 'mysql') return 'utf8mb4_0900_ai_ci';
  return CHARSETS[cs]?.defaultCollation ?? `${cs}_general_ci`;
}

/** Charset of a collation name; `fallback` for charset-less MariaDB 11 names like 'uca1400_ai_ci'. */
export function charsetOfCollation(collation: string, fallback: string | null = null): string | null {
  const c = normalizeCollation(collation);
  if (c === 'binary') return 'binary';
  for (const prefix of ['utf8mb4', 'utf8mb3', 'utf16le', 'utf16', 'utf32'])
    if (c.startsWith(`${prefix}_`)) return prefix;
  const head = c.split('_')[0];
  return CHARSETS[head] ? head : fallback;
}

export function charsetMaxLen(charset: string): number {
  return CHARSETS[normalizeCharset(charset)]?.maxLen ?? 4;
}
