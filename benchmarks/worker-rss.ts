// Diagnostic, not part of `npm run bench`: where a backend worker's RSS goes. For each kind of
// worker it starts a fresh process that starts N workers of that kind, lets them settle, and
// reports (RSS after − RSS before) / N of that process (children excluded; no backend spawned)
// and how long starting all N at once took (module loading is CPU-bound: on 2 cores it queues).
//
//   node --import tsx benchmarks/worker-rss.ts [N]
//
// Kinds, each adding to the previous one:
//   empty        a worker thread that loads nothing (the isolate, its heap and Node's bootstrap)
//   client       + import '@modelcontextprotocol/client' (the v2 SDK client, zod, ajv ...)
//   deps         + the worker's other packages: execa, pino, comlink, rate-limiter-flexible
//   runner       + the product's worker modules (the build's lib/backend/runner.js graph)
//   runner-ylim  runner with resourceLimits { maxYoungGenerationSizeMb: 4 }
// and the real backend worker (issue 14), through workers/script-loader.cjs as the service runs it,
// each connected to a healthy fixture (the fixtures' own memory is not counted):
//   bundle       build/workers/backend.cjs, no code cache
//   bundle-cache the same, given the code cache a first worker made after its connect
//
//   node --import tsx benchmarks/worker-rss.ts [N] [kind,...] [--young <MB>,...]
// `--young` runs each bundle kind once per young-generation size (0 = V8's default).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { isMainThread, Worker } from 'node:worker_threads';
import { checkArgs } from './lib/args.ts';
import { backendWorkerData } from './lib/backend-worker-data.ts';
import { BENCH, buildDist, bundleWorkers } from './lib/service.ts';

const KINDS = ['empty', 'client', 'deps', 'runner', 'runner-ylim', 'bundle', 'bundle-cache'] as const;
type Kind = (typeof KINDS)[number];

function workerSource(kind: Kind, runnerUrl: string): string {
  const imports: string[] = [];
  if (kind !== 'empty') imports.push(`await import('@modelcontextprotocol/client');`);
  if (kind !== 'empty' && kind !== 'client') imports.push(...['execa', 'pino', 'comlink', 'rate-limiter-flexible'].map((m) => `await import('${m}');`));
  if (kind.startsWith('runner')) imports.push(`await import(${JSON.stringify(runnerUrl)});`);
  return `const { parentPort } = await import('node:worker_threads');\n${imports.join('\n')}\nparentPort.postMessage('ready');\nparentPort.on('message', () => process.exit(0));\n`;
}

const rssMB = () => process.memoryUsage().rss / 1e6;

// One backend worker as the service starts it, connected to a healthy fixture; resolves with the
// worker once connected (and the code cache it made, when it made one).
async function backendWorker(i: number, young: number, cache: SharedArrayBuffer | null, make: boolean): Promise<{ worker: Worker; made: SharedArrayBuffer | null; codeCache: unknown }> {
  const { workerEntry } = await import('../lib/shared/worker-entry.ts');
  const entry = workerEntry('backend');
  const loader = entry.workerData.loader as { bundle: string } | undefined;
  if (!loader) throw new Error('no backend bundle (npm run bundle)');
  const { workerData, api: apiPort, transferList } = await backendWorkerData(`w${i}`, { bundle: loader.bundle, cache, cacheFile: null, make });
  const worker = new Worker(entry.file, { execArgv: [], workerData, transferList, ...(young ? { resourceLimits: { maxYoungGenerationSizeMb: young } } : {}) });
  const { wrap } = await import('comlink');
  const { default: nodeEndpoint } = await import('comlink/dist/esm/node-adapter.mjs');
  const api = wrap<{ start(): Promise<void> }>(nodeEndpoint(apiPort));
  let made: SharedArrayBuffer | null = null;
  let codeCache: unknown = null;
  await new Promise<void>((resolve, reject) => {
    worker.on('message', (event: { type: string; data?: SharedArrayBuffer; codeCache?: unknown }) => {
      if (event.type === 'ready') {
        codeCache = event.codeCache;
        void api.start();
      }
      if (event.type === 'codeCache') made = event.data!;
      if (event.type === 'connected') setTimeout(resolve, make ? 300 : 0);
      if (event.type === 'failed') reject(new Error(`w${i} failed`));
    });
    worker.once('error', reject);
  });
  return { worker, made, codeCache };
}

