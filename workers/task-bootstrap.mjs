// Development entry for piscina task workers (tsx does not register itself in worker threads on
// Node 20): register tsx, then hand piscina the TypeScript task's default export.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const task = await import(workerData.entry);
export default task.default;
