/** The capture task's DynamoDB state: offsets, schema history and the single-writer lease (src/stores/dynamodb). */
import { aws_dynamodb as dynamodb, type RemovalPolicy } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { CdcPipelineProps } from './props.js';
import type { PipelinePart } from './scope.js';

export interface CdcStateTablesProps {
  /** Existing tables (all three) instead of new ones. */
  readonly existing?: CdcPipelineProps['tables'];
  readonly removalPolicy: RemovalPolicy;
}

export class CdcStateTables implements PipelinePart {
  readonly offsets: dynamodb.ITable;
  readonly schemaHistory: dynamodb.ITable;
  readonly lease: dynamodb.ITable;

  constructor(
    readonly scope: Construct,
    props: CdcStateTablesProps,
  ) {
    if (props.existing) {
      this.offsets = props.existing.offsets;
      this.schemaHistory = props.existing.schemaHistory;
      this.lease = props.existing.lease;
      return;
    }
    // Key schemas of src/stores/dynamodb/*.
    const table = (id: string, partitionKey: string, sortKey?: string) =>
      new dynamodb.Table(scope, id, {
        partitionKey: { name: partitionKey, type: dynamodb.AttributeType.STRING },
        ...(sortKey ? { sortKey: { name: sortKey, type: dynamodb.AttributeType.STRING } } : {}),
        billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
        deletionProtection: true,
        encryption: dynamodb.TableEncryption.AWS_MANAGED,
        removalPolicy: props.removalPolicy,
      });
    this.offsets = table('OffsetsTable', 'connector');
    this.schemaHistory = table('SchemaHistoryTable', 'connector', 'sk');
    this.lease = table('LeaseTable', 'lease');
  }

  /** The three tables by name, for alarms. */
  all(): Array<[string, dynamodb.ITable]> {
    return [
      ['Offsets', this.offsets],
      ['SchemaHistory', this.schemaHistory],
      ['Lease', this.lease],
    ];
  }
}
