/**
 * The S3 claim-check of records over the stream's limit (docs/large-records.md): the bucket (KMS with the
 * pipeline's key, public access blocked, TLS-only policy, lifecycle expiry) and least-privilege grants — the task
 * writes objects, the transform router reads and writes them, the materialiser reads them, all under the prefix.
 */
import {
  Duration,
  aws_iam as iam,
  type aws_kms as kms,
  type RemovalPolicy,
  Stack,
  aws_s3 as s3,
  Token,
  Validations,
} from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { CDC_PIPELINE_DEFAULTS, type CdcClaimCheckProps } from './props.js';
import type { PipelinePart } from './scope.js';

export interface CdcClaimCheckPartProps {
  readonly claimCheck: CdcClaimCheckProps;
  readonly encryptionKey: kms.IKey;
  readonly removalPolicy: RemovalPolicy;
  /** The longest retention of the streams whose records may point into the bucket. */
  readonly streamRetention: Duration;
}

export class CdcClaimCheck implements PipelinePart {
  readonly bucket: s3.IBucket;
  readonly prefix: string;
  private readonly key: kms.IKey | undefined;

  constructor(
    readonly scope: Construct,
    private readonly props: CdcClaimCheckPartProps,
  ) {
    const c = props.claimCheck;
    if (c.bucket && c.expiration)
      throw new Error('CdcPipeline: claimCheck.bucket is an existing bucket; set its lifecycle there, not expiration');
    this.prefix = c.prefix ?? CDC_PIPELINE_DEFAULTS.claimCheck.prefix;
    if (c.bucket) {
      this.bucket = c.bucket;
      this.key = c.bucket.encryptionKey;
      return;
    }
    const bucket = new s3.Bucket(scope, 'ClaimCheckBucket', {
      encryption: s3.BucketEncryption.KMS,
      encryptionKey: props.encryptionKey,
      bucketKeyEnabled: true,
      enforceSSL: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      removalPolicy: props.removalPolicy,
      lifecycleRules: [
        {
          id: 'expire-claim-checks',
          prefix: this.prefix,
          expiration: c.expiration ?? this.defaultExpiration(),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
    });
    Validations.of(bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Transient payloads of change events, written by one task role and read by the consumers; object-level access is auditable with CloudTrail data events instead of a second logs bucket.',
    });
    this.bucket = bucket;
    this.key = props.encryptionKey;
  }

  /** Connector properties of the capture task. */
  connectorProperties(): Record<string, string> {
    const c = this.props.claimCheck;
    return {
      'sink.kinesis.oversize.handling': 'claim-check',
      'sink.claim.check.bucket': this.bucket.bucketName,
      'sink.claim.check.prefix': this.prefix,
      ...(c.thresholdBytes !== undefined ? { 'sink.claim.check.threshold.bytes': String(c.thresholdBytes) } : {}),
    };
  }

  /** Put objects under the prefix (the capture task; the router for its outputs). */
  grantWrite(role: iam.IRole): void {
    this.allow(role, 's3:PutObject');
    this.key?.grant(role, 'kms:GenerateDataKey');
  }

  /**
   * Get objects under the prefix (the consumers), and list that prefix: without s3:ListBucket S3 answers a missing
   * object (expired by the lifecycle rule) with AccessDenied, which a consumer must retry as a grant problem; with
   * it, NoSuchKey, which the consumer reports as missing and dead-letters at once.
   */
  grantRead(role: iam.IRole): void {
    this.allow(role, 's3:GetObject');
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['s3:ListBucket'],
        resources: [this.bucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': [`${this.prefix}*`] } },
      }),
    );
    this.key?.grant(role, 'kms:Decrypt');
  }

  private allow(role: iam.IRole, action: string): void {
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: [action], resources: [this.bucket.arnForObjects(`${this.prefix}*`)] }),
    );
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${this.nagResource()}]`,
      reason: `${action} on the claim-check bucket's objects under "${this.prefix}": keys are content-addressed (<topic>/<sha256>.json), so the resource is that prefix.`,
    });
  }

  /** The object ARN pattern as cdk-nag names it in its finding id. */
  private nagResource(): string {
    const cfn = this.bucket.node.defaultChild;
    const arn =
      cfn instanceof s3.CfnBucket
        ? `<${Stack.of(this.scope).getLogicalId(cfn)}.Arn>`
        : Token.isUnresolved(this.bucket.bucketName)
          ? '*'
          : `arn:<AWS::Partition>:s3:::${this.bucket.bucketName}`;
    return `${arn}/${this.prefix}*`;
  }

  /** Long enough for every record that may still point at an object: the stream, and the dead-letter queues. */
  private defaultExpiration(): Duration {
    const days = Math.max(
      Math.ceil(this.props.streamRetention.toHours() / 24),
      CDC_PIPELINE_DEFAULTS.deadLetterRetention.toDays(),
    );
    return Duration.days(days + 1);
  }
}
