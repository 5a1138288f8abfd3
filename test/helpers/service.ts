// Starts the real `agent serve` CLI on an ephemeral port and gives tests its logs and port.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const FIXTURE_SERVER = path.join(ROOT, 'test/fixtures/stdio-server.mjs');
/** A backend of test/fixtures/backends, named after the way it fails. */
export const backendFixture = (name: string): string => path.join(ROOT, 'test/fixtures/backends', name);
export const EVERYTHING_SERVER = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

export type LogLine = Record<string, unknown> & { msg?: string; level?: number };

export type Service = {
  child: ChildProcess;
  port: number;
  base: string;
  dir: string;
  configFile: string;
  logs: LogLine[];
  get: (route: string) => Promise<{ status: number; headers: Headers; body: any }>;
  waitForLog: (predicate: (line: LogLine) => boolean, timeoutMs?: number) => Promise<LogLine>;
  waitFor: <T>(probe: () => Promise<T | undefined | false>, what: string, timeoutMs?: number) => Promise<T>;
  stop: (signal?: NodeJS.Signals) => Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
};

// Every scratch directory a test process made goes when that process exits, whatever a test
// forgot: a full run used to leave a dozen behind.
const scratch: string[] = [];
process.once('exit', () => {
  for (const dir of scratch) {
    try {
      fs.rmSync(dir, { recursive: true, force: true });
    } catch (error) {
      process.stderr.write(`could not remove the scratch directory ${dir}: ${(error as Error).message}\n`);
    }
  }
});

export function tempDir(prefix = 'agent-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  scratch.push(dir);
  return dir;
}

export function writeConfig(file: string, config: unknown): void {
  // Atomic replace, the way editors and ConfigMaps do it.
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, typeof config === 'string' ? config : JSON.stringify(config, null, 2));
  fs.renameSync(tmp, file);
}

export async function poll<T>(probe: () => Promise<T | undefined | false>, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}

export type StartOptions = {
  config?: unknown;
  args?: string[];
  env?: Record<string, string>;
  configText?: string;
  /** A test entry in place of `bin/agent.ts serve` (it takes the same serve options). */
  entry?: string;
  /** Use this configuration directory (kept on stop) instead of a fresh one. */
  dir?: string;
  /** A command the service runs under (it execs node, so the pid is the service's): `setpriv ...` for a root that meets "permission denied". */
  prefix?: string[];
};

export async function startService(options: StartOptions = {}): Promise<Service> {
  const dir = options.dir ?? tempDir();
  const keep = options.dir !== undefined;
  const configFile = path.join(dir, 'mcp.json');
  if (options.configText !== undefined) fs.writeFileSync(configFile, options.configText);
  else if (options.config !== undefined) writeConfig(configFile, options.config);
  const argv = ['--import', 'tsx', ...(options.entry ? [options.entry] : [path.join(ROOT, 'bin/agent.ts'), 'serve']), '--port', '0', '--config', configFile, ...(options.args ?? [])];
  const [command, ...prefixArgs] = options.prefix ?? [];
  const child = spawn(command ?? process.execPath, command ? [...prefixArgs, process.execPath, ...argv] : argv, {
    cwd: ROOT,
    env: { ...process.env, AGENT_HEALTH_INFO_LEVEL: '', ...options.env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const logs: LogLine[] = [];
  const waiters = new Set<() => void>();
  let buffered = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    let nl: number;
    while ((nl = buffered.indexOf('\n')) !== -1) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      try {
        logs.push(JSON.parse(line) as LogLine);
      } catch {
        logs.push({ msg: line, raw: true });
      }
    }
    for (const wake of waiters) wake();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));

  const waitForLog = (predicate: (line: LogLine) => boolean, timeoutMs = 15_000) =>
    new Promise<LogLine>((resolve, reject) => {
      const check = () => {
        const found = logs.find(predicate);
        if (!found) return;
        cleanup();
        resolve(found);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`timed out waiting for a log line; last lines:\n${logs.slice(-10).map((l) => JSON.stringify(l)).join('\n')}`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });

  let listening: LogLine;
  try {
    listening = await Promise.race([
      // A JSON line, or a --log-format pretty one (`<time> INFO listening on http://...`).
      waitForLog((l) => typeof l.msg === 'string' && /^(?:\S+ INFO )?listening on /.test(l.msg)),
      exited.then((e) => {
        throw new Error(`service exited early (${e.code ?? e.signal}): ${logs.map((l) => l.msg).join(' | ')}`);
      }),
    ]);
  } catch (error) {
    // Never leave a half-started service (and its backends) behind: SIGTERM stops them all.
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    if (!keep) fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const port = Number(listening.port ?? /listening on http:\/\/[^\s]+:(\d+)/.exec(String(listening.msg))?.[1]);
  const base = `http://127.0.0.1:${port}`;
  return {
    child,
    port,
    base,
    dir,
    configFile,
    logs,
    waitForLog,
    waitFor: poll,
    async get(route) {
      const res = await fetch(base + route);
      const text = await res.text();
      return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const result = await exited;
      if (!keep) fs.rmSync(dir, { recursive: true, force: true });
      return result;
    },
  };
}

/** Runs the CLI to completion and returns its exit code and output. */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bin/agent.ts'), ...args], { cwd: ROOT, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
