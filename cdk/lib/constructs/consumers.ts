/**
 * The Lambda consumers of the change stream: the transform router (SMTs → the routed stream) and the
 * materialiser (Debezium envelopes → one DynamoDB "latest state" table per source table), each with its own
 * role, log group, SQS on-failure dead-letter queue and Kinesis event source mapping.
 */
import { join } from 'node:path';
import {
  aws_lambda_event_sources as eventSources,
  aws_iam as iam,
  type aws_kinesis as kinesis,
  aws_lambda as lambda,
  aws_logs as logs,
  aws_lambda_nodejs as nodejs,
  Stack,
  aws_sqs as sqs,
  Token,
  Validations,
} from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { CdcClaimCheck } from './claim-check.js';
import {
  CDC_PIPELINE_DEFAULTS,
  type CdcConsumer,
  type CdcConsumerProps,
  type CdcMaterializerProps,
  type ChangeStreamLayout,
  REPO_ROOT,
} from './props.js';
import type { PipelinePart } from './scope.js';

export interface CdcConsumersProps {
  readonly connectorName: string;
  /** The change stream (the default input of both). */
  readonly stream: kinesis.IStream;
  /** The change stream's layout: consumers reading it are told (`CDC_INPUT_FORMAT`), never left to guess. */
  readonly changeStreamLayout: ChangeStreamLayout;
  /** The transform router's output; required with a router. */
  readonly routedStream: kinesis.IStream | null;
  readonly transformRouter: CdcConsumerProps | false;
  readonly materializer: CdcMaterializerProps | false;
  /** Both consumers resolve claim-checked records; the router also claim-checks its outputs. */
  readonly claimCheck: CdcClaimCheck | null;
}

export class CdcConsumers implements PipelinePart {
  readonly transformRouter: CdcConsumer | null;
  readonly materializer: CdcConsumer | null;

  constructor(
    readonly scope: Construct,
    private readonly props: CdcConsumersProps,
  ) {
    const router = props.transformRouter;
    this.transformRouter =
      router === false
        ? null
        : this.add('TransformRouter', 'transform-router', router, (fn, dlq) => {
            // Output stream and record-level DLQ (see lambdas/transform-router.ts).
            const out = props.routedStream!;
            fn.addEnvironment('CDC_OUTPUT_STREAM', out.streamName);
            fn.addEnvironment('CDC_DLQ_URL', dlq.queueUrl);
            out.grant(
              fn,
              'kinesis:PutRecord',
              'kinesis:PutRecords',
              'kinesis:ListShards',
              'kinesis:DescribeStreamSummary',
            );
            out.encryptionKey?.grant(fn, 'kms:GenerateDataKey');
            dlq.grantSendMessages(fn);
            const cc = props.claimCheck;
            if (cc && fn.role) {
              fn.addEnvironment('CDC_CLAIM_CHECK_BUCKET', cc.bucket.bucketName);
              fn.addEnvironment('CDC_CLAIM_CHECK_PREFIX', cc.prefix);
              cc.grantRead(fn.role);
              cc.grantWrite(fn.role);
            }
          });
    const m = props.materializer;
    this.materializer =
      m === false
        ? null
        : this.add('Materializer', 'materializer', m, (fn, dlq) => {
            // It needs Debezium envelopes (op, source, after), so it reads the change stream, not the routed one.
            const template = m.tableNameTemplate ?? CDC_PIPELINE_DEFAULTS.tableNameTemplate;
            fn.addEnvironment('CDC_TABLE_NAME_TEMPLATE', template);
            fn.addEnvironment('CDC_DLQ_URL', dlq.queueUrl);
            dlq.grantSendMessages(fn);
            if (props.claimCheck && fn.role) props.claimCheck.grantRead(fn.role);
            if (m.tables) {
              for (const t of m.tables) t.grant(fn, 'dynamodb:GetItem', 'dynamodb:PutItem');
            } else this.grantTemplateTables(fn, template);
          });
  }

  /** The created consumers by id (`TransformRouter`, `Materializer`), for alarms and the dashboard. */
  all(): Array<[string, CdcConsumer]> {
    const out: Array<[string, CdcConsumer]> = [];
    if (this.transformRouter) out.push(['TransformRouter', this.transformRouter]);
    if (this.materializer) out.push(['Materializer', this.materializer]);
    return out;
  }

