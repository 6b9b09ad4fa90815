/**
 * Single message transforms as pure functions over parsed records. See docs in each module; build a chain with
 * `buildChain(config.transforms)` and apply it with `applyTransforms` (SinkRecords) or `chain.apply` (parsed).
 */
export {
  applyTransforms,
  buildChain,
  chainOf,
  type TransformChain,
  TransformError,
  type TransformStep,
} from './chain.js';
export { parseTransformsConfig, transformsFromEnv } from './config.js';
export { compileExpression, ExpressionError, type ExpressionScope } from './expression.js';
export { cloneJson, type Json, JsonParseError, jsonEqual, parseJson, stringifyJson } from './json.js';
export { OptionReader, TransformConfigError } from './options.js';
export {
  asEnvelope,
  type Envelope,
  fromRecordLine,
  fromSinkRecord,
  RecordLineError,
  type Transform,
  type TransformRecord,
  toRecordLine,
  toSinkRecord,
} from './record.js';
export { findTransformType, TRANSFORM_TYPES, type TransformType } from './registry.js';
