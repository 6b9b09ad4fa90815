/** Environment parsing shared by the Lambda adapters, with actionable messages. */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { CONNECTOR_DIMENSION, METRICS_NAMESPACE } from '../../src/metrics/names.js';

export class LambdaConfigError extends Error {
  override name = 'LambdaConfigError';
}

type Env = Readonly<Record<string, string | undefined>>;

export function envInt(env: Env, name: string, fallback: number, min = 1): number {
  const v = env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min)
    throw new LambdaConfigError(`${name}=${v} is not an integer >= ${min}; fix or unset it.`);
  return n;
}

export function envEnum<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const v = env[name];
  if (v === undefined || v === '') return fallback;
  if ((allowed as readonly string[]).includes(v)) return v as T;
  throw new LambdaConfigError(`${name}=${v} is not one of ${allowed.join(', ')}.`);
}

export function envBool(env: Env, name: string, fallback: boolean): boolean {
  const v = env[name];
  if (v === undefined || v === '') return fallback;
  if (/^(true|1)$/i.test(v)) return true;
  if (/^(false|0)$/i.test(v)) return false;
  throw new LambdaConfigError(`${name}=${v} is not true or false.`);
}

/**
 * SDK client settings: region from AWS_REGION; `CDC_AWS_ENDPOINT` points every client at a local stand-in
 * (kinesalite/dynalite/localstack), which also needs the HTTP/1.1 handler.
 */
export function clientConfig(env: Env): { region?: string; endpoint?: string; requestHandler?: NodeHttpHandler } {
  const out: { region?: string; endpoint?: string; requestHandler?: NodeHttpHandler } = {};
  if (env.AWS_REGION) out.region = env.AWS_REGION;
  if (env.CDC_AWS_ENDPOINT) {
    out.endpoint = env.CDC_AWS_ENDPOINT;
    out.requestHandler = new NodeHttpHandler();
  }
  return out;
}

/** A consumer's logger: `CDC_CONNECTOR_NAME` (set by CdcPipeline) is on every line as `connector`. */
export function consumerLogger(env: Env, serviceName: string): Logger {
  const connector = env.CDC_CONNECTOR_NAME;
  return new Logger({ serviceName, ...(connector ? { persistentKeys: { connector } } : {}) });
}

/**
 * A consumer's metrics: the task's namespace, and `CDC_CONNECTOR_NAME` as the `Connector` dimension beside
 * Powertools' `service`, so one pipeline's consumer can be selected (the CDK alarms and dashboard do).
 */
export function consumerMetrics(env: Env, serviceName: string): Metrics {
  const connector = env.CDC_CONNECTOR_NAME;
  return new Metrics({
    namespace: METRICS_NAMESPACE,
    serviceName,
    ...(connector ? { defaultDimensions: { [CONNECTOR_DIMENSION]: connector } } : {}),
  });
}
