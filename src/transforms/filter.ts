/**
 * Filter (`io.debezium.transforms.Filter`, short `filter`): keeps records for which `condition` is true and drops the
 * rest. Debezium evaluates Groovy/JavaScript through JSR 223; here `condition` is the safe expression language of
 * expression.ts (same variable names: `value`, `key`, `topic`, `headers`...), so `language` may be omitted or set to
 * `expr`. `topic.regex` limits filtering to matching topics (others pass). `null.handling.mode` (@default keep):
 * `keep` passes tombstones, `drop` removes them, `evaluate` applies the condition to them too (value is null).
 */
import { compileExpression, ExpressionError } from './expression.js';
import type { OptionReader } from './options.js';
import type { Transform } from './record.js';

export function filter(o: OptionReader): Transform {
  const language = o.str('language');
  if (language !== undefined && language !== 'expr')
    o.add(
      'language',
      `'${language}' is not available: scripts are not evaluated here.`,
      `remove ${o.key('language')} (or set it to expr) and write the condition in the built-in expression language, e.g. value.op == 'u' && value.after.amount > 100.`,
    );
  const source = o.required('condition', `set ${o.key('condition')}=<expression>, e.g. value.op == 'd'.`);
  let condition: ((s: Parameters<ReturnType<typeof compileExpression>>[0]) => boolean) | undefined;
  if (source !== '') {
    try {
      condition = compileExpression(source);
    } catch (err) {
      if (!(err instanceof ExpressionError)) throw err;
      o.add('condition', `cannot be parsed: ${err.message}.`, 'fix the expression (see docs/transforms.md).');
    }
  }
  const topicRegex = o.regex('topic.regex', false);
  const nulls = o.enumOf('null.handling.mode', ['keep', 'drop', 'evaluate'] as const, 'keep');
  return (r) => {
    if (topicRegex && !topicRegex.test(r.topic)) return [r];
    if (r.value === null && nulls !== 'evaluate') return nulls === 'keep' ? [r] : [];
    if (!condition) return [r];
    return condition(r) ? [r] : [];
  };
}
