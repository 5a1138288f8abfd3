// Bundles each worker entry into one ES module under build/workers/. A backend worker then
// loads one file instead of resolving and compiling a few hundred modules (and no tsx):
// less memory and a faster start per backend (see benchmarks/README.md).
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
await build({
  absWorkingDir: root,
  entryPoints: { backend: 'workers/backend.ts', hub: 'workers/hub.ts', config: 'workers/config.ts', tokens: 'workers/tokens.ts' },
  outdir: 'build/workers',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
  // Loaded from node_modules: jsonc-parser's entry is a UMD module that requires its parts by
  // computed paths, and piscina finds its own worker file next to itself.
  external: ['jsonc-parser', 'piscina'],
  // CommonJS dependencies inside an ES module bundle still call require().
  banner: { js: "import { createRequire as __agentCreateRequire } from 'node:module'; const require = __agentCreateRequire(import.meta.url);" },
});
