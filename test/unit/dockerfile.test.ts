/**
 * No Docker engine here, so the Dockerfile is checked structurally: multi-stage on Node 20, every COPY source
 * exists and is not excluded by .dockerignore, the runtime stage drops root, and it starts `node bin/cdc.js run`.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
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

test('multi-stage build on Node 20 images', () => {
  assert.ok(stages.length >= 2, 'at least a dependency stage and a runtime stage');
  for (const s of stages) assert.match(s[0].args, /node:20[-.\w]*\b/, `FROM ${s[0].args}`);
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
  const ignored = (p: string) =>
    ignore.some((pat) => {
      const bare = pat.replace(/^\*\*\//, '').replace(/\/$/, '');
      if (bare.includes('*')) return new RegExp(`^${bare.replace(/\./g, '\\.').replace(/\*/g, '.*')}$`).test(p);
      return p === bare || p.startsWith(`${bare}/`);
    });
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

test('runtime stage runs as a non-root user and starts the capture', () => {
  const runtime = stages.at(-1)!;
  const users = runtime.filter((i) => i.op === 'USER').map((i) => i.args);
  assert.ok(users.length > 0, 'USER set in the runtime stage');
  assert.ok(!/^(root|0)(:|$)/.test(users.at(-1)!), `final USER ${users.at(-1)} is not root`);
  const userIdx = runtime.findIndex((i) => i.op === 'USER');
  assert.ok(!runtime.slice(userIdx).some((i) => i.op === 'RUN' && /\b(sudo|su)\b/.test(i.args)));
  const entry = JSON.parse(runtime.find((i) => i.op === 'ENTRYPOINT')!.args) as string[];
  const cmd = JSON.parse(runtime.find((i) => i.op === 'CMD')!.args) as string[];
  assert.deepEqual([...entry, ...cmd], ['node', 'bin/cdc.js', 'run']);
  assert.ok(existsSync(join(root, 'bin/cdc.js')));
  // The runtime needs tsx (bin/cdc.js registers it) as a production dependency.
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  assert.ok(pkg.dependencies.tsx, 'tsx is a production dependency');
});
