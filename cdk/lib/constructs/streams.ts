/** The change stream and the transform router's output stream, both KMS-encrypted with the pipeline's key. */
import { aws_kinesis as kinesis, type aws_kms as kms, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { CDC_PIPELINE_DEFAULTS, type CdcStreamProps } from './props.js';
import type { PipelinePart } from './scope.js';

export interface CdcStreamsProps {
  readonly stream: CdcStreamProps;
  readonly routedStream: CdcStreamProps;
  /** False without a transform router: then there is no routed stream. */
  readonly withRoutedStream: boolean;
  readonly encryptionKey: kms.IKey;
  readonly removalPolicy: RemovalPolicy;
}

export class CdcStreams implements PipelinePart {
  readonly stream: kinesis.IStream;
  readonly routedStream: kinesis.IStream | null;

  constructor(
    readonly scope: Construct,
    props: CdcStreamsProps,
  ) {
    for (const [what, sp] of [
      ['stream', props.stream],
      ['routedStream', props.routedStream],
    ] as const)
      if (sp.stream && (sp.shardCount !== undefined || sp.retention || sp.streamName))
        throw new Error(
          `CdcPipeline: ${what}.stream is an existing stream; do not also set shardCount/retention/streamName`,
        );
    this.stream = this.create('Stream', props.stream, props);
    this.routedStream = props.withRoutedStream ? this.create('RoutedStream', props.routedStream, props) : null;
  }

  private create(id: string, s: CdcStreamProps, props: CdcStreamsProps): kinesis.IStream {
    if (s.stream) return s.stream;
    const stream = new kinesis.Stream(this.scope, id, {
      ...(s.streamName ? { streamName: s.streamName } : {}),
      ...(s.shardCount !== undefined
        ? { streamMode: kinesis.StreamMode.PROVISIONED, shardCount: s.shardCount }
        : { streamMode: kinesis.StreamMode.ON_DEMAND }),
      retentionPeriod: s.retention ?? CDC_PIPELINE_DEFAULTS.streamRetention,
      encryption: kinesis.StreamEncryption.KMS,
      encryptionKey: props.encryptionKey,
      removalPolicy: props.removalPolicy,
    });
    Validations.of(stream).acknowledge({
      id: 'AwsSolutions-KDS3',
      reason:
        'Deliberately a customer managed key (rotated, key policy under our control, shared with the alarm topic) instead of aws/kinesis.',
    });
    return stream;
  }
}
