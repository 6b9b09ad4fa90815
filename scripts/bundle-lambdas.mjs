#!/usr/bin/env node
// Bundle each Lambda handler (lambdas/*.ts) into <outdir>/<name>/index.mjs with esbuild: ESM, Node 22+, one file
// per function (the AWS SDK is bundled too, so the code does not depend on the runtime's SDK version).
//   node scripts/bundle-lambdas.mjs [--outdir dist/lambdas] [--minify] [name...]
import { readdirSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';

const root = resolve(fileURLToPath(import.meta.url), '../..');

/** Bundle handlers; returns the written entry files. */
export async function bundleLambdas({ outdir = join(root, 'dist/lambdas'), minify = false, names } = {}) {
  const all = readdirSync(join(root, 'lambdas'))
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .map((f) => basename(f, '.ts'));
  const selected = names?.length ? names : all;
  for (const n of selected)
    if (!all.includes(n)) throw new Error(`no handler lambdas/${n}.ts (have: ${all.join(', ')})`);
  const written = [];
  for (const name of selected) {
    const outfile = join(outdir, name, 'index.mjs');
    const result = await build({
      entryPoints: [join(root, 'lambdas', `${name}.ts`)],
      outfile,
      bundle: true,
      platform: 'node',
      target: 'node22',
      format: 'esm',
      minify,
      sourcemap: 'linked',
      legalComments: 'none',
      logLevel: 'silent',
      // CommonJS dependencies bundled into ESM still call require() for Node built-ins.
      banner: {
        js: "import { createRequire as __cdcCreateRequire } from 'node:module';const require = __cdcCreateRequire(import.meta.url);",
      },
    });
    if (result.errors.length)
      throw new Error(`bundling ${name} failed: ${result.errors.map((e) => e.text).join('; ')}`);
    written.push(outfile);
  }
  return written;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values, positionals } = parseArgs({
    options: { outdir: { type: 'string' }, minify: { type: 'boolean' } },
    allowPositionals: true,
  });
  const files = await bundleLambdas({
    ...(values.outdir ? { outdir: resolve(values.outdir) } : {}),
    minify: values.minify ?? false,
    names: positionals,
  });
  for (const f of files) console.log(f);
}
