#!/usr/bin/env node
// The `cdc` CLI. Production (the image ships dist/ and no src/) runs the JavaScript `npm run build` compiled into
// dist/; a checkout runs the TypeScript sources through tsx, so `npx cdc` works right after `npm ci` and an old
// dist/ never shadows edited sources. CDC_COMPILED=1 runs dist/ from a checkout too (after `npm run build`).
import { existsSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';

// The image passes this on node's command line (Dockerfile ENTRYPOINT); set here too, before any of the pipeline
// loads, so `npx cdc run` outside the image gets it. While the change queue is full, V8 would otherwise decide for
// good to allocate records in the old generation, and every later scavenge pays for it (a third more CPU when
// streaming, measured in bench/streaming). NODE_OPTIONS cannot carry V8 flags.
setFlagsFromString('--no-allocation-site-pretenuring');

const compiled = new URL('../dist/src/cli/main.js', import.meta.url);
const sources = new URL('../src/cli/main.ts', import.meta.url);
const useCompiled = existsSync(compiled) && (process.env.CDC_COMPILED === '1' || !existsSync(sources));
let main;
if (useCompiled) {
  ({ main } = await import(compiled.href));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import(sources.href));
}
process.exitCode = await main(process.argv.slice(2));
