import { fileURLToPath } from 'node:url';

// Where a worker entry lives: compiled `.js` beside us in dist/, or the `.ts` source run through
// the tsx bootstrap (tsx does not register itself in worker threads on Node 20; see stack.md).
export function workerEntry(name: string, bootstrap = 'bootstrap'): { file: string; workerData: Record<string, unknown> } {
  const fromSource = import.meta.url.endsWith('.ts');
  const entry = new URL(`../../workers/${name}${fromSource ? '.ts' : '.js'}`, import.meta.url);
  if (!fromSource) return { file: fileURLToPath(entry), workerData: {} };
  return { file: fileURLToPath(new URL(`../../workers/${bootstrap}.mjs`, import.meta.url)), workerData: { entry: entry.href } };
}
