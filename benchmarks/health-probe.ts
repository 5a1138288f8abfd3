// Probe-path benchmark: /health (level full) and /health/live of a real `agent serve` with the
// example backends, against a bare node:http server answering a body of the same size.
// Bounded: each phase runs a fixed time on 127.0.0.1. Usage: node --import tsx benchmarks/health-probe.ts [seconds]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SECONDS = Number(process.argv[2] ?? 5);
const CONCURRENCY = 10;

type Figures = { requests: number; rps: number; p50: number; p99: number; max: number; non2xx: number };

async function load(url: string, seconds: number): Promise<Figures> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const latencies: number[] = [];
  let non2xx = 0;
  const deadline = performance.now() + seconds * 1000;
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const start = performance.now();
      http.get(url, { agent }, (res) => {
        res.resume();
        res.on('end', () => {
          latencies.push(performance.now() - start);
          if ((res.statusCode ?? 0) >= 300) non2xx++;
          resolve();
        });
      }).on('error', reject);
    });
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (performance.now() < deadline) await one();
  }));
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const q = (p: number) => Number((latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0).toFixed(3));
  return { requests: latencies.length, rps: Math.round(latencies.length / seconds), p50: q(0.5), p99: q(0.99), max: q(1), non2xx };
}

async function startAgent(): Promise<{ port: number; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/agent.ts', 'serve', '--port', '0', '--config', 'examples/mcp.json', '--health-info-level', 'full', '--health-rate-limit', '0', '--no-reload'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => (log += c));
  const port = await new Promise<number>((resolve, reject) => {
    const t = setInterval(() => {
      const m = /"port":(\d+)/.exec(log);
      if (m && (log.match(/backend connected/g) ?? []).length >= 2) {
        clearInterval(t);
        resolve(Number(m[1]));
      }
      if (child.exitCode !== null) reject(new Error(log));
    }, 50);
  });
  return { port, stop: () => new Promise((r) => { child.once('exit', () => r()); child.kill('SIGTERM'); }) };
}

const agent = await startAgent();
const sample = await (await fetch(`http://127.0.0.1:${agent.port}/health`)).text();
const bare = http.createServer((_req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.end(sample);
});
await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
const barePort = (bare.address() as { port: number }).port;

const results: Record<string, Figures> = {};
// Interleaved, twice, so drift on a shared machine hits both sides alike.
for (const round of [1, 2]) {
  results[`bare#${round}`] = await load(`http://127.0.0.1:${barePort}/`, SECONDS);
  results[`/health#${round}`] = await load(`http://127.0.0.1:${agent.port}/health`, SECONDS);
  results[`/health/live#${round}`] = await load(`http://127.0.0.1:${agent.port}/health/live`, SECONDS);
}
bare.close();
await agent.stop();

console.table(results);
const out = { date: new Date().toISOString(), machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version }, seconds: SECONDS, concurrency: CONCURRENCY, bodyBytes: sample.length, results };
const file = path.join(ROOT, 'benchmarks/results', `health-probe-${out.date.replace(/[:.]/g, '-')}.json`);
fs.writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
console.log(`written ${path.relative(ROOT, file)}`);
