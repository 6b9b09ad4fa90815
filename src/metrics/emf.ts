/**
 * CloudWatch Embedded Metric Format: one JSON object per line whose `_aws.CloudWatchMetrics` directive names the
 * metrics (values are top-level keys). CloudWatch Logs extracts the metrics from any log event of this shape,
 * including those written by the ECS `awslogs` driver, so publishing costs no API call.
 */
import type { MetricSample } from './collector.js';
import {
  CONNECTOR_DIMENSION,
  METRIC_DEFINITIONS,
  METRIC_DIMENSIONS,
  METRICS_NAMESPACE,
  type MetricName,
} from './names.js';

export interface EmfDirective {
  Namespace: string;
  Dimensions: string[][];
  Metrics: Array<{ Name: string; Unit: string }>;
}

export interface EmfDocument {
  _aws: { Timestamp: number; CloudWatchMetrics: EmfDirective[] };
  [key: string]: unknown;
}

/** The EMF document for one sample of connector `connector`. */
export function toEmf(sample: MetricSample, connector: string, namespace = METRICS_NAMESPACE): EmfDocument {
  const names = Object.keys(sample.values) as MetricName[];
  const doc: EmfDocument = {
    _aws: {
      Timestamp: sample.timestampMs,
      CloudWatchMetrics: [
        {
          Namespace: namespace,
          Dimensions: [[...METRIC_DIMENSIONS]],
          Metrics: names.map((n) => ({ Name: n, Unit: METRIC_DEFINITIONS[n].unit })),
        },
      ],
    },
    [CONNECTOR_DIMENSION]: connector,
  };
  // Properties first so a metric value can never be shadowed by a property of the same name.
  for (const [k, v] of Object.entries(sample.properties)) doc[k] = v;
  for (const n of names) doc[n] = sample.values[n];
  return doc;
}

/** One EMF line (newline-terminated). */
export function emfLine(sample: MetricSample, connector: string, namespace = METRICS_NAMESPACE): string {
  return `${JSON.stringify(toEmf(sample, connector, namespace))}\n`;
}
