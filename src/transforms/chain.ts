/**
 * Building a transform chain from configuration (`transforms=a,b` + `transforms.a.type=...`), applying it to parsed
 * records, and the SinkRecord adapter the capture engine calls before publishing.
 */

import type { ConfigProblem } from '../common/config-error.js';
import { CdcError, errorMessage } from '../common/errors.js';
import { suggest } from '../common/suggest.js';
import type { SinkRecord } from '../model/sink-record.js';
import type { TransformConfig } from './config.js';
import { OptionReader, TransformConfigError } from './options.js';
import { fromSinkRecord, type Transform, type TransformRecord, toSinkRecord } from './record.js';
import { findTransformType, transformTypeNames } from './registry.js';

export interface TransformStep {
  /** The configured name (`transforms=<name>`). */
  readonly name: string;
  /** The transform type's display name, e.g. ExtractNewRecordState. */
  readonly type: string;
  readonly apply: Transform;
}

export interface TransformChain {
  readonly steps: readonly TransformStep[];
  /** Runs every step in order; each output of a step feeds the next. */
  apply(record: TransformRecord): TransformRecord[];
}

/** A record a transform could not process (a bug or unexpected input); names the step and the topic. */
export class TransformError extends CdcError {
  constructor(
    readonly step: string,
    readonly topic: string,
    cause: unknown,
  ) {
    super('INTERNAL', `transform '${step}' failed on a record of topic '${topic}': ${errorMessage(cause)}`, { cause });
  }
}

/** Build a chain; every problem of every transform is reported at once in a TransformConfigError. */
export function buildChain(configs: readonly TransformConfig[]): TransformChain {
  const problems: ConfigProblem[] = [];
  const steps: TransformStep[] = [];
  for (const c of configs) {
    const type = findTransformType(c.type);
    if (!type) {
      const [guess] = suggest(c.type, transformTypeNames());
      problems.push({
        property: `transforms.${c.name}.type`,
        message: c.type ? `'${c.type}' is not a known transform.` : 'is required.',
        fix: guess
          ? `did you mean ${guess}?`
          : `use one of ${transformTypeNames()
              .filter((n) => !n.includes('.'))
              .join(', ')} or the Debezium class name.`,
      });
      continue;
    }
    const reader = new OptionReader(c.name, c.options, problems);
    const apply = type.create(reader);
    reader.reportUnknown(type.name);
    steps.push({ name: c.name, type: type.name, apply });
  }
  if (problems.length > 0) throw new TransformConfigError(problems);
  return chainOf(steps);
}

/** A chain from already built steps (tests, programmatic use). */
export function chainOf(steps: readonly TransformStep[]): TransformChain {
  return {
    steps,
    apply(record) {
      let batch = [record];
      for (const step of steps) {
        const next: TransformRecord[] = [];
        for (const r of batch) {
          let out: TransformRecord[];
          try {
            out = step.apply(r);
          } catch (err) {
            throw new TransformError(step.name, r.topic, err);
          }
          for (const o of out) next.push(o);
        }
        batch = next;
        if (batch.length === 0) break;
      }
      return batch;
    },
  };
}

/**
 * Apply a chain to serialised records, for the capture engine before publishing: records are parsed once and
 * serialised once; an empty chain returns the input as is. Throws TransformError on unparseable JSON.
 */
export function applyTransforms(chain: TransformChain, records: SinkRecord[]): SinkRecord[] {
  if (chain.steps.length === 0) return records;
  const out: SinkRecord[] = [];
  for (const r of records) {
    let parsed: TransformRecord;
    try {
      parsed = fromSinkRecord(r);
    } catch (err) {
      throw new TransformError('(parse)', r.topic, err);
    }
    for (const t of chain.apply(parsed)) out.push(toSinkRecord(t));
  }
  return out;
}
