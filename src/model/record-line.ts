import type { SinkRecord } from './sink-record.js';

/**
 * One NDJSON line for a record: `{"topic":..,"key":..,"value":..,"headers":{..}}`. Key, value and header values
 * are already JSON text, so they are spliced in as is (no parse + stringify per record). Compact serialisers never
 * emit raw newlines; text that does (pretty-printed JSON) is re-serialised so the line stays one line.
 */
export function recordLine(r: SinkRecord): string {
  let headers = '';
  if (r.headers) {
    for (const k in r.headers) headers += `${headers ? ',' : ''}${JSON.stringify(k)}:${oneLine(r.headers[k])}`;
  }
  return (
    `{"topic":${JSON.stringify(r.topic)},"key":${r.key === null ? 'null' : oneLine(r.key)},` +
    `"value":${r.value === null ? 'null' : oneLine(r.value)},"headers":{${headers}}}\n`
  );
}

function oneLine(json: string): string {
  return json.includes('\n') || json.includes('\r') ? JSON.stringify(JSON.parse(json)) : json;
}
