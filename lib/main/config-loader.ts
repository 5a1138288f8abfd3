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

export class ConfigLoader {
  private pool: Piscina | null = null;

  /** `nice`: the worker's priority, below the probe path. */
  constructor(private readonly nice = 0) {}

  async load(location: ConfigLocation, env: Record<string, string | undefined>): Promise<LoadOutcome> {
    if (!this.pool) {
      const { file, workerData } = workerEntry('config', 'task-bootstrap');
      // Run from source (no bundle), each new worker's tsx starts an esbuild process that nobody
      // reaps once that worker has ended (a zombie per reload): the one worker is kept instead.
      const fromSource = 'entry' in workerData;
      this.pool = new Piscina({ filename: file, workerData: { ...workerData, nice: this.nice }, minThreads: fromSource ? 1 : 0, maxThreads: 1, idleTimeout: IDLE_MS });
      // A worker that fails to load rejects the task; the pool's own 'error' must not end the main thread.
      this.pool.on('error', () => undefined);
    }
    // The servers come serialized one by one and are read between turns (main-thread-config.ts).
    return deserializeOutcome((await this.pool.run({ location, env: { ...env }, platform: process.platform })) as SerializedConfig);
  }

  async close(): Promise<void> {
    await this.pool?.destroy();
    this.pool = null;
  }
}
