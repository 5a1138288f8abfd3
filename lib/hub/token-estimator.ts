// Approximate token counts of tool definitions, computed in a piscina pool and cached per
// content hash, so the main thread only hashes and looks up.
import { createHash } from 'node:crypto';
import { Piscina } from 'piscina';
import { workerEntry } from '../shared/worker-entry.ts';

const MAX_CACHE_ENTRIES = 10_000;

export class TokenEstimator {
  private readonly cache = new Map<string, Promise<number>>();
  private pool: Piscina | null = null;

  private get workers(): Piscina {
    if (!this.pool) {
      const { file, workerData, execArgv } = workerEntry('tokens', 'task-bootstrap');
      // One worker is enough: counts are cached and the machine has two cores.
      this.pool = new Piscina({ filename: file, workerData, ...(execArgv ? { execArgv } : {}), minThreads: 0, maxThreads: 1, idleTimeout: 30_000 });
      // A worker that fails to load rejects the task; the pool's own 'error' must not end the hub.
      this.pool.on('error', () => undefined);
    }
    return this.pool;
  }

  /** Tokens of `value` serialized as JSON (for a tool: its name, description and input schema). */
  count(value: unknown): Promise<number> {
    const text = JSON.stringify(value);
    const key = createHash('sha256').update(text).digest('base64url');
    let pending = this.cache.get(key);
    if (!pending) {
      if (this.cache.size >= MAX_CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value as string);
      pending = this.workers.run(text) as Promise<number>;
      pending.catch(() => this.cache.delete(key));
      this.cache.set(key, pending);
    }
    return pending;
  }

  async close(): Promise<void> {
    await this.pool?.destroy();
    this.pool = null;
  }
}
