import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { bundleLambdas } from '../../scripts/bundle-lambdas.mjs';

test('every Lambda handler bundles with esbuild into <name>/index.mjs exporting handler', async () => {
  const outdir = mkdtempSync(join(tmpdir(), 'cdc-bundle-'));
  const files = await bundleLambdas({ outdir, minify: true });
  assert.deepEqual(readdirSync(outdir).sort(), ['materializer', 'transform-router']);
  for (const f of files) {
    assert.ok(statSync(f).size > 10_000, `${f} contains the bundled code`);
    // The bundle is self-contained: importing it from the temp dir (no node_modules there) works.
    const mod = (await import(pathToFileURL(f).href)) as { handler?: unknown };
    assert.equal(typeof mod.handler, 'function');
  }
});
