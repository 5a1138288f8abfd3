// Diagnostic (issue 14, not part of `npm run bench`): where one idle backend worker's memory goes.
// Starts one backend worker the way the service does (workers/script-loader.cjs, the backend
// bundle), connected to a healthy fixture, lets it settle, then reads
//   - /proc/self/smaps_rollup of this process before the worker and after it (the difference is
//     the worker: its heap, code, thread stack, malloc arenas);
//   - the worker's V8 heap snapshot (worker.getHeapSnapshot()), summed by constructor (self
//     size) and by module: each function's closure, shared info, bytecode and feedback go to the
//     module its source lies in, found from a readable (unminified) build of the same bundle
//     whose `// <path>` markers say where each module starts.
//
//   node --import tsx benchmarks/worker-heap.ts [--minified] [--keep]
// --minified measures the shipped bundle (the module breakdown is then unavailable); --keep
// leaves the .heapsnapshot under benchmarks/.tmp.
import { build } from 'esbuild';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { checkArgs } from './lib/args.ts';
import { backendWorkerData } from './lib/backend-worker-data.ts';
import { BENCH, bundleWorkers, ROOT } from './lib/service.ts';

const TMP = path.join(BENCH, '.tmp', 'worker-heap');

// The backend bundle again, readable, with the same shims (scripts/bundle-workers.mjs).
async function readableBundle(): Promise<string> {
  fs.mkdirSync(TMP, { recursive: true });
  const shims = path.join(ROOT, 'lib/backend/bundle/sdk-shims.ts');
  await build({
    absWorkingDir: ROOT,
    entryPoints: { backend: 'workers/backend.ts' },
    outdir: TMP,
    outExtension: { '.js': '.cjs' },
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    external: ['./ajv-validator.cjs'],
    plugins: [{ name: 'sdk-shims', setup: (b) => b.onResolve({ filter: /^@modelcontextprotocol\/client\/_shims$/ }, () => ({ path: shims })) }],
    define: { 'import.meta.url': '__agentImportMetaUrl' },
    banner: { js: 'var __agentImportMetaUrl=require("node:url").pathToFileURL(__filename).href;' },
    logLevel: 'warning',
  });
  fs.copyFileSync(path.join(ROOT, 'build/workers/ajv-validator.cjs'), path.join(TMP, 'ajv-validator.cjs'));
  return path.join(TMP, 'backend.cjs');
}

function smapsRollup(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of fs.readFileSync('/proc/self/smaps_rollup', 'utf8').split('\n')) {
    const m = /^(\w+):\s+(\d+) kB/.exec(line);
    if (m) out[m[1]!] = Number(m[2]);
  }
  return out;
}

async function startWorker(bundle: string): Promise<Worker> {
  const { wrap } = await import('comlink');
  const { default: nodeEndpoint } = await import('comlink/dist/esm/node-adapter.mjs');
  fs.mkdirSync(TMP, { recursive: true });
  const { workerData, api: apiPort, transferList } = await backendWorkerData('heap', { bundle, cache: null, cacheFile: null, make: false });
  // The loader, behind a wrapper that answers 'heap-stats' with the worker's own V8 heap figures.
  const wrapper = path.join(TMP, 'heap-wrapper.mjs');
  fs.writeFileSync(
    wrapper,
    `import v8 from 'node:v8';\nimport { parentPort } from 'node:worker_threads';\nparentPort.on('message', (m) => { if (m === 'heap-stats') parentPort.postMessage({ type: 'heapStats', heap: v8.getHeapStatistics(), spaces: v8.getHeapSpaceStatistics() }); });\nawait import(${JSON.stringify(pathToFileURL(path.join(ROOT, 'workers/script-loader.cjs')).href)});\n`,
  );
  const worker = new Worker(wrapper, {
    execArgv: [],
    workerData,
    transferList,
    resourceLimits: { maxYoungGenerationSizeMb: Number(process.env.WORKER_HEAP_YOUNG ?? 4) || undefined },
  });
  const api = wrap<{ start(): Promise<void> }>(nodeEndpoint(apiPort));
  await new Promise<void>((resolve, reject) => {
    worker.on('message', (event: { type: string }) => {
      if (event.type === 'ready') void api.start();
      if (event.type === 'connected') resolve();
      if (event.type === 'failed') reject(new Error('the backend failed to connect'));
    });
    worker.once('error', reject);
  });
  return worker;
}

