/**
 * No Docker engine here, so the Dockerfile is checked structurally: multi-stage on Node 22+, every COPY source
 * exists and is not excluded by .dockerignore, a build stage compiles dist/ and the runtime ships it without
 * sources, the runtime stage drops root, and it starts `node bin/cdc.js run` (with node flags node accepts). bin/cdc.js's choice between dist/
 * and the sources is run against a stand-in tree.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const root = join(import.meta.dirname, '..', '..');
const text = readFileSync(join(root, 'Dockerfile'), 'utf8');
const ignore = readFileSync(join(root, '.dockerignore'), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));

interface Instr {
  op: string;
  args: string;
}
// Join continuation lines, drop comments.
const instrs: Instr[] = text
  .replace(/\\\n/g, ' ')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'))
  .map((l) => {
    const [op, ...rest] = l.split(/\s+/);
    return { op: op.toUpperCase(), args: rest.join(' ') };
  });
const stages: Instr[][] = [];
for (const i of instrs) {
  if (i.op === 'FROM') stages.push([]);
  stages.at(-1)?.push(i);
}

test('multi-stage build on Node 22+ images', () => {
  assert.ok(stages.length >= 2, 'at least a dependency stage and a runtime stage');
  for (const s of stages) {
    const major = /node:(\d+)[-.\w]*\b/.exec(s[0].args);
    assert.ok(major && Number(major[1]) >= 22, `FROM ${s[0].args}`);
  }
  const names = stages.map((s) => s[0].args.split(/\s+AS\s+/i)[1]).filter(Boolean);
  for (const s of stages)
    for (const i of s.filter((x) => x.op === 'COPY' && x.args.includes('--from=')))
      assert.ok(names.includes(/--from=(\S+)/.exec(i.args)![1]), `COPY ${i.args} names an earlier stage`);
  const deps = stages[0].filter((i) => i.op === 'RUN').map((i) => i.args);
  assert.ok(
    deps.some((r) => /npm ci\b.*--omit=dev/.test(r)),
    'production dependencies only',
  );
});

test('every COPY source from the build context exists and is not ignored', () => {
  const copies = instrs.filter((i) => (i.op === 'COPY' || i.op === 'ADD') && !i.args.includes('--from='));
  assert.ok(copies.length >= 3);
  const matches = (pat: string, p: string) => {
    const bare = pat.replace(/^\*\*\//, '').replace(/\/$/, '');
    if (bare.includes('*')) return new RegExp(`^${bare.replace(/\./g, '\\.').replace(/\*/g, '.*')}$`).test(p);
    return p === bare || p.startsWith(`${bare}/`);
  };
  // Docker's rule: the last matching pattern wins, and `!pattern` re-includes.
  const ignored = (p: string) =>
    ignore.reduce(
      (out, pat) => (pat.startsWith('!') ? (matches(pat.slice(1), p) ? false : out) : matches(pat, p) || out),
      false,
    );
  for (const c of copies) {
    const parts = c.args.split(/\s+/).filter((a) => !a.startsWith('--'));
    const sources = parts.slice(0, -1);
    assert.ok(sources.length > 0, `COPY ${c.args}`);
    for (const src of sources) {
      assert.ok(existsSync(join(root, src)), `${src} exists`);
      assert.ok(!ignored(src), `${src} is not excluded by .dockerignore`);
    }
  }
  for (const needed of ['node_modules', '.git', 'cdk.out', 'test'])
    assert.ok(
      ignore.some((p) => p.includes(needed)),
      needed,
    );
});

test('a build stage compiles dist/ and the runtime ships it, not the TypeScript sources', () => {
  const build = stages.find((s) => s.some((i) => i.op === 'RUN' && /npm run build\b/.test(i.args)));
  assert.ok(build, 'a stage runs npm run build');
  const buildName = build[0].args.split(/\s+AS\s+/i)[1];
  const runtime = stages.at(-1)!;
  const copies = runtime.filter((i) => i.op === 'COPY').map((i) => i.args);
  assert.ok(
    copies.some((c) => c.includes(`--from=${buildName}`) && /\/app\/dist\s+\.\/dist$/.test(c)),
    'runtime copies dist/ from the build stage',
  );
  assert.ok(!copies.some((c) => /(^|\s)src(\s|$)/.test(c)), 'no sources in the runtime image');
  assert.ok(!/--enable-source-maps/.test(text), 'tsc emits no source maps for the runtime to look up');
  const build_ = JSON.parse(readFileSync(join(root, 'tsconfig.build.json'), 'utf8')) as { include: string[] };
  assert.deepEqual(build_.include, ['src']);
  // Files src/ reads at run time (the vendored Vitess .proto files) must be in dist/ too: the image has no src/.
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  assert.match(pkg.scripts.build, /cpSync\('src', 'dist\/src'/);
});

test('bin/cdc.js runs dist/ when there are no sources (or CDC_COMPILED=1), else the sources through tsx', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cdc-bin-'));
  try {
    mkdirSync(join(dir, 'bin'));
    cpSync(join(root, 'bin', 'cdc.js'), join(dir, 'bin', 'cdc.js'));
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
    mkdirSync(join(dir, 'dist', 'src', 'cli'), { recursive: true });
    writeFileSync(
      join(dir, 'dist', 'src', 'cli', 'main.js'),
      'export async function main(a) { console.log("compiled " + a.join(" ")); return 0; }',
    );
    const run = (env: Record<string, string> = {}) => {
      const r = spawnSync(process.execPath, [join(dir, 'bin', 'cdc.js'), 'x', 'y'], {
        encoding: 'utf8',
        env: { ...process.env, CDC_COMPILED: '', ...env },
      });
      assert.equal(r.status, 0, r.stderr);
      return r.stdout.trim();
    };
    assert.equal(run(), 'compiled x y');
    mkdirSync(join(dir, 'src', 'cli'), { recursive: true });
    writeFileSync(
      join(dir, 'src', 'cli', 'main.ts'),
      'export async function main(a: string[]): Promise<number> { console.log("sources " + a.join(" ")); return 0; }',
    );
    assert.equal(run(), 'sources x y');
    assert.equal(run({ CDC_COMPILED: '1' }), 'compiled x y');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('package.json asks for Node 22+ (npm only warns on an older Node unless engine-strict)', () => {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines: { node: string } };
  assert.equal(pkg.engines.node, '>=22');
});

test('runtime stage runs as a non-root user and starts the capture', () => {
  const runtime = stages.at(-1)!;
  const users = runtime.filter((i) => i.op === 'USER').map((i) => i.args);
  assert.ok(users.length > 0, 'USER set in the runtime stage');
  assert.ok(!/^(root|0)(:|$)/.test(users.at(-1)!), `final USER ${users.at(-1)} is not root`);
  const userIdx = runtime.findIndex((i) => i.op === 'USER');
  assert.ok(!runtime.slice(userIdx).some((i) => i.op === 'RUN' && /\b(sudo|su)\b/.test(i.args)));
  const entry = JSON.parse(runtime.find((i) => i.op === 'ENTRYPOINT')!.args) as string[];
  const cmd = JSON.parse(runtime.find((i) => i.op === 'CMD')!.args) as string[];
  // node's own flags between `node` and the script (V8 flags NODE_OPTIONS does not accept): node must accept
  // them, or the container would not start.
  const flags = entry.slice(1).filter((a) => a.startsWith('--'));
  assert.deepEqual([...entry.filter((a) => !flags.includes(a)), ...cmd], ['node', 'bin/cdc.js', 'run']);
  const accepted = spawnSync(process.execPath, [...flags, '-e', '0'], { encoding: 'utf8' });
  assert.equal(accepted.status, 0, `node ${flags.join(' ')}: ${accepted.stderr}`);
  assert.ok(existsSync(join(root, 'bin/cdc.js')));
  // A checkout without dist/ (npx cdc after npm ci) runs through tsx, so it stays a production dependency.
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  assert.ok(pkg.dependencies.tsx, 'tsx is a production dependency');
});

test("the old generation's initial size stays within the heap cap", () => {
  const runtime = stages.at(-1)!;
  const env = runtime
    .filter((i) => i.op === 'ENV')
    .map((i) => i.args)
    .join(' ');
  const nodeOptions = /NODE_OPTIONS="([^"]*)"/.exec(env)?.[1] ?? '';
  const entry = JSON.parse(runtime.find((i) => i.op === 'ENTRYPOINT')!.args) as string[];
  const flags = [...nodeOptions.split(/\s+/), ...entry];
  const mb = (name: string) => {
    const f = flags.find((a) => a.startsWith(`--${name}=`));
    return f === undefined ? undefined : Number(f.slice(name.length + 3));
  };
  const max = mb('max-old-space-size');
  const initial = mb('initial-old-space-size');
  assert.ok(max !== undefined && max > 0, 'NODE_OPTIONS caps the old generation');
  // A larger start would let the heap pass the cap that keeps RSS bounded before the first mark-compact.
  if (initial !== undefined) assert.ok(initial > 0 && initial <= max, `initial ${initial} <= max ${max} MB`);
});
