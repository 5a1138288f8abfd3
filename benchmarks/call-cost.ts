// What one MCP tool call costs each part of the service: 10 healthy backends, 10 MCP clients in
// another process calling `echo` (4 KiB) in a closed loop, no probes; CPU per call of the main
// thread, the hub, the backend workers, the backend children and the client process, and
// calls/s, over `--repeats` windows. The `bench` suite's `traffic` scenario measures the same
// with probes on top; this script answers "did this change make a call cheaper" in a minute.
//
//   node --import tsx benchmarks/call-cost.ts [--repeats 3] [--seconds 5] [--probe <rate>] [--warmup <s>] [--worker-nice <n>] [--mcp-workers <n>] [--source] [--cpu-prof <dir>]
//
// `--probe 200` probes /health and /health/live at 200 req/s each during every window, as the
// `traffic` scenario's fixed-rate phase does, and adds the /health p99 to each line.
// `--probe-bare` (with `--probe`) then probes the bare node:http server (same body) for as long,
// under the same MCP traffic: the physical limit of a probe's p99 on a machine this busy.
import { startLoad } from './lib/load-client.ts';
import { fixedBoth, phase, startWithHealthy } from './lib/phases.ts';
import { scriptArgs } from './lib/args.ts';
import { mean, sleep } from './lib/stats.ts';
import { startBare } from './lib/service.ts';

const args = scriptArgs({
  usage: 'node --import tsx benchmarks/call-cost.ts [--repeats 3] [--seconds 5] [--probe <rate>] [--probe-bare] [--warmup <s>] [--worker-nice <n>] [--mcp-workers <n>] [--source] [--cpu-prof <dir>]',
  flags: ['--probe-bare', '--source'],
  options: ['--repeats', '--seconds', '--probe', '--warmup', '--worker-nice', '--mcp-workers', '--cpu-prof'],
});
const repeats = args.number('--repeats', 3);
const seconds = args.number('--seconds', 5);
const probeRate = args.number('--probe', 0);
const warmupSeconds = args.number('--warmup', 10);
// `--worker-nice <n>` and `--mcp-workers <n>` are passed to agent serve (its defaults otherwise).
const workerNice = [
  ...(args.has('--worker-nice') ? ['--worker-nice', String(args.number('--worker-nice', 10))] : []),
  ...(args.has('--mcp-workers') ? ['--mcp-workers', String(args.number('--mcp-workers', 1))] : []),
];
const cpuProfDir = args.text('--cpu-prof');
const probeBare = probeRate > 0 && args.has('--probe-bare');

const { agent, names, marker, tmp } = await startWithHealthy('calls', 10, { entry: args.entry, serveArgs: workerNice, ...(cpuProfDir ? { cpuProfDir } : {}) });
type Row = { perSecond: number; p50: number; healthP99: number; bareP99: number; main: number; hub: number; workers: number; children: number; client: number; hubsPct: number[] };
const rows: Row[] = [];
const bare = probeBare ? await startBare(await (await fetch(`${agent.base}/health`)).text(), { marker, tmp }) : null;
try {
  const load = await startLoad({ url: `${agent.base}/mcp`, clients: 10, tools: names.map((n) => `${n}_agent_echo`), textBytes: 4096, warmupCalls: 20, maxSeconds: repeats * seconds + warmupSeconds + 120 }, marker);
  try {
    await load.loop(1);
    await sleep(warmupSeconds * 1000);
    await load.report(); // warm-up window, dropped
    for (let i = 0; i < repeats; i++) {
      const cost = await phase(agent, async () => ({ probes: probeRate ? await fixedBoth(`${agent.base}/health`, `${agent.base}/health/live`, probeRate, seconds) : await sleep(seconds * 1000).then(() => null) }));
      const calls = await load.report();
      const bareProbes = bare ? await fixedBoth(`${bare.base}/`, `${bare.base}/`, probeRate, seconds) : null;
      if (bare) await load.report(); // the bare window's calls are not this window's
      // % of a core ÷ calls per second = ms of CPU per call.
      const per = (pct: number) => Math.round(((pct * 10) / calls.perSecond) * 1000) / 1000;
      const row = {
        perSecond: Math.round(calls.perSecond),
        p50: Math.round(calls.p50 * 100) / 100,
        healthP99: cost.probes ? Math.round(cost.probes.health.p99 * 100) / 100 : NaN,
        bareP99: bareProbes ? Math.round(bareProbes.health.p99 * 100) / 100 : NaN,
        main: per(cost.mainCpuPct),
        hub: per(cost.hubCpuPct.reduce((a, b) => a + b, 0)),
        workers: per(cost.backendWorkersCpuPct),
        children: per(cost.childrenCpuPct),
        client: per(calls.cpuPct),
        // Each hub's share of a core: the one to watch before adding a hub (README, --mcp-workers).
        hubsPct: cost.hubCpuPct.map((pct) => Math.round(pct)),
      };
      rows.push(row);
      process.stdout.write(`window ${i + 1}: ${row.perSecond} calls/s, p50 ${row.p50} ms${probeRate ? `, /health p99 ${row.healthP99} ms` : ''}${bare ? ` (bare ${row.bareP99} ms)` : ''}; CPU ms per call: main ${row.main}, hub ${row.hub}, backend workers ${row.workers}, children ${row.children}, client ${row.client}; hub CPU ${row.hubsPct.join(' / ')} % of a core\n`);
    }
    await load.halt();
  } finally {
    await load.stop();
  }
} finally {
  await bare?.stop();
  await agent.stop();
}
const m = (key: Exclude<keyof Row, 'hubsPct'>) => Math.round(mean(rows.map((r) => r[key])) * 1000) / 1000;
process.stdout.write(`mean: ${m('perSecond')} calls/s${probeRate ? `, /health p99 ${m('healthP99')} ms` : ''}${bare ? ` (bare ${m('bareP99')} ms)` : ''}; CPU ms per call: main ${m('main')}, hub ${m('hub')}, backend workers ${m('workers')}, children ${m('children')}, client ${m('client')}; service ${Math.round((m('main') + m('hub') + m('workers')) * 1000) / 1000}\n`);
process.exit(0);
