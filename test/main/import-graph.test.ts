// The main thread is the probe path: nothing it loads may pull in the MCP SDK, zod, or code
// meant for a hub or a backend worker (decisions §1). This walks every runtime import (static and
// dynamic; `import type` is erased and skipped) from the command line entry and from every
// main-thread, control and shared module, and fails naming the chain that reaches one.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runtimeImports } from '../helpers/imports.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FORBIDDEN_PACKAGES = [/^@modelcontextprotocol\//, /^zod(\/|$)/];
const FORBIDDEN_DIRS = ['lib/hub/', 'lib/backend/', 'workers/'];

// `dynamic: false` follows only what loads with the entry (bin/agent.ts loads the `agent mcp`
// commands only when one of them runs, in its own process).
function walk(entry: string, options: { dynamic?: boolean } = {}): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  const visit = (file: string, chain: string[]) => {
    if (seen.has(file)) return;
    seen.add(file);
    const relative = path.relative(ROOT, file);
    if (FORBIDDEN_DIRS.some((dir) => relative.startsWith(dir))) {
      problems.push([...chain, relative].join(' → '));
      return;
    }
    for (const specifier of runtimeImports(fs.readFileSync(file, 'utf8'), options)) {
      if (!specifier.startsWith('.')) {
        if (FORBIDDEN_PACKAGES.some((p) => p.test(specifier))) problems.push([...chain, relative, specifier].join(' → '));
        continue;
      }
      visit(path.resolve(path.dirname(file), specifier), [...chain, relative]);
    }
  };
  visit(entry, []);
  return problems;
}

const mainThreadModules = ['lib/main', 'lib/control', 'lib/shared'].flatMap((dir) =>
  fs.readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts')).map((f) => path.join(ROOT, dir, f)),
);

test('import graph :: the scanner sees static, dynamic and re-exported imports, not type-only ones', () => {
  const source = `import a from './a.ts';\nimport type { B } from './b.ts';\nimport { type C, d } from './c.ts';\nexport { e } from './e.ts';\nexport type { F } from './f.ts';\nimport './g.ts';\nconst h = await import('./h.ts');\nimport {\n  i,\n} from 'zod';`;
  assert.equal(runtimeImports(source).sort(), ['./a.ts', './c.ts', './e.ts', './g.ts', './h.ts', 'zod']);
});

test('import graph :: a type declaration before an import does not hide it; an import of types only still loads its module', () => {
  const source = `export type Probe = 1;\nimport { startHub } from '../hub/hub.ts';\nimport { type Only } from './only.ts';\nconst s = "import x from './in-a-string.ts'";`;
  assert.equal(runtimeImports(source).sort(), ['../hub/hub.ts', './only.ts']);
});

test('import graph :: `agent serve` on the main thread loads no SDK, no zod, no hub or worker code', () => {
  assert.equal(walk(path.join(ROOT, 'bin/agent.ts'), { dynamic: false }), []);
});

// Modules that import each other, even for types only, are one module in two files: the layout
// (issue 13) keeps every folder's dependencies one way.
test('import graph :: no import cycles among lib/ and workers/ modules, type-only imports included', () => {
  const modules = ['lib', 'workers'].flatMap((dir) =>
    fs.readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts')).map((f) => path.join(ROOT, dir, f)),
  );
  const edges = new Map(
    modules.map((file) => [file, runtimeImports(fs.readFileSync(file, 'utf8'), { types: true }).filter((s) => s.startsWith('.')).map((s) => path.resolve(path.dirname(file), s))]),
  );
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (file: string, chain: string[]) => {
    if (state.get(file) === 'done') return;
    if (state.get(file) === 'open') {
      cycles.push([...chain.slice(chain.indexOf(file)), file].map((f) => path.relative(ROOT, f)).join(' → '));
      return;
    }
    state.set(file, 'open');
    for (const next of edges.get(file) ?? []) visit(next, [...chain, file]);
    state.set(file, 'done');
  };
  for (const file of modules) visit(file, []);
  assert.equal(cycles, []);
});

for (const file of mainThreadModules) {
  test(`import graph :: ${path.relative(ROOT, file)} stays off the SDK, zod, hub and worker code`, () => {
    assert.equal(walk(file), []);
  });
}

test.run();
