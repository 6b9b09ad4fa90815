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