type Snapshot = {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]]; edge_fields: string[]; edge_types: [string[], ...unknown[]]; location_fields?: string[] } };
  nodes: number[];
  edges: number[];
  strings: string[];
  locations?: number[];
};

// Module start lines of a readable esbuild bundle: its `// path` comments.
function moduleStarts(bundleText: string): { line: number; module: string }[] {
  const starts: { line: number; module: string }[] = [];
  bundleText.split('\n').forEach((text, i) => {
    const m = /^\/\/ (\S*(?:node_modules|lib|workers)\/\S+)$/.exec(text);
    if (m) starts.push({ line: i, module: m[1]! });
  });
  return starts;
}

function moduleOf(path_: string): string {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path_);
  if (m) return m[1]!;
  return path_.startsWith('lib/') || path_.startsWith('workers/') ? `(agent) ${path_.split('/').slice(0, 2).join('/')}` : path_;
}

function analyse(snap: Snapshot, starts: { line: number; module: string }[] | null) {
  const meta = snap.snapshot.meta;
  const nf = meta.node_fields.length;
  const ef = meta.edge_fields.length;
  const nType = meta.node_fields.indexOf('type');
  const nName = meta.node_fields.indexOf('name');
  const nSelf = meta.node_fields.indexOf('self_size');
  const nEdges = meta.node_fields.indexOf('edge_count');
  const eType = meta.edge_fields.indexOf('type');
  const eName = meta.edge_fields.indexOf('name_or_index');
  const eTo = meta.edge_fields.indexOf('to_node');
  const nodeTypes = meta.node_types[0];
  const edgeTypes = meta.edge_types[0];
  const count = snap.nodes.length / nf;
  const firstEdge = new Uint32Array(count + 1);
  for (let i = 0, e = 0; i < count; i++) {
    firstEdge[i] = e;
    e += snap.nodes[i * nf + nEdges]! * ef;
    firstEdge[i + 1] = e;
  }
  const self = (i: number) => snap.nodes[i * nf + nSelf]!;
  const typeOf = (i: number) => nodeTypes[snap.nodes[i * nf + nType]!]!;
  const nameOf = (i: number) => snap.strings[snap.nodes[i * nf + nName]!]!;
  let total = 0;
  const byConstructor = new Map<string, { bytes: number; count: number }>();
  for (let i = 0; i < count; i++) {
    const t = typeOf(i);
    const key = t === 'object' || t === 'native' ? nameOf(i) : t === 'code' || t === 'hidden' || t === 'array' ? `(${t}) ${nameOf(i).slice(0, 40)}` : `(${t})`;
    const entry = byConstructor.get(key) ?? { bytes: 0, count: 0 };
    entry.bytes += self(i);
    entry.count++;
    byConstructor.set(key, entry);
    total += self(i);
  }
  // Functions by module: the closure, its SharedFunctionInfo and what that holds (bytecode,
  // scope info, feedback metadata), and the closure's feedback cell and vector.
  const byModule = new Map<string, number>();
  if (starts && snap.locations && meta.location_fields) {
    const lf = meta.location_fields.length;
    const lObj = meta.location_fields.indexOf('object_index');
    const lLine = meta.location_fields.indexOf('line');
    const lScript = meta.location_fields.indexOf('script_id');
    const scriptIds = new Map<number, number>();
    for (let l = 0; l < snap.locations.length; l += lf) {
      const id = snap.locations[l + lScript]!;
      scriptIds.set(id, (scriptIds.get(id) ?? 0) + 1);
    }
    // The bundle is the script with the most functions.
    const bundleScript = [...scriptIds.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
    const counted = new Uint8Array(count);
    // What a function owns: its internal (code, hidden, array) objects, a few steps deep, each counted once.
    const OWNED = new Set(['code', 'hidden', 'array']);
    const walk = (i: number, depth: number): number => {
      if (counted[i]) return 0;
      counted[i] = 1;
      let bytes = self(i);
      if (depth === 3) return bytes;
      for (let e = firstEdge[i]!; e < firstEdge[i + 1]!; e += ef) {
        const kind = edgeTypes[snap.edges[e + eType]!];
        if (kind === 'weak' || kind === 'shortcut') continue;
        const name = kind === 'element' || kind === 'hidden' ? '' : snap.strings[snap.edges[e + eName]!];
        if (name === 'context') continue;
        const to = snap.edges[e + eTo]! / nf;
        if (OWNED.has(typeOf(to))) bytes += walk(to, depth + 1);
      }
      return bytes;
    };
    for (let l = 0; l < snap.locations.length; l += lf) {
      if (snap.locations[l + lScript] !== bundleScript) continue;
      const node = snap.locations[l + lObj]! / nf;
      const line = snap.locations[l + lLine]!;
      let lo = 0;
      let hi = starts.length - 1;
      let found = -1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        if (starts[mid]!.line <= line) {
          found = mid;
          lo = mid + 1;
        } else hi = mid - 1;
      }
      const module = found === -1 ? '(bundle prologue)' : moduleOf(starts[found]!.module);
      byModule.set(module, (byModule.get(module) ?? 0) + walk(node, 0));
    }
  }
  return { total, byConstructor, byModule };
}

