// Bundles each worker entry into one file under build/workers/. A worker then loads one file
// instead of resolving and compiling a few hundred modules (and no tsx): less memory and a faster
// start per backend (see benchmarks/README.md).
//
// The backend worker, of which a service runs one per backend, is a CommonJS script
// (backend.cjs): workers/script-loader.cjs compiles it with one V8 code cache shared by every
// worker (lib/main/code-cache.ts), which an ES module cannot be given. Its JSON-schema validator
// (ajv) is a bundle of its own, ajv-validator.cjs, loaded on first use (lib/backend/bundle/).
//
// A bundle is replaced only when its bytes change, by a rename: a service running beside this
// script (npm start while tests run, a second checkout's build) never reads a half-written file,
// and an unchanged bundle keeps its modification time, which names its code cache. One that is
// unchanged but older than a source is touched, so lib/shared/worker-entry.ts finds it fresh.
// Run it with `node --import tsx` (package.json does): it reads that rule from worker-entry.ts.
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { lazySchemas } from './lazy-schemas.mjs';
import { sdkShims } from './sdk-shims-plugin.mjs';
import { newestWorkerSource } from '../lib/shared/worker-entry.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const newestSource = newestWorkerSource();
const common = {
  absWorkingDir: root,
  write: false,
  bundle: true,
  platform: 'node',
  target: 'node20',
  // AGENT_BUNDLE_NO_MINIFY=1 keeps names for a profile (benchmarks/README.md).
  minify: !process.env.AGENT_BUNDLE_NO_MINIFY,
  legalComments: 'none',
  logLevel: 'warning',
};

const hubs = await build({
  ...common,
  entryPoints: { hub: 'workers/hub.ts', config: 'workers/config.ts', tokens: 'workers/tokens.ts' },
  outdir: 'build/workers',
  outExtension: { '.js': '.mjs' },
  format: 'esm',
  // Loaded from node_modules: jsonc-parser's entry is a UMD module that requires its parts by
  // computed paths, and piscina finds its own worker file next to itself.
  external: ['jsonc-parser', 'piscina'],
  // The hub builds only the SDK schemas it uses (lib/shared/lazy-schema.ts).
  plugins: [lazySchemas],
  // CommonJS dependencies inside an ES module bundle still call require().
  banner: { js: "import { createRequire as __agentCreateRequire } from 'node:module'; const require = __agentCreateRequire(import.meta.url);" },
});

const backend = await build({
  ...common,
  entryPoints: { backend: 'workers/backend.ts' },
  outdir: 'build/workers',
  outExtension: { '.js': '.cjs' },
  format: 'cjs',
  external: ['./ajv-validator.cjs'],
  plugins: [sdkShims, lazySchemas],
  // The loader passes __filename; lib/shared/version.ts finds package.json from import.meta.url.
  define: { 'import.meta.url': '__agentImportMetaUrl' },
  banner: { js: 'var __agentImportMetaUrl=require("node:url").pathToFileURL(__filename).href;' },
  metafile: true,
});
const ajv = await build({
  ...common,
  entryPoints: { 'ajv-validator': 'lib/backend/bundle/ajv-validator.ts' },
  outdir: 'build/workers',
  outExtension: { '.js': '.cjs' },
  format: 'cjs',
});
for (const file of [hubs, backend, ajv].flatMap((result) => result.outputFiles)) replaceIfChanged(file.path, file.contents);
// What the backend bundle holds, by input (benchmarks/README.md reads it).
replaceIfChanged(path.join(root, 'build/workers/backend.meta.json'), Buffer.from(JSON.stringify(backend.metafile)));
// An ES module bundle of the backend from an older build would be taken for this one.
fs.rmSync(new URL('../build/workers/backend.mjs', import.meta.url), { force: true });

function replaceIfChanged(file, contents) {
  let current = null;
  try {
    current = fs.readFileSync(file);
  } catch {
    /* not built yet */
  }
  if (current && Buffer.compare(current, contents) === 0) {
    if (fs.statSync(file).mtimeMs < newestSource) fs.utimesSync(file, new Date(), new Date());
    return;
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, contents);
  fs.renameSync(temporary, file);
}

