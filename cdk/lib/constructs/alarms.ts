/**
 * Alarms on the capture task's metrics, the streams, the consumers and the state tables, all to one SNS topic
 * (created KMS-encrypted, or passed in). Each description links its runbook section in docs/deploy.md.
 */
import {
  aws_cloudwatch as cloudwatch,
  aws_cloudwatch_actions as cwActions,
  Duration,
  type aws_kinesis as kinesis,
  type aws_kms as kms,
  type RemovalPolicy,
  aws_sns as sns,
} from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { RetentionMetric, StreamingMetric } from '../../../src/metrics/names.js';
import { captureMetric } from './capture-metrics.js';
import type { CdcCaptureService } from './capture-service.js';
import type { CdcConsumers } from './consumers.js';
import { CDC_PIPELINE_DEFAULTS, type CdcAlarmProps } from './props.js';
import type { PipelinePart } from './scope.js';
import type { CdcStateTables } from './state-tables.js';

export interface CdcAlarmsProps extends CdcAlarmProps {
  readonly connectorName: string;
  readonly encryptionKey: kms.IKey;
  readonly removalPolicy: RemovalPolicy;
  readonly capture: CdcCaptureService;
  readonly stream: kinesis.IStream;
  readonly routedStream: kinesis.IStream | null;
  readonly consumers: CdcConsumers;
  readonly tables: CdcStateTables;
}

export class CdcAlarms implements PipelinePart {
  readonly topic: sns.ITopic;
  readonly alarms: cloudwatch.Alarm[] = [];
  private readonly action: cwActions.SnsAction;