const KB = (n: number) => Math.round(n / 1024);

async function main(): Promise<void> {
  checkArgs({ usage: 'node --import tsx benchmarks/worker-heap.ts [--minified] [--keep]', flags: ['--minified', '--keep'] });
  const minified = process.argv.includes('--minified');
  bundleWorkers();
  const bundle = minified ? path.join(ROOT, 'build/workers/backend.cjs') : await readableBundle();
  await new Promise((r) => setTimeout(r, 300));
  const before = smapsRollup();
  const worker = await startWorker(bundle);
  await new Promise((r) => setTimeout(r, 2_000));
  const after = smapsRollup();
  const stats = await new Promise<{ heap: Record<string, number>; spaces: { space_name: string; space_size: number; space_used_size: number; physical_space_size: number }[] }>((resolve) => {
    const onMessage = (m: { type: string }) => {
      if (m.type !== 'heapStats') return;
      worker.off('message', onMessage);
      resolve(m as never);
    };
    worker.on('message', onMessage);
    worker.postMessage('heap-stats');
  });
  const file = path.join(TMP, `worker-${Date.now()}.heapsnapshot`);
  fs.mkdirSync(TMP, { recursive: true });
  await new Promise<void>((resolve, reject) => {
    void worker.getHeapSnapshot().then((stream) => stream.pipe(fs.createWriteStream(file)).once('finish', resolve).once('error', reject), reject);
  });
  await worker.terminate();
  const snap = JSON.parse(fs.readFileSync(file, 'utf8')) as Snapshot;
  const { total, byConstructor, byModule } = analyse(snap, minified ? null : moduleStarts(fs.readFileSync(bundle, 'utf8')));
  if (!process.argv.includes('--keep')) fs.rmSync(file);

  process.stdout.write(`\none idle backend worker, connected (${minified ? 'shipped bundle' : 'readable build of the same bundle'}); load average ${os.loadavg()[0]!.toFixed(2)}\n\n`);
  process.stdout.write('smaps_rollup of the process, kB: before the worker / after / difference\n');
  console.table(Object.keys(after).filter((k) => after[k] || before[k]).map((k) => ({ field: k, before: before[k] ?? 0, after: after[k] ?? 0, worker: (after[k] ?? 0) - (before[k] ?? 0) })));
  process.stdout.write('\nthe worker\'s V8 heap by space, KB (v8.getHeapSpaceStatistics in the worker)\n');
  console.table(stats.spaces.map((sp) => ({ space: sp.space_name, size: KB(sp.space_size), physical: KB(sp.physical_space_size), used: KB(sp.space_used_size) })));
  process.stdout.write(`heap total ${KB(stats.heap.total_heap_size!)} KB, physical ${KB(stats.heap.total_physical_size!)} KB, used ${KB(stats.heap.used_heap_size!)} KB, malloced ${KB(stats.heap.malloced_memory!)} KB (peak ${KB(stats.heap.peak_malloced_memory!)}), external ${KB(stats.heap.external_memory ?? 0)} KB\n`);
  process.stdout.write(`\nV8 heap snapshot: ${KB(total)} KB of objects (self sizes)\n`);
  console.table([...byConstructor.entries()].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, 25).map(([name, v]) => ({ constructor: name, KB: KB(v.bytes), count: v.count })));
  if (byModule.size) {
    const sum = [...byModule.values()].reduce((a, b) => a + b, 0);
    process.stdout.write(`\nfunctions by module (closure + shared info + bytecode + feedback): ${KB(sum)} KB\n`);
    console.table([...byModule.entries()].sort((a, b) => b[1] - a[1]).slice(0, 20).map(([module, bytes]) => ({ module, KB: KB(bytes) })));
  }
}

await main();
