/** Parsed JSON ↔ DynamoDB attribute values (numbers keep their exact digits, big integers included). */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { Json } from '../../src/transforms/json.js';

export function toAttribute(v: Json | undefined): AttributeValue {
  if (v === null || v === undefined) return { NULL: true };
  switch (typeof v) {
    case 'string':
      return { S: v };
    case 'number':
      return Number.isFinite(v) ? { N: String(v) } : { NULL: true };
    case 'bigint':
      return { N: v.toString() };
    case 'boolean':
      return { BOOL: v };
    default:
      if (Array.isArray(v)) return { L: v.map(toAttribute) };
      return { M: toItem(v) };
  }
}

export function toItem(row: { [k: string]: Json }): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const [k, v] of Object.entries(row)) out[k] = toAttribute(v);
  return out;
}

export function fromAttribute(a: AttributeValue): Json {
  if (a.S !== undefined) return a.S;
  if (a.N !== undefined) {
    const n = Number(a.N);
    return Number.isSafeInteger(n) || !/^-?\d+$/.test(a.N) ? n : BigInt(a.N);
  }
  if (a.BOOL !== undefined) return a.BOOL;
  if (a.L !== undefined) return a.L.map(fromAttribute);
  if (a.M !== undefined) return fromItem(a.M);
  return null;
}

export function fromItem(item: Record<string, AttributeValue>): { [k: string]: Json } {
  const out: { [k: string]: Json } = {};
  for (const [k, v] of Object.entries(item)) out[k] = fromAttribute(v);
  return out;
}

/** DynamoDB's item size limit: 400 KB, attribute names and values counted. */
export const MAX_ITEM_BYTES = 400 * 1024;

const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');

/**
 * An item's size as DynamoDB counts it against MAX_ITEM_BYTES: attribute names and string values in UTF-8 bytes,
 * a number about one byte per two significant digits plus one, null and booleans one byte, lists and maps three
 * bytes plus one per element (and their names).
 */
export function itemBytes(item: Record<string, AttributeValue>): number {
  let n = 0;
  for (const [name, v] of Object.entries(item)) n += utf8(name) + attributeBytes(v);
  return n;
}

function attributeBytes(a: AttributeValue): number {
  if (a.S !== undefined) return utf8(a.S);
  if (a.N !== undefined) return numberBytes(a.N);
  if (a.B !== undefined) return a.B.length;
  if (a.L !== undefined) return 3 + a.L.reduce((n, e) => n + 1 + attributeBytes(e), 0);
  if (a.M !== undefined) return 3 + Object.entries(a.M).reduce((n, [k, e]) => n + utf8(k) + 1 + attributeBytes(e), 0);
  if (a.SS !== undefined) return a.SS.reduce((n, s) => n + utf8(s), 0);
  if (a.NS !== undefined) return a.NS.reduce((n, s) => n + numberBytes(s), 0);
  if (a.BS !== undefined) return a.BS.reduce((n, b) => n + b.length, 0);
  return 1;
}

function numberBytes(text: string): number {
  const digits = text.replace(/^-/, '').replace('.', '').replace(/e.*$/i, '').replace(/^0+/, '').replace(/0+$/, '');
  return Math.ceil(Math.max(1, digits.length) / 2) + 1;
}
