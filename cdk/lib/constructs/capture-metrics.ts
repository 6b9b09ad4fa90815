/** Metrics the capture task publishes (EMF, src/metrics/names.ts), for one connector. */
import { aws_cloudwatch as cloudwatch, Duration } from 'aws-cdk-lib';
import {
  CONNECTOR_DIMENSION,
  type CONSUMER_SERVICES,
  type ConsumerMetricName,
  METRICS_NAMESPACE,
  type MetricName,
  SERVICE_DIMENSION,
} from '../../../src/metrics/names.js';

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

/** Metrics a Lambda consumer publishes (EMF: `Connector` = CDC_CONNECTOR_NAME, `service` = the consumer). */
export function consumerMetric(
  connectorName: string,
  service: (typeof CONSUMER_SERVICES)[keyof typeof CONSUMER_SERVICES],
  name: ConsumerMetricName,
  options: cloudwatch.MetricOptions = {},
): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: METRICS_NAMESPACE,
    metricName: name,
    dimensionsMap: { [CONNECTOR_DIMENSION]: connectorName, [SERVICE_DIMENSION]: service },
    period: Duration.minutes(1),
    statistic: 'Sum',
    ...options,
  });
}
