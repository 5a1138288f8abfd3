// The harness's side of benchmarks/mcp-load.mjs: starts the MCP client process, sends it
// commands and reads its answers (one JSON line each), and stops it by PID whatever happens.
import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { descendants, killPids, waitUntilDead } from './procs.ts';
import { BENCH, cleanEnv, ROOT, track } from './service.ts';
import { sleep } from './stats.ts';

export type LoadConfig = {
  /** The service's /mcp, or `direct` for a fixture spawned by the load process itself. */
  url?: string;
  direct?: { fixture: string; env: Record<string, string> };
  clients: number;
  /** Client i calls tools[i % tools.length]. */
  tools: string[];
  textBytes: number;
  warmupCalls: number;
  /** The load process exits by itself after this long. */
  maxSeconds: number;
};

/** Calls completed in a window: how many, how fast, and the load process's own CPU (% of one core). */
export type CallWindow = { calls: number; errors: number; seconds: number; perSecond: number; p50: number; p99: number; max: number; cpuPct: number };

/** One traced call as the client saw it: [seq, sent µs, fetch called µs (null direct), answered µs]. */
export type ClientTrace = [number, number, number | null, number][];

export type LoadProcess = {
  pid: number;
  connectMs: number;
  loop(callers: number): Promise<void>;
  report(): Promise<CallWindow>;
  halt(): Promise<void>;
  run(callers: number, seconds: number): Promise<CallWindow>;
  trace(calls: number): Promise<ClientTrace>;
  /** Asks it to stop, then kills it (and anything it spawned) if it has not exited within 5 s. */
  stop(): Promise<void>;
};

const SCRIPT = path.join(BENCH, 'mcp-load.mjs');

// A window's percentiles are null when no call completed; the harness's figures are NaN then.
const window = (w: Record<string, number | null>): CallWindow => Object.fromEntries(Object.entries(w).map(([k, v]) => [k, v ?? Number.NaN])) as CallWindow;

export async function startLoad(config: LoadConfig, marker: string, env: Record<string, string> = {}): Promise<LoadProcess> {
  const child = spawn(process.execPath, [SCRIPT, JSON.stringify(config), marker], { cwd: ROOT, env: cleanEnv(env), stdio: ['pipe', 'pipe', 'inherit'] });
  track(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const answers: unknown[] = [];
  let waiter: (() => void) | null = null;
  readline.createInterface({ input: child.stdout! }).on('line', (line) => {
    answers.push(JSON.parse(line));
    waiter?.();
  });
  const next = async <T>(timeoutMs: number): Promise<T> => {
    const deadline = performance.now() + timeoutMs;
    while (!answers.length) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`mcp-load exited (${child.exitCode ?? child.signalCode})`);
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`mcp-load did not answer within ${timeoutMs} ms`);
      await Promise.race([new Promise<void>((r) => (waiter = r)), sleep(Math.min(left, 250))]);
      waiter = null;
    }
    const answer = answers.shift() as T & { error?: string };
    if (answer.error) throw new Error(`mcp-load: ${answer.error}`);
    return answer;
  };
  const ask = async <T>(command: Record<string, unknown>, timeoutMs = 30_000): Promise<T> => {
    child.stdin!.write(`${JSON.stringify(command)}\n`);
    return next<T>(timeoutMs);
  };
  const stop = async () => {
    const spawned = descendants(child.pid!);
    if (child.exitCode === null && child.signalCode === null) child.stdin!.end(`${JSON.stringify({ cmd: 'stop' })}\n`);
    const done = await Promise.race([exited.then(() => true), sleep(5_000).then(() => false)]);
    if (!done) killPids([child.pid!]);
    killPids(await waitUntilDead(spawned, 3_000));
  };
  try {
    const ready = await next<{ connectMs: number }>(config.maxSeconds * 1000);
    return {
      pid: child.pid!,
      connectMs: ready.connectMs,
      loop: async (callers) => void (await ask({ cmd: 'loop', callers })),
      report: async () => window(await ask({ cmd: 'report' })),
      halt: async () => void (await ask({ cmd: 'halt' })),
      run: async (callers, seconds) => window(await ask({ cmd: 'run', callers, seconds }, seconds * 1000 + 30_000)),
      trace: async (calls) => (await ask<{ trace: ClientTrace }>({ cmd: 'trace', calls }, 60_000)).trace,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
