// Does loading a big mcp.json stall the probe path? `/health/live` is probed at 200 req/s
// (keep-alive) for 6 s while, after 2 s, mcp.json is replaced by a 7-8 MB file and the service
// reloads it; p99 and max of the probes before and after the swap (issue 13: "a 10 MB mcp.json
// must not stall a probe").
//
//   node --import tsx benchmarks/config-reload.ts [--kind disabled|many] [--runs 2]
//
// `disabled`: one disabled server with 200,000 args (a single big entry); `many`: 2,000 disabled
// servers of 100 args each. Not in `npm run bench`.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { scriptArgs } from './lib/args.ts';
import { buildDist, ROOT } from './lib/service.ts';
import { sleep } from './lib/stats.ts';

const args = scriptArgs();
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
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-config-reload-'));
  const file = path.join(dir, 'mcp.json');
  fs.writeFileSync(file, JSON.stringify({ mcpServers: small }));
  const child = spawn(process.execPath, [buildDist(), 'serve', '--port', '0', '--host', '127.0.0.1', '--config', file, '--config-dir', dir, '--health-rate-limit', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
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
    for (let waited = 0; loads === 0; waited += 50) {
      if (waited > 30_000 || child.exitCode !== null) throw new Error('the service did not load its configuration');
      await sleep(50);
    }
    await sleep(1_500);
    const samples: { at: number; ms: number }[] = [];
    const probe = () =>
      new Promise<void>((resolve) => {
        const t0 = performance.now();
        http
          .get(`${base}/health/live`, { agent }, (res) => {
            res.resume();
            res.on('end', () => {
              samples.push({ at: t0, ms: performance.now() - t0 });
              resolve();
            });
          })
          .on('error', () => resolve());
      });
    const start = performance.now();
    let swapAt = 0;
    const inFlight: Promise<void>[] = [];
    for (let i = 0; i < RATE * SECONDS; i++) {
      const wait = start + (i * 1000) / RATE - performance.now();
      if (wait > 0) await sleep(wait);
      if (i === SWAP_AT) {
        swapAt = performance.now();
        fs.writeFileSync(`${file}.tmp`, bigText);
        fs.renameSync(`${file}.tmp`, file);
      }
      inFlight.push(probe());
    }
    await Promise.all(inFlight);
    const before = samples.filter((s) => s.at < swapAt).map((s) => s.ms).sort((a, b) => a - b);
    const after = samples.filter((s) => s.at >= swapAt).map((s) => s.ms).sort((a, b) => a - b);
    return { beforeP99: quantile(before, 0.99), afterP99: quantile(after, 0.99), afterMax: after[after.length - 1] ?? Number.NaN, loadedAfterSwapMs: loads > 1 ? lastLoadAt - swapAt : null };
  } finally {
    agent.destroy();
    child.kill('SIGTERM');
    await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`${kind}: mcp.json of ${(Buffer.byteLength(bigText) / 1e6).toFixed(1)} MB, /health/live at ${RATE}/s`);
for (let run = 1; run <= runs; run++) {
  const r = await once();
  const ms = (n: number) => n.toFixed(1);
  console.log(`run ${run}: p99 before the swap ${ms(r.beforeP99)} ms; after: p99 ${ms(r.afterP99)} ms, max ${ms(r.afterMax)} ms; loaded ${r.loadedAfterSwapMs === null ? 'NOT SEEN' : `${r.loadedAfterSwapMs.toFixed(0)} ms`} after the swap`);
}
