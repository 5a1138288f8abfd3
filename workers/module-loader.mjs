// Entry of the threads whose code is an ES module bundle (a hub; the configuration and token
// pools' tasks): lowers the thread's priority first (workerData.nice), then loads the bundle
// (workerData.bundle), so the bundle's compile and set-up already run below the probe path, as
// script-loader.cjs does for backend workers. piscina takes a task from the default export.
import { workerData } from 'node:worker_threads';
import priority from './thread-priority.cjs';

priority.lowerPriority(Number(workerData?.nice ?? 0));
const loaded = await import(workerData.bundle);
export default loaded.default;
