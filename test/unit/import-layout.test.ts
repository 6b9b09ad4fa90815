/**
 * The layout of src/ as the imports draw it (docs/architecture.md): every seam imports downward, so the folders
 * form no cycle, and nothing under src/ imports test/ (the package must run without its tests).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';

const root = resolve(import.meta.dirname, '../..');
const src = join(root, 'src');

interface Import {
  from: string;
  to: string;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return tsFiles(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

/** Relative imports (static, dynamic and re-exports) of every file under src/, as repo-relative .ts paths. */
function imports(): Import[] {
  const out: Import[] = [];
  for (const file of tsFiles(src)) {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName } of info.importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = resolve(dirname(file), fileName).replace(/\.js$/, '.ts');
      out.push({ from: posix(relative(root, file)), to: posix(relative(root, target)) });
    }
  }
  return out;
}

function posix(p: string): string {
  return p.split(sep).join('/');
}

/** The seam a file belongs to: its top folder under src/, and `source/<kind>` for sources. */
function seamOf(path: string): string {
  const parts = path.split('/').slice(1, -1);
  if (parts.length === 0) return '(src)';
  return parts[0] === 'source' && parts.length > 1 ? `source/${parts[1]}` : parts[0];
}

/** Strongly connected groups of more than one seam (Tarjan), each with one file-level import per edge. */
function seamCycles(all: readonly Import[]): string[][] {
  const edges = new Map<string, Map<string, string>>();
  for (const i of all) {
    if (!i.to.startsWith('src/')) continue;
    const a = seamOf(i.from);
    const b = seamOf(i.to);
    if (a === b) continue;
    if (!edges.has(a)) edges.set(a, new Map());
    const out = edges.get(a) as Map<string, string>;
    if (!out.has(b)) out.set(b, `${i.from} -> ${i.to}`);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v) as number);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) groups.push(group);
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return groups.map((g) => {
    const members = new Set(g);
    return [...members].flatMap((a) =>
      [...(edges.get(a) ?? [])].filter(([b]) => members.has(b)).map(([b, example]) => `${a} -> ${b} (${example})`),
    );
  });
}

test('the folders under src/ import one another without cycles', () => {
  const all = imports();
  assert.ok(all.length > 500, `expected the imports of src/ to be found, found ${all.length}`);
  assert.deepEqual(seamCycles(all), []);
});

test('nothing under src/ imports test/ (the demo starts its servers from src/embedded)', () => {
  const all = imports();
  assert.ok(all.some((i) => i.from === 'src/cli/commands/demo.ts' && i.to === 'src/embedded/mariadb.ts'));
  assert.deepEqual(
    all.filter((i) => !i.to.startsWith('src/')).map((i) => `${i.from} -> ${i.to}`),
    [],
  );
});

test('the cycle finder reports a cycle between two seams', () => {
  const cycles = seamCycles([
    { from: 'src/events/a.ts', to: 'src/model/b.ts' },
    { from: 'src/model/b.ts', to: 'src/events/c.ts' },
    { from: 'src/engine/d.ts', to: 'src/events/a.ts' },
  ]);
  assert.equal(cycles.length, 1);
  assert.deepEqual(cycles[0].map((e) => e.split(' (')[0]).sort(), ['events -> model', 'model -> events']);
});
