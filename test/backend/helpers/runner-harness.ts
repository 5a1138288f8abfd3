// Drives a real BackendRunner from the test thread: fixture specs, the events it emits, its log
// lines, and a cleanup that proves every child it spawned is gone.
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { BackendRunner, type RunnerOptions } from '../../../lib/backend/runner.ts';
import type { BackendSpec, StdioSpec } from '../../../lib/config/types.ts';
import type { RunnerEvent } from '../../../lib/shared/messages/state-events.ts';
import { isAlive } from '../../helpers/processes.ts';

export const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures');
export const STDIO_SERVER = path.join(FIXTURES, 'stdio-server.mjs');

export function backendFixture(name: string): string {
  return path.join(FIXTURES, 'backends', name);
}

/** A stdio spec running `node <script> [args...]`. */
export function stdioSpec(name: string, script: string | [string, ...string[]], overrides: Partial<StdioSpec> = {}): StdioSpec {
  return commandSpec(name, process.execPath, typeof script === 'string' ? [script] : script, overrides);
}

/** A stdio spec running any command. */
export function commandSpec(name: string, command: string, args: string[], overrides: Partial<StdioSpec> = {}): StdioSpec {
  return {
    name,
    type: 'stdio',
    tags: [],
    command,
    args,
    cwd: undefined,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    stderr: 'pipe',
    connectionTimeout: 10_000,
    requestTimeout: 10_000,
    protocolVersion: 'auto',
    disabledTools: [],
    toolDescriptionOverrides: {},
    supervision: { restartOnExit: false, maxRestarts: 5, restartDelay: 1000 },
    ...overrides,
  };
}

/** Fails instead of hanging when `promise` does not settle within `ms`. */
export async function bounded<T>(promise: Promise<T>, what: string, ms = 20_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not done within ${ms} ms`)), ms)));
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

export type LogLine = Record<string, unknown> & { level: number; msg: string };

export type Harness = {
  runner: BackendRunner;
  events: RunnerEvent[];
  logs: LogLine[];
  /** Pids of every child the runner reported spawning. */
  pids: () => number[];
  /** For each spawn after the first: the earlier children that were still alive at that moment. */
  overlaps: number[][];
  /** The first event (from `from` on) that matches; rejects after `timeoutMs`. */
  next: <T extends RunnerEvent['type']>(type: T, match?: (event: Extract<RunnerEvent, { type: T }>) => boolean, from?: number, timeoutMs?: number) => Promise<Extract<RunnerEvent, { type: T }>>;
  /** Stops the runner and fails if any child it spawned is still alive. */
  close: () => Promise<void>;
};

export const DEFAULT_OPTIONS: RunnerOptions = { pingIntervalMs: 60_000, pingTimeoutMs: 5_000, maxMessageBytes: 16 * 1024 * 1024, stateDir: null };

export function harness(spec: BackendSpec, options: Partial<RunnerOptions> = {}): Harness {
  const events: RunnerEvent[] = [];
  const logs: LogLine[] = [];
  const overlaps: number[][] = [];
  const wakers = new Set<() => void>();
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString().split('\n')) if (line) logs.push(JSON.parse(line) as LogLine);
      callback();
    },
  });
  const log = pino({ level: 'debug', base: undefined }, sink);
  const runner = new BackendRunner(spec, (event) => {
    if (event.type === 'connecting' && pids().length > 0) overlaps.push(pids().filter(isAlive));
    events.push(event);
    for (const wake of wakers) wake();
  }, log, { ...DEFAULT_OPTIONS, ...options });
  const pids = () => events.flatMap((e) => (e.type === 'connecting' && e.pid !== null ? [e.pid] : []));

  const next: Harness['next'] = (type, match = () => true, from = 0, timeoutMs = 15_000) =>
    new Promise((resolve, reject) => {
      const check = () => {
        const found = events.slice(from).find((e) => e.type === type && match(e as never));
        if (!found) return;
        done();
        resolve(found as never);
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no '${type}' event within ${timeoutMs} ms; events: ${events.map((e) => e.type).join(', ')}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        wakers.delete(check);
      };
      wakers.add(check);
      check();
    });

  return {
    runner,
    events,
    logs,
    pids,
    overlaps,
    next,
    async close() {
      await bounded(runner.stop(500), 'runner.stop');
      const alive = pids().filter(isAlive);
      if (alive.length > 0) throw new Error(`children still alive after stop: ${alive.join(', ')}`);
    },
  };
}
