/**
 * Structured logging: JSON lines on stderr in production, readable lines on a TTY. Never pass row values or
 * credentials in `fields`; `redact` drops anything that looks like a secret as a second line of defence.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
// A lease's fencing token is a public counter, not a credential: logged, it tells which task held the lease when.
const SECRET_KEY = /pass(word)?|secret|(?<!fencing)token|credential/i;

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

export interface LoggerOptions {
  level?: LogLevel;
  /** 'json' for machines, 'pretty' for people; default: pretty on a TTY, json otherwise. */
  format?: 'json' | 'pretty';
  stream?: NodeJS.WritableStream;
  base?: Record<string, unknown>;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const stream = options.stream ?? process.stderr;
  const level = options.level ?? ((process.env.CDC_LOG_LEVEL as LogLevel | undefined) || 'info');
  const format = options.format ?? ((stream as { isTTY?: boolean }).isTTY ? 'pretty' : 'json');
  const min = ORDER[level] ?? ORDER.info;
  const base = options.base ?? {};
  const write = (lvl: LogLevel, msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[lvl] < min) return;
    const all = redact({ ...base, ...fields });
    if (format === 'json') {
      stream.write(`${JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...all }, jsonSafe)}\n`);
    } else {
      const extra = Object.entries(all)
        .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v, jsonSafe)}`)
        .join(' ');
      stream.write(
        `${new Date().toISOString().slice(11, 23)} ${lvl.toUpperCase().padEnd(5)} ${msg}${extra ? ` ${extra}` : ''}\n`,
      );
    }
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
    child: (f) => createLogger({ ...options, level, format, stream, base: { ...base, ...f } }),
  };
}

export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child() {
    return silentLogger;
  },
};

function redact(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) out[k] = SECRET_KEY.test(k) ? '***' : v;
  return out;
}

function jsonSafe(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Error)
    return { name: value.name, message: value.message, code: (value as { code?: unknown }).code };
  return value;
}
