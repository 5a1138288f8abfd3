// The probe path alone: `/health` saturated on the service (10 healthy backends, nothing else)
// and on the bare node:http server with the same body, interleaved, `--repeats` times. The
// ratio is the `bench` suite's "saturation, idle ÷ bare"; this script runs it in about a minute
// so a change to the main thread's request handling can be measured before and after.
//
//   node --import tsx benchmarks/health-path.ts [--repeats 3] [--seconds 5] [--source] [--cpu-prof <dir>]
import { saturate } from './lib/load.ts';
import { fixedBoth, phase, startWithHealthy } from './lib/phases.ts';
import { scriptArgs } from './lib/args.ts';
import { startBare } from './lib/service.ts';
import { sleep } from './lib/stats.ts';

const args = scriptArgs({ usage: 'node --import tsx benchmarks/health-path.ts [--repeats 3] [--seconds 5] [--connections 10] [--source] [--cpu-prof <dir>]', flags: ['--source'], options: ['--repeats', '--seconds', '--connections', '--cpu-prof'] });
const repeats = args.number('--repeats', 3);
const seconds = args.number('--seconds', 5);
const connections = args.number('--connections', 10);
const cpuProfDir = args.text('--cpu-prof');

const { agent, marker, tmp } = await startWithHealthy('health', 10, { entry: args.entry, ...(cpuProfDir ? { cpuProfDir } : {}) });
const rows: { agent: number; bare: number; mainCpuPct: number; bareCpuPct: number }[] = [];
try {
  await sleep(2_000);
  const body = await (await fetch(`${agent.base}/health`)).text();
  const bare = await startBare(body, { marker, tmp });
  try {
    await saturate(`${agent.base}/health`, 1, connections); // warm-up
    for (let i = 0; i < repeats; i++) {
      const a = await phase(agent, () => saturate(`${agent.base}/health`, seconds, connections));
      const b = await phase(bare, () => saturate(`${bare.base}/`, seconds, connections));
      rows.push({ agent: Math.round(a.rps), bare: Math.round(b.rps), mainCpuPct: Math.round(a.mainCpuPct), bareCpuPct: Math.round(b.mainCpuPct) });
      // Main-thread CPU per request says what the route costs, whatever share of a core it got.
      const perReq = (pct: number, rps: number) => ((pct / 100) * 1e6 / rps).toFixed(1);
      process.stdout.write(`repeat ${i + 1}: service ${Math.round(a.rps)} req/s (${perReq(a.mainCpuPct, a.rps)} µs main CPU each), bare ${Math.round(b.rps)} req/s (${perReq(b.mainCpuPct, b.rps)} µs), ratio ${(a.rps / b.rps).toFixed(2)}\n`);
    }
    // The fixed rate of the suite (200/s on /health and on /health/live): CPU per probe when probes wake an idle thread.
    const fixed = await phase(agent, () => fixedBoth(`${agent.base}/health`, `${agent.base}/health/live`, 200, seconds));
    const fixedBare = await phase(bare, () => fixedBoth(`${bare.base}/`, `${bare.base}/`, 200, seconds));
    const perProbe = (pct: number) => ((pct / 100) * 1e6 / 400).toFixed(1);
    process.stdout.write(`fixed 2 × 200/s: service ${perProbe(fixed.mainCpuPct)} µs main CPU per probe (p99 ${fixed.health.p99.toFixed(2)} ms), bare ${perProbe(fixedBare.mainCpuPct)} µs (p99 ${fixedBare.health.p99.toFixed(2)} ms)\n`);
  } finally {
    await bare.stop();
  }
} finally {
  await agent.stop();
}
const ratios = rows.map((r) => r.agent / r.bare).sort((x, y) => x - y);
process.stdout.write(`median idle ÷ bare: ${ratios[Math.floor(ratios.length / 2)]!.toFixed(2)} (${JSON.stringify(rows)})\n`);
process.exit(0);
