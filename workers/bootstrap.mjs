// Development entry for worker threads: on Node 20 tsx does not register itself in workers,
// so register it here and then load the TypeScript entry named in workerData.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
