/** Shared pieces of the benchmarks: the Figure shape, its BENCH line, the image's Node options, peak RSS, median. */
import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Figure {
  /** Figure name, e.g. `decode.rows_per_s`. */
  name: string;
  ours: number;
  reference: number;
  unit: string;
  /** What the reference is, e.g. "@vlasky/zongji 0.9.0 on the same binlog". */
  ref: string;
  /** Set when a higher value is worse (e.g. MB, records per event) so ratio reads as "times better". */
  lowerIsBetter?: boolean;
}

export function formatFigure(f: Figure): string {
  const ratio = f.lowerIsBetter ? f.reference / f.ours : f.ours / f.reference;
  const num = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(3));
  return `BENCH ${f.name} ours=${num(f.ours)} reference=${num(f.reference)} ratio=${num(ratio)} unit=${f.unit} ref="${f.ref.replaceAll('"', "'")}"`;
}

/**
 * The capture image's node options (Dockerfile: NODE_OPTIONS, and the V8 flags NODE_OPTIONS does not accept, given
 * to node in ENTRYPOINT), so the benchmarks run our code with the image's heap settings.
 */
export function imageNodeOptions(): string[] {
  const dockerfile = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', 'Dockerfile'), 'utf8');
  const m = /NODE_OPTIONS="([^"]*)"/.exec(dockerfile);
  if (!m) throw new Error('Dockerfile sets no NODE_OPTIONS="..."');
  const entry = /^ENTRYPOINT\s+(\[.*\])\s*$/m.exec(dockerfile);
  if (!entry) throw new Error('Dockerfile has no ENTRYPOINT [...]');
  const flags = (JSON.parse(entry[1]) as string[]).slice(1).filter((a) => a.startsWith('--'));
  return [...m[1].split(/\s+/).filter(Boolean), ...flags];
}

/** Peak resident set size of this process so far, in MB (Linux VmHWM). */
export async function peakRssMb(): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile('/proc/self/status', 'utf8');
  const m = /VmHWM:\s+(\d+) kB/.exec(status);
  return m ? Number(m[1]) / 1024 : process.memoryUsage().rss / 1048576;
}

const compiled = new Map<string, Promise<string>>();

/**
 * A benchmark's child-process script as compiled JavaScript, like the production image runs (no tsx): `entry`
 * (bench/support/<name>.ts) and the src/ it imports bundled by esbuild (types stripped, as tsc does) into
 * bench/.data/<name>, next to node_modules for the packages; split into chunks at dynamic imports, so a script
 * loads only the code its mode uses. Built once per run.
 */
export function compiledScript(entry: string): Promise<string> {
  let script = compiled.get(entry);
  if (!script) {
    script = (async () => {
      const { build } = await import('esbuild');
      const name = basename(entry, '.ts');
      const outdir = join(dirname(fileURLToPath(import.meta.url)), '.data', name);
      await build({
        entryPoints: [entry],
        outdir,
        outExtension: { '.js': '.mjs' },
        bundle: true,
        splitting: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        packages: 'external',
        logLevel: 'warning',
      });
      return join(outdir, `${name}.mjs`);
    })();
    compiled.set(entry, script);
  }
  return script;
}

/** Median of a few runs: steadier than the mean on a shared machine. */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