  constructor(
    readonly scope: Construct,
    p: CdcAlarmsProps,
  ) {
    this.topic = this.createTopic(p);
    this.action = new cwActions.SnsAction(this.topic);
    const D = CDC_PIPELINE_DEFAULTS.alarms;
    const GT = cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD;
    const c = p.connectorName;

    const lagMinutes = p.lagEvaluationMinutes ?? D.lagEvaluationMinutes;
    this.add('ReplicationLagAlarm', {
      alarmDescription: `serverless-cdc ${c}: the capture is more than ${(p.replicationLag ?? D.replicationLag).toHumanString()} behind the source binlog (see docs/deploy.md#replication-lag)`,
      metric: captureMetric(c, StreamingMetric.MilliSecondsBehindSource),
      threshold: (p.replicationLag ?? D.replicationLag).toMilliseconds(),
      comparisonOperator: GT,
      evaluationPeriods: lagMinutes,
      datapointsToAlarm: lagMinutes,
      treatMissingData: cloudwatch.TreatMissingData.IGNORE,
    });
    const noEvents = p.noEvents === undefined ? D.noEvents : p.noEvents;
    if (noEvents !== false)
      this.add('NoEventsAlarm', {
        alarmDescription: `serverless-cdc ${c}: no binlog event (change or heartbeat write) for ${noEvents.toHumanString()}, or no metrics at all (see docs/deploy.md#no-events)`,
        metric: captureMetric(c, StreamingMetric.MilliSecondsSinceLastEvent, { statistic: 'Minimum' }),
        threshold: noEvents.toMilliseconds(),
        comparisonOperator: GT,
        evaluationPeriods: 3,
        treatMissingData: cloudwatch.TreatMissingData.BREACHING,
      });
    const runway = p.retentionRunway === undefined ? D.retentionRunway : p.retentionRunway;
    if (runway !== false)
      this.add('RetentionRunwayAlarm', {
        alarmDescription: `serverless-cdc ${c}: the binlog file the capture resumes from may be purged by the binlog retention in less than ${runway.toHumanString()} (see docs/deploy.md#retention-runway-low)`,
        metric: captureMetric(c, RetentionMetric.RetentionRunwaySeconds, { statistic: 'Minimum' }),
        threshold: runway.toSeconds(),
        comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
        evaluationPeriods: 5,
        // Not published when the retention is unlimited; a stopped task is TaskNotRunningAlarm's.
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    this.add('TaskNotRunningAlarm', {
      alarmDescription: `serverless-cdc ${c}: the capture service has no running task (see docs/deploy.md#task-not-running)`,
      metric: p.capture.metricRunningTaskCount(),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
      evaluationPeriods: 3,
      treatMissingData: cloudwatch.TreatMissingData.BREACHING,
    });
    const streams: Array<[string, kinesis.IStream, string]> = [['Kinesis', p.stream, 'change stream']];
    if (p.routedStream) streams.push(['RoutedKinesis', p.routedStream, 'routed stream (transform router output)']);
    for (const [id, stream, what] of streams)
      this.add(`${id}WriteThrottleAlarm`, {
        alarmDescription: `serverless-cdc ${c}: PutRecords throttled on the ${what} (see docs/deploy.md#kinesis-write-throttling)`,
        metric: stream.metricPutRecordsThrottledRecords({ period: Duration.minutes(5), statistic: 'Sum' }),
        threshold: p.kinesisThrottledRecords ?? D.kinesisThrottledRecords,
        comparisonOperator: GT,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    for (const [id, consumer] of p.consumers.all()) {
      const fn = consumer.function;
      this.add(`${id}IteratorAgeAlarm`, {
        alarmDescription: `serverless-cdc ${c}: ${id} is falling behind the change stream (see docs/deploy.md#consumer-iterator-age)`,
        metric: fn.metric('IteratorAge', { period: Duration.minutes(1), statistic: 'Maximum' }),
        threshold: (p.iteratorAge ?? D.iteratorAge).toMilliseconds(),
        comparisonOperator: GT,
        evaluationPeriods: 5,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
      this.add(`${id}ErrorsAlarm`, {
        alarmDescription: `serverless-cdc ${c}: ${id} invocations fail (see docs/deploy.md#lambda-errors)`,
        metric: fn.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
        threshold: p.lambdaErrors ?? D.lambdaErrors,
        comparisonOperator: GT,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
      this.add(`${id}DlqAlarm`, {
        alarmDescription: `serverless-cdc ${c}: batches of ${id} were given up and sent to the dead-letter queue (see docs/deploy.md#dead-letter-queue)`,
        metric: consumer.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
          period: Duration.minutes(1),
          statistic: 'Maximum',
        }),
        threshold: 0,
        comparisonOperator: GT,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    }
    for (const [id, table] of p.tables.all()) {
      this.add(`${id}TableThrottleAlarm`, {
        alarmDescription: `serverless-cdc ${c}: DynamoDB throttles on the ${id} table (see docs/deploy.md#dynamodb-throttles)`,
        metric: new cloudwatch.MathExpression({
          expression: 'FILL(r, 0) + FILL(w, 0)',
          usingMetrics: {
            r: table.metric('ReadThrottleEvents', { period: Duration.minutes(5), statistic: 'Sum' }),
            w: table.metric('WriteThrottleEvents', { period: Duration.minutes(5), statistic: 'Sum' }),
          },
          label: `${id} throttle events`,
          period: Duration.minutes(5),
        }),
        threshold: p.dynamoThrottles ?? D.dynamoThrottles,
        comparisonOperator: GT,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    }
  }

  /** An alarm with the topic as its alarm and OK action; for further alarms of the pipeline too. */
  add(id: string, props: cloudwatch.AlarmProps): cloudwatch.Alarm {
    const alarm = new cloudwatch.Alarm(this.scope, id, props);
    alarm.addAlarmAction(this.action);
    alarm.addOkAction(this.action);
    this.alarms.push(alarm);
    return alarm;
  }

  private createTopic(p: CdcAlarmsProps): sns.ITopic {
    if (p.topic) {
      if (p.email)
        throw new Error('CdcPipeline: alarms.email subscribes a created topic; subscribe your own topic yourself');
      return p.topic;
    }
    const created = new sns.Topic(this.scope, 'AlarmTopic', {
      displayName: `serverless-cdc ${p.connectorName} alarms`,
      masterKey: p.encryptionKey,
      enforceSSL: true,
    });
    created.applyRemovalPolicy(p.removalPolicy);
    if (p.email)
      new sns.Subscription(this.scope, 'AlarmEmail', {
        topic: created,
        protocol: sns.SubscriptionProtocol.EMAIL,
        endpoint: p.email,
      });
    return created;
  }
}
