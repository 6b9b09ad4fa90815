/**
 * Checks that belong to components but must be part of the one configuration pass (so `cdc check` and start-up
 * list every problem at once): the Kafka producer settings (`sink.kafka.*`) and the transform chain
 * (`transforms.*`). Each component keeps its own validator; this only runs them and collects their problems.
 */

import type { ConfigProblem } from '../common/config-error.js';
import { buildChain } from '../transforms/chain.js';
import { parseKafkaSinkConfig } from './kafka-sink.js';
import type { CdcConfig } from './types.js';

export function componentProblems(config: CdcConfig): ConfigProblem[] {
  const out: ConfigProblem[] = [];
  const collect = (check: () => unknown) => {
    try {
      check();
    } catch (err) {
      const problems = (err as { problems?: readonly ConfigProblem[] }).problems;
      if (!Array.isArray(problems)) throw err;
      out.push(...problems);
    }
  };
  if (config.sink.type === 'kafka') {
    const sink = config.sink;
    collect(() => parseKafkaSinkConfig(sink));
  }
  if (config.transforms.length > 0) collect(() => buildChain(config.transforms));
  return out;
}
