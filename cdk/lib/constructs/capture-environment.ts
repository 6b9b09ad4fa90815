/**
 * Connector properties → the capture container's `CDC_*` environment, named by the config catalog's own rule
 * (`envName` in src/config/sources.ts) and read back through the loader's own mapping (`envToConfig`), so a
 * name the task would reject or misread fails the synth instead of the task's start.
 */
import { findProperty } from '../../../src/config/properties.js';
import { envName, envToConfig } from '../../../src/config/sources.js';

export function captureEnvironment(properties: Readonly<Record<string, string>>): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const [key, value] of Object.entries(properties)) {
    if (!findProperty(key))
      throw new Error(
        `CdcPipeline: properties['${key}'] is not a connector property; fix the name (see docs/configuration.md) or remove it`,
      );
    environment[envName(key)] = value;
  }
  const { values, problems } = envToConfig(environment);
  if (problems.length > 0)
    throw new Error(`CdcPipeline: ${problems.map((p) => `${p.property} ${p.message} Fix: ${p.fix}`).join('; ')}`);
  for (const key of Object.keys(properties))
    if (values[key] !== properties[key])
      throw new Error(
        `CdcPipeline: properties['${key}'] cannot travel as an environment variable (${envName(key)} reads back as another property); set it in a config file instead`,
      );
  return environment;
}
