import { createHash } from 'node:crypto';

/**
 * Shrink a JSON value until it fits `maxBytes` (UTF-8) by replacing its largest string values, largest first, with
 *
 *   {"__cdc_truncated": true, "original_bytes": <UTF-8 size>, "sha256": "<hex of the original string>",
 *    "prefix": "<first 64 characters>"}
 *
 * Consumers can detect the marker object, and the hash lets them verify a value fetched from the source. Numbers,
 * keys and structure are never touched, so the envelope stays valid Debezium JSON apart from the replaced fields.
 * Returns null when even replacing every string longer than the marker does not make it fit.
 */
export function truncateJson(json: string, maxBytes: number): string | null {
  return truncateJsonReport(json, maxBytes).json;
}

/** `truncateJson`, also saying which values were replaced: their path (e.g. `after.doc`) and UTF-8 size. */
export function truncateJsonReport(
  json: string,
  maxBytes: number,
): { json: string | null; replaced: { path: string; bytes: number }[] } {
  const replaced: { path: string; bytes: number }[] = [];
  if (Buffer.byteLength(json, 'utf8') <= maxBytes) return { json, replaced };
  let root: unknown;
  try {
    root = JSON.parse(json);
  } catch {
    return { json: null, replaced };
  }
  const holder: { root: unknown } = { root };
  const slots: Slot[] = [];
  collect(holder, 'root', '', slots);
  slots.sort((a, b) => b.bytes - a.bytes);
  let size = Buffer.byteLength(json, 'utf8');
  for (const slot of slots) {
    const original = (slot.parent as Record<string | number, unknown>)[slot.key] as string;
    const marker = {
      __cdc_truncated: true,
      original_bytes: slot.bytes,
      sha256: createHash('sha256').update(original, 'utf8').digest('hex'),
      prefix: original.slice(0, 64),
    };
    const before = Buffer.byteLength(JSON.stringify(original), 'utf8');
    const after = Buffer.byteLength(JSON.stringify(marker), 'utf8');
    if (after >= before) break; // the rest are smaller still: replacing them only grows the document
    (slot.parent as Record<string | number, unknown>)[slot.key] = marker;
    replaced.push({ path: slot.path, bytes: slot.bytes });
    size -= before - after;
    if (size <= maxBytes) break;
  }
  const out = JSON.stringify(holder.root);
  return { json: Buffer.byteLength(out, 'utf8') <= maxBytes ? out : null, replaced };
}

interface Slot {
  parent: Record<string, unknown> | unknown[];
  key: string | number;
  path: string;
  bytes: number;
}

function collect(parent: Record<string, unknown> | unknown[], key: string | number, path: string, out: Slot[]): void {
  const v = (parent as Record<string | number, unknown>)[key];
  if (typeof v === 'string') {
    out.push({ parent, key, path, bytes: Buffer.byteLength(v, 'utf8') });
  } else if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) collect(v, i, `${path}[${i}]`, out);
  } else if (v !== null && typeof v === 'object') {
    for (const k of Object.keys(v)) collect(v as Record<string, unknown>, k, path ? `${path}.${k}` : k, out);
  }
}
