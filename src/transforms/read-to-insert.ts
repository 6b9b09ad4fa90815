/**
 * ReadToInsertEvent (`io.debezium.connector.mysql.transforms.ReadToInsertEvent`): snapshot reads (`op: "r"`) become
 * inserts (`op: "c"`), so consumers see one kind of creation. Everything else passes through unchanged.
 */
import type { OptionReader } from './options.js';
import { asEnvelope, type Transform } from './record.js';

export function readToInsert(_o: OptionReader): Transform {
  return (r) => {
    const env = asEnvelope(r.value);
    if (env?.op !== 'r') return [r];
    return [{ ...r, value: { ...env, op: 'c' } }];
  };
}