async function bundleChild(kind: Kind, n: number, young: number): Promise<void> {
  let cache: SharedArrayBuffer | null = null;
  if (kind === 'bundle-cache') {
    const first = await backendWorker(-1, young, null, true);
    cache = first.made;
    await first.worker.terminate();
    if (!cache) throw new Error('the first worker made no code cache');
  }
  await new Promise((r) => setTimeout(r, 500));
  const before = rssMB();
  const t0 = performance.now();
  const workers = await Promise.all(Array.from({ length: n }, (_, i) => backendWorker(i, young, cache, false)));
  const startMs = performance.now() - t0;
  await new Promise((r) => setTimeout(r, 1000));
  // WORKER_RSS_GC=1: a full GC in every worker first (a heap snapshot forces one): what an idle worker would hold after one.
  if (process.env.WORKER_RSS_GC === '1') {
    for (const w of workers) await new Promise<void>((resolve, reject) => void w.worker.getHeapSnapshot().then((s) => s.on('data', () => undefined).once('end', resolve), reject));
    await new Promise((r) => setTimeout(r, 500));
  }
  const after = rssMB();
  const outcomes = [...new Set(workers.map((w) => String(w.codeCache)))].join(',');
  for (const w of workers) await w.worker.terminate();
  process.stdout.write(JSON.stringify({ kind, n, young, beforeMB: before, afterMB: after, perWorkerMB: (after - before) / n, startMs, outcomes, cacheKB: cache ? cache.byteLength / 1024 : 0 }) + '\n');
}

async function child(kind: Kind, n: number, runnerUrl: string): Promise<void> {
  // A file inside the project, so bare specifiers resolve from its node_modules.
  const file = path.join(BENCH, '.tmp', `worker-rss-${kind}.mjs`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, workerSource(kind, runnerUrl));
  await new Promise((r) => setTimeout(r, 300));
  const before = rssMB();
  // All N at once, as the service starts its backends; time until every one has loaded.
  const t0 = performance.now();
  const workers = await Promise.all(
    Array.from({ length: n }, async () => {
      // execArgv: [] so the workers do not inherit this process's `--import tsx`.
      const worker = new Worker(file, { execArgv: [], ...(kind === 'runner-ylim' ? { resourceLimits: { maxYoungGenerationSizeMb: 4 } } : {}) });
      await new Promise<void>((resolve, reject) => {
        worker.once('message', () => resolve());
        worker.once('error', reject);
      });
      return worker;
    }),
  );
  const startMs = performance.now() - t0;
  await new Promise((r) => setTimeout(r, 1000));
  const after = rssMB();
  for (const w of workers) await w.terminate();
  process.stdout.write(JSON.stringify({ kind, n, beforeMB: before, afterMB: after, perWorkerMB: (after - before) / n, startMs }) + '\n');
}

if (isMainThread && process.argv[2] === '--child') {
  const kind = process.argv[3] as Kind;
  if (kind.startsWith('bundle')) await bundleChild(kind, Number(process.argv[4]), Number(process.argv[6] ?? 0));
  else await child(kind, Number(process.argv[4]), process.argv[5]!);
  process.exit(0);
} else if (isMainThread) {
  const args = process.argv.slice(2);
  checkArgs({ usage: 'node --import tsx benchmarks/worker-rss.ts [N, default 10] [kind,...] [--young <MB>,...]', options: ['--young'], positionals: 2 }, args);
  const youngAt = args.indexOf('--young');
  const youngs = youngAt === -1 ? [4] : args[youngAt + 1]!.split(',').map(Number);
  const rest = youngAt === -1 ? args : args.filter((_, i) => i !== youngAt && i !== youngAt + 1);
  const n = Number(rest[0] ?? 10);
  const kinds = (rest[1]?.split(',') ?? KINDS) as Kind[];
  const runnerUrl = pathToFileURL(path.join(path.dirname(buildDist()), '../lib/backend/runner.js')).href;
  bundleWorkers();
  const rows: Record<string, unknown>[] = [];
  for (const kind of kinds) {
    for (const young of kind.startsWith('bundle') ? youngs : [0]) {
      // Plain node for the measured process (no tsx loader in it or its workers).
      const out = spawnSync(process.execPath, ['--import', 'tsx', path.join(BENCH, 'worker-rss.ts'), '--child', kind, String(n), runnerUrl, String(young)], { encoding: 'utf8', timeout: 300_000 });
      if (out.status !== 0) throw new Error(`${kind}: ${out.stderr}`);
      const r = JSON.parse(out.stdout.trim().split('\n').pop()!) as { perWorkerMB: number; beforeMB: number; afterMB: number; startMs: number; outcomes?: string; cacheKB?: number };
      rows.push({
        kind,
        young: young || (kind.startsWith('bundle') ? 'default' : '-'),
        workers: n,
        'RSS before MB': +r.beforeMB.toFixed(1),
        'after MB': +r.afterMB.toFixed(1),
        'per worker MB': +r.perWorkerMB.toFixed(1),
        [`ms to start all ${n}`]: Math.round(r.startMs),
        cache: r.outcomes ?? '-',
        'cache KB': r.cacheKB ? Math.round(r.cacheKB) : '-',
      });
    }
  }
  console.table(rows);
  process.stdout.write(`load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
}
