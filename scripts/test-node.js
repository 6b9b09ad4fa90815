// The Node.js the test processes run on: Node 22, the version of the image, `engines` and the Lambdas' floor.
// A machine with an older Node gets Node 22 from the npm registry, which ships Node's official binaries as the
// platform packages `node-<platform>-<arch>` (what the `node` package installs): fetched once per machine into
// ~/.cache/serverless-cdc (or $XDG_CACHE_HOME), unpacked beside its final folder and renamed into place, so
// concurrent runs are safe. CDC_TEST_NODE=/path/to/node overrides it.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const TEST_NODE_VERSION = '22.23.3';
const MIN_MAJOR = 22;

class TestNodeError extends Error {
  name = 'TestNodeError';
}

function versionOf(bin) {
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim().replace(/^v/, '') : null;
}

/** Path of the node binary for the test processes; fetches it when needed (throws TestNodeError on failure). */
export function testNode() {
  const override = process.env.CDC_TEST_NODE;
  if (override) {
    const v = versionOf(override);
    if (!v || Number(v.split('.')[0]) < MIN_MAJOR)
      throw new TestNodeError(
        `CDC_TEST_NODE=${override} is not a Node ${MIN_MAJOR}+ binary (version: ${v ?? 'none'}).`,
      );
    return override;
  }
  if (Number(process.versions.node.split('.')[0]) >= MIN_MAJOR) return process.execPath;
  const pkg = `node-${process.platform}-${process.arch}`;
  const cache = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'serverless-cdc');
  const dir = join(cache, `${pkg}-${TEST_NODE_VERSION}`);
  const bin = join(dir, 'bin', 'node');
  if (versionOf(bin) === TEST_NODE_VERSION) return bin;
  mkdirSync(cache, { recursive: true });
  const work = mkdtempSync(join(cache, `.${pkg}-${TEST_NODE_VERSION}-`));
  try {
    const fail = (why) =>
      new TestNodeError(
        `the tests run on Node ${MIN_MAJOR}+ and this is Node ${process.versions.node}; fetching ${pkg}@${TEST_NODE_VERSION} from the npm registry failed: ${why}. Install Node ${MIN_MAJOR}+ (or put it first on PATH), or set CDC_TEST_NODE=/path/to/node.`,
      );
    console.error(`scripts/test-node.js: fetching Node ${TEST_NODE_VERSION} (${pkg}) for the tests, once per machine`);
    const packed = spawnSync('npm', ['pack', `${pkg}@${TEST_NODE_VERSION}`, '--pack-destination', work, '--silent'], {
      encoding: 'utf8',
    });
    if (packed.status !== 0)
      throw fail(
        `npm pack exited with ${packed.status ?? packed.signal}: ${packed.stderr.trim().split('\n').slice(-3).join(' ')}`,
      );
    const tgz = readdirSync(work).find((f) => f.endsWith('.tgz'));
    if (!tgz) throw fail('npm pack wrote no archive');
    const untar = spawnSync('tar', ['xzf', join(work, tgz), '-C', work], { encoding: 'utf8' });
    if (untar.status !== 0) throw fail(`tar exited with ${untar.status ?? untar.signal}: ${untar.stderr.trim()}`);
    if (versionOf(join(work, 'package', 'bin', 'node')) !== TEST_NODE_VERSION)
      throw fail('the unpacked binary does not run');
    try {
      renameSync(join(work, 'package'), dir);
    } catch (err) {
      // Another run finished first; its copy is the same binary.
      if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  if (versionOf(bin) !== TEST_NODE_VERSION) throw new TestNodeError(`${bin} does not run after fetching it.`);
  return bin;
}

if (process.argv[1] && import.meta.url === `file://${process.argv[1]}`) console.log(testNode());
