// Does loading a big mcp.json stall the probe path? `/health/live` is probed at 200 req/s
// (keep-alive) for 6 s while, after 2 s, mcp.json is replaced by a 7-8 MB file and the service
// reloads it; p99 and max of the probes before and after the swap (issue 13: "a 10 MB mcp.json
// must not stall a probe").
//
//   node --import tsx benchmarks/config-reload.ts [--kind disabled|many] [--runs 2]
//
// `disabled`: one disabled server with 200,000 args (a single big entry); `many`: 2,000 disabled
// servers of 100 args each. Not in `npm run bench`.
import path from 'node:path';
import { scriptArgs } from './lib/args.ts';
import { startReloadingService } from './lib/reloading-service.ts';
import { ROOT } from './lib/service.ts';
import { sleep } from './lib/stats.ts';

const args = scriptArgs({ usage: 'node --import tsx benchmarks/config-reload.ts [--kind disabled|many] [--runs 2]', options: ['--kind', '--runs'] });
const kind = args.text('--kind') ?? 'disabled';
const runs = args.number('--runs', 2);
const RATE = 200;
const SECONDS = 6;
const SWAP_AT = 2 * RATE;

const fixture = path.join(ROOT, 'test/fixtures/stdio-server.mjs');
const small = { fx: { command: process.execPath, args: [fixture] } };
const bigServers =
  kind === 'disabled'
    ? { big: { command: 'node', args: Array.from({ length: 200_000 }, (_, i) => `argument-number-${i}-padding-x`), disabled: true } }
    : Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`s${i}`, { command: 'node', args: Array.from({ length: 100 }, (_, j) => `argument-${j}-padding-padding`), disabled: true }]));
const bigText = JSON.stringify({ mcpServers: { ...small, ...bigServers } }, null, 1);
const quantile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;

async function once(): Promise<{ beforeP99: number; afterP99: number; afterMax: number; loadedAfterSwapMs: number | null }> {
  const svc = await startReloadingService('agent-config-reload-', { mcpServers: small });
  try {
    await sleep(1_500);
    let swapAt = 0;
    const samples = await svc.probe(RATE, SECONDS, (i) => {
      if (i !== SWAP_AT) return;
      swapAt = performance.now();
      svc.replace(bigText);
    });
    const before = samples.filter((s) => s.at < swapAt).map((s) => s.ms).sort((a, b) => a - b);
    const after = samples.filter((s) => s.at >= swapAt).map((s) => s.ms).sort((a, b) => a - b);
    return { beforeP99: quantile(before, 0.99), afterP99: quantile(after, 0.99), afterMax: after[after.length - 1] ?? Number.NaN, loadedAfterSwapMs: svc.loads() > 1 ? svc.lastLoadAt() - swapAt : null };
  } finally {
    await svc.stop();
  }
}

console.log(`${kind}: mcp.json of ${(Buffer.byteLength(bigText) / 1e6).toFixed(1)} MB, /health/live at ${RATE}/s`);
for (let run = 1; run <= runs; run++) {
  const r = await once();
  const ms = (n: number) => n.toFixed(1);
  console.log(`run ${run}: p99 before the swap ${ms(r.beforeP99)} ms; after: p99 ${ms(r.afterP99)} ms, max ${ms(r.afterMax)} ms; loaded ${r.loadedAfterSwapMs === null ? 'NOT SEEN' : `${r.loadedAfterSwapMs.toFixed(0)} ms`} after the swap`);
}
