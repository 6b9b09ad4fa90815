/** Public surface of the configuration module. */
export { ConfigError, type ConfigProblem, formatProblems } from '../common/config-error.js';
export { matchesAny } from '../common/config-values.js';
export { REDACTED, Secret } from '../common/secret.js';
export { describeProperty, renderConfigDocs } from './docs.js';
export { collectRaw, type LoadOptions, loadConfig, loadConfigWithSecrets } from './load.js';
export { checkConfig, parseConfig } from './parse.js';
export {
  findProperty,
  GROUPS,
  type GroupId,
  isSecretKey,
  PROPERTIES,
  type PropertyDef,
  type PropertyType,
} from './properties.js';
export { redactConfig } from './redact.js';
export { resolveSecrets, SecretResolutionError, type SecretsClient } from './secrets.js';
export {
  envName,
  envToConfig,
  expandReferences,
  fromDebeziumServer,
  isDebeziumServerConfig,
  parseJsonConfig,
  parseOverrides,
  parseProperties,
  readConfigFile,
} from './sources.js';
export type * from './types.js';
