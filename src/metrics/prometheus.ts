/** Prometheus text exposition (format 0.0.4) of one metric sample, for non-AWS deployments. */
import type { MetricSample } from './collector.js';
import { METRIC_DEFINITIONS, type MetricName } from './names.js';

const PREFIX = 'cdc_';

/** `MilliSecondsBehindSource` → `cdc_milli_seconds_behind_source`; counters get `_total`. */
export function prometheusName(name: MetricName): string {
  const snake = name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
  return PREFIX + snake + (METRIC_DEFINITIONS[name].kind === 'counter' ? '_total' : '');
}

function label(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

export function toPrometheus(sample: MetricSample, connector: string): string {
  const out: string[] = [];
  const labels = `connector="${label(connector)}"`;
  for (const [name, value] of Object.entries(sample.values) as Array<[MetricName, number]>) {
    const def = METRIC_DEFINITIONS[name];
    const p = prometheusName(name);
    out.push(`# HELP ${p} ${def.help}`, `# TYPE ${p} ${def.kind}`, `${p}{${labels}} ${value}`);
  }
  const info = Object.entries(sample.properties)
    .map(([k, v]) => `${k.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase()}="${label(String(v))}"`)
    .join(',');
  out.push(
    `# HELP ${PREFIX}info Current phase and binlog position as labels.`,
    `# TYPE ${PREFIX}info gauge`,
    `${PREFIX}info{${labels}${info ? `,${info}` : ''}} 1`,
  );
  return `${out.join('\n')}\n`;
}
