/**
 * The Kinesis signal stream (docs/snapshots.md "Signals"): operators put Debezium `execute-snapshot` signals on
 * it (`cdc snapshot --channel kinesis`), the capture task polls it. A small provisioned stream encrypted with the
 * pipeline's key, or an existing one; the task role may only read it.
 */
import {
  Duration,
  type aws_iam as iam,
  aws_kinesis as kinesis,
  type aws_kms as kms,
  type RemovalPolicy,
  Validations,
} from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { CdcSignalsProps } from './props.js';
import type { PipelinePart } from './scope.js';

export interface CdcSignalsPartProps {
  readonly signals: CdcSignalsProps;
  readonly encryptionKey: kms.IKey;
  readonly removalPolicy: RemovalPolicy;
}

export class CdcSignals implements PipelinePart {
  readonly stream: kinesis.IStream;

  constructor(
    readonly scope: Construct,
    private readonly props: CdcSignalsPartProps,
  ) {
    this.stream = props.signals.stream ?? this.create();
  }

  private create(): kinesis.IStream {
    const stream = new kinesis.Stream(this.scope, 'SignalStream', {
      shardCount: 1,
      retentionPeriod: Duration.hours(24),
      encryption: kinesis.StreamEncryption.KMS,
      encryptionKey: this.props.encryptionKey,
      removalPolicy: this.props.removalPolicy,
    });
    Validations.of(stream).acknowledge({
      id: 'AwsSolutions-KDS3',
      reason: "The pipeline's customer managed key (rotated, key policy under our control), as for the change stream.",
    });
    return stream;
  }

  /**
   * Connector properties of the capture task: `kinesis` joins the configured channels (`configured`, default
   * `source`; `sourceChannel: false` drops `source`), and this stream.
   */
  connectorProperties(configured: string | undefined): Record<string, string> {
    const channels = new Set(
      (configured ?? 'source')
        .split(',')
        .map((c) => c.trim())
        .filter(Boolean),
    );
    if (this.props.signals.sourceChannel === false) channels.delete('source');
    channels.add('kinesis');
    return {
      'signal.enabled.channels': [...channels].join(','),
      'signal.kinesis.stream.name': this.stream.streamName,
      ...(this.props.signals.pollInterval
        ? { 'signal.poll.interval.ms': String(this.props.signals.pollInterval.toMilliseconds()) }
        : {}),
    };
  }

  grantRead(role: iam.IGrantable): void {
    this.stream.grantRead(role);
  }
}
