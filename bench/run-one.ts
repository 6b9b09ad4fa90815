/**
 * Runs one benchmark module in this process and prints its figures as BENCH lines (`bench/run.js` spawns it).
 * Kept apart from harness.ts: the benchmarks import harness.ts, and a module with top-level await that a dynamic
 * import leads back to never settles (Node exits 13 with no output).
 */
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type Figure, formatFigure } from './harness.js';

const name = process.argv[2];
const here = dirname(fileURLToPath(import.meta.url));
const mod = (await import(pathToFileURL(join(here, `${name}.bench.ts`)).href)) as { run(): Promise<Figure[]> };
const figures = await mod.run();
for (const f of figures) process.stdout.write(`${formatFigure(f)}\n`);
process.exit(0);
