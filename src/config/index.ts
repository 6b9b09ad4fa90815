/** Public surface of the configuration module. */
export { ConfigError, type ConfigProblem, formatProblems } from './config-error.js';
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
export { REDACTED, Secret } from './secret.js';
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
export { matchesAny } from './values.js';
