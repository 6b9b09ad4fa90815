#!/usr/bin/env node
// The `cdc` CLI. Production (the image ships dist/ and no src/) runs the JavaScript `npm run build` compiled into
// dist/; a checkout runs the TypeScript sources through tsx, so `npx cdc` works right after `npm ci` and an old
// dist/ never shadows edited sources. CDC_COMPILED=1 runs dist/ from a checkout too (after `npm run build`).
import { existsSync } from 'node:fs';

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
