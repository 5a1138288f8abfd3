// The built service on a scratch mcp.json, for the benchmarks that change that file while probing
// (`config-reload.ts`, `busy-config-dir.ts`): its base URL once it has loaded, how many loads it
// has logged and when the last one came, `/health/live` probed at a fixed rate, and a stop that
// removes the scratch directory.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { buildDist } from './service.ts';
import { sleep } from './stats.ts';

export type ReloadingService = {
  dir: string;
  file: string;
  base: string;
  pid: number;
  /** `configuration loaded` lines so far. */
  loads(): number;
  /** performance.now() of the last of them. */
  lastLoadAt(): number;
  /** Replaces mcp.json the way editors do (write beside, rename). */
  replace(text: string): void;
  /** `/health/live` at `rate` per second for `seconds` (keep-alive): each probe's start and latency, ms. */
  probe(rate: number, seconds: number, onTick?: (i: number) => void): Promise<{ at: number; ms: number }[]>;
  stop(): Promise<void>;
};

export async function startReloadingService(prefix: string, config: unknown, extraArgs: string[] = []): Promise<ReloadingService> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const file = path.join(dir, 'mcp.json');
  fs.writeFileSync(file, JSON.stringify(config));
  const child = spawn(process.execPath, [buildDist(), 'serve', '--port', '0', '--host', '127.0.0.1', '--config', file, '--health-rate-limit', '0', ...extraArgs], { stdio: ['ignore', 'ignore', 'pipe'] });
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
  const stop = async () => {
    agent.destroy();
    child.kill('SIGTERM');
    await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let waited = 0; loads === 0 || !base; waited += 50) {
      if (waited > 30_000 || child.exitCode !== null) throw new Error('the service did not load its configuration');
      await sleep(50);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const probeOnce = (samples: { at: number; ms: number }[]) =>
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
  return {
    dir,
    file,
    base,
    pid: child.pid!,
    loads: () => loads,
    lastLoadAt: () => lastLoadAt,
    replace(text) {
      fs.writeFileSync(`${file}.tmp`, text);
      fs.renameSync(`${file}.tmp`, file);
    },
    async probe(rate, seconds, onTick) {
      const samples: { at: number; ms: number }[] = [];
      const start = performance.now();
      const inFlight: Promise<void>[] = [];
      for (let i = 0; i < rate * seconds; i++) {
        const wait = start + (i * 1000) / rate - performance.now();
        if (wait > 0) await sleep(wait);
        onTick?.(i);
        inFlight.push(probeOnce(samples));
      }
      await Promise.all(inFlight);
      return samples;
    },
    stop,
  };
}
