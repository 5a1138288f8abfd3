// Gives the service's worker threads a `gc` function (lib/backend/settled-gc.ts): V8 reads the
// flag when it creates a context, so it must be set before the first worker starts. It changes
// V8's flag hash, which a code cache is tied to: set at every start, the shared backend cache
// (lib/main/code-cache.ts) is made and read under the same flags.
import v8 from 'node:v8';

export function exposeGcToWorkers(): void {
  v8.setFlagsFromString('--expose-gc');
}
