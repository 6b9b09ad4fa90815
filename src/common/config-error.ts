import { CdcError } from './errors.js';

/** One configuration mistake: the property at fault, what is wrong, and how to fix it. Never contains secrets. */
export interface ConfigProblem {
  readonly property: string;
  readonly message: string;
  readonly fix: string;
}

/** Every problem found in a configuration, reported together so users fix them in one round. Not retriable. */
export class ConfigError extends CdcError {
  readonly problems: readonly ConfigProblem[];
  constructor(problems: readonly ConfigProblem[]) {
    super('CONFIG_INVALID', formatProblems(problems));
    this.problems = Object.freeze([...problems]);
  }
}

export function formatProblems(problems: readonly ConfigProblem[]): string {
  const head = `Invalid configuration: ${problems.length} problem${problems.length === 1 ? '' : 's'}`;
  const lines = problems.map((p, i) => `  ${i + 1}. ${p.property}: ${p.message} Fix: ${p.fix}`);
  return [head, ...lines].join('\n');
}