  private add(
    id: string,
    file: string,
    p: CdcConsumerProps,
    configure: (fn: nodejs.NodejsFunction, dlq: sqs.Queue) => void,
  ): CdcConsumer {
    const D = CDC_PIPELINE_DEFAULTS.consumer;
    const scope = this.scope;
    // SQS-managed encryption: the ESM's on-failure records hold only batch metadata (shard, sequence numbers),
    // and it keeps KMS grants (ReEncrypt*/GenerateDataKey* wildcards) off the function role.
    const dlq = new sqs.Queue(scope, `${id}Dlq`, {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: CDC_PIPELINE_DEFAULTS.deadLetterRetention,
    });
    Validations.of(dlq).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is itself the on-failure destination (dead-letter queue) of the event source mapping.',
    });
    const logGroup = new logs.LogGroup(scope, `${id}Logs`, { retention: logs.RetentionDays.ONE_MONTH });
    // An own role instead of AWSLambdaBasicExecutionRole: logs only to this function's log group.
    const role = new iam.Role(scope, `${id}Role`, {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `serverless-cdc ${this.props.connectorName} ${file}`,
    });
    logGroup.grantWrite(role);
    const fn = new nodejs.NodejsFunction(scope, id, {
      entry: p.entry ?? join(REPO_ROOT, 'lambdas', `${file}.ts`),
      projectRoot: REPO_ROOT,
      depsLockFilePath: join(REPO_ROOT, 'package-lock.json'),
      runtime: lambda.Runtime.NODEJS_24_X,
      role,
      architecture: lambda.Architecture.ARM_64,
      memorySize: p.memorySize ?? D.memorySize,
      timeout: p.timeout ?? D.timeout,
      environment: {
        CDC_CONNECTOR_NAME: this.props.connectorName,
        POWERTOOLS_SERVICE_NAME: `cdc-${file}`,
        // On the change stream the layout is known. `value`: read as such (`auto` would take a flattened row with
        // `topic` and `value` columns for a record line). `record`: `auto`, which reads record lines and also the
        // value records a pipeline deployed before the switch (or with `value`) left on the stream, instead of
        // dead-lettering them during the upgrade. Another input stream: detected per record.
        ...(p.inputStream ? {} : { CDC_INPUT_FORMAT: this.props.changeStreamLayout === 'record' ? 'auto' : 'value' }),
        ...p.environment,
      },
      logGroup,
      bundling: {
        format: nodejs.OutputFormat.ESM,
        target: 'node24',
        minify: true,
        sourceMap: true,
        // CommonJS dependencies inside an ESM bundle need `require`.
        banner: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
        externalModules: ['@aws-sdk/*'],
      },
    });
    configure(fn, dlq);
    const eventSource = new eventSources.KinesisEventSource(p.inputStream ?? this.props.stream, {
      startingPosition: p.startingPosition ?? lambda.StartingPosition.TRIM_HORIZON,
      batchSize: p.batchSize ?? D.batchSize,
      maxBatchingWindow: p.maxBatchingWindow ?? D.maxBatchingWindow,
      bisectBatchOnError: true,
      retryAttempts: p.retryAttempts ?? D.retryAttempts,
      parallelizationFactor: p.parallelizationFactor ?? D.parallelizationFactor,
      reportBatchItemFailures: true,
      onFailure: new eventSources.SqsDlq(dlq),
    });
    fn.addEventSource(eventSource);
    return { function: fn, deadLetterQueue: dlq, eventSource };
  }

  /** Without explicit tables: every table whose name matches the template with `*` for the placeholders. */
  private grantTemplateTables(fn: nodejs.NodejsFunction, template: string): void {
    const stack = Stack.of(this.scope);
    const pattern = template.replace(/\{(db|table|topic)\}/g, '*');
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['dynamodb:GetItem', 'dynamodb:PutItem'],
        resources: [stack.formatArn({ service: 'dynamodb', resource: 'table', resourceName: pattern })],
      }),
    );
    const region = Token.isUnresolved(stack.region) ? '<AWS::Region>' : stack.region;
    const account = Token.isUnresolved(stack.account) ? '<AWS::AccountId>' : stack.account;
    Validations.of(fn.role!).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:dynamodb:${region}:${account}:table/${pattern}]`,
      reason:
        'The materialiser writes one table per source table, named by CDC_TABLE_NAME_TEMPLATE; the resource is that name pattern. Pass materializer.tables to scope it to exact tables.',
    });
  }
}
