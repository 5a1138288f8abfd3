// The floor of "N backends ready ÷ the plain script" (issue 14) for a design with a worker thread
// per backend: in turns, the plain script's way (every SDK client on one thread), the same plus
// one empty worker thread per backend, and each SDK client in a worker of its own compiled from a
// bundle with a shared code cache (floor/spawn.mjs), once per handshake. What is left between the
// `sdk` row and the service (scale.ts) is the service's own doing; the `empty` row is what no
// worker-per-backend design can go below on this machine.
//
//   node --import tsx benchmarks/startup-floor.ts [--backends 50] [--rounds 3] [--concurrency 2]
//                                                  [--handshake service,initialize]
import { build } from 'esbuild';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { lazySchemas } from '../scripts/lazy-schemas.mjs';
import { sdkShims } from '../scripts/sdk-shims-plugin.mjs';
import { scriptArgs } from './lib/args.ts';
import { BENCH, FIXTURES, ROOT, runScript } from './lib/service.ts';
import { round } from './lib/stats.ts';

const usage = 'node --import tsx benchmarks/startup-floor.ts [--backends 50] [--rounds 3] [--concurrency 2] [--handshake service,initialize]';
const args = scriptArgs({ usage, options: ['--backends', '--rounds', '--concurrency', '--handshake'] });
const backends = args.number('--backends', 50);
const rounds = args.number('--rounds', 3);
const concurrency = args.number('--concurrency', 2);
const handshakes = (args.text('--handshake') ?? 'service,initialize').split(',');
for (const h of handshakes) if (h !== 'service' && h !== 'initialize') throw new Error(`--handshake: expected service and/or initialize, got ${JSON.stringify(h)}`);

// The sdk worker's bundle, made as the service's backend bundle is (minified, CommonJS, lazy schemas).
const bundle = path.join(BENCH, '.tmp', 'floor', 'sdk-worker.cjs');
await build({
  absWorkingDir: ROOT,
  entryPoints: [path.join(BENCH, 'floor', 'sdk-worker.mjs')],
  outfile: bundle,
  bundle: true,
  platform: 'node',
  target: 'node20',
  minify: true,
  format: 'cjs',
  legalComments: 'none',
  logLevel: 'warning',
  external: ['./ajv-validator.cjs'],
  plugins: [sdkShims, lazySchemas],
});
// The validator shim loads ./ajv-validator.cjs beside the bundle when an output schema is used.
fs.copyFileSync(path.join(ROOT, 'build', 'workers', 'ajv-validator.cjs'), path.join(path.dirname(bundle), 'ajv-validator.cjs'));

const marker = `bench-startup-floor-${process.pid}-${Date.now().toString(36)}`;
type Run = { kind: string; count: number; connectMs: number; cpuMs: number };
const kinds = [
  { kind: 'plain', args: [] as string[] },
  { kind: 'empty', args: [] as string[] },
  { kind: 'sdk', args: ['--bundle', bundle, '--concurrency', String(concurrency)] },
];
const results = new Map<string, { ms: number[]; cpu: number[] }>();
for (let r = 1; r <= rounds; r++) {
  for (const handshake of handshakes) {
    for (const k of kinds) {
      const run = await runScript<Run>(path.join(BENCH, 'floor', 'spawn.mjs'), ['--kind', k.kind, '--handshake', handshake, ...k.args, String(backends), FIXTURES.healthy, marker], 300_000);
      if (run.result.count !== backends) throw new Error(`${k.kind}: ${run.result.count} of ${backends} backends`);
      const key = `${handshake}\0${k.kind}`;
      const seen = results.get(key) ?? { ms: [], cpu: [] };
      seen.ms.push(run.result.connectMs);
      seen.cpu.push(run.result.cpuMs);
      results.set(key, seen);
      process.stderr.write(`round ${r}  ${handshake.padEnd(10)} ${k.kind.padEnd(5)} ${Math.round(run.result.connectMs)} ms, ${Math.round(run.result.cpuMs)} ms CPU  load ${os.loadavg()[0]!.toFixed(1)}\n`);
    }
  }
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const rows = [...results].map(([key, { ms, cpu }]) => {
  const [handshake, kind] = key.split('\0') as [string, string];
  const plain = results.get(`${handshake}\0plain`)!;
  return {
    handshake,
    kind,
    'ready ms (mean)': Math.round(mean(ms)),
    '÷ plain, per round': ms.map((m, i) => round(m / plain.ms[i]!, 2)).join(' / '),
    'own CPU ms per backend': round(mean(cpu) / backends, 1),
  };
});
process.stdout.write(`${backends} backends, ${rounds} rounds in turns; sdk workers start ${concurrency} at a time (the service's default)\n`);
console.table(rows);
