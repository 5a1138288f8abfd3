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
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { scriptArgs } from './lib/args.ts';
import { buildDist } from './lib/service.ts';
import { sleep } from './lib/stats.ts';

const args = scriptArgs();
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

async function probe(base: string, agent: http.Agent, seconds: number, pid: number): Promise<{ p99: number; cpuPct: number }> {
  const samples: number[] = [];
  const ticks0 = mainTicks(pid);
  const start = performance.now();
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < RATE * seconds; i++) {
    const wait = start + (i * 1000) / RATE - performance.now();
    if (wait > 0) await sleep(wait);
    inFlight.push(
      new Promise<void>((resolve) => {
        const t0 = performance.now();
        http
          .get(`${base}/health/live`, { agent }, (res) => {
            res.resume();
            res.on('end', () => {
              samples.push(performance.now() - t0);
              resolve();
            });
          })
          .on('error', () => resolve());
      }),
    );
  }
  await Promise.all(inFlight);
  const elapsed = (performance.now() - start) / 1000;
  return { p99: quantile(samples.sort((a, b) => a - b), 0.99), cpuPct: ((mainTicks(pid) - ticks0) / TICKS_PER_SECOND / elapsed) * 100 };
}

async function once() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-busy-config-dir-'));
  const file = path.join(dir, 'mcp.json');
  fs.writeFileSync(file, JSON.stringify({ mcpServers: {} }));
  const child = spawn(process.execPath, [buildDist(), 'serve', '--port', '0', '--host', '127.0.0.1', '--config', file, '--health-rate-limit', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let base = '';
  let loads = 0;
  let lastLoadAt = 0;
  let pending = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk;
    for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      base ||= /listening on (http:\/\/[^"]+)/.exec(line)?.[1] ?? '';
      if (line.includes('configuration loaded')) {
        loads++;
        lastLoadAt = performance.now();
      }
    }
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  try {
    for (let waited = 0; loads === 0 || !base; waited += 50) {
      if (waited > 30_000 || child.exitCode !== null) throw new Error('the service did not load its configuration');
      await sleep(50);
    }
    await sleep(1_500);
    const quiet = await probe(base, agent, SECONDS, child.pid!);
    const writer = spawn(process.execPath, ['-e', WRITER, path.join(dir, 'agent.log'), String(writesPerSecond), String(SECONDS + 1)], { stdio: 'ignore' });
    await sleep(500);
    const busy = await probe(base, agent, SECONDS, child.pid!);
    await new Promise((resolve) => (writer.exitCode !== null ? resolve(null) : writer.once('exit', resolve)));
    const written = fs.statSync(path.join(dir, 'agent.log')).size / 100;
    const swapAt = performance.now();
    fs.writeFileSync(`${file}.tmp`, JSON.stringify({ mcpServers: {}, serverDefaults: { requestTimeout: 12_345 } }));
    fs.renameSync(`${file}.tmp`, file);
    for (let waited = 0; loads < 2 && waited < 10_000; waited += 10) await sleep(10);
    return { quiet, busy, writesPerSecond: written / (SECONDS + 1), reloadMs: loads > 1 ? lastLoadAt - swapAt : null };
  } finally {
    agent.destroy();
    child.kill('SIGTERM');
    await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
    fs.rmSync(dir, { recursive: true, force: true });
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
