/**
 * Credentials from AWS Secrets Manager (`database.secret.arn`), merged after validation as a separate async step
 * so `parseConfig` stays pure. The secret uses the RDS JSON layout: username, password, host, port, engine.
 */
import type { GetSecretValueCommand, GetSecretValueCommandOutput } from '@aws-sdk/client-secrets-manager';
import { ConfigError, type ConfigProblem } from '../common/config-error.js';
import { CdcError } from '../common/errors.js';
import { Secret } from '../common/secret.js';
import { deepFreeze } from './parse.js';
import type { CdcConfig } from './types.js';

/** The part of SecretsManagerClient used here; tests inject a stub. */
export interface SecretsClient {
  send(command: GetSecretValueCommand): Promise<Pick<GetSecretValueCommandOutput, 'SecretString' | 'SecretBinary'>>;
}

/** Fetching the secret failed (AWS error); retriable unless the secret is missing or access is denied. */
export class SecretResolutionError extends CdcError {
  constructor(message: string, retriable: boolean, cause: unknown) {
    super('CONFIG_INVALID', message, { retriable, cause });
  }
}

const MYSQL_ENGINES = new Set(['mysql', 'mariadb', 'aurora', 'aurora-mysql']);
const FATAL_AWS_ERRORS = new Set([
  'ResourceNotFoundException',
  'AccessDeniedException',
  'ValidationException',
  'InvalidParameterException',
  'InvalidRequestException',
  'DecryptionFailure',
]);

/**
 * Merge the database secret into `config`: username/password always come from the secret (it is the source of
 * truth once configured, e.g. after rotation); host/port only fill gaps left by `database.hostname`/`database.port`.
 * Returns `config` unchanged when no secret is configured.
 */
export async function resolveSecrets(config: CdcConfig, options: { client?: SecretsClient } = {}): Promise<CdcConfig> {
  const ref = config.database.secret;
  if (!ref || ref.resolved) return config;
  // Loaded only when a secret is configured (the SDK costs tens of ms of CPU to load).
  const { GetSecretValueCommand, SecretsManagerClient } = await import('@aws-sdk/client-secrets-manager');
  const client: SecretsClient =
    options.client ??
    new SecretsManagerClient({
      ...(ref.region ? { region: ref.region } : {}),
      ...(config.aws.endpoint ? { endpoint: config.aws.endpoint } : {}),
    });
  let out: Pick<GetSecretValueCommandOutput, 'SecretString' | 'SecretBinary'>;
  try {
    out = await client.send(new GetSecretValueCommand({ SecretId: ref.arn }));
  } catch (err) {
    const name = (err as Error).name;
    throw new SecretResolutionError(
      `Cannot read database.secret.arn ${ref.arn}: ${name}: ${(err as Error).message}. ` +
        'Check the ARN, its region (database.secret.region) and secretsmanager:GetSecretValue permission.',
      !FATAL_AWS_ERRORS.has(name),
      err,
    );
  }
  const fields = parseSecret(out);
  const problems: ConfigProblem[] = [];
  const fix = 'store the RDS layout {"username","password","host","port","engine"} in the secret.';
  if (!fields) {
    throw new ConfigError([{ property: 'database.secret.arn', message: 'secret value is not a JSON object.', fix }]);
  }
  const str = (k: string): string | null => {
    const v = fields[k];
    return typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : null;
  };
  const engine = str('engine');
  if (engine !== null && !MYSQL_ENGINES.has(engine.toLowerCase()))
    problems.push({
      property: 'database.secret.arn',
      message: `secret is for engine '${engine}', not MySQL/MariaDB.`,
      fix: 'point database.secret.arn at the MySQL/MariaDB credentials secret.',
    });
  const explicit = (key: string) => config.raw[key] !== undefined && config.raw[key].trim() !== '';
  const hostname = explicit('database.hostname') ? config.database.hostname : (str('host') ?? config.database.hostname);
  let port = config.database.port;
  const secretPort = str('port');
  if (!explicit('database.port') && secretPort !== null) {
    const n = Number(secretPort);
    if (Number.isInteger(n) && n >= 1 && n <= 65535) port = n;
    else problems.push({ property: 'database.secret.arn', message: `secret field 'port' is not a valid port.`, fix });
  }
  const user = str('username') ?? config.database.user;
  const password = typeof fields.password === 'string' ? new Secret(fields.password) : config.database.password;
  if (hostname === '')
    problems.push({
      property: 'database.hostname',
      message: 'is set neither in the configuration nor in the secret (field host).',
      fix: 'set database.hostname or add "host" to the secret.',
    });
  if (user === '')
    problems.push({
      property: 'database.user',
      message: 'is set neither in the configuration nor in the secret (field username).',
      fix: 'set database.user or add "username" to the secret.',
    });
  if (problems.length > 0) throw new ConfigError(problems);
  return deepFreeze({
    ...config,
    database: { ...config.database, hostname, port, user, password, secret: { ...ref, resolved: true } },
  });
}

function parseSecret(
  out: Pick<GetSecretValueCommandOutput, 'SecretString' | 'SecretBinary'>,
): Record<string, unknown> | null {
  const text = out.SecretString ?? (out.SecretBinary ? Buffer.from(out.SecretBinary).toString('utf8') : '');
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null; // never surface the parser message: it may quote the secret
  }
}
