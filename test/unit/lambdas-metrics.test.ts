/**
 * The Lambda consumers' EMF metrics carry the task's namespace and the `Connector` dimension (CDC_CONNECTOR_NAME,
 * set by CdcPipeline) beside Powertools' `service`, the dimension set the CDK dashboard selects.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { consumerMetrics } from '../../lambdas/lib/env.js';
import { CONSUMER_SERVICES, ConsumerMetric, METRICS_NAMESPACE } from '../../src/metrics/names.js';

test('consumer metrics: the task namespace, dimensions service and Connector', () => {
  const metrics = consumerMetrics({ CDC_CONNECTOR_NAME: 'orders' }, CONSUMER_SERVICES.transformRouter);
  metrics.addMetric(ConsumerMetric.DuplicatesDropped, MetricUnit.Count, 3);
  const emf = metrics.serializeMetrics() as unknown as {
    _aws: { CloudWatchMetrics: Array<{ Namespace: string; Dimensions: string[][] }> };
  } & Record<string, unknown>;
  const [directive] = emf._aws.CloudWatchMetrics;
  assert.equal(directive.Namespace, METRICS_NAMESPACE);
  assert.deepEqual(
    directive.Dimensions.map((d) => [...d].sort()),
    [['Connector', 'service']],
  );
  assert.equal(emf.Connector, 'orders');
  assert.equal(emf.service, 'cdc-transform-router');
  assert.equal(emf.DuplicatesDropped, 3);
  // Without a connector name (outside CdcPipeline) only Powertools' service dimension remains.
  const bare = consumerMetrics({}, CONSUMER_SERVICES.materializer);
  bare.addMetric(ConsumerMetric.ItemsWritten, MetricUnit.Count, 1);
  const plain = bare.serializeMetrics() as unknown as {
    _aws: { CloudWatchMetrics: Array<{ Dimensions: string[][] }> };
  };
  assert.deepEqual(plain._aws.CloudWatchMetrics[0].Dimensions, [['service']]);
});
