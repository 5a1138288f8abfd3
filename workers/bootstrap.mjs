// Development entry for worker threads: on Node 20 tsx does not register itself in workers,
// so register it here and then load the TypeScript entry named in workerData.
import { workerData } from 'node:worker_threads';
import priority from './thread-priority.cjs';

// Lowered before tsx compiles anything (workerData.nice, as the bundles' loaders do).
priority.lowerPriority(Number(workerData?.nice ?? 0));
const { register } = await import('tsx/esm/api');
register();
await import(workerData.entry);
