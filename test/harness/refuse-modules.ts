/**
 * Runs an ES module body in a child Node (with tsx) whose module resolution refuses every specifier matching a
 * pattern, throwing `${message} ${specifier}`: the way tests prove that a code path never loads a module (an SDK, a
 * client library) until it is used.
 */
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';

export function runRefusingModules(
  refused: RegExp,
  message: string,
  child: string,
  options: { cwd: string; timeoutMs: number },
): SpawnSyncReturns<string> {
  const hook = `export async function resolve(specifier, context, next) {
  if (${refused.toString()}.test(specifier)) throw new Error(${JSON.stringify(message)} + ' ' + specifier);
  return next(specifier, context);
}`;
  const register = `import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}));`;
  return spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--import',
      `data:text/javascript,${encodeURIComponent(register)}`,
      '--input-type=module',
      '-e',
      child,
    ],
    { cwd: options.cwd, encoding: 'utf8', timeout: options.timeoutMs },
  );
}
