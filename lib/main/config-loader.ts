// Loads the configuration in a piscina worker (workers/config.ts): parsing, zod validation and
// merging stay off the main thread. One worker, ended as soon as it has answered: it holds zod
// and the config code (about 15 MB), and reloads are rare; the next one starts a new worker
// (run from source, the one worker is kept: see below).
import { Piscina } from 'piscina';
import type { LoadOutcome } from '../config/load.ts';
import { deserializeOutcome, type SerializedConfig } from '../config/main-thread-config.ts';
import type { ConfigLocation } from '../config/paths.ts';
import { workerEntry } from '../shared/worker-entry.ts';

/** Idle time before the config worker ends: none (it was 60 s; benchmarks/README.md, "cost per backend"). */
const IDLE_MS = 0;
/** A load that takes longer has failed (a 10 MB file takes about 1 s). */
export const CONFIG_LOAD_TIMEOUT_MS = 30_000;

export class ConfigLoader {
  private pool: Piscina | null = null;
  /** How to end each load in progress (the loader closing). */
  private readonly pending = new Set<(error: Error) => void>();

  /** `nice`: the worker's priority, below the probe path; `timeoutMs`: see CONFIG_LOAD_TIMEOUT_MS. */
  constructor(
    private readonly nice = 0,
    private readonly timeoutMs = CONFIG_LOAD_TIMEOUT_MS,
  ) {}

  /**
   * One load; it settles within `timeoutMs` whatever happens to the worker. A worker that cannot
   * start (the process out of file descriptors: it waits for one, or fails) would otherwise hold
   * this load, and every reload queued behind it, for as long as that lasts. Such a pool is left
   * to itself (destroying it while its worker starts would leave that worker's failure unheard,
   * which ends the process) and the next load starts a new one.
   */
  async load(location: ConfigLocation, env: Record<string, string | undefined>): Promise<LoadOutcome> {
    const pool = this.poolNow();
    let timer: NodeJS.Timeout | undefined;
    let end: (error: Error) => void = () => undefined;
    const ended = new Promise<never>((_, reject) => {
      end = reject;
      timer = setTimeout(() => reject(new Error(`the configuration worker did not answer within ${this.timeoutMs / 1000} s (out of file descriptors or memory?)`)), this.timeoutMs);
    });
    this.pending.add(end);
    try {
      // The servers come serialized one by one and are read between turns (main-thread-config.ts).
      const serialized = (await Promise.race([pool.run({ location, env: { ...env }, platform: process.platform }), ended])) as SerializedConfig;
      return await deserializeOutcome(serialized);
    } catch (error) {
      if (this.pool === pool) this.pool = null;
      throw error;
    } finally {
      clearTimeout(timer);
      this.pending.delete(end);
    }
  }

  private poolNow(): Piscina {
    if (!this.pool) {
      const { file, workerData, execArgv } = workerEntry('config', 'task-bootstrap');
      // Run from source (no bundle), each new worker's tsx starts an esbuild process that nobody
      // reaps once that worker has ended (a zombie per reload): the one worker is kept instead.
      const fromSource = 'entry' in workerData;
      this.pool = new Piscina({ filename: file, workerData: { ...workerData, nice: this.nice }, ...(execArgv ? { execArgv } : {}), minThreads: fromSource ? 1 : 0, maxThreads: 1, idleTimeout: IDLE_MS });
      // A worker that fails to load rejects the task; the pool's own 'error' must not end the main thread.
      this.pool.on('error', () => undefined);
    }
    return this.pool;
  }

  /** Ends the loads in progress (their pool is left to itself, see load()); otherwise stops the worker. */
  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = null;
    if (this.pending.size) {
      for (const end of this.pending) end(new Error('the service is stopping'));
      return;
    }
    await pool?.destroy();
  }
}
