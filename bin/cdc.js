#!/usr/bin/env node
// Runs the TypeScript CLI directly through tsx, so `npx cdc` works right after `npm ci` with no build step.
// A production image may run the compiled `dist/src/cli/main.js` instead (see Dockerfile).
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
