// Development entry for piscina task workers (tsx does not register itself in worker threads on
// Node 20): register tsx, then hand piscina the TypeScript task's default export.
import { workerData } from 'node:worker_threads';
import priority from './thread-priority.cjs';

// Lowered before tsx compiles anything (workerData.nice, as the bundles' loaders do).
priority.lowerPriority(Number(workerData?.nice ?? 0));
const { register } = await import('tsx/esm/api');
register();
const task = await import(workerData.entry);
export default task.default;
