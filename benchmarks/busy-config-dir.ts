// What a busy file next to mcp.json costs the probe path: the service (no backends) runs while
// another process appends 100-byte lines to `agent.log` in the configuration's directory, one
// write each, as a log redirected there does. Main-thread CPU and `/health/live` p99 (200 req/s)
// for 5 s quiet, then 5 s with the writes; then how long a replaced mcp.json takes to load.
//
//   node --import tsx benchmarks/busy-config-dir.ts [--writes-per-second 20000] [--runs 2]
//
// Not in `npm run bench`.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { scriptArgs } from './lib/args.ts';
import { type ReloadingService, startReloadingService } from './lib/reloading-service.ts';
import { sleep } from './lib/stats.ts';

const args = scriptArgs({ usage: 'node --import tsx benchmarks/busy-config-dir.ts [--writes-per-second 20000] [--runs 2]', options: ['--writes-per-second', '--runs'] });
const writesPerSecond = args.number('--writes-per-second', 20_000);
const runs = args.number('--runs', 2);
const RATE = 200;
const SECONDS = 5;
const TICKS_PER_SECOND = 100; // USER_HZ
const quantile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
const mainTicks = (pid: number) => {
  const fields = fs.readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime + stime
};

// The writer: a process of its own, so its writes do not hold this one's probes.
const WRITER = `
const fs = require('node:fs');
const fd = fs.openSync(process.argv[1], 'a');
const line = Buffer.from('x'.repeat(99) + '\\n');
const perTick = Math.max(1, Math.round(Number(process.argv[2]) / 100));
const end = Date.now() + Number(process.argv[3]) * 1000;
const tick = () => { for (let i = 0; i < perTick; i++) fs.writeSync(fd, line); if (Date.now() < end) setTimeout(tick, 10); };
tick();`;

// `/health/live` p99 and the main thread's CPU over a fixed-rate probe.
async function measure(svc: ReloadingService): Promise<{ p99: number; cpuPct: number }> {
  const ticks0 = mainTicks(svc.pid);
  const start = performance.now();
  const samples = await svc.probe(RATE, SECONDS);
  const elapsed = (performance.now() - start) / 1000;
  return { p99: quantile(samples.map((s) => s.ms).sort((a, b) => a - b), 0.99), cpuPct: ((mainTicks(svc.pid) - ticks0) / TICKS_PER_SECOND / elapsed) * 100 };
}

async function once() {
  const svc = await startReloadingService('agent-busy-config-dir-', { mcpServers: {} });
  try {
    await sleep(1_500);
    const quiet = await measure(svc);
    const log = path.join(svc.dir, 'agent.log');
    const writer = spawn(process.execPath, ['-e', WRITER, log, String(writesPerSecond), String(SECONDS + 1)], { stdio: 'ignore' });
    await sleep(500);
    const busy = await measure(svc);
    await new Promise((resolve) => (writer.exitCode !== null ? resolve(null) : writer.once('exit', resolve)));
    const written = fs.statSync(log).size / 100;
    const loads = svc.loads();
    const swapAt = performance.now();
    svc.replace(JSON.stringify({ mcpServers: {}, serverDefaults: { requestTimeout: 12_345 } }));
    for (let waited = 0; svc.loads() === loads && waited < 10_000; waited += 10) await sleep(10);
    return { quiet, busy, writesPerSecond: written / (SECONDS + 1), reloadMs: svc.loads() > loads ? svc.lastLoadAt() - swapAt : null };
  } finally {
    await svc.stop();
  }
}

for (let run = 1; run <= runs; run++) {
  const r = await once();
  const f = (n: number) => n.toFixed(1);
  console.log(
    `run ${run}: quiet: main thread ${f(r.quiet.cpuPct)} % of a core, /health/live p99 ${f(r.quiet.p99)} ms; ` +
      `${Math.round(r.writesPerSecond)} writes/s next to mcp.json: ${f(r.busy.cpuPct)} %, p99 ${f(r.busy.p99)} ms; ` +
      `a replaced mcp.json loaded after ${r.reloadMs === null ? 'NOT SEEN' : `${r.reloadMs.toFixed(0)} ms`}`,
  );
}
