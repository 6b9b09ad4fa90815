/**
 * Metrics of a running capture: Embedded Metric Format lines every `emfIntervalMs` (CloudWatch, no API calls)
 * and/or a local HTTP endpoint with `/metrics` (Prometheus text) and `/health` (200/503 JSON).
 */
import type * as Http from 'node:http';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { errorMessage } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import type { CdcConfig } from '../config/types.js';
import { HEALTHY_DELIVERY } from '../sinks/delivery-status.js';
import { MetricsCollector, type MetricsSource, type MetricsTask } from './collector.js';
import { emfLine } from './emf.js';
import { HealthMonitor, type HealthOptions } from './health.js';
import { toPrometheus } from './prometheus.js';

export * from './collector.js';
export * from './emf.js';
export * from './health.js';
export * from './names.js';
export * from './prometheus.js';

/** Default EMF period: CloudWatch's standard resolution. */
export const DEFAULT_EMF_INTERVAL_MS = 60_000;

export interface StartMetricsOptions {
  config: Pick<CdcConfig, 'name' | 'metrics'>;
  source: MetricsSource;
  task: MetricsTask;
  logger: Logger;
  /** Where EMF lines go (the container's stdout in ECS). */
  stdout: NodeJS.WritableStream;
  /** @default 60000 */
  emfIntervalMs?: number;
  /** Override `config.metrics.httpPort` (0 = any free port, for tests). */
  httpPort?: number | null;
  /** @default '0.0.0.0' */
  httpHost?: string;
  health?: HealthOptions;
  now?: () => number;
}

export interface MetricsHandle {
  /** Resolves once the HTTP endpoint listens (null when it is off). */
  readonly http: Promise<AddressInfo | null>;
  /** Write one EMF line now (also done on every interval and on stop). */
  flush(): void;
  /** Stops the timer and the server, after writing a final EMF line. */
  stop(): Promise<void>;
}

/** Starts what `config.metrics` asks for; with both off it returns a handle that does nothing. */
export function startMetrics(opts: StartMetricsOptions): MetricsHandle {
  const { config, logger } = opts;
  const collector = new MetricsCollector(opts.source, opts.task, opts.now);
  const health = new HealthMonitor(opts.source, opts.health, opts.now, () =>
    opts.task.deliveryStatus ? opts.task.deliveryStatus() : HEALTHY_DELIVERY,
  );
  const emf = config.metrics.emfEnabled;
  const port = opts.httpPort !== undefined ? opts.httpPort : config.metrics.httpPort;

  const flush = () => {
    if (!emf) return;
    try {
      opts.stdout.write(emfLine(collector.sample(), config.name));
    } catch (err) {
      logger.warn('cannot write EMF metrics', { error: errorMessage(err) });
    }
  };
  const timer = emf ? setInterval(flush, opts.emfIntervalMs ?? DEFAULT_EMF_INTERVAL_MS) : null;
  timer?.unref();

  let server: Server | null = null;
  const http =
    port === null || port === undefined
      ? Promise.resolve(null)
      : new Promise<AddressInfo | null>((resolve) => {
          // Required, not imported: an ESM import of node:http builds its export facade, which reads its lazy
          // undici exports (WebSocket, ...) and loads undici and http2, ~45 ms CPU at every start, port or not.
          const { createServer } = createRequire(import.meta.url)('node:http') as typeof Http;
          server = createServer((req, res) => {
            const path = (req.url ?? '/').split('?')[0];
            if (req.method !== 'GET' && req.method !== 'HEAD') {
              res.writeHead(405, { allow: 'GET, HEAD' }).end();
            } else if (path === '/metrics') {
              res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
              res.end(toPrometheus(collector.sample(), config.name));
            } else if (path === '/health') {
              health.check().then(
                (s) =>
                  res.writeHead(s.healthy ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify(s)),
                (err) => res.writeHead(503).end(JSON.stringify({ healthy: false, reason: errorMessage(err) })),
              );
            } else {
              res.writeHead(404).end();
            }
          });
          server.on('error', (err) => {
            logger.error('metrics HTTP endpoint failed', { port, error: errorMessage(err) });
            resolve(null);
          });
          server.listen(port, opts.httpHost ?? '0.0.0.0', () => {
            const addr = server!.address() as AddressInfo;
            logger.info('metrics HTTP endpoint listening', { port: addr.port, paths: ['/metrics', '/health'] });
            resolve(addr);
          });
          server.unref();
        });

  let stopped = false;
  return {
    http,
    flush,
    async stop() {
      if (stopped) return;
      stopped = true;
      if (timer) clearInterval(timer);
      flush();
      await http;
      const s = server as Server | null;
      if (s?.listening) {
        s.closeAllConnections();
        await new Promise<void>((r) => s.close(() => r()));
      }
    },
  };
}
