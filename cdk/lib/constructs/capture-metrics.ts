/** Metrics the capture task publishes (EMF, src/metrics/names.ts), for one connector. */
import { aws_cloudwatch as cloudwatch, Duration } from 'aws-cdk-lib';
import { CONNECTOR_DIMENSION, METRICS_NAMESPACE, type MetricName } from '../../../src/metrics/names.js';

export function captureMetric(
  connectorName: string,
  name: MetricName,
  options: cloudwatch.MetricOptions = {},
): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: METRICS_NAMESPACE,
    metricName: name,
    dimensionsMap: { [CONNECTOR_DIMENSION]: connectorName },
    period: Duration.minutes(1),
    statistic: 'Maximum',
    ...options,
  });
}
