/**
 * Why the pipeline's parts build into the pipeline's own scope instead of being child constructs: a construct
 * id is part of every logical id below it, so a child level (`Cdc/Streams/Stream`) would rename — and on the next
 * deploy replace — the streams, tables and key of a stack deployed before the split. Ids embedded in other ids
 * (`KinesisEventSource:<stream id>`, `from <security group id>:3306`) rule out overriding the logical ids after
 * the fact. So each part is a class over one shared scope: composed in code, flat in the construct tree.
 */
import type { Construct } from 'constructs';

/** A part of CdcPipeline: it creates its resources directly in `scope` (the pipeline), under stable ids. */
export interface PipelinePart {
  readonly scope: Construct;
}
