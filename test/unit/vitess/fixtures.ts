/** Event options of the Vitess unit tests: Debezium's defaults, schemas off, a fixed clock. */
export const vitessEventOptions = {
  topicPrefix: 'vt',
  topicDelimiter: '.',
  sourceVersion: '3.0.0.Final',
  schemasEnable: false,
  tombstonesOnDelete: true,
  skippedOperations: new Set<string>(),
  schemaNameAdjustmentMode: 'none' as const,
  timePrecisionMode: 'adaptive_time_microseconds' as const,
  bigintUnsignedHandlingMode: 'string' as 'string' | 'long' | 'precise',
  binaryHandlingMode: 'bytes' as const,
  includeUnknownDatatypes: false,
  clockMicros: () => 1_700_000_000_000_000,
};
