// Loads the configuration in a piscina worker (workers/config.ts): parsing, zod validation and
// merging stay off the main thread. One worker, ended as soon as it has answered: it holds zod
// and the config code (about 15 MB), and reloads are rare; the next one starts a new worker.
import { Piscina } from 'piscina';
import type { LoadOutcome } from '../config/load.ts';
import type { ConfigLocation } from '../config/paths.ts';
import { workerEntry } from '../shared/worker-entry.ts';

/** Idle time before the config worker ends: none (it was 60 s; benchmarks/README.md, "cost per backend"). */
const IDLE_MS = 0;

export class ConfigLoader {
  private pool: Piscina | null = null;

  /** `nice`: the worker's priority, below the probe path. */
  constructor(private readonly nice = 0) {}

  load(location: ConfigLocation, env: Record<string, string | undefined>): Promise<LoadOutcome> {
    if (!this.pool) {
      const { file, workerData } = workerEntry('config', 'task-bootstrap');
      this.pool = new Piscina({ filename: file, workerData: { ...workerData, nice: this.nice }, minThreads: 0, maxThreads: 1, idleTimeout: IDLE_MS });
      // A worker that fails to load rejects the task; the pool's own 'error' must not end the main thread.
      this.pool.on('error', () => undefined);
    }
    return this.pool.run({ location, env: { ...env }, platform: process.platform }) as Promise<LoadOutcome>;
  }

  async close(): Promise<void> {
    await this.pool?.destroy();
    this.pool = null;
  }
}
