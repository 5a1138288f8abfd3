// The bundle's side of workers/script-loader.cjs: what became of the code cache this worker was
// given, and the moment to make one (after the first connect, so the code that spawns, connects
// and lists is in it too). Without the loader (running from source) there is nothing to do.
export type CodeCacheOutcome = 'accepted' | 'rejected' | 'none';

type Loader = { outcome: CodeCacheOutcome; makeCache: () => void };

const loader = (globalThis as Record<symbol, unknown>)[Symbol.for('agent.codeCache')] as Loader | undefined;

/** 'accepted': compiled from the cache; 'rejected': V8 refused it (another Node, other flags); 'none': none given; null: not loaded by the loader. */
export function codeCacheOutcome(): CodeCacheOutcome | null {
  return loader?.outcome ?? null;
}

/** Makes the cache and sends it to the main thread, once, when this worker compiled without one. */
export function makeCodeCache(): void {
  try {
    loader?.makeCache();
  } catch {
    /* a cache is an optimization: the next worker compiles from source */
  }
}
