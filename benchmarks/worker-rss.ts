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
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { isMainThread, Worker } from 'node:worker_threads';
import { BENCH, buildDist } from './lib/service.ts';

const KINDS = ['empty', 'client', 'deps', 'runner', 'runner-ylim'] as const;
type Kind = (typeof KINDS)[number];

function workerSource(kind: Kind, runnerUrl: string): string {
  const imports: string[] = [];
  if (kind !== 'empty') imports.push(`await import('@modelcontextprotocol/client');`);
  if (kind !== 'empty' && kind !== 'client') imports.push(...['execa', 'pino', 'comlink', 'rate-limiter-flexible'].map((m) => `await import('${m}');`));
  if (kind.startsWith('runner')) imports.push(`await import(${JSON.stringify(runnerUrl)});`);
  return `const { parentPort } = await import('node:worker_threads');\n${imports.join('\n')}\nparentPort.postMessage('ready');\nparentPort.on('message', () => process.exit(0));\n`;
}

const rssMB = () => process.memoryUsage().rss / 1e6;

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
  await child(process.argv[3] as Kind, Number(process.argv[4]), process.argv[5]!);
} else if (isMainThread) {
  const n = Number(process.argv[2] ?? 10);
  const runnerUrl = pathToFileURL(path.join(path.dirname(buildDist()), '../lib/backend/runner.js')).href;
  const rows: Record<string, unknown>[] = [];
  for (const kind of KINDS) {
    // Plain node for the measured process (no tsx loader in it or its workers).
    const out = spawnSync(process.execPath, ['--import', 'tsx', path.join(BENCH, 'worker-rss.ts'), '--child', kind, String(n), runnerUrl], { encoding: 'utf8', timeout: 120_000 });
    if (out.status !== 0) throw new Error(`${kind}: ${out.stderr}`);
    const r = JSON.parse(out.stdout.trim().split('\n').pop()!) as { perWorkerMB: number; beforeMB: number; afterMB: number; startMs: number };
    rows.push({ kind, workers: n, 'process RSS before MB': +r.beforeMB.toFixed(1), 'after MB': +r.afterMB.toFixed(1), 'per worker MB': +r.perWorkerMB.toFixed(1), [`ms to start all ${n}`]: Math.round(r.startMs) });
  }
  console.table(rows);
}
