// The scheduling priority of a backend's worker thread and child: the service's `--worker-nice`,
// or the server's own `nice` when it asks for a lower priority. Raising one needs privileges the
// service does not take, so a server's `nice` below the service's is not given, and said once.
import type { BackendSpec } from '../shared/backend-spec.ts';

/** The nice value of this backend's worker and child: its own `nice`, never below the service's. */
export function backendNice(spec: BackendSpec, workerNice: number): number {
  const own = spec.type === 'stdio' ? (spec.nice ?? 0) : 0;
  return Math.max(workerNice, own);
}

/** The warning for a server whose `nice` asks for more priority than the service's workers have; null when it does not. */
export function niceNotGiven(spec: BackendSpec, workerNice: number): { fields: Record<string, unknown>; message: string } | null {
  const own = spec.type === 'stdio' ? spec.nice : undefined;
  if (own === undefined || own >= workerNice) return null;
  return {
    fields: { backend: spec.name, nice: own, workerNice },
    message: `nice ${own} is below the service's --worker-nice ${workerNice}: the backend runs at ${workerNice} (a higher priority would need privileges the service does not take)`,
  };
}
