/**
 * The output-format difference a Debezium user must not miss: Debezium Server and Kafka Connect's JsonConverter
 * write `{schema, payload}` unless told otherwise; we default to the payload only (what Kinesis/Lambda consumers
 * read). Without the schema, DECIMAL values in the default `precise` mode are base64 bytes whose scale is lost.
 * `cdc check` reports these as warnings (README, "Output format").
 */

import type { CdcConfig } from '../config/types.js';
import type { PreflightCheck } from '../source/mysql/preflight.js';

export function outputFormatChecks(config: CdcConfig): PreflightCheck[] {
  const ev = config.events;
  if (ev.valueSchemasEnable) return [];
  const checks: PreflightCheck[] = [
    {
      id: 'output-format',
      status: 'warn',
      message:
        'values are written as the payload only; Debezium Server and JsonConverter write {schema, payload} by default',
      fix: "set value.converter.schemas.enable=true (and key.converter.schemas.enable=true) for Debezium's format, or set value.converter.schemas.enable=false explicitly",
    },
  ];
  if (ev.decimalHandlingMode === 'precise') {
    checks.push({
      id: 'decimal-without-schema',
      status: 'warn',
      message:
        'decimal.handling.mode=precise without a value schema: DECIMAL/NUMERIC values are base64 bytes whose scale is only in the schema, so consumers cannot decode them',
      fix: 'set decimal.handling.mode=string (exact) or double, or value.converter.schemas.enable=true',
    });
  }
  return checks.filter((c) => c.id !== 'output-format' || !('value.converter.schemas.enable' in config.raw));
}
